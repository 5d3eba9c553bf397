// SPDX-License-Identifier: Apache-2.0
// The EL1 vector table (VBAR_EL1, 2 KiB aligned, 16 entries of 128 bytes). The IRQ at the current EL with
// SP_ELx (offset 0x280) saves the caller-saved registers x0-x18, x29 and x30, calls irq_handler() and
// returns with ERET (interrupts are not re-enabled in the handler, so ELR_EL1/SPSR_EL1 need no saving).
// Every other entry resets the stack and calls fatal_exception(index), which does not return.

	// Each entry starts at its offset: .org fails to assemble if the one before ran over its 128 bytes.
	.macro	fatal_entry index
	.org	vectors + \index * 128
	adrp	x1, __stack_top
	add	x1, x1, :lo12:__stack_top
	mov	sp, x1
	mov	x0, #\index
	bl	fatal_exception
	b	system_off
	.endm

	.macro	irq_entry index
	.org	vectors + \index * 128
	stp	x0, x1, [sp, #-176]!
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x29, [sp, #144]
	str	x30, [sp, #160]
	bl	irq_handler
	ldr	x30, [sp, #160]
	ldp	x18, x29, [sp, #144]
	ldp	x16, x17, [sp, #128]
	ldp	x14, x15, [sp, #112]
	ldp	x12, x13, [sp, #96]
	ldp	x10, x11, [sp, #80]
	ldp	x8, x9, [sp, #64]
	ldp	x6, x7, [sp, #48]
	ldp	x4, x5, [sp, #32]
	ldp	x2, x3, [sp, #16]
	ldp	x0, x1, [sp], #176
	eret
	.endm

	.section .text.vectors, "ax"
	.balign	2048
	.global	vectors
vectors:
	// Current EL with SP_EL0
	fatal_entry 0   // sync
	fatal_entry 1   // IRQ
	fatal_entry 2   // FIQ
	fatal_entry 3   // SError
	// Current EL with SP_ELx (the firmware runs here: EL1h)
	fatal_entry 4   // sync
	irq_entry 5     // IRQ (0x280)
	fatal_entry 6   // FIQ
	fatal_entry 7   // SError
	// Lower EL, AArch64
	fatal_entry 8
	fatal_entry 9
	fatal_entry 10
	fatal_entry 11
	// Lower EL, AArch32
	fatal_entry 12
	fatal_entry 13
	fatal_entry 14
	fatal_entry 15
	.org	vectors + 2048
