/*
 * plt_bind: which function a call through the PLT binds, read from the
 * caller's ELF file: what otherwise takes objdump and arithmetic by hand.
 *
 * From the caller's return address (a file offset, as frame.dso_offset
 * stores it), the call before it is found: `call rel32` (e8) into a PLT
 * stub, whose `jmp *GOT(%rip)` (ff 25, after an endbr64 and a bnd prefix
 * in .plt.sec) names the GOT slot; or `call *GOT(%rip)` (ff 15, -fno-plt).
 * The relocation whose r_offset is that slot (R_X86_64_JUMP_SLOT in
 * .rela.plt, GLOB_DAT in .rela.dyn) names the symbol.  x86-64 only.
 *
 * Pure: takes the file's bytes (libelf reads them in memory), no I/O.
 */
#ifndef FL_PLT_BIND_H
#define FL_PLT_BIND_H

#include <stddef.h>
#include <stdint.h>

/*
 * Writes into name (n bytes, NUL-terminated, cut to fit) the symbol the
 * call ending at file offset ret_offset of image (len bytes, an ELF
 * file; borrowed) goes through.  0; -ENOENT when the bytes before
 * ret_offset are no call through a GOT slot or no relocation names the
 * slot; -EINVAL when image is not an x86-64 ELF file libelf can read.
 */
int plt_bind_name(const void *image, size_t len, uint64_t ret_offset,
		  char *name, size_t n);

#endif
