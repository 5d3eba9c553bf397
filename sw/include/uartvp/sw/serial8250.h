// SPDX-License-Identifier: Apache-2.0
#pragma once
// 8250/16550 console routines of drivers/tty/serial/8250/8250_port.c and 8250_early.c as sw-tasks: the
// LSR waits with their udelay(1) timeouts, the console's per-character path, its FIFO path (as merged in
// v5.19, with the v6.14 timeouts, and the first version that was reverted, seed 002), and the early
// console's setup and putc.
#include <cstdint>
#include <string_view>

#include <uartvp/cpu/kernel.h>

#include <uartvp/sw/linux/serial_reg.h>
#include <uartvp/sw/serial/serial_core.h>

namespace uartvp::sw {

// The modem status bits the port keeps between reads (drivers/tty/serial/8250/8250.h).
constexpr std::uint8_t MSR_SAVE_FLAGS = UART_MSR_ANY_DELTA;

// UPIO_PORT (inb/outb), UPIO_MEM (readb/writeb), UPIO_MEM32 (readl/writel).
enum class upio { port, mem, mem32 };

// The parts of struct uart_8250_port (and its uart_port) that the console routines and the
// interrupt-driven path (<serial/8250_port.h>) use. The register layout is the fields after `port`;
// `port` holds the serial core's part: the port lock, the counters, the tty state, the IRQ line.
struct uart_8250_port {
    uart_port port;
    upio iotype = upio::port;
    std::uint16_t iobase = 0; // UPIO_PORT
    kapi::iomem membase = 0;  // UPIO_MEM, UPIO_MEM32
    unsigned regshift = 0;    // register i at membase + (i << regshift)
    unsigned fifosize = 16;   // port.fifosize
    unsigned tx_loadsz = 16;  // bytes the driver may write per THRE
    bool cap_fifo = true;     // UART_CAP_FIFO (autoconfig found a 16550A)
    bool cap_mini = false;    // UART_CAP_MINI: the BCM283x mini UART, whose THRE means "not full"
    std::uint8_t fcr = 0;     // the FCR value last written: FCR cannot be read back
    bool initialized = false; // tty_port_initialized(): the port has been started up
    bool cons_flow = false;   // UPF_CONS_FLOW: console flow control on CTS
    // MSR deltas the console's CTS waits read (reading MSR clears them in the chip), handed to
    // serial8250_modem_status() once IER is restored.
    std::uint8_t msr_saved_flags = 0;
    // The interrupt-driven path: the IER, MCR and LCR the driver last wrote, LSR error bits read by
    // someone else and not yet handled, the modem-control lines asked for, the bugs startup found.
    std::uint8_t ier = 0, mcr = 0, lcr = 0, lsr_saved_flags = 0;
    unsigned mctrl = 0;             // TIOCM_*
    unsigned bugs = 0;              // UART_BUG_*
    std::uint64_t lsr_timeouts = 0; // wait_for_lsr() calls that gave up (the kernel only returns false)
    // The model's counters for results (the kernel has no such figures): serial8250_tx_chars calls
    // from the interrupt that wrote, and what they wrote.
    std::uint64_t tx_irq_bursts = 0, tx_irq_chars = 0;
    unsigned tx_irq_burst_max = 0;
};

using putchar_8250_fn = void (*)(uart_8250_port&, unsigned char);

// serial_in/serial_out: the port's accessors by iotype and regshift.
std::uint8_t serial_in(uart_8250_port& up, unsigned offset);
void serial_out(uart_8250_port& up, unsigned offset, std::uint8_t value);

// For each byte, a '\n' is preceded by putchar('\r').
void uart_console_write(uart_8250_port& up, std::string_view s, putchar_8250_fn putchar);

// Up to 10000 x { read LSR; done if all bits set; udelay(1) } (about 10 ms); false on timeout.
bool wait_for_lsr(uart_8250_port& up, std::uint8_t bits);
// wait_for_lsr, then with console flow control up to 1,000,000 x { read MSR, keeping its deltas in
// msr_saved_flags; done if CTS; udelay(1) }.
void wait_for_xmitr(uart_8250_port& up, std::uint8_t bits);
// Reads MSR and folds in (and clears) the saved deltas; the kernel then counts them and wakes waiters.
std::uint8_t serial8250_modem_status(uart_8250_port& up);

void serial8250_console_putchar(uart_8250_port& up, unsigned char c);

// Every console write: port lock with IRQs saved, IER saved and cleared, the body, wait for THRE|TEMT,
// IER restored, then serial8250_modem_status() if the CTS waits saved MSR deltas.
// As merged (v5.19): the FIFO path if the port has a FIFO and is not a mini UART, tx_loadsz > 1, the
// cached FCR enables the FIFO, the port is initialised and there is no console flow control; the
// per-character path otherwise.
void serial8250_console_write(uart_8250_port& up, std::string_view s);
// FIFO path, v5.19: wait for THRE once (one 10 ms wait_for_lsr), then up to tx_loadsz bytes back to
// back, a '\r' before each '\n' counting against the burst.
void serial8250_console_fifo_write(uart_8250_port& up, std::string_view s);
// Since v6.14 ("Adjust the timeout for FIFO mode"): the THRE wait before each burst allows one timeout
// per byte of a possibly full FIFO (up to tx_loadsz wait_for_lsr calls), and after the last burst one
// more such wait, one timeout per byte of that burst, before the caller's THRE|TEMT wait.
void serial8250_console_write_v6_14(uart_8250_port& up, std::string_view s);
void serial8250_console_fifo_write_v6_14(uart_8250_port& up, std::string_view s);

// Before the FIFO patch: always the per-character path.
void serial8250_console_write_v0(uart_8250_port& up, std::string_view s);
// The first FIFO version (v5.17-rc1, reverted): decides on FCR read from the port (offset 2 reads IIR,
// whose bit 0 is "no interrupt pending"), bursts fifosize bytes per THRE, and does not ask whether the
// port is initialised: before startup, the FIFO is off and 15 of every 16 bytes overwrite each other.
void serial8250_console_write_v1(uart_8250_port& up, std::string_view s);
void serial8250_console_fifo_write_v1(uart_8250_port& up, std::string_view s);

// 8250_early: write THR, then spin (cpu_relax, no timeout) until THRE and TEMT are both set.
void serial_putc(uart_8250_port& up, unsigned char c);
void early_serial8250_write(uart_8250_port& up, std::string_view s);
// 8250_early init_port (a baud rate given): LCR = 8N1 (fixed: the early console takes no frame
// format), IER read and cleared but for UUE, FCR=0 (FIFO off), DTR|RTS, then the divisor under DLAB with
// LCR read back and restored.
void early_serial8250_init_port(uart_8250_port& up, std::uint16_t divisor);

// What serial8250_startup() and set_termios leave behind: FIFOs cleared and enabled with the 16550A's
// RX trigger of 8 (cached in up.fcr), the divisor and frame, DTR|RTS|OUT2, IER off; the port is
// initialised.
void serial8250_port_startup(uart_8250_port& up, std::uint16_t divisor, std::uint8_t lcr);

// The BCM2835 AUX mini UART's AUX_MU_BAUD for `baud` from the core clock (drivers/tty/serial/8250/
// 8250_bcm2835aux.c): DIV_ROUND_CLOSEST(clock, 8 * baud) - 1; -1 or more than 65535 is out of range.
std::int64_t bcm2835aux_baud_reg(std::uint64_t clock, std::uint64_t baud);

} // namespace uartvp::sw
