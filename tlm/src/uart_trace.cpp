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
} // namespace

void sc_trace(sc_trace_file* tf, const pl011& uart, const std::string& name) {
    const std::string p = name + ".";
    sc_trace(tf, uart.txd, p + "txd");
    sc_trace(tf, uart.rxd, p + "rxd");
    sc_trace(tf, uart.irq, p + "irq");
    sc_trace(tf, uart.tx_fifo_level, p + "tx_fifo_level");
    sc_trace(tf, uart.rx_fifo_level, p + "rx_fifo_level");
    sc_trace(tf, uart.busy, p + "busy");
    sc_trace(tf, uart.txff, p + "txff");
    sc_trace(tf, uart.txfe, p + "txfe");
    sc_trace(tf, uart.rxff, p + "rxff");
    sc_trace(tf, uart.rxfe, p + "rxfe");
}

void pl011::trace(vcd_writer& w) const {
    const std::string p = std::string(name()) + ".";
    w.add(txd, p + "txd");
    w.add(rxd, p + "rxd");
    w.add(irq, p + "irq");
    const unsigned bits = level_bits(m_cfg.fifo_depth);
    w.add(tx_fifo_level, p + "tx_fifo_level", bits);
    w.add(rx_fifo_level, p + "rx_fifo_level", bits);
    w.add(busy, p + "busy");
    w.add(txff, p + "txff");
    w.add(txfe, p + "txfe");
    w.add(rxff, p + "rxff");
    w.add(rxfe, p + "rxfe");
}

void sc_trace(sc_trace_file* tf, const uart16550& uart, const std::string& name) {
    const std::string p = name + ".";
    sc_trace(tf, uart.txd, p + "txd");
    sc_trace(tf, uart.rxd, p + "rxd");
    sc_trace(tf, uart.irq, p + "irq");
    sc_trace(tf, uart.tx_fifo_level, p + "tx_fifo_level");
    sc_trace(tf, uart.rx_fifo_level, p + "rx_fifo_level");
    sc_trace(tf, uart.thre, p + "thre");
    sc_trace(tf, uart.temt, p + "temt");
    sc_trace(tf, uart.dr, p + "dr");
    sc_trace(tf, uart.fifo_enabled, p + "fifo_enabled");
}

void uart16550::trace(vcd_writer& w) const {
    const std::string p = std::string(name()) + ".";
    w.add(txd, p + "txd");
    w.add(rxd, p + "rxd");
    w.add(irq, p + "irq");
    w.add(tx_fifo_level, p + "tx_fifo_level", level_bits(16));
    w.add(rx_fifo_level, p + "rx_fifo_level", level_bits(16));
    w.add(thre, p + "thre");
    w.add(temt, p + "temt");
    w.add(dr, p + "dr");
    w.add(fifo_enabled, p + "fifo_enabled");
}

} // namespace uartvp
