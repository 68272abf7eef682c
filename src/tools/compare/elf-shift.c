/* SPDX-License-Identifier: MIT */
/* elf-shift.c - an x86-64 shared object moved within its pages
 * (elf-shift.h says why).
 *
 * Every address the dynamic loader reads from the file moves by the same
 * amount k = 4096 + offset, and the file's bytes move by k with them, so
 * that each segment keeps its offset congruent to its address:
 *   - the program headers, rewritten in the copy's first page after the
 *     new ELF header, under a read-only segment of their own, the first
 *     (a loader finds them in memory: glibc copies program headers that no
 *     segment maps, musl does not, and there dladdr() and
 *     dl_iterate_phdr(), and with them a copy's unwind tables, found
 *     nothing of the copy);
 *   - the dynamic entries that hold addresses (DT_SYMTAB, DT_INIT_ARRAY,
 *     ...); the others are sizes, flags and string offsets;
 *   - the dynamic symbols defined in the object (not the absolute ones,
 *     and not TLS ones, whose values are offsets in the TLS block);
 *   - every relocation's place, and the addend of those that are this
 *     object's own addresses (RELATIVE, IRELATIVE); a lazily bound GOT
 *     slot's initial content (the address of its PLT entry), and GOT[0]
 *     (the dynamic section's address).
 * The code itself and the unwind tables hold only relative references,
 * which a move of everything leaves right.  The section headers are not
 * carried over (the loader does not read them).  Anything this cannot
 * vouch for (REL or packed relocations, an unknown dynamic entry or
 * relocation type, two PT_PHDR segments, absolute unwind-table pointers,
 * a section aligned to a page, a static PIE, an ET_EXEC) is refused with
 * a reason, before anything is written. */
#include "elf-shift.h"
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096UL
#define MAX_PHDRS 64 /* the copy's, one more than the file's */
/* Numbers an older <elf.h> (or musl's) may lack. */
#define TAG_RELRSZ 35
#define TAG_RELR 36
#define TAG_RELRENT 37
#ifndef DF_1_PIE
#define DF_1_PIE 0x08000000
#endif
#define TAG_FEATURE_1 0x6ffffdfc
#define TAG_X86_64_PLT 0x70000000
#define TAG_X86_64_PLTSZ 0x70000001
#define TAG_X86_64_PLTENT 0x70000003
#define TYPE_RELATIVE64 38

struct object {
  const unsigned char *p;
  size_t n;
  Elf64_Ehdr eh;
  Elf64_Phdr ph[MAX_PHDRS];
  size_t dyn_off, dyn_count;           /* the dynamic entries, in the file */
  Elf64_Addr dyn_vaddr, pltgot;        /* their address, and DT_PLTGOT's */
  size_t sym_off, sym_count;           /* the dynamic symbols */
  size_t rela_off[2], rela_count[2];   /* DT_RELA's and DT_JMPREL's tables */
  unsigned long step;
};

static int within(unsigned long long off, unsigned long long len, size_t n)
{
  return off <= n && len <= n - off;
}

/* The file offset of the len bytes at address vaddr, all in one loaded
 * segment's file bytes; -1 when they are not. */
static int file_offset(const struct object *o, unsigned long long vaddr, unsigned long long len,
                       size_t *off)
{
  int i;
  for (i = 0; i < o->eh.e_phnum; i++) {
    const Elf64_Phdr *ph = &o->ph[i];
    if (ph->p_type != PT_LOAD || vaddr < ph->p_vaddr) continue;
    if (vaddr - ph->p_vaddr > ph->p_filesz || len > ph->p_filesz - (vaddr - ph->p_vaddr)) continue;
    *off = (size_t)(ph->p_offset + (vaddr - ph->p_vaddr));
    return 0;
  }
  return -1;
}

/* Dynamic entries whose value is an address in the object. */
static int tag_is_address(long long tag)
{
  switch (tag) {
  case DT_PLTGOT: case DT_HASH: case DT_STRTAB: case DT_SYMTAB: case DT_RELA: case DT_INIT:
  case DT_FINI: case DT_JMPREL: case DT_INIT_ARRAY: case DT_FINI_ARRAY: case DT_PREINIT_ARRAY:
  case DT_GNU_HASH: case DT_VERSYM: case DT_VERDEF: case DT_VERNEED: case DT_TLSDESC_PLT:
  case DT_TLSDESC_GOT: case DT_SYMINFO: case TAG_X86_64_PLT:
    return 1;
  }
  return 0;
}

