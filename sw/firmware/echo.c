// SPDX-License-Identifier: Apache-2.0
// echo: interrupt-driven echo on the PL011. Every byte received is sent back as it is (no CR/LF
// conversion) until byte 0x04 (EOT, ctrl-D), which is not echoed and ends the run once every earlier byte
// has been sent and FR.BUSY is clear.
//
// GIC: INTID 33 enabled, priority 0xa0, CPU 0, level; PMR 0xf0. PL011: IMSC = RXIM|RTIM, and TXIM while
// bytes wait in the ring that did not fit the TX FIFO; IFLS at its reset value. The handler drains RX
// into a 256-byte ring, moves ring bytes into the TX FIFO while it has room, sets the mask, EOIR.
#include "firmware.h"

#define PL011(reg) (VIRT_PL011_BASE + (reg))
#define RING_SIZE 256u
#define EOT 0x04

static uint8_t ring[RING_SIZE];
// Written by the handler only; main reads them with IRQs masked.
static volatile unsigned int ring_head, ring_tail; // free-running: used = head - tail
static volatile int eot_seen;

static void pl011_service(void)
{
	unsigned int head = ring_head, tail = ring_tail;
	uint32_t imsc = 0;

	// RX: while the ring has room (a full ring leaves bytes in the RX FIFO, whose interrupt is then
	// masked until TX has made room: nothing is dropped). Nothing is read after EOT.
	while (!eot_seen && head - tail < RING_SIZE && !(mmio_read32(PL011(UART01x_FR)) & UART01x_FR_RXFE)) {
		uint8_t c = (uint8_t)mmio_read32(PL011(UART01x_DR));

		if (c == EOT)
			eot_seen = 1;
		else
			ring[head++ % RING_SIZE] = c;
	}
	// TX: as much as the FIFO takes.
	while (head != tail && !(mmio_read32(PL011(UART01x_FR)) & UART01x_FR_TXFF))
		mmio_write32(PL011(UART01x_DR), ring[tail++ % RING_SIZE]);
	ring_head = head;
	ring_tail = tail;

	if (!eot_seen && head - tail < RING_SIZE)
		imsc |= UART011_RXIM | UART011_RTIM;
	if (head != tail)
		imsc |= UART011_TXIM;
	mmio_write32(PL011(UART011_IMSC), imsc);
}

void irq_handler(void)
{
	uint32_t iar = gic_ack();
	unsigned int intid = iar & GIC_INTID_MASK;

	if (intid == GIC_INTID_SPURIOUS)
		return;
	if (intid == VIRT_PL011_INTID)
		pl011_service();
	gic_eoi(iar);
}

int main(void)
{
	pl011_setup();
	gic_init(0xf0);
	gic_enable_irq(VIRT_PL011_INTID, 0xa0, 0x01, 0);
	mmio_write32(PL011(UART011_IMSC), UART011_RXIM | UART011_RTIM);

	irq_enable();
	// The test and the WFI run with IRQs masked: an interrupt that ends the run between the test and
	// the WFI still wakes the WFI (it wakes on a pending interrupt whatever PSTATE.I says), and is taken
	// when IRQs are unmasked again. Testing with IRQs unmasked could sleep for ever after the last one.
	for (;;) {
		irq_disable();
		if (eot_seen && ring_head == ring_tail)
			break;
		wfi();
		irq_enable();
	}
	mmio_write32(PL011(UART011_IMSC), 0);
	// Every earlier byte is in the TX FIFO: wait until it and the shift register are empty.
	pl011_wait_idle();
	return 0;
}
