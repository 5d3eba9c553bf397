// SPDX-License-Identifier: Apache-2.0
#include "platforms/virt_platform.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "cli/stop.h"
#include "cli/timeline.h"
#include "cli/waves.h"
#include "platforms/pl011_platform.h"

namespace uartvp::program {

using namespace sc_core;

namespace {

uart16550_config com_config() {
    uart16550_config c;
    c.clock_hz = virt_platform::uart16550_clock_hz;
    c.reg_shift = 2;
    c.reg_io_width = 4;
    return c;
}

} // namespace

std::string virt_platform::firmware_image(const std::string& name, std::string* why) {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("UARTVP_FIRMWARE_DIR"); env && *env) dirs.push_back(env);
#ifdef UARTVP_FIRMWARE_DIRS
    std::istringstream in(UARTVP_FIRMWARE_DIRS);
    for (std::string d; std::getline(in, d, ':');)
        dirs.push_back(d);
#endif
    for (const std::string& d : dirs)
        if (std::ifstream(d + "/" + name)) return d + "/" + name;
    if (why) *why = "the firmware image " + name + " is not built (sw/firmware needs aarch64-linux-gnu-gcc)";
    return "";
}

cpu::a64_config virt_platform::core_config(const params& p) {
    cpu::a64_config c;
    c.ram_base = ram_base;
    c.ram_size = ram_size;
    c.timing.cpu_hz = p.cpu_hz;
    // Every device region costs what the profile gives a UART register access.
    c.timing.fallback = {"device", 0, 0, sc_time(p.mmio_read_ns, SC_NS), sc_time(p.mmio_write_ns, SC_NS)};
    c.cpi = p.cpi;
    c.quantum_ns = p.quantum_ns;
    c.fast_forward = !p.reference && p.a64_fast_forward;
    return c;
}

virt_platform::virt_platform(const sc_module_name& name, const params& p, bus_monitor* tap,
                             serial_terminal* term)
    : sc_module(name)
    , bus("bus")
    , gic("gic", 64)
    , uart("uart0", pl011_config_of(p, !p.line_as_characters() || term) /* a terminal reads the pin */)
    , com("uart1", com_config())
    , cpu(cpu::make_a64_core("cpu0", core_config(p)))
    , monitor("console", static_cast<double>(p.baud), p.frame)
    , com_monitor("console1", static_cast<double>(p.baud), p.frame)
    , inj("paste", static_cast<double>(p.baud), p.frame)
    , m_p(p)
    , m_term(term) {
    if (tap) {
        cpu->bus.bind(tap->target);
        tap->initiator.bind(bus.target);
    } else {
        cpu->bus.bind(bus.target);
    }
    cpu->irq(cpu_irq);
    cpu->vtimer_irq(vtimer);
    bus.map(gic.distributor, gic_distributor_base, gicv2::distributor_size, "gic-distributor");
    bus.map(gic.cpu_interface, gic_cpu_interface_base, gicv2::cpu_interface_size, "gic-cpu");
    bus.map(uart.bus, pl011_base, pl011::map_size(), "uart0");
    bus.map(com.bus, uart16550_base, com.map_size(), "uart1");
    gic.irq(cpu_irq);
    gic.spi[pl011_spi](uart_irq);
    gic.spi[uart16550_spi](com_irq);
    gic.ppi[vtimer_ppi](vtimer);
    uart.txd(txd);
    uart.irq(uart_irq);
    uart.rxd(rxd);
    com.txd(com_txd);
    com.irq(com_irq);
    com.rxd(com_rxd);
    monitor.line(txd);
    com_monitor.line(com_txd);
    if (term) {
        inj.line(rxd_unused);
        term->rxd(rxd);
        term->txd(txd);
    } else {
        inj.line(rxd);
    }
    monitor.keep_text(true);
    com_monitor.keep_text(true);
    if (p.line_as_characters()) {
        uart.report_line(monitor);
        monitor.take_characters(true);
        if (!term) inj.report_to(uart.rx_line());
    }
    SC_HAS_PROCESS(virt_platform);
    SC_METHOD(track);
    sensitive << uart.tx_fifo_level << uart.busy << com.temt;
    dont_initialize();
    SC_THREAD(supervise);
}