/* Dynamic entries whose value is a size, a count, flags or a string
 * offset (DT_DEBUG: 0 in the file, the loader's to fill). */
static int tag_is_value(long long tag)
{
  switch (tag) {
  case DT_NULL: case DT_NEEDED: case DT_PLTRELSZ: case DT_RELASZ: case DT_RELAENT: case DT_STRSZ:
  case DT_SYMENT: case DT_SONAME: case DT_RPATH: case DT_SYMBOLIC: case DT_PLTREL: case DT_DEBUG:
  case DT_TEXTREL: case DT_BIND_NOW: case DT_INIT_ARRAYSZ: case DT_FINI_ARRAYSZ: case DT_RUNPATH:
  case DT_FLAGS: case DT_PREINIT_ARRAYSZ: case DT_FLAGS_1: case DT_VERDEFNUM: case DT_VERNEEDNUM:
  case DT_RELACOUNT: case DT_GNU_PRELINKED: case DT_CHECKSUM: case DT_POSFLAG_1: case DT_SYMINSZ:
  case DT_SYMINENT: case DT_AUXILIARY: case DT_FILTER: case TAG_FEATURE_1: case TAG_X86_64_PLTSZ:
  case TAG_X86_64_PLTENT:
    return 1;
  }
  return 0;
}

/* Whether a relocation of this type can be moved: 1, with *own set when
 * its addend is an address in the object (it moves by k); 0 when not. */
static int relocation_movable(unsigned type, unsigned sym, int *own)
{
  *own = 0;
  switch (type) {
  case R_X86_64_NONE:
    return 1;
  case R_X86_64_RELATIVE: case R_X86_64_IRELATIVE: case TYPE_RELATIVE64:
    *own = 1;
    return sym == 0;
  /* offsets in a TLS block, which moves whole */
  case R_X86_64_DTPMOD64: case R_X86_64_DTPOFF64: case R_X86_64_TPOFF64: case R_X86_64_TLSDESC:
  case R_X86_64_DTPOFF32: case R_X86_64_TPOFF32:
    return 1;
  /* a program's copy of a library's data: its place moves, the symbol
   * is the library's */
  case R_X86_64_COPY:
    return sym != 0;
  /* a symbol's value (which moves with it when it is this object's) */
  case R_X86_64_64: case R_X86_64_PC32: case R_X86_64_GLOB_DAT: case R_X86_64_JUMP_SLOT:
  case R_X86_64_32: case R_X86_64_32S: case R_X86_64_16: case R_X86_64_PC16: case R_X86_64_8:
  case R_X86_64_PC8: case R_X86_64_PC64: case R_X86_64_SIZE32: case R_X86_64_SIZE64:
    return sym != 0;
  }
  return 0;
}

static int refuse(const char **why, const char *reason)
{
  *why = reason;
  return -1;
}

