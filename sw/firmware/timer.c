// SPDX-License-Identifier: Apache-2.0
// timer: prints CNTFRQ_EL0 in decimal, then takes three 1 ms ticks of the virtual timer (PPI 27 through
// the GIC), printing "tick N" for each, and powers off. Lines end "\r\n" as the console writes them.
#include "firmware.h"

#define TICKS 3u

static volatile unsigned int ticks;
static uint64_t tick_interval;

static uint64_t read_cntfrq(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}

static void vtimer_set(uint64_t tval, uint32_t ctl)
{
	__asm__ volatile("msr cntv_tval_el0, %0" ::"r"(tval));
	__asm__ volatile("msr cntv_ctl_el0, %0" ::"r"((uint64_t)ctl));
	isb();
}

void irq_handler(void)
{
	uint32_t iar = gic_ack();
	unsigned int intid = iar & GIC_INTID_MASK;

	if (intid == GIC_INTID_SPURIOUS)
		return;
	if (intid == VIRT_VTIMER_INTID) {
		// The timer's output is a level: re-arming (or disabling) lowers it before the EOI.
		ticks = ticks + 1;
		if (ticks < TICKS)
			vtimer_set(tick_interval, CNTV_CTL_ENABLE);
		else
			vtimer_set(0, 0);
	}
	gic_eoi(iar);
}

int main(void)
{
	uint64_t freq = read_cntfrq();
	unsigned int printed = 0;

	pl011_setup();
	pl011_puts("cntfrq=");
	pl011_put_udec(freq);
	pl011_puts("\n");

	tick_interval = freq / 1000 ? freq / 1000 : 1;
	gic_init(0xf0);
	gic_enable_irq(VIRT_VTIMER_INTID, 0xa0, 0x01, 0);
	vtimer_set(tick_interval, CNTV_CTL_ENABLE);

	irq_enable();
	// As echo's loop: test with IRQs masked, WFI wakes on the pending interrupt anyway.
	while (printed < TICKS) {
		irq_disable();
		while (printed < ticks) {
			printed++;
			pl011_puts("tick ");
			pl011_put_udec(printed);
			pl011_puts("\n");
		}
		if (printed < TICKS)
			wfi();
		irq_enable();
	}
	irq_disable();
	gic_disable_irq(VIRT_VTIMER_INTID);
	pl011_wait_idle();
	return 0;
}
