/*
 * spin.h: the counted loop shared by loop.c, forkthreads.c and the pmc.h example.
 *
 * wl_spin(n) executes exactly WL_SPIN_INSNS_PER_ITER * n + WL_SPIN_GUARD instructions of its
 * inline assembly, plus the function's own entry/return (the same for every n):
 *   x86-64:  test %rcx,%rcx ; jz 2f ; 1: dec %rcx ; jnz 1b ; 2:          (guard 2)
 *   aarch64: cbz x0, 2f ;            1: subs x0, x0, #1 ; b.ne 1b ; 2:  (guard 1)
 *   armv7:   cmp r0, #0 ; beq 2f ;   1: subs r0, r0, #1 ; bne 1b ; 2:   (guard 2)
 * On armv7 the workloads are built as ARM (A32) code (-marm, and the block starts with `.arm`).
 * The same unified-syntax instructions are valid Thumb-2 too; a -mthumb build executes the same
 * number of instructions and WL_ISA then says "armv7-thumb2".
 * The call, a possible register move before the asm and the return cost the same for every n,
 * so wl_spin(n) - wl_spin(0) == WL_SPIN_INSNS_PER_ITER * n exactly.
 */
#ifndef PMC_WL_SPIN_H
#define PMC_WL_SPIN_H

#include <stdint.h>

#define WL_SPIN_INSNS_PER_ITER 2

#if defined(__x86_64__)
#define WL_ISA "x86-64"
#elif defined(__aarch64__)
#define WL_ISA "aarch64"
#elif defined(__arm__) && defined(__thumb__)
#define WL_ISA "armv7-thumb2"
#elif defined(__arm__)
#define WL_ISA "armv7-arm"
#else
#error "spin.h: no inline-assembly loop for this ISA (x86-64, aarch64, armv7 only)"
#endif

/* noinline keeps the loop's code identical whatever the caller looks like. */
__attribute__((noinline, unused)) static void wl_spin(uint32_t n)
{
#if defined(__x86_64__)
	uint64_t c = n;
	__asm__ volatile("test %0, %0\n\t"
			 "jz 2f\n"
			 "1:\n\t"
			 "dec %0\n\t"
			 "jnz 1b\n"
			 "2:\n"
			 : "+r"(c)
			 :
			 : "cc");
#elif defined(__aarch64__)
	uint64_t c = n;
	__asm__ volatile("cbz %0, 2f\n"
			 "1:\n\t"
			 "subs %0, %0, #1\n\t"
			 "b.ne 1b\n"
			 "2:\n"
			 : "+r"(c)
			 :
			 : "cc");
#elif defined(__arm__)
	uint32_t c = n;
	__asm__ volatile(
#if !defined(__thumb__)
			 ".arm\n\t"
#endif
			 "cmp %0, #0\n\t"
			 "beq 2f\n"
			 "1:\n\t"
			 "subs %0, %0, #1\n\t"
			 "bne 1b\n"
			 "2:\n"
			 : "+r"(c)
			 :
			 : "cc");
#endif
}

#endif
