// SPDX-License-Identifier: Apache-2.0
// earlycon-8250 and earlycon-8250-fifo: the Linux 8250 early console on the 16550 at 0x09100000 (4-byte
// register stride, 32-bit accesses). EARLYCON_8250_FIFO chooses the console write:
//   0: 8250_early.c's early_serial8250_write: uart_console_write with serial_putc, which writes THR and
//      spins until LSR has both THRE and TEMT (set-up with FCR = 0, no FIFOs);
//   1: a write in the manner of 8250_port.c's serial8250_console_fifo_write: wait for THRE, then up to
//      16 bytes back to back (a '\r' before each '\n' counts against the burst), again until done, then
//      wait for THRE and TEMT (set-up with FCR = 0x07, FIFOs on and cleared).
// The boot log is written one line per console write, then the program powers off. QEMU's virt has no
// 16550: these run on uartvp only.
#include "firmware.h"

#ifndef EARLYCON_8250_FIFO
#error "EARLYCON_8250_FIFO (0 or 1) is not defined"
#endif

// 8250_early.c's accessors for UPIO_MEM32 (reg-shift 2): 32-bit loads and stores.
static inline unsigned int serial8250_early_in(unsigned int offset)
{
	return mmio_read32(VIRT_16550_BASE + (offset << VIRT_16550_REG_SHIFT));
}

static inline void serial8250_early_out(unsigned int offset, unsigned int value)
{
	mmio_write32(VIRT_16550_BASE + (offset << VIRT_16550_REG_SHIFT), value);
}

static inline void cpu_relax(void)
{
	__asm__ volatile("yield" ::: "memory");
}

// 8N1 at 115200 from 1.8432 MHz (divisor 1), interrupts off, DTR and RTS, FIFOs as the variant wants.
static void setup_16550(void)
{
	serial8250_early_out(UART_LCR, UART_LCR_WLEN8);
	serial8250_early_out(UART_IER, 0);
#if EARLYCON_8250_FIFO
	serial8250_early_out(UART_FCR, UART_FCR_ENABLE_FIFO | UART_FCR_CLEAR_RCVR | UART_FCR_CLEAR_XMIT);
#else
	serial8250_early_out(UART_FCR, 0);
#endif
	serial8250_early_out(UART_MCR, UART_MCR_DTR | UART_MCR_RTS);
	serial8250_early_out(UART_LCR, UART_LCR_WLEN8 | UART_LCR_DLAB);
	serial8250_early_out(UART_DLL, VIRT_16550_DIVISOR & 0xff);
	serial8250_early_out(UART_DLM, (VIRT_16550_DIVISOR >> 8) & 0xff);
	serial8250_early_out(UART_LCR, UART_LCR_WLEN8);
}

#if !EARLYCON_8250_FIFO

// serial_putc(): THR, then spin until the transmitter is empty (THRE and TEMT).
__attribute__((noipa)) static void serial_putc(unsigned char c)
{
	serial8250_early_out(UART_TX, c);
	while ((serial8250_early_in(UART_LSR) & UART_LSR_BOTH_EMPTY) != UART_LSR_BOTH_EMPTY)
		cpu_relax();
}

// early_serial8250_write(): uart_console_write() with serial_putc.
__attribute__((noipa)) static void early_serial8250_write(const char *s, unsigned int count)
{
	unsigned int i;

	for (i = 0; i < count; i++, s++) {
		if (*s == '\n')
			serial_putc('\r');
		serial_putc((unsigned char)*s);
	}
}

#define console_write early_serial8250_write

#else

static void wait_for_lsr(unsigned int bits)
{
	while ((serial8250_early_in(UART_LSR) & bits) != bits)
		cpu_relax();
}

// The FIFO write: each burst starts when THR/FIFO is empty and fills up to the FIFO's 16 bytes; a '\n'
// is sent as '\r' (one slot) and then '\n' (the next slot, maybe in the next burst). At the end the
// transmitter is waited for (THRE and TEMT), as serial8250_console_write does after this routine.
__attribute__((noipa)) static void serial8250_console_fifo_write(const char *s, unsigned int count)
{
	const char *end = s + count;
	int cr_sent = 0;
	unsigned int i;

	while (s != end) {
		wait_for_lsr(UART_LSR_THRE);
		for (i = 0; i < UART_FIFO_SIZE_16550 && s != end; i++) {
			if (*s == '\n' && !cr_sent) {
				serial8250_early_out(UART_TX, '\r');
				cr_sent = 1;
			} else {
				serial8250_early_out(UART_TX, (unsigned char)*s++);
				cr_sent = 0;
			}
		}
	}
	wait_for_lsr(UART_LSR_BOTH_EMPTY);
}

#define console_write serial8250_console_fifo_write

#endif

int main(void)
{
	setup_16550();
	for_each_boot_log_line(console_write);
	return 0;
}
