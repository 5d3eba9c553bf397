// SPDX-License-Identifier: Apache-2.0
#pragma once
// PL011 console routines of drivers/tty/serial/amba-pl011.c as sw-tasks: the earlycon putc in its
// variants around the seed-000 patch, the QDF2400 erratum 44 putc, and the full driver's console path.
#include <cstdint>
#include <string_view>

#include <uartvp/cpu/kernel.h>

#include <uartvp/sw/linux/amba/serial.h>
#include <uartvp/sw/serial/serial_core.h>

namespace uartvp::sw {

// The vendor differences the console write honours (struct vendor_data in amba-pl011.c).
struct vendor_data {
    std::uint32_t fr_busy; // the FR bit that means "transmitter busy"
    std::uint32_t inv_fr;  // FR bits read inverted (an erratum's workaround)
    bool access_32b;       // the probe sets UPIO_MEM32: every access 32-bit
    bool always_enabled;   // firmware keeps UART and TX enabled: no CR save and restore
};
// ARM's own PL011; the SBSA generic UART (32-bit registers, always enabled); QDF2400 erratum 44, whose
// BUSY cannot be trusted: "busy" is FR.TXFE inverted, so the wait ends when the TX FIFO is empty.
constexpr vendor_data vendor_arm{UART01x_FR_BUSY, 0, false, false};
constexpr vendor_data vendor_sbsa{UART01x_FR_BUSY, 0, true, true};
constexpr vendor_data vendor_qdt_qdf2400_e44{UART011_FR_TXFE, UART011_FR_TXFE, true, true};

// The port (struct uart_port) is the serial core's, <serial/serial_core.h>: membase, iotype32, the
// vendor (none: ARM's own) and the port lock are what the console routines use.

// The full driver's accessors (REG_* offsets as the standard layout has them): 16-bit, or 32-bit on a
// UPIO_MEM32 port.
std::uint32_t pl011_read(const uart_port& port, std::uint32_t reg);
void pl011_write(std::uint32_t val, const uart_port& port, std::uint32_t reg);

using putchar_fn = void (*)(uart_port&, unsigned char);

// For each byte, a '\n' is preceded by putchar('\r').
void uart_console_write(uart_port& port, std::string_view s, putchar_fn putchar);

// earlycon putc: v0 before the seed-000 patch (waits for BUSY after every character), v1/v2 after.
void pl011_putc_v0(uart_port& port, unsigned char c);
void pl011_putc_v1(uart_port& port, unsigned char c);
// v0 as the kernel writes it, its loops literal (`while (readl(FR) & BUSY) cpu_relax();`), not
// spin_while: the same reads, values and times as v0 (the CPU stub answers the reads a promise covers).
void pl011_putc_v0_literal(uart_port& port, unsigned char c);
// The QDF2400 erratum 44 putc: polls TXFE (inverted) instead of BUSY, which could stick.
void qdf2400_e44_putc(uart_port& port, unsigned char c);

// earlycon write (one call per console write, i.e. per printk record).
void pl011_early_write_v0(uart_port& port, std::string_view s);
void pl011_early_write_v0_literal(uart_port& port, std::string_view s);
void pl011_early_write_v1(uart_port& port, std::string_view s);
// v2: no BUSY wait per character, one after the whole string: when it returns, the line is idle.
void pl011_early_write_v2(uart_port& port, std::string_view s);
void qdf2400_e44_early_write(uart_port& port, std::string_view s);

// The full driver's console: putchar waits for room only; the legacy write (before v6.15) holds the
// port lock with IRQs off for the whole message, forces UARTEN|TXE (and no CTS flow control) unless the
// vendor is always enabled, and waits once for the vendor's "not busy" ((FR ^ inv_fr) & fr_busy clear).
// Accesses are 16-bit, or 32-bit on a UPIO_MEM32 port (iotype32, which the probe sets from access_32b).
void pl011_console_putchar(uart_port& port, unsigned char c);
void pl011_console_write(uart_port& port, std::string_view s);

// What firmware leaves behind for earlycon: divisor, frame format (FIFO on), UART and TX enabled.
void pl011_firmware_setup(uart_port& port, std::uint32_t ibrd, std::uint32_t fbrd, std::uint32_t lcrh);

// The divisor pl011_set_termios programs for `baud` from UARTCLK: quot = DIV_ROUND_CLOSEST(uartclk * 4,
// baud), 64 times UARTCLK / (16 * baud); IBRD its integer part (quot >> 6), FBRD its sixty-fourths.
void pl011_baud_divisor(std::uint64_t uartclk, std::uint64_t baud, std::uint32_t& ibrd, std::uint32_t& fbrd);

} // namespace uartvp::sw