/* Reads and checks everything the move touches; 0, or -1 with *why. */
static int analyse(struct object *o, const unsigned char *p, size_t n, const char **why)
{
  unsigned long long relasz = 0, pltrelsz = 0, relaent = sizeof(Elf64_Rela);
  Elf64_Addr rela = 0, jmprel = 0, symtab = 0;
  unsigned long align = 16;
  long long pltrel = DT_RELA;
  int i, have_dynamic = 0, have_interp = 0, have_phdr = 0, have_load = 0;
  unsigned long long last_load = 0;
  size_t t;

  memset(o, 0, sizeof *o);
  o->p = p, o->n = n;
  if (n < sizeof o->eh) return refuse(why, "too short for an ELF header");
  memcpy(&o->eh, p, sizeof o->eh);
  if (memcmp(o->eh.e_ident, ELFMAG, SELFMAG) != 0 || o->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      o->eh.e_ident[EI_DATA] != ELFDATA2LSB || o->eh.e_machine != EM_X86_64)
    return refuse(why, "not an x86-64 ELF object");
  if (o->eh.e_type == ET_EXEC) return refuse(why, "not position-independent (ET_EXEC): its addresses are fixed");
  if (o->eh.e_type != ET_DYN) return refuse(why, "not a shared object");
  if (o->eh.e_phentsize != sizeof(Elf64_Phdr) || o->eh.e_phnum == 0 ||
      !within(o->eh.e_phoff, (unsigned long long)o->eh.e_phnum * sizeof(Elf64_Phdr), n))
    return refuse(why, "its program headers are not where its header says");
  if (o->eh.e_phnum >= MAX_PHDRS) return refuse(why, "it has too many program headers");
  memcpy(o->ph, p + o->eh.e_phoff, o->eh.e_phnum * sizeof(Elf64_Phdr));
  for (i = 0; i < o->eh.e_phnum; i++) {
    const Elf64_Phdr *ph = &o->ph[i];
    if (ph->p_type == PT_PHDR) { /* (rewritten where the copy's are) */
      if (have_phdr++) return refuse(why, "two PT_PHDR segments");
      continue;
    }
    if (ph->p_type == PT_INTERP) have_interp = 1;
    if (ph->p_type == PT_GNU_STACK || ph->p_type == PT_NULL) continue;
    if (!within(ph->p_offset, ph->p_filesz, n) || ph->p_filesz > ph->p_memsz ||
        ph->p_vaddr > (1ULL << 40) || ph->p_memsz > (1ULL << 40))
      return refuse(why, "a segment lies outside the file or memory it can have");
    if (ph->p_type == PT_LOAD && (ph->p_vaddr - ph->p_offset) % PAGE != 0)
      return refuse(why, "a segment's offset and address differ by other than whole pages");
    if (ph->p_type == PT_LOAD && have_load && ph->p_vaddr < last_load)
      return refuse(why, "its loaded segments are not in the order of their addresses");
    if (ph->p_type == PT_LOAD) have_load = 1, last_load = ph->p_vaddr;
    if (ph->p_type == PT_TLS && ph->p_align > align) {
      if (ph->p_align & (ph->p_align - 1)) return refuse(why, "its thread-local storage's alignment is not a power of two");
      if (ph->p_align >= PAGE) return refuse(why, "its thread-local storage is aligned to a page or more");
      align = (unsigned long)ph->p_align;
    }
    if (ph->p_type == PT_DYNAMIC) {
      o->dyn_off = (size_t)ph->p_offset;
      o->dyn_count = (size_t)(ph->p_filesz / sizeof(Elf64_Dyn));
      o->dyn_vaddr = ph->p_vaddr;
      have_dynamic = 1;
    }
  }
  if (!have_dynamic) return refuse(why, "no dynamic section");

  /* the sections: their alignment, and where the dynamic symbols are */
  if (o->eh.e_shnum == 0 || o->eh.e_shentsize != sizeof(Elf64_Shdr) ||
      !within(o->eh.e_shoff, (unsigned long long)o->eh.e_shnum * sizeof(Elf64_Shdr), n))
    return refuse(why, "no section headers (the alignment each section needs is unknown)");
  for (t = 0; t < o->eh.e_shnum; t++) {
    Elf64_Shdr sh;
    memcpy(&sh, p + o->eh.e_shoff + t * sizeof sh, sizeof sh);
    if ((sh.sh_flags & SHF_ALLOC) && sh.sh_addralign > align) {
      if (sh.sh_addralign & (sh.sh_addralign - 1)) return refuse(why, "a section's alignment is not a power of two");
      if (sh.sh_addralign >= PAGE) return refuse(why, "a section is aligned to a page or more");
      align = (unsigned long)sh.sh_addralign;
    }
    if (sh.sh_type == SHT_DYNSYM) {
      if (sh.sh_entsize != sizeof(Elf64_Sym) || !within(sh.sh_offset, sh.sh_size, n))
        return refuse(why, "its dynamic symbol table is malformed");
      o->sym_off = (size_t)sh.sh_offset;
      o->sym_count = (size_t)(sh.sh_size / sizeof(Elf64_Sym));
    }
  }
  o->step = align;

  /* the dynamic entries */
  for (t = 0; t < o->dyn_count; t++) {
    Elf64_Dyn d;
    memcpy(&d, p + o->dyn_off + t * sizeof d, sizeof d);
    if (d.d_tag == DT_NULL) break;
    switch (d.d_tag) {
    case DT_REL: case DT_RELSZ: case DT_RELENT: case DT_RELCOUNT:
      return refuse(why, "REL relocations (their addends are in the bytes they relocate)");
    case TAG_RELR: case TAG_RELRSZ: case TAG_RELRENT:
      return refuse(why, "packed relative relocations (DT_RELR)");
    case DT_RELA: rela = d.d_un.d_ptr; break;
    case DT_RELASZ: relasz = d.d_un.d_val; break;
    case DT_RELAENT: relaent = d.d_un.d_val; break;
    case DT_JMPREL: jmprel = d.d_un.d_ptr; break;
    case DT_PLTRELSZ: pltrelsz = d.d_un.d_val; break;
    case DT_PLTREL: pltrel = (long long)d.d_un.d_val; break;
    case DT_SYMTAB: symtab = d.d_un.d_ptr; break;
    case DT_PLTGOT: o->pltgot = d.d_un.d_ptr; break;
    }
    if (!tag_is_address(d.d_tag) && !tag_is_value(d.d_tag))
      return refuse(why, "a dynamic entry of a kind it does not know");
    /* a static PIE relocates itself, finding its program headers through
     * its own ELF header (__ehdr_start), which the move leaves behind */
    if (d.d_tag == DT_FLAGS_1 && (d.d_un.d_val & DF_1_PIE) && !have_interp)
      return refuse(why, "a static position-independent executable (it relocates itself from its ELF header)");
  }
  if (relaent != sizeof(Elf64_Rela) || (jmprel && pltrel != DT_RELA))
    return refuse(why, "relocations of an unexpected size or kind");
  if (symtab) {
    size_t off;
    if (file_offset(o, symtab, 1, &off) != 0 || off != o->sym_off)
      return refuse(why, "its dynamic symbols are not where its section headers say");
  }
  if (rela && relasz) {
    if (file_offset(o, rela, relasz, &o->rela_off[0]) != 0) return refuse(why, "its relocations lie outside the file");
    o->rela_count[0] = (size_t)(relasz / sizeof(Elf64_Rela));
  }
  if (jmprel && pltrelsz) {
    /* the PLT's relocations: a table of their own, or (some linkers)
     * the tail of DT_RELA's, counted once */
    if (rela && jmprel >= rela && jmprel - rela < relasz) {
      if (pltrelsz > relasz - (jmprel - rela)) return refuse(why, "its relocation tables overlap in part");
    } else {
      if (file_offset(o, jmprel, pltrelsz, &o->rela_off[1]) != 0) return refuse(why, "its relocations lie outside the file");
      o->rela_count[1] = (size_t)(pltrelsz / sizeof(Elf64_Rela));
    }
  }
  for (i = 0; i < 2; i++)
    for (t = 0; t < o->rela_count[i]; t++) {
      Elf64_Rela r;
      size_t place;
      int own;
      memcpy(&r, p + o->rela_off[i] + t * sizeof r, sizeof r);
      if (!relocation_movable((unsigned)ELF64_R_TYPE(r.r_info), (unsigned)ELF64_R_SYM(r.r_info), &own))
        return refuse(why, "a relocation of a kind it does not know");
      if (ELF64_R_SYM(r.r_info) >= o->sym_count && ELF64_R_SYM(r.r_info) != 0)
        return refuse(why, "a relocation names a symbol it does not have");
      if (file_offset(o, r.r_offset, 8, &place) != 0 && ELF64_R_TYPE(r.r_info) == R_X86_64_JUMP_SLOT)
        return refuse(why, "a GOT slot lies outside the file");
    }

  /* the unwind tables' index: its pointers must be relative */
  for (i = 0; i < o->eh.e_phnum; i++)
    if (o->ph[i].p_type == PT_GNU_EH_FRAME) {
      const unsigned char *h = p + o->ph[i].p_offset;
      if (o->ph[i].p_filesz < 4 || h[0] != 1 || (h[1] & 0x70) != 0x10 /* pcrel */ ||
          (h[3] != 0xff /* omitted */ && (h[3] & 0x70) != 0x30 /* datarel */))
        return refuse(why, "its unwind table index holds absolute addresses");
    }
  return 0;
}

