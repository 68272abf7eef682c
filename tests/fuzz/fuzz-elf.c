/* SPDX-License-Identifier: MIT */
/* fuzz-elf - libFuzzer harness for the ELF rewriting cpucycles-compare
 * applies to the shared objects it is given (src/tools/compare/elf-shift.c: their
 * code moved within its pages).  Build and run: tests/fuzz/run.sh (its
 * seed, a shared object, is linked there).
 *
 * The input is the file, exactly its bytes.  Its first byte also picks
 * the offset (a multiple of the step).  Checked besides the sanitizers: a
 * refusal has a one-line printable reason; an accepted object's copy is
 * 4096 + offset bytes longer than it, its program headers right after its
 * ELF header under the first loaded segment (a PT_PHDR first, naming
 * them; a PT_INTERP before any loaded segment); the loaded segments
 * ascend, each after the first in a page above it, each one's offset
 * congruent to its address modulo a page, none beyond the copy. */
#include "compare/elf-shift.c"

static void check_reason(const char *why)
{
  const char *p;
  if (!why || !*why) abort();
  for (p = why; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *why = 0;
  unsigned long step = cpucycles_elf_shift_step(data, size, &why), offset;
  unsigned char *out;
  size_t out_size;
  Elf64_Ehdr eh;
  int i;
  if (!step) {
    check_reason(why);
    return 0;
  }
  if (step < 16 || step >= PAGE || (step & (step - 1))) abort();
  offset = (size ? data[0] : 0) * step % PAGE;
  if (cpucycles_elf_shift(data, size, offset, &out, &out_size, &why) != 0) {
    check_reason(why);
    return 0;
  }
  memcpy(&eh, out, sizeof eh);
  /* the file's bytes moved by a page and the offset; the program headers
   * right after the ELF header, in the first page, under the first loaded
   * segment (a PT_PHDR, where there is one, before it and naming them) */
  if (out_size != size + PAGE + offset || eh.e_phoff != sizeof eh ||
      eh.e_phoff + eh.e_phnum * sizeof(Elf64_Phdr) > PAGE || eh.e_shnum != 0)
    abort();
  {
    int loads = 0;
    unsigned long long last = 0;
    for (i = 0; i < eh.e_phnum; i++) {
      Elf64_Phdr ph;
      memcpy(&ph, out + eh.e_phoff + (size_t)i * sizeof ph, sizeof ph);
      if (ph.p_type == PT_PHDR &&
          (i != 0 || ph.p_offset != eh.e_phoff || ph.p_filesz != eh.e_phnum * sizeof(Elf64_Phdr)))
        abort();
      if (ph.p_type == PT_INTERP && loads) abort();
      if (ph.p_type != PT_LOAD) continue;
      if (loads && (ph.p_vaddr < PAGE || ph.p_vaddr < last)) abort();
      last = ph.p_vaddr;
      if (loads++ == 0 && (ph.p_offset != 0 || ph.p_vaddr != 0 ||
                           ph.p_filesz < eh.e_phoff + eh.e_phnum * sizeof(Elf64_Phdr)))
        abort();
      if ((ph.p_vaddr - ph.p_offset) % PAGE != 0) abort();
      if (ph.p_offset + ph.p_filesz > out_size) abort();
    }
  }
  free(out);
  return 0;
}
