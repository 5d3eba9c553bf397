// SPDX-License-Identifier: Apache-2.0
// earlycon-v0/v1/v2: the Linux PL011 early console (drivers/tty/serial/amba-pl011.c, pl011_putc and
// pl011_early_write over serial_core.c's uart_console_write) as the kernel's C compiles, in three
// variants chosen by EARLYCON_VARIANT:
//   0: pl011_putc waits for FR.BUSY clear after each byte (the kernel's code);
//   1: no BUSY wait at all;
//   2: one BUSY wait after the whole string, at the end of pl011_early_write.
// The program sets the PL011 up as the firmware does, writes the boot log one line per console write
// (as printk hands one record per write), then powers off.
#include "firmware.h"

#ifndef EARLYCON_VARIANT
#error "EARLYCON_VARIANT (0, 1 or 2) is not defined"
#endif

// The kernel's accessors. readl: a 32-bit volatile load; writeb: an 8-bit volatile store. On arm64 the
// kernel's readl is followed by __iormb() (dmb oshld and a dummy control dependency) and writeb is
// preceded by dma_wmb() (dmb oshst). Those barriers are left out here by default: the MMU is off, so
// the PL011's registers are Device-nGnRnE memory and the accesses are already ordered, and the polling
// loops stay a load and a bit test. Build with -DEARLYCON_KERNEL_BARRIERS=1 to have them.
#ifndef EARLYCON_KERNEL_BARRIERS
#define EARLYCON_KERNEL_BARRIERS 0
#endif

typedef volatile void __iomem_t;

static inline uint32_t readl(const volatile void *addr)
{
	uint32_t v = *(const volatile uint32_t *)addr;
#if EARLYCON_KERNEL_BARRIERS
	unsigned long tmp;

	__asm__ volatile("dmb oshld\n\teor %0, %1, %1\n\tcbnz %0, ." : "=r"(tmp) : "r"((unsigned long)v) : "memory");
#endif
	return v;
}

static inline void writeb(uint8_t v, volatile void *addr)
{
#if EARLYCON_KERNEL_BARRIERS
	__asm__ volatile("dmb oshst" ::: "memory");
#endif
	*(volatile uint8_t *)addr = v;
}

// arm64's cpu_relax(): a YIELD hint (and a compiler barrier).
static inline void cpu_relax(void)
{
	__asm__ volatile("yield" ::: "memory");
}

// The parts of the kernel's structures these routines use.
struct uart_port {
	__iomem_t *membase;
};

struct earlycon_device {
	struct uart_port port;
};

struct console {
	void *data; // the earlycon_device
};

// serial_core.c's uart_console_write(): each character through putchar, a '\r' before each '\n'. It is
// in another file than its callers in the kernel; noipa keeps it and pl011_putc separate functions here
// too (no inlining or cloning across the function pointer).
__attribute__((noipa)) static void uart_console_write(struct uart_port *port, const char *s, unsigned int count,
						      void (*putchar)(struct uart_port *, unsigned char))
{
	unsigned int i;

	for (i = 0; i < count; i++, s++) {
		if (*s == '\n')
			putchar(port, '\r');
		putchar(port, (unsigned char)*s);
	}
}

// pl011_putc(): wait while the TX FIFO is full, write DR with a byte store, and (v0) wait while the
// UART is busy. The kernel's iotype check (writel for UPIO_MEM32) is left out: this port is UPIO_MEM.
__attribute__((noipa)) static void pl011_putc(struct uart_port *port, unsigned char c)
{
	while (readl((char *)port->membase + UART01x_FR) & UART01x_FR_TXFF)
		cpu_relax();
	writeb(c, (char *)port->membase + UART01x_DR);
#if EARLYCON_VARIANT == 0
	while (readl((char *)port->membase + UART01x_FR) & UART01x_FR_BUSY)
		cpu_relax();
#endif
}

__attribute__((noipa)) static void pl011_early_write(struct console *con, const char *s, unsigned int n)
{
	struct earlycon_device *dev = con->data;

	uart_console_write(&dev->port, s, n, pl011_putc);
#if EARLYCON_VARIANT == 2
	while (readl((char *)dev->port.membase + UART01x_FR) & UART01x_FR_BUSY)
		cpu_relax();
#endif
}

static struct earlycon_device early_device = {.port = {.membase = (__iomem_t *)VIRT_PL011_BASE}};
static struct console early_console = {.data = &early_device};

static void write_record(const char *s, unsigned int n)
{
	pl011_early_write(&early_console, s, n);
}

// The boot firmware's set-up of the PL011 before the kernel's earlycon takes it over, the same writes as
// uartvp's instruction-stub run of the earlycon (pl011_firmware_setup in sw/drivers/tty/serial): UART off,
// the divisor, the frame with the FIFOs on (the LCRH write latches the divisor), UART on. The line
// settings are the host's where it left them (VIRT_CONFIG_BASE).
static void firmware_setup(void)
{
	volatile uint32_t *base = (volatile uint32_t *)VIRT_PL011_BASE;
	const volatile uint32_t *config = (const volatile uint32_t *)VIRT_CONFIG_BASE;
	const int given = config[0] == VIRT_CONFIG_MAGIC;

	base[UART011_CR / 4] = 0;
	base[UART011_IBRD / 4] = given ? config[1] : VIRT_PL011_IBRD;
	base[UART011_FBRD / 4] = given ? config[2] : VIRT_PL011_FBRD;
	base[UART011_LCRH / 4] = given ? config[3] : VIRT_PL011_LCRH;
	base[UART011_CR / 4] = VIRT_PL011_CR;
}

int main(void)
{
	firmware_setup();
	for_each_boot_log_line(write_record);
	// No wait for the line to drain (v1 leaves bytes in the FIFO): QEMU and uartvp let the UART finish
	// after SYSTEM_OFF, and the earlycon's own accesses stay exactly the kernel's.
	return 0;
}
