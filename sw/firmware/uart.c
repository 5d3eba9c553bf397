// SPDX-License-Identifier: Apache-2.0
// The firmware's PL011 set-up and its plain console output (32-bit accesses).
#include "firmware.h"

#define PL011(reg) (VIRT_PL011_BASE + (reg))

void pl011_setup(void)
{
	// Disable first, let anything in flight leave, then program: IBRD/FBRD take effect with the LCRH
	// write that follows them.
	mmio_write32(PL011(UART011_CR), 0);
	while (mmio_read32(PL011(UART01x_FR)) & UART01x_FR_BUSY)
		;
	mmio_write32(PL011(UART011_IMSC), 0);
	mmio_write32(PL011(UART011_ICR), UART011_ALL_INTS);
	mmio_write32(PL011(UART011_IBRD), VIRT_PL011_IBRD);
	mmio_write32(PL011(UART011_FBRD), VIRT_PL011_FBRD);
	mmio_write32(PL011(UART011_LCRH), VIRT_PL011_LCRH);
	mmio_write32(PL011(UART011_CR), VIRT_PL011_CR);
}

void pl011_write_byte(uint8_t c)
{
	while (mmio_read32(PL011(UART01x_FR)) & UART01x_FR_TXFF)
		;
	mmio_write32(PL011(UART01x_DR), c);
}

void pl011_puts(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			pl011_write_byte('\r');
		pl011_write_byte((uint8_t)*s);
	}
}

void pl011_put_udec(uint64_t v)
{
	char buf[21];
	unsigned int i = sizeof(buf);

	buf[--i] = '\0';
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	pl011_puts(&buf[i]);
}

void pl011_put_hex(uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char buf[19];
	unsigned int i = sizeof(buf);

	buf[--i] = '\0';
	do {
		buf[--i] = digits[v & 0xf];
		v >>= 4;
	} while (v);
	buf[--i] = 'x';
	buf[--i] = '0';
	pl011_puts(&buf[i]);
}

void pl011_wait_idle(void)
{
	while (mmio_read32(PL011(UART01x_FR)) & UART01x_FR_BUSY)
		;
}
