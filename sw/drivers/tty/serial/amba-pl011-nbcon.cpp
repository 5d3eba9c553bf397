// SPDX-License-Identifier: Apache-2.0
#include "drivers/tty/serial/amba-pl011-nbcon.h"

namespace uartvp::sw {

using namespace kapi;

namespace {

uart_port& port_of(console& co) {
    return *static_cast<uart_port*>(co.data);
}
const vendor_data& vendor_of(const uart_port& port) {
    return port.vendor ? *port.vendor : vendor_arm;
}

// UART and transmitter on, CTS flow control off; the value to restore.
std::uint32_t pl011_console_force_cr(uart_port& port) {
    const std::uint32_t old_cr = pl011_read(port, UART011_CR);
    pl011_write((old_cr & ~UART011_CR_CTSEN) | UART01x_CR_UARTEN | UART011_CR_TXE, port, UART011_CR);
    return old_cr;
}

void pl011_console_wait_not_busy(uart_port& port) {
    const vendor_data& v = vendor_of(port);
    const auto busy = [&v](std::uint32_t fr) { return ((fr ^ v.inv_fr) & v.fr_busy) != 0; };
    if (port.iotype32)
        spin_while(readl, port.membase + UART01x_FR, busy, v.fr_busy);
    else
        spin_while(readw, port.membase + UART01x_FR, busy, v.fr_busy);
}

} // namespace

void pl011_console_write_atomic(console& co, nbcon_write_context& wctxt) {
    uart_port& port = port_of(co);
    const bool always = vendor_of(port).always_enabled;
    if (!nbcon_enter_unsafe(wctxt)) return;
    std::uint32_t old_cr = 0;
    if (!always) old_cr = pl011_console_force_cr(port);
    uart_console_write(port, wctxt.outbuf, pl011_console_putchar);
    pl011_console_wait_not_busy(port);
    if (!always) pl011_write(old_cr, port, UART011_CR);
    nbcon_exit_unsafe(wctxt);
}

void pl011_console_write_thread(console& co, nbcon_write_context& wctxt) {
    uart_port& port = port_of(co);
    const bool always = vendor_of(port).always_enabled;
    if (!nbcon_enter_unsafe(wctxt)) return;
    std::uint32_t old_cr = 0;
    if (!always) old_cr = pl011_console_force_cr(port);
    if (!nbcon_exit_unsafe(wctxt)) {
        nbcon_reacquire_nobuf(wctxt);
    } else {
        for (std::size_t i = 0; i < wctxt.outbuf.size(); ++i) {
            if (!nbcon_enter_unsafe(wctxt)) {
                nbcon_reacquire_nobuf(wctxt);
                break;
            }
            uart_console_write(port, std::string_view(wctxt.outbuf).substr(i, 1), pl011_console_putchar);
            if (!nbcon_exit_unsafe(wctxt)) {
                nbcon_reacquire_nobuf(wctxt);
                break;
            }
        }
    }
    while (!nbcon_enter_unsafe(wctxt))
        nbcon_reacquire_nobuf(wctxt);
    pl011_console_wait_not_busy(port);
    if (!always) pl011_write(old_cr, port, UART011_CR);
    nbcon_exit_unsafe(wctxt);
}

void pl011_console_device_lock(console& co, irqflags& flags) {
    spin_lock_irqsave(port_of(co).lock, flags);
}
void pl011_console_device_unlock(console& co, irqflags flags) {
    spin_unlock_irqrestore(port_of(co).lock, flags);
}

void pl011_console_init(console& co, uart_port& port, int index, bool nbcon) {
    co.name = "ttyAMA";
    co.index = index;
    co.data = &port;
    co.flags = CON_PRINTBUFFER;
    if (nbcon) {
        co.flags |= CON_NBCON;
        co.write_atomic = pl011_console_write_atomic;
        co.write_thread = pl011_console_write_thread;
        co.device_lock = pl011_console_device_lock;
        co.device_unlock = pl011_console_device_unlock;
    } else {
        co.write = [](console& c, std::string_view s) { pl011_console_write(port_of(c), s); };
    }
}

} // namespace uartvp::sw
