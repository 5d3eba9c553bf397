// SPDX-License-Identifier: Apache-2.0
// The firmware's small library: MMIO accessors, the PL011 set-up and console output, the GICv2, PSCI
// power-off, the payload mailbox, and the hooks the start-up code and vectors call.
#ifndef UARTVP_FIRMWARE_FIRMWARE_H
#define UARTVP_FIRMWARE_FIRMWARE_H

#include <stddef.h>
#include <stdint.h>

#include "virt.h"

// ---- MMIO: volatile accesses of the given width, no barriers --------------------------------------------
static inline uint32_t mmio_read32(uintptr_t addr)
{
	return *(volatile uint32_t *)addr;
}

static inline void mmio_write32(uintptr_t addr, uint32_t value)
{
	*(volatile uint32_t *)addr = value;
}

static inline void mmio_write8(uintptr_t addr, uint8_t value)
{
	*(volatile uint8_t *)addr = value;
}

// ---- CPU ------------------------------------------------------------------------------------------------
static inline void irq_enable(void)
{
	__asm__ volatile("msr daifclr, #2" ::: "memory");
}

static inline void irq_disable(void)
{
	__asm__ volatile("msr daifset, #2" ::: "memory");
}

// Waits for an interrupt; wakes when one is pending even with PSTATE.I set (the architecture's rule).
static inline void wfi(void)
{
	__asm__ volatile("wfi" ::: "memory");
}

static inline void isb(void)
{
	__asm__ volatile("isb" ::: "memory");
}

// ---- PL011 (uart.c) -----------------------------------------------------------------------------------
// The firmware's set-up: disabled, interrupts masked and cleared, 115200 8N1 from 24 MHz, FIFOs on,
// UARTEN|TXE|RXE.
void pl011_setup(void);
// One byte to DR (32-bit store) once the TX FIFO has room; no conversion.
void pl011_write_byte(uint8_t c);
// A string with a '\r' before each '\n' (as the kernel's uart_console_write).
void pl011_puts(const char *s);
void pl011_put_udec(uint64_t v);
void pl011_put_hex(uint64_t v);
// Waits until the PL011 has sent everything (FR.BUSY clear).
void pl011_wait_idle(void);

// ---- GICv2 (gic.c) --------------------------------------------------------------------------------------
// Distributor and CPU interface off, then on with the priority mask `pmr`.
void gic_init(uint8_t pmr);
// Configures and enables one interrupt: priority, (SPIs only) CPU target mask and level/edge.
void gic_enable_irq(unsigned intid, uint8_t priority, uint8_t targets, int edge);
void gic_disable_irq(unsigned intid);
// GICC_IAR (the whole value: pass it back to gic_eoi) and GICC_EOIR.
uint32_t gic_ack(void);
void gic_eoi(uint32_t iar);

// ---- PSCI (psci.c) --------------------------------------------------------------------------------------
// SYSTEM_OFF by HVC #0; if the call returns, masks DAIF and waits on WFI for ever.
void system_off(void) __attribute__((noreturn));

// ---- Payload mailbox and the built-in boot log (bootlog.c) ----------------------------------------------
// The payload's length, 0 when there is none (or the length is not believable).
uint64_t mailbox_length(void);
// Calls write(s, n) once per line (each including its '\n'; a last line without one as it is) of the
// mailbox's payload, or of a built-in boot log of five lines when the mailbox is empty.
void for_each_boot_log_line(void (*write)(const char *s, unsigned int n));

// ---- Hooks (vectors.S calls these) -----------------------------------------------------------------------
// The IRQ at the current EL with SP_ELx. A program that takes interrupts defines it; the library's weak
// one reports an unexpected interrupt as fatal.
void irq_handler(void);
// Every other vector: `kind` is the vector's index (0-15: group * 4 + type, group 0 current EL SP_EL0,
// 1 current EL SP_ELx, 2 lower EL AArch64, 3 lower EL AArch32; type 0 sync, 1 IRQ, 2 FIQ, 3 SError).
// Prints one line on the PL011 and powers off.
void fatal_exception(unsigned long kind) __attribute__((noreturn));

int main(void);

#endif
