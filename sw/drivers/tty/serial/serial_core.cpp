// SPDX-License-Identifier: Apache-2.0
#include <uartvp/sw/serial/serial_core.h>

namespace uartvp::sw {

using namespace kapi;

const tty_operations uart_tty_ops{uart_write};

void uart_port_attach(uart_port& port, uart_state& state, tty_struct& tty) {
    port.state = &state;
    state.uart_port = &port;
    tty_port_link(state.port, tty);
    tty.ops = &uart_tty_ops;
    tty.driver_data = &state;
}

// __uart_start: the driver's start_tx, unless flow control stopped the transmitter.
static void uart_start(uart_state& state) {
    uart_port* port = state.uart_port;
    if (port && !uart_tx_stopped(*port)) port->ops->start_tx(*port);
}

std::size_t uart_write(tty_struct& tty, const unsigned char* buf, std::size_t count) {
    uart_state& state = *static_cast<uart_state*>(tty.driver_data);
    uart_port& port = *state.uart_port;
    irqflags flags;
    spin_lock_irqsave(port.lock, flags); // uart_port_lock()
    const std::size_t ret = state.port.xmit_fifo.in(buf, count);
    uart_start(state);
    spin_unlock_irqrestore(port.lock, flags);
    return ret;
}

void uart_write_wakeup(uart_port& port) {
    if (port.state && port.state->port.itty) tty_wakeup(*port.state->port.itty);
}

void uart_insert_char(uart_port& port, unsigned status, unsigned overrun, unsigned ch, tty_flag flag) {
    tty_port& tport = port.state->port;
    if ((status & port.ignore_status_mask & ~overrun) == 0)
        if (!tty_insert_flip_char(tport, static_cast<unsigned char>(ch), flag)) ++port.icount.buf_overrun;
    // Overrun is special: the character was received fine, the ones after it were lost.
    if (status & ~port.ignore_status_mask & overrun)
        if (!tty_insert_flip_char(tport, 0, TTY_OVERRUN)) ++port.icount.buf_overrun;
}

std::uint64_t uart_get_divisor(std::uint64_t uartclk, std::uint64_t baud) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(uartclk) + 8 * baud) / (16 * baud));
}

} // namespace uartvp::sw
