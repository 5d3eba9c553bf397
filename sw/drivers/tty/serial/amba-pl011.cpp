// SPDX-License-Identifier: Apache-2.0
#include "drivers/tty/serial/amba-pl011.h"

#include <algorithm>
#include <cstddef>
#include <type_traits>

namespace uartvp::sw {

using namespace kapi;

namespace {

// container_of(port, struct uart_amba_port, port)
uart_amba_port& to_uap(uart_port& port) {
    static_assert(std::is_standard_layout_v<uart_amba_port> && offsetof(uart_amba_port, port) == 0);
    return *reinterpret_cast<uart_amba_port*>(&port);
}

bool pl011_tx_char(uart_amba_port& uap, unsigned char c, bool from_irq) {
    // From the interrupt the TX level promises room for half a FIFO: no FR read.
    if (!from_irq && (pl011_read(uap.port, UART01x_FR) & UART01x_FR_TXFF)) return false;
    pl011_write(c, uap.port, UART01x_DR);
    ++uap.port.icount.tx;
    return true;
}

void pl011_hwinit(uart_amba_port& uap) {
    // Clear pending error and receive interrupts.
    pl011_write(UART011_OEIS | UART011_BEIS | UART011_PEIS | UART011_FEIS | UART011_RTIS | UART011_RXIS,
                uap.port, UART011_ICR);
    // Save the interrupt mask, and enable RX interrupts in case the interrupt is used for NMI entry.
    uap.im = pl011_read(uap.port, UART011_IMSC);
    pl011_write(UART011_RTIM | UART011_RXIM, uap.port, UART011_IMSC);
}

int pl011_allocate_irq(uart_amba_port& uap) {
    pl011_write(uap.im, uap.port, UART011_IMSC);
    return request_irq(uap.port.irq, pl011_int, 0 /* IRQF_SHARED */, "uart-pl011", &uap);
}

void pl011_modem_status(uart_amba_port& uap) {
    const unsigned status = pl011_read(uap.port, UART01x_FR) & UART01x_FR_MODEM_ANY;
    uap.old_status = status; // no modem lines are watched here (CLOCAL): the deltas go nowhere
}

} // namespace

const uart_ops amba_pl011_pops{pl011_start_tx, pl011_stop_tx};

void pl011_stop_tx(uart_port& port) {
    uart_amba_port& uap = to_uap(port);
    uap.im &= ~UART011_TXIM;
    pl011_write(uap.im, uap.port, UART011_IMSC);
}

// Start TX with programmed I/O only: what fits into the FIFO now, and the TX interrupt for the rest.
static void pl011_start_tx_pio(uart_amba_port& uap) {
    if (pl011_tx_chars(uap, false)) {
        uap.im |= UART011_TXIM;
        pl011_write(uap.im, uap.port, UART011_IMSC);
    }
}

void pl011_start_tx(uart_port& port) {
    pl011_start_tx_pio(to_uap(port));
}

bool pl011_tx_chars(uart_amba_port& uap, bool from_irq) {
    xmit_kfifo& xmit = uap.port.state->port.xmit_fifo;
    int count = static_cast<int>(uap.fifosize >> 1);
    unsigned written = 0;
    if (uap.port.x_char) {
        if (!pl011_tx_char(uap, uap.port.x_char, from_irq)) return true;
        uap.port.x_char = 0;
        --count;
    }
    if (xmit.is_empty() || uart_tx_stopped(uap.port)) {
        pl011_stop_tx(uap.port);
        return false;
    }
    for (;;) {
        if (from_irq && count-- == 0) break;
        unsigned char c;
        if (!xmit.peek(c)) break;
        if (!pl011_tx_char(uap, c, from_irq)) break;
        xmit.skip();
        ++written;
    }
    if (from_irq && written) {
        ++uap.tx_irq_bursts;
        uap.tx_irq_chars += written;
        uap.tx_irq_burst_max = std::max(uap.tx_irq_burst_max, written);
    }
    if (xmit.len() < WAKEUP_CHARS) uart_write_wakeup(uap.port);
    if (xmit.is_empty()) {
        pl011_stop_tx(uap.port);
        return false;
    }
    return true;
}

int pl011_fifo_to_tty(uart_amba_port& uap) {
    int fifotaken = 0;
    for (; fifotaken != 256; ++fifotaken) {
        const unsigned status = pl011_read(uap.port, UART01x_FR);
        if (status & UART01x_FR_RXFE) break;
        // Take the character from the FIFO, with its error bits.
        unsigned ch = pl011_read(uap.port, UART01x_DR) | UART_DUMMY_DR_RX;
        tty_flag flag = TTY_NORMAL;
        ++uap.port.icount.rx;
        if (ch & UART_DR_ERROR) {
            if (ch & UART011_DR_BE) {
                ch &= ~(UART011_DR_FE | UART011_DR_PE);
                ++uap.port.icount.brk;
            } else if (ch & UART011_DR_PE) {
                ++uap.port.icount.parity;
            } else if (ch & UART011_DR_FE) {
                ++uap.port.icount.frame;
            }
            if (ch & UART011_DR_OE) ++uap.port.icount.overrun;
            ch &= uap.port.read_status_mask;
            if (ch & UART011_DR_BE)
                flag = TTY_BREAK;
            else if (ch & UART011_DR_PE)
                flag = TTY_PARITY;
            else if (ch & UART011_DR_FE)
                flag = TTY_FRAME;
        }
        // (The sysrq check drops and retakes the lock around nothing here: no sysrq character.)
        uart_insert_char(uap.port, ch, UART011_DR_OE, ch & 255, flag);
    }
    ++uap.rx_drains;
    uap.rx_drain_max = std::max(uap.rx_drain_max, static_cast<unsigned>(fifotaken));
    return fifotaken;
}

// Called with the port lock held: drains the FIFO, then pushes to the tty without the lock.
void pl011_rx_chars(uart_amba_port& uap) {
    pl011_fifo_to_tty(uap);
    spin_unlock(uap.port.lock);
    tty_flip_buffer_push(uap.port.state->port);
    spin_lock(uap.port.lock);
}

irqreturn_t pl011_int(int, void* dev_id) {
    uart_amba_port& uap = *static_cast<uart_amba_port*>(dev_id);
    unsigned pass_counter = AMBA_ISR_PASS_LIMIT;
    int handled = 0;
    irqflags flags;
    spin_lock_irqsave(uap.port.lock, flags);
    // The raw status masked by the driver's copy of IMSC (not MIS: a TX interrupt masked by stop_tx
    // stays raised in RIS).
    unsigned status = pl011_read(uap.port, UART011_RIS) & uap.im;
    if (status) {
        do {
            // RX, RT and TX clear by draining or refilling the FIFOs, not through ICR.
            pl011_write(status & ~(UART011_TXIS | UART011_RTIS | UART011_RXIS), uap.port, UART011_ICR);
            if (status & (UART011_RTIS | UART011_RXIS)) pl011_rx_chars(uap);
            if (status & (UART011_DSRMIS | UART011_DCDMIS | UART011_CTSMIS | UART011_RIMIS))
                pl011_modem_status(uap);
            if (status & UART011_TXIS) pl011_tx_chars(uap, true);
            if (pass_counter-- == 0) break;
            status = pl011_read(uap.port, UART011_RIS) & uap.im;
        } while (status != 0);
        handled = 1;
    }
    spin_unlock_irqrestore(uap.port.lock, flags);
    return handled ? IRQ_HANDLED : IRQ_NONE;
}

void pl011_enable_interrupts(uart_amba_port& uap) {
    irqflags flags;
    spin_lock_irqsave(uap.port.lock, flags); // spin_lock_irq
    // Clear out any spuriously appearing RX interrupts.
    pl011_write(UART011_RTIS | UART011_RXIS, uap.port, UART011_ICR);
    // RXIS is raised only when the RX FIFO's fill passes up through the level: a FIFO already at or
    // above it would never interrupt. Drain it.
    for (unsigned i = 0; i < uap.fifosize * 2; ++i) {
        if (pl011_read(uap.port, UART01x_FR) & UART01x_FR_RXFE) break;
        pl011_read(uap.port, UART01x_DR);
    }
    uap.im = UART011_RTIM | UART011_RXIM; // no RX DMA
    pl011_write(uap.im, uap.port, UART011_IMSC);
    spin_unlock_irqrestore(uap.port.lock, flags);
}

int pl011_startup(uart_amba_port& uap) {
    uap.port.fifosize = uap.fifosize;
    pl011_hwinit(uap);
    if (const int retval = pl011_allocate_irq(uap)) return retval;
    pl011_write(uap.ifls, uap.port, UART011_IFLS);
    irqflags flags;
    spin_lock_irqsave(uap.port.lock, flags);
    std::uint32_t cr = pl011_read(uap.port, UART011_CR);
    cr &= UART011_CR_RTS | UART011_CR_DTR;
    cr |= UART01x_CR_UARTEN | UART011_CR_RXE | UART011_CR_TXE;
    pl011_write(cr, uap.port, UART011_CR);
    spin_unlock_irqrestore(uap.port.lock, flags);
    // The old status of the modem signals.
    uap.old_status = pl011_read(uap.port, UART01x_FR) & UART01x_FR_MODEM_ANY;
    pl011_enable_interrupts(uap);
    return 0;
}

void pl011_set_termios(uart_amba_port& uap, std::uint32_t ibrd, std::uint32_t fbrd, std::uint32_t lcr_h) {
    if (uap.fifosize > 1) lcr_h |= UART01x_LCRH_FEN;
    irqflags flags;
    spin_lock_irqsave(uap.port.lock, flags);
    // pl011_setup_status_masks for raw input: overruns reported, parity and framing errors read as
    // they come (no INPCK), nothing ignored.
    uap.port.read_status_mask = UART011_DR_OE | 255;
    uap.port.ignore_status_mask = 0;
    std::uint32_t old_cr = pl011_read(uap.port, UART011_CR);
    old_cr &= ~(UART011_CR_CTSEN | UART011_CR_RTSEN); // no CRTSCTS
    pl011_write(fbrd, uap.port, UART011_FBRD);
    pl011_write(ibrd, uap.port, UART011_IBRD);
    // LCR_H after FBRD and IBRD: its write latches them.
    pl011_write(lcr_h, uap.port, UART011_LCRH);
    pl011_write(old_cr, uap.port, UART011_CR);
    spin_unlock_irqrestore(uap.port.lock, flags);
}

void pl011_set_mctrl_dtr_rts(uart_amba_port& uap) {
    irqflags flags;
    spin_lock_irqsave(uap.port.lock, flags);
    std::uint32_t cr = pl011_read(uap.port, UART011_CR);
    cr |= UART011_CR_RTS | UART011_CR_DTR;
    pl011_write(cr, uap.port, UART011_CR);
    spin_unlock_irqrestore(uap.port.lock, flags);
}

void pl011_baud_divisor(std::uint64_t uartclk, std::uint64_t baud, std::uint32_t& ibrd, std::uint32_t& fbrd) {
    const unsigned __int128 quot = (static_cast<unsigned __int128>(uartclk) * 4 + baud / 2) / baud;
    ibrd = static_cast<std::uint32_t>(quot >> 6);
    fbrd = static_cast<std::uint32_t>(quot & 0x3f);
}

} // namespace uartvp::sw
