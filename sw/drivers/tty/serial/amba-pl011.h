// SPDX-License-Identifier: Apache-2.0
#pragma once
// The interrupt-driven tty path of drivers/tty/serial/amba-pl011.c (ARM's PL011, programmed I/O, no
// DMA): pl011_startup with pl011_hwinit, pl011_allocate_irq and pl011_enable_interrupts; the
// divisor and frame of pl011_set_termios; pl011_int with its RIS & im loop and pass limit;
// pl011_rx_chars / pl011_fifo_to_tty; pl011_tx_chars, pl011_start_tx and pl011_stop_tx. The console
// routines of the same driver are <pl011.h>.
#include <cstdint>

#include <uartvp/cpu/kernel.h>

#include <uartvp/sw/pl011.h>
#include <uartvp/sw/serial/serial_core.h>

namespace uartvp::sw {

constexpr unsigned AMBA_ISR_PASS_LIMIT = 256;
constexpr unsigned UART_DR_ERROR = UART011_DR_OE | UART011_DR_BE | UART011_DR_PE | UART011_DR_FE;
constexpr unsigned UART_DUMMY_DR_RX = 1u << 16;

// struct uart_amba_port: the serial core's port first (the driver's container_of), the driver's copy
// of IMSC, the modem status last seen, the FIFO depth, and the IFLS value pl011_startup writes (the
// vendor's: ARM's RX4_8 | TX4_8). The counters after it are the model's, for results (the kernel has
// no such figures): the TX interrupt's bursts and the RX drains.
struct uart_amba_port {
    uart_port port;
    unsigned im = 0;
    unsigned old_status = 0;
    unsigned fifosize = 32;
    unsigned ifls = UART011_IFLS_RX4_8 | UART011_IFLS_TX4_8;
    std::uint64_t tx_irq_bursts = 0, tx_irq_chars = 0; // pl011_tx_chars(from_irq) calls that wrote
    unsigned tx_irq_burst_max = 0;
    std::uint64_t rx_drains = 0; // pl011_fifo_to_tty calls
    unsigned rx_drain_max = 0;   // the most characters one of them took
};

extern const uart_ops amba_pl011_pops;

// First open of the port: pl011_hwinit, pl011_allocate_irq (request_irq of port.irq, shared), IFLS,
// CR = UARTEN | RXE | TXE (RTS and DTR kept), the modem status, pl011_enable_interrupts. Returns 0 or
// the request's error.
int pl011_startup(uart_amba_port& uap);
// The divisor and frame of pl011_set_termios: FBRD, IBRD, then LCR_H (FIFO on), then CR without
// flow control; the status masks for raw input (overruns reported, errors not ignored).
void pl011_set_termios(uart_amba_port& uap, std::uint32_t ibrd, std::uint32_t fbrd, std::uint32_t lcr_h);
// After startup and set_termios: the tty's DTR and RTS (uart_port_dtr_rts through pl011_set_mctrl).
void pl011_set_mctrl_dtr_rts(uart_amba_port& uap);

kapi::irqreturn_t pl011_int(int irq, void* dev_id);
void pl011_enable_interrupts(uart_amba_port& uap);
int pl011_fifo_to_tty(uart_amba_port& uap);
void pl011_rx_chars(uart_amba_port& uap);
// Returns whether TX interrupts must stay enabled (characters remain).
bool pl011_tx_chars(uart_amba_port& uap, bool from_irq);
void pl011_start_tx(uart_port& port);
void pl011_stop_tx(uart_port& port);

} // namespace uartvp::sw
