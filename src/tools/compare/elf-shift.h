/* SPDX-License-Identifier: MIT */
/* elf-shift.h - a copy of an x86-64 shared object (or position-independent
 * executable) whose code lies at another offset within its pages, for
 * cpucycles-compare.
 *
 * The linker fixes where each function lies within its 4 KiB page, and
 * with it which cache lines and fetch blocks a hot loop spans: ASLR moves
 * whole pages only.  So a rebuild that moves a loop by a few bytes is
 * measured as a fixed difference in every execution.  Moving every
 * address of the object by the same amount (segments, dynamic entries,
 * symbols, relocations) keeps all its position-independent code valid,
 * since its references between sections are relative, and lets each
 * execution draw the offset anew: placement within pages becomes a
 * random effect, as ASLR makes the pages' own.
 *
 * Only x86-64 (RIP-relative addressing at byte granularity; arm64's
 * ADRP computes 4 KiB pages, which a shift within a page would break),
 * and only objects whose relocations are all RELA of the kinds listed in
 * elf-shift.c; anything else is refused with a reason, and the object is
 * loaded as it is. */
#ifndef CPUCYCLES_ELF_SHIFT_H
#define CPUCYCLES_ELF_SHIFT_H
#include <stddef.h>

/* The object's bytes: the step (a power of two from 16, the largest
 * alignment any of its loaded sections asks for) in which its addresses
 * may move within a page, or 0 with *why when it cannot be moved. */
unsigned long cpucycles_elf_shift_step(const unsigned char *image, size_t size, const char **why);

/* A copy of image (malloc'ed, *out and *out_size) with every address
 * moved by 4096 + offset: offset, a multiple of the step below 4096, is
 * where within its page each byte of code now lies, relative to where the
 * linker put it.  Returns 0, or -1 with *why (nothing allocated). */
int cpucycles_elf_shift(const unsigned char *image, size_t size, unsigned long offset,
                        unsigned char **out, size_t *out_size, const char **why);

/* The largest alignment the object's loaded sections ask for, of code
 * (executable sections) and of data (the others): a step above the
 * code's is the data's doing (an alignas(64) object, a page-aligned
 * buffer), which keeps every function at its offset within its cache
 * lines.  0, or -1 when the section headers cannot be read (any ELF64). */
int cpucycles_elf_alignments(const unsigned char *image, size_t size, unsigned long *code,
                             unsigned long *data);

#endif
