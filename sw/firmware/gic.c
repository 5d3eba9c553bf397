// SPDX-License-Identifier: Apache-2.0
// GICv2, only the registers uartvp's GIC models: GICD_CTLR, ISENABLER, ICENABLER, IPRIORITYR, ITARGETSR,
// ICFGR; GICC_CTLR, PMR, IAR, EOIR. Byte-wide fields are changed by 32-bit read-modify-write. Every
// interrupt stays in group 0 (reset value), signalled as IRQ.
#include "firmware.h"

#define GICD(reg) (VIRT_GICD_BASE + (reg))
#define GICC(reg) (VIRT_GICC_BASE + (reg))

static void gicd_set_byte(unsigned long reg_base, unsigned intid, uint8_t value)
{
	uintptr_t addr = GICD(reg_base + 4 * (intid / 4));
	unsigned shift = 8 * (intid % 4);
	uint32_t v = mmio_read32(addr);

	v &= ~(0xffu << shift);
	v |= (uint32_t)value << shift;
	mmio_write32(addr, v);
}

void gic_init(uint8_t pmr)
{
	mmio_write32(GICC(GICC_CTLR), 0);
	mmio_write32(GICD(GICD_CTLR), 0);
	mmio_write32(GICD(GICD_CTLR), 1);
	mmio_write32(GICC(GICC_PMR), pmr);
	mmio_write32(GICC(GICC_CTLR), 1);
}

void gic_enable_irq(unsigned intid, uint8_t priority, uint8_t targets, int edge)
{
	gic_disable_irq(intid);
	gicd_set_byte(GICD_IPRIORITYR(0), intid, priority);
	// SGI/PPI targets are read-only and their trigger is fixed (the timer's PPIs are level): SPIs only.
	if (intid >= 32) {
		uintptr_t cfg = GICD(GICD_ICFGR(intid / 16));
		uint32_t bit = 2u << (2 * (intid % 16));
		uint32_t v = mmio_read32(cfg);

		mmio_write32(cfg, edge ? (v | bit) : (v & ~bit));
		gicd_set_byte(GICD_ITARGETSR(0), intid, targets);
	}
	mmio_write32(GICD(GICD_ISENABLER(intid / 32)), 1u << (intid % 32));
}

void gic_disable_irq(unsigned intid)
{
	mmio_write32(GICD(GICD_ICENABLER(intid / 32)), 1u << (intid % 32));
}

uint32_t gic_ack(void)
{
	return mmio_read32(GICC(GICC_IAR));
}

void gic_eoi(uint32_t iar)
{
	mmio_write32(GICC(GICC_EOIR), iar);
}
