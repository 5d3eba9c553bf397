// SPDX-License-Identifier: Apache-2.0
// Tracing both UARTs: their lines, IRQ and observation signals, to an sc_trace file under a name, or to
// a vcd_writer (which costs only where a signal changes).
#include <uartvp/pl011.h>
#include <uartvp/uart16550.h>
#include <uartvp/vcd_writer.h>

namespace uartvp {

using namespace sc_core;

namespace {
// Bits a FIFO level 0..depth needs.
unsigned level_bits(unsigned depth) {
    unsigned b = 1;
    while ((1u << b) <= depth)
        ++b;
    return b;
}

// Each model's traced signals, listed once: bit(signal, leaf) for lines and flags, level(signal, leaf,
// depth) for FIFO levels.
template <class bit_fn, class level_fn>
void each_signal(const pl011& u, unsigned depth, bit_fn bit, level_fn level) {
    bit(u.txd, "txd");
    bit(u.rxd, "rxd");
    bit(u.irq, "irq");
    level(u.tx_fifo_level, "tx_fifo_level", depth);
    level(u.rx_fifo_level, "rx_fifo_level", depth);
    bit(u.busy, "busy");
    bit(u.txff, "txff");
    bit(u.txfe, "txfe");
    bit(u.rxff, "rxff");
    bit(u.rxfe, "rxfe");
}

template <class bit_fn, class level_fn>
void each_signal(const uart16550& u, unsigned depth, bit_fn bit, level_fn level) {
    bit(u.txd, "txd");
    bit(u.rxd, "rxd");
    bit(u.irq, "irq");
    level(u.tx_fifo_level, "tx_fifo_level", depth);
    level(u.rx_fifo_level, "rx_fifo_level", depth);
    bit(u.thre, "thre");
    bit(u.temt, "temt");
    bit(u.dr, "dr");
    bit(u.fifo_enabled, "fifo_enabled");
}

template <class uart_t> void trace_to(sc_trace_file* tf, const uart_t& uart, const std::string& name) {
    const std::string p = name + ".";
    auto add = [&](const auto& s, const char* leaf, auto...) { sc_trace(tf, s, p + leaf); };
    each_signal(uart, 0, add, add);
}

template <class uart_t> void trace_to(vcd_writer& w, const uart_t& uart, unsigned depth) {
    const std::string p = std::string(uart.name()) + ".";
    each_signal(
        uart, depth, [&](const auto& s, const char* leaf) { w.add(s, p + leaf); },
        [&](const auto& s, const char* leaf, unsigned d) { w.add(s, p + leaf, level_bits(d)); });
}

} // namespace

void sc_trace(sc_trace_file* tf, const pl011& uart, const std::string& name) {
    trace_to(tf, uart, name);
}

void pl011::trace(vcd_writer& w) const {
    trace_to(w, *this, m_cfg.fifo_depth);
}

void sc_trace(sc_trace_file* tf, const uart16550& uart, const std::string& name) {
    trace_to(tf, uart, name);
}

void uart16550::trace(vcd_writer& w) const {
    trace_to(w, *this, 16);
}

} // namespace uartvp