unsigned long cpucycles_elf_shift_step(const unsigned char *image, size_t size, const char **why)
{
  struct object o;
  return analyse(&o, image, size, why) == 0 ? o.step : 0;
}

static void add_at(unsigned char *at, unsigned long long k)
{
  unsigned long long v;
  memcpy(&v, at, sizeof v);
  v += k;
  memcpy(at, &v, sizeof v);
}

/* Moved within their pages, two consecutive segments may now share one
 * (the linker had ended the first before the page the second begins in).
 * The loader maps them in turn, so the second's mapping is what that page
 * shows: the same bytes where both map the file at one distance from
 * their addresses (text and read-only data, as linkers lay them out),
 * with the second's permissions, which must then include the first's
 * (else the end of the code would lose PF_X).  Where the distances
 * differ, the page would show the wrong bytes: refused. */
static int share_pages(struct object *o, const char **why)
{
  Elf64_Phdr *prev = 0;
  int i;
  for (i = 0; i < o->eh.e_phnum; i++) {
    Elf64_Phdr *ph = &o->ph[i];
    if (ph->p_type != PT_LOAD) continue;
    if (prev && ph->p_vaddr / PAGE <= (prev->p_vaddr + prev->p_memsz - 1) / PAGE) {
      if (ph->p_vaddr - ph->p_offset != prev->p_vaddr - prev->p_offset || prev->p_memsz != prev->p_filesz)
        return refuse(why, "two segments would share a page at this offset");
      ph->p_flags |= prev->p_flags;
    }
    prev = ph;
  }
  return 0;
}