void virt_platform::load(const cpu::elf_image& image, const std::string& mailbox) {
    cpu->load(image);
    if (mailbox.empty()) return;
    const std::uint64_t n = mailbox.size();
    cpu->write_memory(mailbox_base, &n, sizeof n);
    cpu->write_memory(mailbox_base + sizeof n, mailbox.data(), mailbox.size());
}

void virt_platform::add_waves(waves& w) {
    cpu->observe();
    register_names names = pl011_register_names(pl011_base);
    names.merge(uart16550_register_names(uart16550_base, 2));
    w.name_registers(names);
    w.begin_group("CPU (aarch64)");
    w.bit(cpu->irqs_off, "cpu0.irqs_off");
    w.bit(cpu->in_hardirq, "cpu0.in_hardirq");
    w.bit(cpu->waiting, "cpu0.wfi");
    w.bit(cpu->polling, "cpu0.polling");
    w.bit(cpu_irq, "cpu0.irq");
    w.bit(vtimer, "cpu0.vtimer");
    w.end_group();
    w.begin_group("Bus");
    w.address(cpu->mmio_addr, "bus.addr");
    w.bit(cpu->mmio_read, "bus.read");
    w.bit(cpu->mmio_write, "bus.write");
    w.end_group();
    add_pl011_group(w, uart, uart_irq, m_p.fifo_depth);
    w.begin_group("UART1 (16550)");
    w.level(com.tx_fifo_level, "uart1.tx_fifo_level", 16);
    w.bit(com.thre, "uart1.thre");
    w.bit(com.temt, "uart1.temt");
    w.bit(com_irq, "uart1.irq");
    w.line(com_txd, "uart1.txd", "uart1_txd");
    w.end_group();
    // The PL011's lines from the reports where the monitor takes them so (the pins stay idle).
    if (m_term) {
        w.lines(txd, rxd); // the terminal's lines are pins
    } else if (m_p.line_as_characters()) {
        const waves::reported_lines l = w.lines_from_reports();
        uart.report_line(l.txd);
        inj.report_to(l.rxd);
    } else {
        w.lines(txd, rxd);
    }
}

void virt_platform::add_timeline(timeline& t) {
    cpu->observe();
    t.track(0, "cpu0 (aarch64)");
    t.spans(cpu->irqs_off, 0, "irqs off", "irqs_off");
    t.spans(cpu->in_hardirq, 0, "irq", "hardirq");
    t.spans(cpu->waiting, 0, "wfi", "idle");
    t.spans(cpu->polling, 0, "poll", "poll");
    t.counter(uart.tx_fifo_level, "uart0 tx_fifo_level");
    t.counter(uart.rx_fifo_level, "uart0 rx_fifo_level");
    t.counter(com.tx_fifo_level, "uart1 tx_fifo_level");
}

void virt_platform::track() {
    if (uart.tx_fifo_level.read() > m_tx_fifo_max) m_tx_fifo_max = uart.tx_fifo_level.read();
    if (!uart.busy.read() && com.temt.read()) m_line_idle = sc_time_stamp();
}

// Once the core has stopped: both UARTs drain, the monitors see the last stop bits, and the run ends.
void virt_platform::supervise() {
    if (m_term) {
        // With a terminal: until the image stops, or the terminal ends (a hang-up, its duration; at the
        // end of its input, once what was typed has had a moment to be served).
        if (!m_term->ended()) wait(cpu->stopped_event() | m_term->ended_event());
        if (m_term->ended() && cpu->stop_reason() == cpu::a64_stop::running) {
            if (m_term->reason() == serial_terminal::end_reason::end_of_input)
                wait(sc_time(100, SC_MS), cpu->stopped_event());
            if (cpu->stop_reason() == cpu::a64_stop::running) {
                sc_stop();
                return;
            }
        }
    } else {
        wait(cpu->stopped_event());
    }
    while (uart.busy.read() || !com.temt.read())
        wait(uart.busy.negedge_event() | com.temt.posedge_event());
    wait(sc_time((m_p.frame.stop_bits + 1.0) / static_cast<double>(m_p.baud), SC_SEC));
    sc_stop();
}

void virt_platform::run(const sc_time& limit) {
    stop::simulate(limit);
    m_timed_out =
        limit != SC_ZERO_TIME && sc_time_stamp() >= limit && cpu->stop_reason() == cpu::a64_stop::running;
    cpu->finish();
}

} // namespace uartvp::program
