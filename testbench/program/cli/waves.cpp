// SPDX-License-Identifier: Apache-2.0
#include "cli/waves.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <fmt/core.h>

#include <uartvp/pl011.h>

#include "cli/outputs.h"
#include "cli/params.h"
#include "scenarios/scenario.h"

namespace uartvp::program {

namespace {
using outputs::absolute;
using outputs::dir_of;
using outputs::name_of;
std::string stem_of(const std::string& p) {
    const std::string f = name_of(p);
    return f.substr(0, f.size() - 4); // without ".vcd"
}
// The save file's filter numbers.
constexpr int filter_tasks = 1, filter_registers = 2;
} // namespace

std::string waves_path_problem(const std::string& p, bool fst) {
    const std::string what = "--vcd " + shown(p);
    if (p.size() < 5 || p.compare(p.size() - 4, 4, ".vcd") != 0 || p.back() == '/')
        return what + ": expected a file name ending in .vcd";
    if (stem_of(p).empty()) return what + ": expected a file name before .vcd";
    for (const std::string& f : waves_outputs(p, fst))
        if (std::string why = outputs::path_problem(f, what); !why.empty()) return why;
    return "";
}

std::vector<std::string> waves_outputs(const std::string& p, bool fst) {
    const std::string base = dir_of(p) + "/" + stem_of(p);
    return {fst ? base + ".fst" : p, base + ".gtkw",      base + ".tasks.txt",
            base + ".regs.txt",      base + ".lines.vcd", base + ".rtl.vcd"};
}

std::string fst_problem() {
    if (!vcd2fst_pipe::find().empty()) return "";
    return "--fst: GTKWave's vcd2fst is not on the PATH (Debian: apt-get install gtkwave)";
}

std::unique_ptr<waves> make_waves(const run_request& rq, double baud) {
    if (rq.vcd.empty()) return nullptr;
    return std::make_unique<waves>(rq.vcd, baud, rq.fst);
}

std::string waves_size_warning(const run_request& rq) {
    if (rq.vcd.empty()) return "";
    // Bytes of waves per byte handed to the UART, measured on today's scenarios in fast mode (the
    // busiest: earlycon v0 on hw, 583 per byte); reference mode adds each poll's address and strobes.
    const params& p = rq.p;
    const double char_ns = p.frame.bits_per_frame() * 1e9 / static_cast<double>(p.baud);
    const double per_read_ns = p.mmio_read_ns + static_cast<double>(p.relax_cycles) * 1e9 / p.cpu_hz;
    double per_byte = 600;
    if (p.reference) per_byte += 40 * std::max(0.0, char_ns / std::max(per_read_ns, 1.0));
    double payload = 0;
    if (rq.payload_source.rfind("generated:", 0) == 0) {
        payload = std::stod(rq.payload_source.substr(10));
    } else {
        struct stat st {};
        if (stat(rq.payload_source.c_str(), &st) == 0) payload = static_cast<double>(st.st_size);
    }
    const double bytes = per_byte * payload;
    const double file = rq.fst ? bytes / 8 : bytes; // FST: lz4-packed, about 8x smaller here
    if (file < 1e9) return "";
    return fmt::format("uartvp: warning: the waves of this run will take about {:.1f} GB ({}){}\n",
                       file / 1e9, rq.fst ? "NAME.fst" : "NAME.vcd",
                       rq.fst ? "" : fmt::format("; with --fst about {:.1f} GB", bytes / 8 / 1e9));
}

waves::waves(const std::string& vcd_path, double baud, bool fst) {
    if (const std::string why = waves_path_problem(vcd_path, fst); !why.empty())
        throw std::runtime_error(why);
    const std::string dir = dir_of(vcd_path), stem = stem_of(vcd_path);
    m_fst = fst;
    m_vcd = fst ? dir + "/" + stem + ".fst" : vcd_path;
    m_gtkw = dir + "/" + stem + ".gtkw";
    m_tasks_path = dir + "/" + stem + ".tasks.txt";
    m_regs_path = dir + "/" + stem + ".regs.txt";
    m_lines_path = dir + "/" + stem + ".lines.vcd";
    m_rtl_path = dir + "/" + stem + ".rtl.vcd";
    m_vcd_tmp = outputs::temporary(m_vcd);
    m_lines_tmp = outputs::temporary(m_lines_path);
    m_gtkw_tmp = outputs::temporary(m_gtkw);
    m_tasks_tmp = outputs::temporary(m_tasks_path);
    m_regs_tmp = outputs::temporary(m_regs_path);
    if (fst) {
        // The VCD goes through a pipe into vcd2fst, which writes the FST's temporary: no VCD on disk.
        if (vcd2fst_pipe::find().empty()) throw std::runtime_error(fst_problem());
        m_vcd2fst = std::make_unique<vcd2fst_pipe>(m_vcd_tmp);
        m_vcd_writer = std::make_unique<vcd_writer>("waves_vcd", m_vcd2fst->write_path());
        m_vcd2fst
            ->release_write_end(); // the writer has its own descriptor: vcd2fst sees the end when it closes
    } else {
        m_vcd_writer = std::make_unique<vcd_writer>("waves_vcd", m_vcd_tmp);
    }
    m_baud = baud;
    m_lines = std::make_unique<lines_vcd>("lines_vcd", m_lines_tmp, lines_vcd::timescale_for(baud));
}

waves::~waves() {
    m_vcd2fst.reset();  // an unfinished run: the converter's output is not wanted
    if (m_done) return; // complete: outputs::commit() puts the files in place
    if (m_vcd_writer) m_vcd_writer->close();
    if (m_lines) m_lines->close();
    for (const std::string* f :
         {&m_vcd_tmp, &m_lines_tmp, &m_gtkw_tmp, &m_rtl_tmp, &m_tasks_tmp, &m_regs_tmp})
        if (!f->empty()) std::remove(f->c_str());
}

void waves::begin_group(const std::string& name) {
    m_save.begin_group(name);
}
void waves::end_group() {
    m_save.end_group();
}

void waves::bit(const sc_core::sc_signal_in_if<bool>& s, const std::string& name) {
    m_vcd_writer->add(s, name);
    m_save.signal(gtkw_save::format::bit, name);
}

void waves::level(const sc_core::sc_signal_in_if<unsigned>& s, const std::string& name, unsigned) {
    m_vcd_writer->add(s, name, 32);
    m_save.signal(gtkw_save::format::analog, name + "[31:0]");
}

void waves::number(const sc_core::sc_signal_in_if<int>& s, const std::string& name) {
    m_vcd_writer->add(s, name, 32);
    m_save.signal(gtkw_save::format::dec, name + "[31:0]");
}

void waves::number(const sc_core::sc_signal_in_if<std::uint64_t>& s, const std::string& name) {
    m_vcd_writer->add(s, name, 64);
    m_save.signal(gtkw_save::format::dec, name + "[63:0]");
}

void waves::address(const sc_core::sc_signal_in_if<std::uint64_t>& s, const std::string& name) {
    m_vcd_writer->add(s, name, 64);
    m_save.signal(gtkw_save::format::hex, name + "[63:0]");
}

void waves::line(sc_core::sc_signal_in_if<bool>& s, const std::string& name, const std::string& leaf) {
    bit(s, name);
    m_lines->add(s, leaf);
}

std::uint64_t waves::task_value(unsigned cpu, int index) {
    if (index < 0) return 0;
    const auto key = std::make_pair(cpu, index);
    const auto it = m_task_numbers.find(key);
    if (it != m_task_numbers.end()) return it->second;
    const std::uint64_t n = m_task_numbers.size() + 1;
    m_task_numbers[key] = n;
    m_task_names.push_back(m_machine->cpu(cpu).tasks().at(static_cast<std::size_t>(index)).name);
    return n;
}

void waves::core_group(cpu::machine& m, cpu::core& c, const std::string& group) {
    const std::string n = c.basename();
    const unsigned id = c.id();
    m_save.begin_group(group);
    m_vcd_writer->add(c.running_task.value_changed_event(), n + ".task", 16,
                      [this, &c, id] { return task_value(id, c.running_task.read()); });
    m_save.translated(gtkw_save::format::dec, filter_tasks, absolute(m_tasks_path), n + ".task[15:0]");
    bit(c.irqs_off, n + ".irqs_off");
    number(c.irqs_off_window, n + ".irqs_off_window");
    bit(c.in_hardirq, n + ".in_hardirq");
    for (std::size_t i = 0; i < m.irq_lines().size(); ++i)
        if (m.irq_lines()[i].cpu == id)
            bit(m.irq_line_signal(static_cast<int>(i)), n + ".irq_" + m.irq_lines()[i].name);
    if (m.cores.size() > 1) bit(*m.ipi[id], n + ".ipi");
    poll_vars& v = m_poll[id];
    v.polling = m_vcd_writer->add_deferred(n + ".polling", 1);
    m_save.signal(gtkw_save::format::bit, n + ".polling");
    v.reads = m_vcd_writer->add_deferred(n + ".poll_reads", 32);
    m_save.signal(gtkw_save::format::dec, n + ".poll_reads[31:0]");
    m_save.end_group();
    c.add_observer(*this);
}

void waves::machine_and_bus(cpu::machine& m) {
    m_machine = &m;
    m_io_base = m.cpu(0).timing().io_base;
    for (std::size_t i = 0; i < m.cores.size(); ++i)
        core_group(m, *m.cores[i], i == 0 ? "CPU" : "CPU" + std::to_string(i));
    cpu::core& cpu0 = m.cpu(0);
    // CPU0's accesses, written as the core tells them (the bus signals' events would cost a third of
    // a run with waves).
    m_save.begin_group("Bus");
    m_bus.addr = m_vcd_writer->add_deferred("bus.mmio_addr", 64);
    m_save.translated(gtkw_save::format::hex, filter_registers, absolute(m_regs_path), "bus.mmio_addr[63:0]");
    m_bus.read = m_vcd_writer->add_deferred("bus.mmio_read", 1);
    m_save.signal(gtkw_save::format::bit, "bus.mmio_read");
    m_bus.write = m_vcd_writer->add_deferred("bus.mmio_write", 1);
    m_save.signal(gtkw_save::format::bit, "bus.mmio_write");
    m_save.end_group();
    cpu0.observe_accesses();
}

register_names pl011_register_names(std::uint64_t base) {
    static const std::pair<unsigned, const char*> regs[] = {
        {0x00, "DR"},   {0x04, "RSR/ECR"}, {0x18, "FR"},  {0x20, "ILPR"}, {0x24, "IBRD"},
        {0x28, "FBRD"}, {0x2C, "LCR_H"},   {0x30, "CR"},  {0x34, "IFLS"}, {0x38, "IMSC"},
        {0x3C, "RIS"},  {0x40, "MIS"},     {0x44, "ICR"}, {0x48, "DMACR"}};
    register_names n;
    for (const auto& [off, name] : regs)
        n[base + off] = std::string("UART0 ") + name;
    return n;
}

register_names uart16550_register_names(std::uint64_t base, unsigned shift) {
    static const char* const regs[] = {
        "RBR/THR (DLL if DLAB)", "IER (DLM if DLAB)", "IIR/FCR", "LCR", "MCR", "LSR", "MSR", "SCR"};
    register_names n;
    for (unsigned i = 0; i < 8; ++i)
        n[base + (std::uint64_t{i} << shift)] = std::string("UART0 ") + regs[i];
    return n;
}

std::string register_label(const register_names& names, std::uint64_t addr, std::uint64_t io_base) {
    const auto it = names.find(addr);
    if (addr >= io_base)
        return fmt::format("{}I/O port 0x{:X}{}", it == names.end() ? "" : it->second + " (", addr - io_base,
                           it == names.end() ? "" : ")");
    return it == names.end() ? fmt::format("0x{:X}", addr) : it->second;
}

void waves::name_registers(const register_names& names) {
    for (const auto& [a, n] : names)
        m_registers[a] = n;
}

void waves::access(const cpu::core&, std::uint64_t addr, bool write, const sc_core::sc_time& start,
                   const sc_core::sc_time& end) {
    if (addr != m_bus.last_addr) m_vcd_writer->write_at(m_bus.addr, start, addr);
    m_bus.last_addr = addr;
    const std::size_t strobe = write ? m_bus.write : m_bus.read;
    m_vcd_writer->write_at(strobe, start, 1);
    m_vcd_writer->write_at(strobe, end, 0);
}

void waves::poll_begin(const cpu::core& c, const sc_core::sc_time& start) {
    poll_vars& v = m_poll[c.id()];
    if (v.held) m_vcd_writer->release(v.hold);
    v.hold = m_vcd_writer->hold(start);
    v.held = true;
}

void waves::poll_span(const cpu::core& c, std::uint64_t, const sc_core::sc_time& start,
                      const sc_core::sc_time& end, std::uint64_t reads) {
    poll_vars& v = m_poll[c.id()];
    if (reads > 0) {
        m_vcd_writer->write_at(v.polling, start, 1);
        m_vcd_writer->write_at(v.reads, start, reads);
        m_vcd_writer->write_at(v.polling, end, 0);
        m_vcd_writer->write_at(v.reads, end, 0);
    }
    if (v.held) m_vcd_writer->release(v.hold);
    v.held = false;
}

void waves::lines(sc_core::sc_signal_in_if<bool>& txd, sc_core::sc_signal_in_if<bool>& rxd) {
    m_save.begin_group("Lines");
    line(txd, "lines.txd", "txd");
    line(rxd, "lines.rxd", "rxd");
    m_save.end_group();
}

serial_line_if& waves::reported_line(const std::string& name, const std::string& leaf, bool initial) {
    auto r = std::make_unique<vcd_line_reader>(initial);
    r->add_to(*m_vcd_writer, name);
    m_save.signal(gtkw_save::format::bit, name);
    m_lines->add(*r, leaf);
    m_reported.push_back(std::move(r));
    return *m_reported.back();
}

serial_line_if& waves::lines_from_reports(sc_core::sc_signal_in_if<bool>& rxd) {
    m_save.begin_group("Lines");
    serial_line_if& txd = reported_line("lines.txd", "txd");
    line(rxd, "lines.rxd", "rxd");
    m_save.end_group();
    return txd;
}

waves::reported_lines waves::lines_from_reports() {
    m_save.begin_group("Lines");
    serial_line_if& txd = reported_line("lines.txd", "txd");
    serial_line_if& rxd = reported_line("lines.rxd", "rxd");
    m_save.end_group();
    return {txd, rxd};
}

std::string waves::rtl_trace_path() {
    if (m_rtl_tmp.empty()) m_rtl_tmp = outputs::temporary(m_rtl_path);
    return m_rtl_tmp;
}

void waves::finish() {
    if (!m_vcd_writer->close() || !m_lines->close()) throw std::runtime_error("cannot write " + shown(m_vcd));
    if (m_vcd2fst) {
        const bool converted = m_vcd2fst->wait();
        m_vcd2fst.reset();
        if (!converted) throw std::runtime_error("cannot write " + shown(m_vcd) + ": vcd2fst failed");
    }
    // The filters: the value as GTKWave shows it (decimal; hex with every digit of 64 bits), its name.
    std::vector<std::pair<std::string, std::string>> tasks{{"0", "(idle)"}}, regs;
    for (std::size_t i = 0; i < m_task_names.size(); ++i)
        tasks.emplace_back(std::to_string(i + 1), m_task_names[i]);
    for (const auto& [addr, name] : m_registers)
        regs.emplace_back(fmt::format("{:016X}", addr), register_label(m_registers, addr, m_io_base));
    const bool t = write_translate_filter(m_tasks_tmp, tasks);
    const bool r = write_translate_filter(m_regs_tmp, regs);
    if (!t || !r) throw std::runtime_error("cannot write the filters beside " + shown(m_gtkw));
    // Zoomed to about 40 characters over the window; the dump by its absolute path, so that
    // `gtkwave NAME.gtkw` opens it from anywhere.
    if (!m_save.write(m_gtkw_tmp, absolute(m_vcd), absolute(m_gtkw), 40 * 10 * 1e12 / m_baud))
        throw std::runtime_error("cannot write " + shown(m_gtkw));
    // The renames wait for the run's other outputs: outputs::commit().
    m_done = true;
}

void add_pl011_group(waves& w, pl011& uart, sc_core::sc_signal_in_if<bool>& irq, unsigned fifo_depth) {
    w.begin_group("UART0 (PL011)");
    w.level(uart.tx_fifo_level, "uart0.tx_fifo_level", fifo_depth);
    w.level(uart.rx_fifo_level, "uart0.rx_fifo_level", fifo_depth);
    w.bit(uart.busy, "uart0.busy");
    w.bit(uart.txff, "uart0.txff");
    w.bit(uart.txfe, "uart0.txfe");
    w.bit(uart.rxff, "uart0.rxff");
    w.bit(uart.rxfe, "uart0.rxfe");
    w.bit(irq, "uart0.irq");
    w.end_group();
}

} // namespace uartvp::program
