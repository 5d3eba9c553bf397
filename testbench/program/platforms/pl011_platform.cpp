// SPDX-License-Identifier: Apache-2.0
#include "platforms/pl011_platform.h"

#include "cli/stop.h"
#include "cli/timeline.h"
#include "cli/waves.h"

#include <cstdlib>
#include <string>

namespace uartvp::program {

using namespace sc_core;

cpu::timing_profile make_timing(const params& p) {
    cpu::timing_profile t;
    t.cpu_hz = p.cpu_hz;
    t.cpu_relax_cycles = p.relax_cycles;
    t.regions.push_back({"uart", p.uart_base, pl011::map_size(), sc_time(p.mmio_read_ns, SC_NS),
                         sc_time(p.mmio_write_ns, SC_NS)});
    return t;
}

pl011_config pl011_config_of(const params& p, bool txd_edges, const std::string& rtl_vcd) {
    pl011_config c;
    c.txd_edges = txd_edges;
    c.clock_hz = p.uartclk_hz;
    c.fifo_depth = p.fifo_depth;
    c.clock_every_cycle = p.reference;
    const char* measure = std::getenv("UARTVP_MEASURE_RTL"); // the benchmark's rtl %
    c.measure_eval_time = measure && std::string(measure) == "1";
    c.rtl_vcd = rtl_vcd;
    return c;
}

pl011_platform::pl011_platform(const sc_module_name& name, const params& p, const std::string& rtl_vcd,
                               bool pins, bus_monitor* tap)
    : sc_module(name)
    , kernel("kernel", p.cores, make_timing(p))
    , cpu0(kernel.cpu(0))
    , bus("bus")
    , uart("uart0", pl011_config_of(p, !p.line_as_characters() || pins, rtl_vcd))
    , monitor("console", static_cast<double>(p.baud), p.frame)
    , m_p(p)
    , m_chars(p.line_as_characters())
    , m_pins(pins) {
    if (m_chars) {
        uart.report_line(monitor);
        monitor.take_characters(true);
    }
    for (auto& c : kernel.cores) {
        c->set_collapse_polls(!p.reference);
        if (tap)
            c->bus.bind(tap->target);
        else
            c->bus.bind(bus.target);
    }
    if (tap) tap->initiator.bind(bus.target);
    bus.map(uart.bus, p.uart_base, pl011::map_size(), "uart0");
    uart.txd(txd);
    uart.irq(irq);
    uart.rxd(rxd);
    uart.nreset(nreset);
    monitor.line(txd);
    sb.set_data_bits(p.frame.data_bits);
    monitor.on_char([this](const decoded_char& c) {
        // A frame the reset cut off is lost, whatever the monitor made of its remains.
        if (m_reset_at && c.start < *m_reset_at && c.end > *m_reset_at) return;
        if (c.is_break) return;
        sb.observe(c.data, c.start);
    });
    // The highest TX FIFO level and the time BUSY last fell, taken at each change in its update phase
    // (observed_signal): no process and no delta cycle of their own.
    keep_highest(uart.tx_fifo_level, m_tx_fifo_max);
    uart.busy.on_change([this] {
        if (!uart.busy.read()) m_line_idle = sc_time_stamp();
    });
    SC_HAS_PROCESS(pl011_platform);
    SC_THREAD(supervise);
}

void pl011_platform::reset_uart() {
    cpu0.sync();
    m_reset_at = sc_time_stamp();
    nreset.write(false);
}

void pl011_platform::supervise() {
    if (!cpu0.idle()) wait(cpu0.idle_event());
    if (m_reset_at) {
        wait(uart.clock().time_of(4));
        nreset.write(true);
    }
    while (uart.busy.read())
        wait(uart.busy.negedge_event());
    // Let the monitor sample the last stop bit(s).
    wait(sc_time((m_p.frame.stop_bits + 1.0) / static_cast<double>(m_p.baud), SC_SEC));
    sc_stop();
}

void pl011_platform::run() {
    stop::simulate();
}

} // namespace uartvp::program

namespace uartvp::program {

void pl011_platform::add_timeline(timeline& t) {
    t.watch(kernel, pl011_register_names(m_p.uart_base));
    t.counter(uart.tx_fifo_level, "uart0 tx_fifo_level");
    t.counter(uart.rx_fifo_level, "uart0 rx_fifo_level");
    t.watch(sb, "console");
}

void pl011_platform::add_waves(waves& w) {
    w.machine_and_bus(kernel);
    w.name_registers(pl011_register_names(m_p.uart_base));
    add_pl011_group(w, uart, irq, m_p.fifo_depth);
    // TXD from the UART's character reports where the pin shows the line between characters only.
    if (m_chars && !m_pins)
        uart.report_line(w.lines_from_reports(rxd));
    else
        w.lines(txd, rxd);
}

} // namespace uartvp::program
