// SPDX-License-Identifier: Apache-2.0
#include "drivers/tty/serial/8250/8250_nbcon.h"

namespace uartvp::sw {

using namespace kapi;

namespace {

serial8250_console_port& cport_of(console& co) {
    return *static_cast<serial8250_console_port*>(co.data);
}

// Whether the console write may take the FIFO path (as serial8250_console_write decides it).
bool nbcon_use_fifo(const uart_8250_port& up) {
    return up.cap_fifo && !up.cap_mini && // BCM283x requires to check the FIFO after each byte
           up.tx_loadsz > 1 && (up.fcr & UART_FCR_ENABLE_FIFO) && up.initialized && !up.cons_flow;
}

// Gives another context the chance of a friendly takeover between two pieces of the record; false if
// this context lost the console (it must reacquire it before touching IER again).
bool nbcon_takeover_point(nbcon_write_context& wctxt) {
    return nbcon_exit_unsafe(wctxt) && nbcon_enter_unsafe(wctxt);
}

// The record one character at a time: THRE before each, '\r' before '\n'.
bool nbcon_byte_write(uart_8250_port& up, nbcon_write_context& wctxt) {
    const std::string& s = wctxt.outbuf;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i > 0 && !nbcon_takeover_point(wctxt)) return false;
        if (s[i] == '\n') serial8250_console_putchar(up, '\r');
        serial8250_console_putchar(up, static_cast<unsigned char>(s[i]));
    }
    return true;
}

// The FIFO path: up to tx_loadsz bytes per THRE (the v6.14 timeouts), a takeover point between bursts.
bool nbcon_fifo_write(uart_8250_port& up, nbcon_write_context& wctxt) {
    const std::string& s = wctxt.outbuf;
    std::size_t i = 0;
    bool cr_sent = false;
    unsigned tx_count = 0;
    while (i < s.size()) {
        if (i > 0 && !nbcon_takeover_point(wctxt)) return false;
        for (unsigned k = 0; k < up.tx_loadsz && !wait_for_lsr(up, UART_LSR_THRE); ++k) {
        }
        tx_count = 0;
        for (; tx_count < up.tx_loadsz && i < s.size(); ++tx_count) {
            if (s[i] == '\n' && !cr_sent) {
                serial_out(up, UART_TX, '\r');
                cr_sent = true;
            } else {
                serial_out(up, UART_TX, static_cast<std::uint8_t>(s[i++]));
                cr_sent = false;
            }
        }
    }
    for (unsigned k = 0; k < tx_count && !wait_for_lsr(up, UART_LSR_THRE); ++k) {
    }
    return true;
}

void nbcon_console_write(console& co, nbcon_write_context& wctxt, bool in_atomic) {
    serial8250_console_port& cp = cport_of(co);
    uart_8250_port& up = *cp.up;
    if (!nbcon_enter_unsafe(wctxt)) return;
    // First save IER, then disable the interrupts.
    const std::uint8_t ier = serial_in(up, UART_IER);
    serial_out(up, UART_IER, 0);
    const bool done = nbcon_use_fifo(up) ? nbcon_fifo_write(up, wctxt) : nbcon_byte_write(up, wctxt);
    if (!done) {
        // Taken over: own the console again (without a record) to restore IER.
        do
            nbcon_reacquire_nobuf(wctxt);
        while (!nbcon_enter_unsafe(wctxt));
    }
    // Finally, wait for the transmitter to become empty and restore IER.
    wait_for_xmitr(up, UART_LSR_BOTH_EMPTY);
    serial_out(up, UART_IER, ier);
    // The modem status the CTS waits saw with interrupts off. An atomic context may not be allowed to
    // wake tasks: hand it to the irq_work.
    if (up.msr_saved_flags) {
        if (in_atomic) {
            ++cp.modem_status_deferred;
            irq_work_queue(&cp.modem_status_work);
        } else {
            serial8250_modem_status(up);
        }
    }
    nbcon_exit_unsafe(wctxt);
}

} // namespace

void serial8250_console_write_atomic(console& co, nbcon_write_context& wctxt) {
    nbcon_console_write(co, wctxt, true);
}

void serial8250_console_write_thread(console& co, nbcon_write_context& wctxt) {
    nbcon_console_write(co, wctxt, false);
}

void serial8250_console_device_lock(console& co, irqflags& flags) {
    spin_lock_irqsave(cport_of(co).up->port.lock, flags);
}

void serial8250_console_device_unlock(console& co, irqflags flags) {
    spin_unlock_irqrestore(cport_of(co).up->port.lock, flags);
}

void serial8250_console_init(console& co, serial8250_console_port& cp, int index, bool nbcon) {
    co.name = "ttyS";
    co.index = index;
    co.data = &cp;
    co.flags = CON_PRINTBUFFER;
    // serial8250_modem_status_work: the deferred modem status, in hard-IRQ context under the port lock.
    cp.modem_status_work.func = [&cp](irq_work*) {
        irqflags flags;
        spin_lock_irqsave(cp.up->port.lock, flags);
        ++cp.modem_status_from_irq_work;
        serial8250_modem_status(*cp.up);
        spin_unlock_irqrestore(cp.up->port.lock, flags);
    };
    if (nbcon) {
        co.flags |= CON_NBCON;
        co.write_atomic = serial8250_console_write_atomic;
        co.write_thread = serial8250_console_write_thread;
        co.device_lock = serial8250_console_device_lock;
        co.device_unlock = serial8250_console_device_unlock;
    } else {
        co.write = [](console& c, std::string_view s) { serial8250_console_write_v6_14(*cport_of(c).up, s); };
    }
}

} // namespace uartvp::sw
