// SPDX-License-Identifier: Apache-2.0
#pragma once
// The interrupt-driven tty path of drivers/tty/serial/8250/8250_port.c and 8250_core.c (a 16550A,
// programmed I/O, no DMA): serial8250_do_startup (the parts that touch the UART), the divisor, frame
// and FCR of serial8250_do_set_termios, the shared-IRQ chain handler serial8250_interrupt with
// serial8250_default_handle_irq and serial8250_handle_irq, serial8250_rx_chars (256 at most) and
// serial8250_read_char, serial8250_tx_chars (tx_loadsz per THRE), __start_tx (setting IER.THRI
// provokes the first THRE interrupt) and __stop_tx. The console routines are <serial8250.h>.
#include <cstdint>
#include <functional>
#include <vector>

#include <uartvp/cpu/kernel.h>

#include <uartvp/sw/serial/serial_core.h>
#include <uartvp/sw/serial8250.h>

namespace uartvp::sw {

// TIOCM_* modem-control bits (include/uapi/asm-generic/termios.h).
constexpr unsigned TIOCM_DTR = 0x002, TIOCM_RTS = 0x004, TIOCM_OUT1 = 0x2000, TIOCM_OUT2 = 0x4000,
                   TIOCM_LOOP = 0x8000;
// up->bugs.
constexpr unsigned UART_BUG_TXEN = 1u << 1, UART_BUG_THRE = 1u << 3;

constexpr unsigned PASS_LIMIT = 512;

// The ports sharing one interrupt line (8250_core.c's struct irq_info).
struct irq_info {
    kapi::spinlock lock;
    std::vector<uart_8250_port*> ports;
};

extern const uart_ops serial8250_pops;

// First open: FIFOs cleared and off, the interrupt registers read, the LSR safety check, the THRE
// re-assert test, the interrupt requested (serial_link_irq_chain on port.irq), LCR 8N1, MCR with OUT2
// (the PC's interrupt gate), the TXEN test, the registers read again, the IER shadow RLSI | RDI.
// Returns 0, -19 (-ENODEV: LSR reads 0xFF) or the request's error.
int serial8250_do_startup(uart_8250_port& up, irq_info& chain);
// serial8250_do_set_termios's register writes: IER (the shadow), the divisor under DLAB, LCR, then
// FCR (ENABLE first, then up.fcr with its RX trigger); MCR from port.mctrl; raw-input status masks.
void serial8250_do_set_termios(uart_8250_port& up, std::uint16_t divisor, std::uint8_t lcr);
// After startup and set_termios: the tty raises DTR and RTS (uart_port_dtr_rts).
void serial8250_raise_dtr_rts(uart_8250_port& up);
void serial8250_set_mctrl(uart_8250_port& up, unsigned mctrl);

kapi::irqreturn_t serial8250_interrupt(int irq, void* dev_id);
int serial8250_default_handle_irq(uart_8250_port& up);
int serial8250_handle_irq(uart_8250_port& up, std::uint8_t iir);
std::uint8_t serial8250_rx_chars(uart_8250_port& up, std::uint8_t lsr);
void serial8250_read_char(uart_8250_port& up, std::uint8_t lsr);
void serial8250_tx_chars(uart_8250_port& up);
void serial8250_start_tx(uart_port& port);
void serial8250_stop_tx(uart_port& port);

// A polling loop on one register through the port's accessor, as one operation of the CPU stub:
//     for (n = 1;; ++n) { v = serial_in(up, offset); if (!keep(v) || n == max_reads) break; udelay(us); }
// (max_reads 0 and us 0: no limit, cpu_relax() between reads). `bits`: the bits keep() tests (0: any).
// The console's waits and the early console's putc share it (8250_console.cpp, 8250_early.cpp).
kapi::poll_result serial_in_poll(uart_8250_port& up, unsigned offset,
                                 const std::function<bool(std::uint32_t)>& keep, unsigned long max_reads,
                                 unsigned long us, std::uint32_t bits = 0);

} // namespace uartvp::sw
