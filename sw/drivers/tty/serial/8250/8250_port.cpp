// SPDX-License-Identifier: Apache-2.0
#include "drivers/tty/serial/8250/8250_port.h"

#include <algorithm>
#include <cstddef>
#include <type_traits>

namespace uartvp::sw {

using namespace kapi;

namespace {

// container_of(port, struct uart_8250_port, port)
uart_8250_port& up_to_u8250p(uart_port& port) {
    static_assert(std::is_standard_layout_v<uart_8250_port> && offsetof(uart_8250_port, port) == 0);
    return *reinterpret_cast<uart_8250_port*>(&port);
}

// A write whose effect must be visible before going on: on MMIO, read LCR back to flush it.
void serial_port_out_sync(uart_8250_port& up, unsigned offset, std::uint8_t value) {
    serial_out(up, offset, value);
    if (up.iotype != upio::port) serial_in(up, UART_LCR);
}

void serial8250_clear_fifos(uart_8250_port& up) {
    if (!up.cap_fifo) return;
    serial_out(up, UART_FCR, UART_FCR_ENABLE_FIFO);
    serial_out(up, UART_FCR, UART_FCR_ENABLE_FIFO | UART_FCR_CLEAR_RCVR | UART_FCR_CLEAR_XMIT);
    serial_out(up, UART_FCR, 0);
}

// serial_link_irq_chain: the first port on a line requests it; the handler walks the chain.
int serial_link_irq_chain(uart_8250_port& up, irq_info& chain) {
    chain.ports.push_back(&up);
    if (chain.ports.size() > 1) return 0;
    return request_irq(up.port.irq, serial8250_interrupt, 0 /* IRQF_SHARED */, "serial", &chain);
}

bool serial8250_set_THRI(uart_8250_port& up) {
    if (up.ier & UART_IER_THRI) return false;
    up.ier |= UART_IER_THRI;
    serial_out(up, UART_IER, up.ier);
    return true;
}

bool serial8250_clear_THRI(uart_8250_port& up) {
    if (!(up.ier & UART_IER_THRI)) return false;
    up.ier &= ~UART_IER_THRI;
    serial_out(up, UART_IER, up.ier);
    return true;
}

void __stop_tx(uart_8250_port& up) {
    serial8250_clear_THRI(up);
}

// Setting THRI while THRE is set raises the THRE interrupt at once on a 16550: the first interrupt
// is provoked. Ports found with UART_BUG_TXEN get their first burst here instead.
void __start_tx(uart_8250_port& up) {
    if (serial8250_set_THRI(up) && (up.bugs & UART_BUG_TXEN)) {
        const std::uint8_t lsr = serial_in(up, UART_LSR);
        up.lsr_saved_flags |= lsr & UART_LSR_BRK_ERROR_BITS;
        if (lsr & UART_LSR_THRE) serial8250_tx_chars(up);
    }
}

} // namespace

const uart_ops serial8250_pops{serial8250_start_tx, serial8250_stop_tx};

void serial8250_start_tx(uart_port& port) {
    __start_tx(up_to_u8250p(port));
}

void serial8250_stop_tx(uart_port& port) {
    __stop_tx(up_to_u8250p(port));
}

void serial8250_set_mctrl(uart_8250_port& up, unsigned mctrl) {
    std::uint8_t mcr = 0;
    if (mctrl & TIOCM_RTS) mcr |= UART_MCR_RTS;
    if (mctrl & TIOCM_DTR) mcr |= UART_MCR_DTR;
    if (mctrl & TIOCM_OUT1) mcr |= UART_MCR_OUT1;
    if (mctrl & TIOCM_OUT2) mcr |= UART_MCR_OUT2;
    if (mctrl & TIOCM_LOOP) mcr |= UART_MCR_LOOP;
    serial_out(up, UART_MCR, static_cast<std::uint8_t>(mcr | up.mcr)); // serial8250_out_MCR
}

int serial8250_do_startup(uart_8250_port& up, irq_info& chain) {
    up.port.fifosize = up.fifosize;
    up.mcr = 0;
    // Clear the FIFO buffers and disable them (set_termios enables them again).
    serial8250_clear_fifos(up);
    // Clear the interrupt registers.
    serial_in(up, UART_LSR);
    serial_in(up, UART_RX);
    serial_in(up, UART_IIR);
    serial_in(up, UART_MSR);
    // LSR cannot still read 0xFF here unless there is no UART.
    if (serial_in(up, UART_LSR) == 0xFF) return -19; // "LSR safety check engaged!"
    irqflags flags;
    if (up.port.irq >= 0) {
        // Does the UART reassert THRE when the transmitter is idle and the interrupt was cleared?
        spin_lock_irqsave(up.port.lock, flags);
        wait_for_xmitr(up, UART_LSR_THRE);
        serial_port_out_sync(up, UART_IER, UART_IER_THRI);
        udelay(1); // allow THRE to set
        const std::uint8_t iir1 = serial_in(up, UART_IIR);
        serial_out(up, UART_IER, 0);
        serial_port_out_sync(up, UART_IER, UART_IER_THRI);
        udelay(1); // allow a working UART time to re-assert THRE
        const std::uint8_t iir = serial_in(up, UART_IIR);
        serial_out(up, UART_IER, 0);
        spin_unlock_irqrestore(up.port.lock, flags);
        // (A part that does not would get the backup timer; this one is not expected to.)
        if (!(iir1 & UART_IIR_NO_INT) && (iir & UART_IIR_NO_INT)) up.bugs |= UART_BUG_THRE;
    }
    if (const int retval = serial_link_irq_chain(up, chain)) return retval;
    // Now initialise the UART.
    serial_out(up, UART_LCR, UART_LCR_WLEN8);
    spin_lock_irqsave(up.port.lock, flags);
    if (up.port.irq >= 0) up.mctrl |= TIOCM_OUT2; // most PC UARTs need OUT2 to raise interrupts
    serial8250_set_mctrl(up, up.mctrl);
    // A quick test that enabling THRI raises the TX interrupt.
    serial_out(up, UART_IER, UART_IER_THRI);
    const std::uint8_t lsr = serial_in(up, UART_LSR);
    const std::uint8_t iir = serial_in(up, UART_IIR);
    serial_out(up, UART_IER, 0);
    if ((lsr & UART_LSR_TEMT) && (iir & UART_IIR_NO_INT))
        up.bugs |= UART_BUG_TXEN;
    else
        up.bugs &= ~UART_BUG_TXEN;
    spin_unlock_irqrestore(up.port.lock, flags);
    // Clear the interrupt registers again for luck, and the saved flags.
    serial_in(up, UART_LSR);
    serial_in(up, UART_RX);
    serial_in(up, UART_IIR);
    serial_in(up, UART_MSR);
    up.lsr_saved_flags = 0;
    up.msr_saved_flags = 0;
    // The IER shadow for RX interrupts; set_termios writes it.
    up.ier = UART_IER_RLSI | UART_IER_RDI;
    up.initialized = true;
    return 0;
}

void serial8250_do_set_termios(uart_8250_port& up, std::uint16_t divisor, std::uint8_t lcr) {
    irqflags flags;
    spin_lock_irqsave(up.port.lock, flags);
    up.lcr = lcr;
    // Raw input: overruns reported, parity and framing errors read as they come (no INPCK).
    up.port.read_status_mask = UART_LSR_OE | UART_LSR_THRE | UART_LSR_DR;
    up.port.ignore_status_mask = 0;
    up.ier &= ~UART_IER_MSI; // CLOCAL: no modem status interrupts
    serial_out(up, UART_IER, up.ier);
    serial_out(up, UART_LCR, up.lcr | UART_LCR_DLAB); // serial8250_do_set_divisor
    serial_out(up, UART_DLL, divisor & 0xFF);
    serial_out(up, UART_DLM, divisor >> 8);
    serial_out(up, UART_LCR, up.lcr); // reset DLAB
    if (up.fcr & UART_FCR_ENABLE_FIFO) serial_out(up, UART_FCR, UART_FCR_ENABLE_FIFO);
    serial_out(up, UART_FCR, up.fcr);
    serial8250_set_mctrl(up, up.mctrl);
    spin_unlock_irqrestore(up.port.lock, flags);
}

void serial8250_raise_dtr_rts(uart_8250_port& up) {
    irqflags flags;
    spin_lock_irqsave(up.port.lock, flags);
    up.mctrl |= TIOCM_DTR | TIOCM_RTS;
    serial8250_set_mctrl(up, up.mctrl);
    spin_unlock_irqrestore(up.port.lock, flags);
}

void serial8250_read_char(uart_8250_port& up, std::uint8_t lsr) {
    uart_port& port = up.port;
    unsigned char ch = 0; // a break without DR reads as 0
    tty_flag flag = TTY_NORMAL;
    if (lsr & UART_LSR_DR) ch = serial_in(up, UART_RX);
    ++port.icount.rx;
    lsr |= up.lsr_saved_flags;
    up.lsr_saved_flags = 0;
    if (lsr & UART_LSR_BRK_ERROR_BITS) {
        if (lsr & UART_LSR_BI) {
            lsr &= ~(UART_LSR_FE | UART_LSR_PE);
            ++port.icount.brk;
        } else if (lsr & UART_LSR_PE) {
            ++port.icount.parity;
        } else if (lsr & UART_LSR_FE) {
            ++port.icount.frame;
        }
        if (lsr & UART_LSR_OE) ++port.icount.overrun;
        lsr &= port.read_status_mask; // conditions to be ignored
        if (lsr & UART_LSR_BI)
            flag = TTY_BREAK;
        else if (lsr & UART_LSR_PE)
            flag = TTY_PARITY;
        else if (lsr & UART_LSR_FE)
            flag = TTY_FRAME;
    }
    uart_insert_char(port, lsr, UART_LSR_OE, ch, flag);
}

std::uint8_t serial8250_rx_chars(uart_8250_port& up, std::uint8_t lsr) {
    int max_count = 256;
    do {
        serial8250_read_char(up, lsr);
        if (--max_count == 0) break;
        lsr = serial_in(up, UART_LSR);
    } while (lsr & (UART_LSR_DR | UART_LSR_BI));
    tty_flip_buffer_push(up.port.state->port); // inside the port lock, unlike the PL011's
    return lsr;
}

void serial8250_tx_chars(uart_8250_port& up) {
    uart_port& port = up.port;
    xmit_kfifo& xmit = port.state->port.xmit_fifo;
    if (port.x_char) {
        serial_out(up, UART_TX, port.x_char);
        ++port.icount.tx;
        port.x_char = 0;
        return;
    }
    if (uart_tx_stopped(port)) {
        serial8250_stop_tx(port);
        return;
    }
    if (xmit.is_empty()) {
        __stop_tx(up);
        return;
    }
    // THRE means an empty FIFO: tx_loadsz bytes back to back, no LSR reads (a 16550A has neither
    // UART_CAP_HFIFO nor UART_CAP_MINI).
    unsigned count = up.tx_loadsz, written = 0;
    do {
        unsigned char c;
        if (!xmit.get(c)) break;
        serial_out(up, UART_TX, c);
        ++port.icount.tx;
        ++written;
    } while (--count > 0);
    if (written) {
        ++up.tx_irq_bursts;
        up.tx_irq_chars += written;
        up.tx_irq_burst_max = std::max(up.tx_irq_burst_max, written);
    }
    if (xmit.len() < WAKEUP_CHARS) uart_write_wakeup(port);
    if (xmit.is_empty()) __stop_tx(up);
}

int serial8250_handle_irq(uart_8250_port& up, std::uint8_t iir) {
    if (iir & UART_IIR_NO_INT) return 0;
    irqflags flags;
    spin_lock_irqsave(up.port.lock, flags);
    std::uint8_t status = serial_in(up, UART_LSR);
    if (status & (UART_LSR_DR | UART_LSR_BI)) status = serial8250_rx_chars(up, status);
    serial8250_modem_status(up);
    if ((status & UART_LSR_THRE) && (up.ier & UART_IER_THRI)) serial8250_tx_chars(up);
    spin_unlock_irqrestore(up.port.lock, flags);
    return 1;
}

int serial8250_default_handle_irq(uart_8250_port& up) {
    const std::uint8_t iir = serial_in(up, UART_IIR); // reading IIR also clears a pending THRE identification
    return serial8250_handle_irq(up, iir);
}

// Walks the ports on the line until a full pass finds none busy (at most PASS_LIMIT passes): with one
// port, until its IIR says no interrupt.
irqreturn_t serial8250_interrupt(int, void* dev_id) {
    irq_info& i = *static_cast<irq_info*>(dev_id);
    int handled = 0;
    unsigned pass_counter = 0;
    spin_lock(i.lock);
    std::size_t l = 0, end = i.ports.size(); // end: none yet
    do {
        if (serial8250_default_handle_irq(*i.ports[l])) {
            handled = 1;
            end = i.ports.size();
        } else if (end == i.ports.size()) {
            end = l;
        }
        l = (l + 1) % i.ports.size();
        if (l == 0 && pass_counter++ > PASS_LIMIT) break; // "serial8250: too much work for irq"
    } while (l != end);
    spin_unlock(i.lock);
    return handled ? IRQ_HANDLED : IRQ_NONE;
}

} // namespace uartvp::sw
