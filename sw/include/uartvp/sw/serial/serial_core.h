// SPDX-License-Identifier: Apache-2.0
#pragma once
// The serial core (drivers/tty/serial/serial_core.c) between the tty layer and a UART driver: the port
// structure the drivers share, uart_write into the port's transmit buffer and the driver's start_tx,
// the write wake-up, uart_insert_char.
#include <cstdint>

#include <uartvp/cpu/kernel.h>

#include <uartvp/sw/tty/tty.h>

namespace uartvp::sw {

struct vendor_data;
struct uart_port;

// struct uart_icount: what the driver counted.
struct uart_icount {
    std::uint64_t rx = 0, tx = 0, frame = 0, parity = 0, brk = 0, overrun = 0, buf_overrun = 0;
};

// The driver's operations the serial core calls (struct uart_ops), with the lock held and IRQs off.
struct uart_ops {
    void (*start_tx)(uart_port& port);
    void (*stop_tx)(uart_port& port);
};

// struct uart_state: the tty port (flip buffer, transmit buffer) of a uart_port.
struct uart_state {
    tty_port port;
    sw::uart_port* uart_port = nullptr;
};

// struct uart_port: the registers' base and access width, the port lock, and what the serial core
// and the interrupt-driven path use. (vendor: the PL011's vendor data, for the console routines of
// <pl011.h>; none means ARM's own.)
struct uart_port {
    kapi::iomem membase = 0;
    bool iotype32 = false; // UPIO_MEM32: every access 32-bit (SBSA generic UART, "mmio32")
    const vendor_data* vendor = nullptr;
    kapi::spinlock lock;
    // the interrupt-driven path
    int irq = -1; // the machine's line number
    unsigned fifosize = 0;
    uart_icount icount;
    uart_state* state = nullptr;
    const uart_ops* ops = nullptr;
    unsigned char x_char = 0; // a flow-control character to send first (XON/XOFF)
    unsigned read_status_mask = 0, ignore_status_mask = 0;
};

// The tty operations of a serial port: write is uart_write.
extern const tty_operations uart_tty_ops;

// Connects a port, its state and its tty (uart_add_one_port, then the tty's open).
void uart_port_attach(uart_port& port, uart_state& state, tty_struct& tty);

// tty->ops->write: copies what fits into the transmit buffer and starts the transmitter, under the
// port lock with IRQs off; returns the bytes taken.
std::size_t uart_write(tty_struct& tty, const unsigned char* buf, std::size_t count);
// Called by the driver with fewer than WAKEUP_CHARS pending: wakes the tty's writers.
void uart_write_wakeup(uart_port& port);
// The driver's received character: into the flip buffer unless its status is ignored, and a
// TTY_OVERRUN flag character after it when the status has the overrun bit.
void uart_insert_char(uart_port& port, unsigned status, unsigned overrun, unsigned ch, tty_flag flag);
// Flow control stopped the transmitter (never here: no CRTSCTS, no IXON).
inline bool uart_tx_stopped(const uart_port&) {
    return false;
}

// uart_get_divisor: the 16x clock divisor for `baud`, DIV_ROUND_CLOSEST(uartclk, 16 * baud) (the 8250's
// divisor latch; 0 or above 65535 is out of the latch's range, for the caller to refuse).
std::uint64_t uart_get_divisor(std::uint64_t uartclk, std::uint64_t baud);

} // namespace uartvp::sw
