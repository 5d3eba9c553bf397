// SPDX-License-Identifier: Apache-2.0
// Exceptions the firmware does not expect: one line on the PL011, then power-off.
#include "firmware.h"

static const char *const vector_type[4] = {"synchronous", "IRQ", "FIQ", "SError"};
static const char *const vector_from[4] = {"current EL with SP_EL0", "current EL with SP_ELx",
					   "lower EL (AArch64)", "lower EL (AArch32)"};

#define READ_SYSREG(name)                                                                          \
	({                                                                                         \
		uint64_t v__;                                                                      \
		__asm__ volatile("mrs %0, " #name : "=r"(v__));                                    \
		v__;                                                                               \
	})

void fatal_exception(unsigned long kind)
{
	uint64_t esr = READ_SYSREG(esr_el1), elr = READ_SYSREG(elr_el1), far = READ_SYSREG(far_el1);

	// A program on the 16550 never set the PL011 up.
	if (!(mmio_read32(VIRT_PL011_BASE + UART011_CR) & UART011_CR_UARTEN))
		pl011_setup();
	pl011_puts("\nfatal exception: ");
	pl011_puts(vector_type[kind & 3]);
	pl011_puts(" from ");
	pl011_puts(vector_from[(kind >> 2) & 3]);
	pl011_puts(", ESR_EL1 ");
	pl011_put_hex(esr);
	pl011_puts(", ELR_EL1 ");
	pl011_put_hex(elr);
	pl011_puts(", FAR_EL1 ");
	pl011_put_hex(far);
	pl011_puts("\n");
	pl011_wait_idle();
	system_off();
}

// Programs without interrupts never unmask them; one taken anyway is a fault.
__attribute__((weak)) void irq_handler(void)
{
	uint32_t iar = gic_ack();

	if (!(mmio_read32(VIRT_PL011_BASE + UART011_CR) & UART011_CR_UARTEN))
		pl011_setup();
	pl011_puts("\nunexpected interrupt, INTID ");
	pl011_put_udec(iar & GIC_INTID_MASK);
	fatal_exception(5);
}
