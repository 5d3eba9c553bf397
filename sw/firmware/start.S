// SPDX-License-Identifier: Apache-2.0
// Entry: EL1h, MMU off, DAIF masked. Sets the stack (in the image's .bss), zeroes .bss, points VBAR_EL1
// at the vector table, calls main(), then powers off (PSCI SYSTEM_OFF).

	.section .text.boot, "ax"
	.global _start
	.type _start, %function
_start:
	msr	daifset, #0xf
	adrp	x0, __stack_top
	add	x0, x0, :lo12:__stack_top
	mov	sp, x0

	// .bss (the stack included: nothing is on it yet) is 16-byte aligned at both ends (virt.ld).
	adrp	x0, __bss_start
	add	x0, x0, :lo12:__bss_start
	adrp	x1, __bss_end
	add	x1, x1, :lo12:__bss_end
1:	cmp	x0, x1
	b.hs	2f
	stp	xzr, xzr, [x0], #16
	b	1b
2:
	adrp	x0, vectors
	add	x0, x0, :lo12:vectors
	msr	vbar_el1, x0
	isb

	mov	x29, xzr
	mov	x30, xzr
	bl	main
	bl	system_off
	.size _start, . - _start

	// The stack: 64 KiB in .bss, 16-byte aligned.
	.section .bss.stack, "aw", %nobits
	.balign 16
	.global __stack_bottom
__stack_bottom:
	.space 0x10000
	.global __stack_top
__stack_top:
