// SPDX-License-Identifier: Apache-2.0
// The console routines of drivers/tty/serial/8250/8250_port.c: the port's accessors, the LSR waits,
// the console write in its variants (per character, the FIFO path as merged, since v6.14, the first
// version), and the setup firmware leaves the port in. The early console is 8250_early.cpp.
#include <uartvp/sw/serial8250.h>

#include "drivers/tty/serial/8250/8250_port.h"

namespace uartvp::sw {

using namespace kapi;

std::uint8_t serial_in(uart_8250_port& up, unsigned offset) {
    switch (up.iotype) {
    case upio::port:
        return inb(static_cast<std::uint16_t>(up.iobase + offset));
    case upio::mem:
        return readb(up.membase + (offset << up.regshift));
    default:
        return static_cast<std::uint8_t>(readl(up.membase + (offset << up.regshift)));
    }
}

poll_result serial_in_poll(uart_8250_port& up, unsigned offset,
                           const std::function<bool(std::uint32_t)>& keep, unsigned long max_reads,
                           unsigned long us, std::uint32_t bits) {
    const iomem mem = up.membase + (offset << up.regshift);
    const auto port = static_cast<std::uint16_t>(up.iobase + offset);
    if (us == 0 && max_reads == 0) {
        switch (up.iotype) {
        case upio::port:
            return {spin_while(inb, port, keep, bits), 0, false};
        case upio::mem:
            return {spin_while(readb, mem, keep, bits), 0, false};
        default:
            return {spin_while(readl, mem, keep, bits), 0, false};
        }
    }
    switch (up.iotype) {
    case upio::port:
        return poll_udelay(inb, port, keep, max_reads, us, bits);
    case upio::mem:
        return poll_udelay(readb, mem, keep, max_reads, us, bits);
    default:
        return poll_udelay(readl, mem, keep, max_reads, us, bits);
    }
}

void serial_out(uart_8250_port& up, unsigned offset, std::uint8_t value) {
    switch (up.iotype) {
    case upio::port:
        outb(value, static_cast<std::uint16_t>(up.iobase + offset));
        break;
    case upio::mem:
        writeb(value, up.membase + (offset << up.regshift));
        break;
    default:
        writel(value, up.membase + (offset << up.regshift));
        break;
    }
}

void uart_console_write(uart_8250_port& up, std::string_view s, putchar_8250_fn putchar) {
    for (char ch : s) {
        if (ch == '\n') putchar(up, '\r');
        putchar(up, static_cast<unsigned char>(ch));
    }
}

bool wait_for_lsr(uart_8250_port& up, std::uint8_t bits) {
    // Wait up to 10 ms for the character(s) to be sent: up to 10000 reads of LSR, udelay(1) between.
    const poll_result r = serial_in_poll(
        up, UART_LSR, [bits](std::uint32_t lsr) { return (lsr & bits) != bits; }, 10000, 1, bits);
    if (r.timed_out) {
        ++up.lsr_timeouts;
        return false;
    }
    return true;
}

void wait_for_xmitr(uart_8250_port& up, std::uint8_t bits) {
    wait_for_lsr(up, bits);
    if (!up.cons_flow) return;
    // Wait up to 1 s for flow control: up to 1000000 reads of MSR, udelay(1) between. Each read clears
    // the chip's deltas: keep them for serial8250_modem_status(). (A read that clears a delta is never
    // answered by a promise, so fast mode sees each delta too.)
    serial_in_poll(
        up, UART_MSR,
        [&up](std::uint32_t msr) {
            up.msr_saved_flags |= msr & MSR_SAVE_FLAGS;
            return !(msr & UART_MSR_CTS);
        },
        1000000, 1);
}

std::uint8_t serial8250_modem_status(uart_8250_port& up) {
    std::uint8_t status = serial_in(up, UART_MSR);
    status |= up.msr_saved_flags;
    up.msr_saved_flags = 0;
    return status;
}

void serial8250_console_putchar(uart_8250_port& up, unsigned char c) {
    wait_for_xmitr(up, UART_LSR_THRE);
    serial_out(up, UART_TX, c);
}

// Up to tx_loadsz bytes of s from p, back to back: a '\r' before each '\n', counting against the burst
// (cr_sent remembers a '\r' sent at the end of the previous burst). Returns the bytes written.
static unsigned fifo_burst(uart_8250_port& up, unsigned n, std::string_view s, std::string_view::iterator& p,
                           bool& cr_sent) {
    unsigned i = 0;
    for (; i < n && p != s.end(); ++i) {
        if (*p == '\n' && !cr_sent) {
            serial_out(up, UART_TX, '\r');
            cr_sent = true;
        } else {
            serial_out(up, UART_TX, static_cast<std::uint8_t>(*p++));
            cr_sent = false;
        }
    }
    return i;
}

void serial8250_console_fifo_write(uart_8250_port& up, std::string_view s) {
    const unsigned fifosize = up.tx_loadsz;
    bool cr_sent = false;
    auto p = s.begin();
    while (p != s.end()) {
        wait_for_lsr(up, UART_LSR_THRE); // one wait of up to 10 ms, whatever the FIFO holds
        fifo_burst(up, fifosize, s, p, cr_sent);
    }
}

// Up to `count` waits for THRE, until one succeeds.
static void fifo_wait_for_lsr(uart_8250_port& up, unsigned count) {
    for (unsigned i = 0; i < count; ++i)
        if (wait_for_lsr(up, UART_LSR_THRE)) return;
}

void serial8250_console_fifo_write_v6_14(uart_8250_port& up, std::string_view s) {
    const unsigned fifosize = up.tx_loadsz;
    unsigned tx_count = 0;
    bool cr_sent = false;
    auto p = s.begin();
    while (p != s.end()) {
        // Allow a timeout for each byte of a possibly full FIFO.
        fifo_wait_for_lsr(up, fifosize);
        tx_count = fifo_burst(up, fifosize, s, p, cr_sent);
    }
    // And for each byte of the last burst: the caller's THRE|TEMT wait allows only one timeout.
    fifo_wait_for_lsr(up, tx_count);
}

void serial8250_console_fifo_write_v1(uart_8250_port& up, std::string_view s) {
    const unsigned fifosize = up.fifosize; // not tx_loadsz: one of the reasons for the revert
    bool cr_sent = false;
    auto p = s.begin();
    while (p != s.end()) {
        wait_for_lsr(up, UART_LSR_THRE);
        fifo_burst(up, fifosize, s, p, cr_sent);
    }
}

namespace {

// The frame of every console write: port lock with IRQs saved, IER saved and cleared, the body, wait
// until the transmitter is empty, IER restored; then the modem status the CTS waits saw with
// interrupts off (a delta read there is gone from the chip).
template <class body_fn> void console_write_frame(uart_8250_port& up, body_fn body) {
    irqflags flags;
    spin_lock_irqsave(up.port.lock, flags);
    const std::uint8_t ier = serial_in(up, UART_IER);
    serial_out(up, UART_IER, 0);
    body();
    // Finally, wait for the transmitter to become empty and restore IER.
    wait_for_xmitr(up, UART_LSR_BOTH_EMPTY);
    serial_out(up, UART_IER, ier);
    if (up.msr_saved_flags) serial8250_modem_status(up);
    spin_unlock_irqrestore(up.port.lock, flags);
}

// Whether the merged console write takes the FIFO path.
bool use_fifo(const uart_8250_port& up) {
    return up.cap_fifo && !up.cap_mini && // the mini UART's THRE means "not full": check after each byte
           up.tx_loadsz > 1 && (up.fcr & UART_FCR_ENABLE_FIFO) && up.initialized &&
           !up.cons_flow; // bytes in the FIFO go out whatever CTS says
}

} // namespace

void serial8250_console_write(uart_8250_port& up, std::string_view s) {
    console_write_frame(up, [&] {
        if (use_fifo(up))
            serial8250_console_fifo_write(up, s);
        else
            uart_console_write(up, s, serial8250_console_putchar);
    });
}

void serial8250_console_write_v6_14(uart_8250_port& up, std::string_view s) {
    console_write_frame(up, [&] {
        if (use_fifo(up))
            serial8250_console_fifo_write_v6_14(up, s);
        else
            uart_console_write(up, s, serial8250_console_putchar);
    });
}

void serial8250_console_write_v0(uart_8250_port& up, std::string_view s) {
    console_write_frame(up, [&] { uart_console_write(up, s, serial8250_console_putchar); });
}

void serial8250_console_write_v1(uart_8250_port& up, std::string_view s) {
    console_write_frame(up, [&] {
        // FCR is write only: this reads IIR, whose bit 0 is set whenever no interrupt is pending.
        const bool fifo = up.cap_fifo && up.fifosize > 1 &&
                          (serial_in(up, UART_FCR) & UART_FCR_ENABLE_FIFO) && !up.cons_flow;
        if (fifo)
            serial8250_console_fifo_write_v1(up, s);
        else
            uart_console_write(up, s, serial8250_console_putchar);
    });
}

static void write_divisor(uart_8250_port& up, std::uint16_t divisor, std::uint8_t lcr) {
    serial_out(up, UART_LCR, lcr | UART_LCR_DLAB);
    serial_out(up, UART_DLL, divisor & 0xFF);
    serial_out(up, UART_DLM, divisor >> 8);
    serial_out(up, UART_LCR, lcr);
}

void serial8250_port_startup(uart_8250_port& up, std::uint16_t divisor, std::uint8_t lcr) {
    serial_out(up, UART_FCR, UART_FCR_ENABLE_FIFO);
    serial_out(up, UART_FCR, UART_FCR_ENABLE_FIFO | UART_FCR_CLEAR_RCVR | UART_FCR_CLEAR_XMIT);
    serial_out(up, UART_FCR, 0);
    write_divisor(up, divisor, lcr);
    up.fcr = UART_FCR_ENABLE_FIFO | UART_FCR_R_TRIG_10;
    serial_out(up, UART_FCR, up.fcr);
    serial_out(up, UART_MCR, UART_MCR_DTR | UART_MCR_RTS | UART_MCR_OUT2);
    serial_out(up, UART_IER, 0);
    up.initialized = true;
}

} // namespace uartvp::sw