int cpucycles_elf_shift(const unsigned char *image, size_t size, unsigned long offset,
                        unsigned char **out, size_t *out_size, const char **why)
{
  struct object o;
  unsigned long long k = PAGE + offset;
  size_t total, t, place, headers;
  unsigned char *q, *base;
  int i;

  *out = 0, *out_size = 0;
  if (analyse(&o, image, size, why) != 0) return -1;
  if (offset >= PAGE || offset % o.step) return refuse(why, "the offset is not a multiple of the step below a page");
  if (size > (size_t)-1 - 2 * PAGE) return refuse(why, "too large");
  total = k + size;
  q = calloc(1, total);
  if (!q) return refuse(why, "out of memory");
  base = q + k; /* the old file's bytes, each at its old offset from base */
  memcpy(base, image, size);

  for (t = 0; t < o.dyn_count; t++) {
    Elf64_Dyn d;
    memcpy(&d, base + o.dyn_off + t * sizeof d, sizeof d);
    if (d.d_tag == DT_NULL) break;
    if (tag_is_address(d.d_tag)) add_at(base + o.dyn_off + t * sizeof d + offsetof(Elf64_Dyn, d_un), k);
  }
  for (t = 0; t < o.sym_count; t++) {
    Elf64_Sym s;
    memcpy(&s, base + o.sym_off + t * sizeof s, sizeof s);
    if (s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_ABS || s.st_shndx == SHN_COMMON ||
        ELF64_ST_TYPE(s.st_info) == STT_TLS)
      continue;
    add_at(base + o.sym_off + t * sizeof s + offsetof(Elf64_Sym, st_value), k);
  }
  for (i = 0; i < 2; i++)
    for (t = 0; t < o.rela_count[i]; t++) {
      unsigned char *at = base + o.rela_off[i] + t * sizeof(Elf64_Rela);
      Elf64_Rela r;
      int own;
      memcpy(&r, at, sizeof r);
      relocation_movable((unsigned)ELF64_R_TYPE(r.r_info), (unsigned)ELF64_R_SYM(r.r_info), &own);
      if (own) add_at(at + offsetof(Elf64_Rela, r_addend), k);
      /* a lazily bound slot starts out at its PLT entry's address */
      if (ELF64_R_TYPE(r.r_info) == R_X86_64_JUMP_SLOT && file_offset(&o, r.r_offset, 8, &place) == 0) {
        unsigned long long v;
        memcpy(&v, base + place, sizeof v);
        if (v) add_at(base + place, k);
      }
      add_at(at + offsetof(Elf64_Rela, r_offset), k);
    }
  /* GOT[0]: the dynamic section's address, as the linker wrote it */
  if (o.pltgot && file_offset(&o, o.pltgot, 8, &place) == 0) {
    unsigned long long v;
    memcpy(&v, base + place, sizeof v);
    if (v == o.dyn_vaddr) add_at(base + place, k);
  }
  for (i = 0; i < o.eh.e_phnum; i++) {
    Elf64_Phdr *ph = &o.ph[i];
    if (ph->p_type == PT_GNU_STACK || ph->p_type == PT_NULL) continue;
    ph->p_offset += k, ph->p_vaddr += k, ph->p_paddr += k;
  }
  if (share_pages(&o, why) != 0) {
    free(q);
    return -1;
  }
  /* the headers' own segment, in the page below the others, the first
   * loaded one; before it a program's PT_PHDR, naming the headers there,
   * and its PT_INTERP (both must precede any loaded segment) */
  {
    Elf64_Phdr ordered[MAX_PHDRS];
    int n = 0, pass;
    headers = sizeof o.eh + (size_t)(o.eh.e_phnum + 1) * sizeof(Elf64_Phdr); /* <= 64 + 64 * 56 < k */
    for (pass = 0; pass < 4; pass++) {
      if (pass == 2) {
        memset(&ordered[n], 0, sizeof ordered[n]);
        ordered[n].p_type = PT_LOAD, ordered[n].p_flags = PF_R, ordered[n].p_align = PAGE;
        ordered[n].p_filesz = ordered[n].p_memsz = headers;
        n++;
        continue;
      }
      for (i = 0; i < o.eh.e_phnum; i++) {
        Elf64_Word type = o.ph[i].p_type;
        if (pass == 0 ? type != PT_PHDR : pass == 1 ? type != PT_INTERP : type == PT_PHDR || type == PT_INTERP)
          continue;
        ordered[n] = o.ph[i];
        if (type == PT_PHDR) {
          ordered[n].p_offset = ordered[n].p_vaddr = ordered[n].p_paddr = sizeof o.eh;
          ordered[n].p_filesz = ordered[n].p_memsz = (o.eh.e_phnum + 1) * sizeof(Elf64_Phdr);
        }
        n++;
      }
    }
    o.eh.e_phnum = (Elf64_Half)n;
    memcpy(o.ph, ordered, (size_t)n * sizeof(Elf64_Phdr));
  }
  memcpy(q + sizeof o.eh, o.ph, o.eh.e_phnum * sizeof(Elf64_Phdr));
  o.eh.e_phoff = sizeof o.eh;
  o.eh.e_shoff = 0, o.eh.e_shnum = 0, o.eh.e_shstrndx = SHN_UNDEF;
  if (o.eh.e_entry) o.eh.e_entry += k;
  memcpy(q, &o.eh, sizeof o.eh);
  *out = q, *out_size = total;
  return 0;
}

int cpucycles_elf_alignments(const unsigned char *image, size_t size, unsigned long *code, unsigned long *data)
{
  Elf64_Ehdr eh;
  size_t t;
  *code = *data = 0;
  if (size < sizeof eh) return -1;
  memcpy(&eh, image, sizeof eh);
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr) ||
      !within(eh.e_shoff, (unsigned long long)eh.e_shnum * sizeof(Elf64_Shdr), size))
    return -1;
  for (t = 0; t < eh.e_shnum; t++) {
    Elf64_Shdr sh;
    unsigned long *which;
    memcpy(&sh, image + eh.e_shoff + t * sizeof sh, sizeof sh);
    if (!(sh.sh_flags & SHF_ALLOC) || sh.sh_size == 0) continue;
    which = sh.sh_flags & SHF_EXECINSTR ? code : data;
    if (sh.sh_addralign > *which) *which = (unsigned long)sh.sh_addralign;
  }
  return 0;
}
