#include "serial8250.h"

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

// A polling loop on one register through the port's accessor, as one operation of the CPU stub:
//     for (n = 1;; ++n) { v = serial_in(up, offset); if (!keep(v) || n == max_reads) break; udelay(us); }
// (max_reads 0 and us 0: no limit, cpu_relax() between reads).
static poll_result serial_in_poll(uart_8250_port& up, unsigned offset,
                                  const std::function<bool(std::uint32_t)>& keep, unsigned long max_reads,
                                  unsigned long us) {
    const iomem mem = up.membase + (offset << up.regshift);
    const auto port = static_cast<std::uint16_t>(up.iobase + offset);
    if (us == 0 && max_reads == 0) {
        switch (up.iotype) {
        case upio::port:
            return {spin_while(inb, port, keep), 0, false};
        case upio::mem:
            return {spin_while(readb, mem, keep), 0, false};
        default:
            return {spin_while(readl, mem, keep), 0, false};
        }
    }
    switch (up.iotype) {
    case upio::port:
        return poll_udelay(inb, port, keep, max_reads, us);
    case upio::mem:
        return poll_udelay(readb, mem, keep, max_reads, us);
    default:
        return poll_udelay(readl, mem, keep, max_reads, us);
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
        up, UART_LSR, [bits](std::uint32_t lsr) { return (lsr & bits) != bits; }, 10000, 1);
    if (r.timed_out) {
        ++up.lsr_timeouts;
        return false;
    }
    return true;
}

void wait_for_xmitr(uart_8250_port& up, std::uint8_t bits) {
    wait_for_lsr(up, bits);
    if (!up.cons_flow) return;
    // Wait up to 1 s for flow control: up to 1000000 reads of MSR, udelay(1) between.
    serial_in_poll(
        up, UART_MSR, [](std::uint32_t msr) { return !(msr & UART_MSR_CTS); }, 1000000, 1);
}

void serial8250_console_putchar(uart_8250_port& up, unsigned char c) {
    wait_for_xmitr(up, UART_LSR_THRE);
    serial_out(up, UART_TX, c);
}

void serial8250_console_fifo_write(uart_8250_port& up, std::string_view s) {
    const unsigned fifosize = up.tx_loadsz;
    bool cr_sent = false;
    auto p = s.begin();
    while (p != s.end()) {
        // Allow a timeout for each byte of a possibly full FIFO.
        for (unsigned i = 0; i < fifosize; ++i)
            if (wait_for_lsr(up, UART_LSR_THRE)) break;
        for (unsigned i = 0; i < fifosize && p != s.end(); ++i) {
            if (*p == '\n' && !cr_sent) {
                serial_out(up, UART_TX, '\r');
                cr_sent = true;
            } else {
                serial_out(up, UART_TX, static_cast<std::uint8_t>(*p++));
                cr_sent = false;
            }
        }
    }
}

void serial8250_console_fifo_write_v1(uart_8250_port& up, std::string_view s) {
    const unsigned fifosize = up.fifosize; // not tx_loadsz: one of the reasons for the revert
    bool cr_sent = false;
    auto p = s.begin();
    while (p != s.end()) {
        wait_for_lsr(up, UART_LSR_THRE);
        for (unsigned i = 0; i < fifosize && p != s.end(); ++i) {
            if (*p == '\n' && !cr_sent) {
                serial_out(up, UART_TX, '\r');
                cr_sent = true;
            } else {
                serial_out(up, UART_TX, static_cast<std::uint8_t>(*p++));
                cr_sent = false;
            }
        }
    }
}

namespace {

// The frame of every console write: port lock with IRQs saved, IER saved and cleared, the body, wait
// until the transmitter is empty, IER restored.
template <class body_fn> void console_write_frame(uart_8250_port& up, body_fn body) {
    irqflags flags;
    spin_lock_irqsave(up.lock, flags);
    const std::uint8_t ier = serial_in(up, UART_IER);
    serial_out(up, UART_IER, 0);
    body();
    // Finally, wait for the transmitter to become empty and restore IER.
    wait_for_xmitr(up, UART_LSR_BOTH_EMPTY);
    serial_out(up, UART_IER, ier);
    spin_unlock_irqrestore(up.lock, flags);
}

} // namespace

void serial8250_console_write(uart_8250_port& up, std::string_view s) {
    console_write_frame(up, [&] {
        const bool use_fifo = up.cap_fifo && up.tx_loadsz > 1 && (up.fcr & UART_FCR_ENABLE_FIFO) &&
                              up.initialized && !up.cons_flow;
        if (use_fifo)
            serial8250_console_fifo_write(up, s);
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
        const bool use_fifo = up.cap_fifo && up.fifosize > 1 &&
                              (serial_in(up, UART_FCR) & UART_FCR_ENABLE_FIFO) && !up.cons_flow;
        if (use_fifo)
            serial8250_console_fifo_write_v1(up, s);
        else
            uart_console_write(up, s, serial8250_console_putchar);
    });
}

void serial_putc(uart_8250_port& up, unsigned char c) {
    serial_out(up, UART_TX, c);
    auto tx_busy = [](std::uint32_t lsr) { return (lsr & UART_LSR_BOTH_EMPTY) != UART_LSR_BOTH_EMPTY; };
    // for (;;) { if (!tx_busy(serial_in(up, UART_LSR))) break; cpu_relax(); }
    serial_in_poll(up, UART_LSR, tx_busy, 0, 0);
}

void early_serial8250_write(uart_8250_port& up, std::string_view s) {
    uart_console_write(up, s, serial_putc);
}

static void write_divisor(uart_8250_port& up, std::uint16_t divisor, std::uint8_t lcr) {
    serial_out(up, UART_LCR, lcr | UART_LCR_DLAB);
    serial_out(up, UART_DLL, divisor & 0xFF);
    serial_out(up, UART_DLM, divisor >> 8);
    serial_out(up, UART_LCR, lcr);
}

void early_serial8250_init_port(uart_8250_port& up, std::uint16_t divisor, std::uint8_t lcr) {
    serial_out(up, UART_LCR, lcr);
    serial_out(up, UART_IER, 0);
    serial_out(up, UART_FCR, 0); // no FIFO
    serial_out(up, UART_MCR, UART_MCR_DTR | UART_MCR_RTS);
    write_divisor(up, divisor, lcr);
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
