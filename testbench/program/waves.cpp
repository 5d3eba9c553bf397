#include "waves.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "outputs.h"
#include "params.h"

namespace uartvp::program {

namespace {
std::string dir_of(const std::string& p) {
    const auto s = p.rfind('/');
    return s == std::string::npos ? "." : s == 0 ? "/" : p.substr(0, s);
}
std::string stem_of(const std::string& p) {
    const auto s = p.rfind('/');
    std::string f = s == std::string::npos ? p : p.substr(s + 1);
    return f.substr(0, f.size() - 4); // without ".vcd"
}
// GTKWave trace flags (analyzer.h): right-justified binary, hex, decimal; analog step; group markers.
constexpr const char* f_bit = "@28";
constexpr const char* f_hex = "@22";
constexpr const char* f_dec = "@24";
constexpr const char* f_analog = "@8024";
constexpr const char* f_stretch = "@20000";
constexpr const char* f_group_begin = "@800200";
constexpr const char* f_group_end = "@1000200";
} // namespace

std::string waves_path_problem(const std::string& p) {
    const std::string what = "--vcd " + shown(p);
    if (p.size() < 5 || p.compare(p.size() - 4, 4, ".vcd") != 0 || p.back() == '/')
        return what + ": expected a file name ending in .vcd";
    if (stem_of(p).empty()) return what + ": expected a file name before .vcd";
    for (const std::string& f : waves_outputs(p))
        if (std::string why = outputs::path_problem(f, what); !why.empty()) return why;
    return "";
}

std::vector<std::string> waves_outputs(const std::string& p) {
    const std::string base = dir_of(p) + "/" + stem_of(p);
    return {p, base + ".gtkw", base + ".lines.vcd", base + ".rtl.vcd"};
}

waves::waves(const std::string& vcd_path, double baud) {
    if (const std::string why = waves_path_problem(vcd_path); !why.empty()) throw std::runtime_error(why);
    const std::string dir = dir_of(vcd_path), stem = stem_of(vcd_path);
    m_vcd = vcd_path;
    m_gtkw = dir + "/" + stem + ".gtkw";
    m_lines_path = dir + "/" + stem + ".lines.vcd";
    m_rtl_path = dir + "/" + stem + ".rtl.vcd";
    m_vcd_tmp = outputs::temporary(m_vcd);
    m_lines_tmp = outputs::temporary(m_lines_path);
    m_gtkw_tmp = outputs::temporary(m_gtkw);
    m_vcd_writer = std::make_unique<vcd_writer>("waves_vcd", m_vcd_tmp);
    m_baud = baud;
    m_lines = std::make_unique<lines_vcd>("lines_vcd", m_lines_tmp, lines_vcd::timescale_for(baud));
}

waves::~waves() {
    if (m_done) return; // complete: outputs::commit() puts the files in place
    if (m_vcd_writer) m_vcd_writer->close();
    if (m_lines) m_lines->close();
    for (const std::string* f : {&m_vcd_tmp, &m_lines_tmp, &m_gtkw_tmp, &m_rtl_tmp})
        if (!f->empty()) std::remove(f->c_str());
}

void waves::add(const std::string& flags, const std::string& signal) {
    m_save.push_back(flags);
    m_save.push_back(signal);
}

void waves::begin_group(const std::string& name) {
    add(f_group_begin, "-" + name);
}
void waves::end_group() {
    // The end marker repeats the group's name, as GTKWave writes it.
    for (auto it = m_save.rbegin(); it != m_save.rend(); ++it)
        if (it != m_save.rbegin() && *it == f_group_begin) {
            const std::string name = *(it - 1); // a copy: add() may move m_save's strings
            add(f_group_end, name);
            return;
        }
}

void waves::bit(const sc_core::sc_signal_in_if<bool>& s, const std::string& name) {
    m_vcd_writer->add(s, name);
    add(f_bit, name);
}

void waves::level(const sc_core::sc_signal_in_if<unsigned>& s, const std::string& name, unsigned) {
    m_vcd_writer->add(s, name, 32);
    add(f_analog, name + "[31:0]");
    // Two blank rows give the analog trace some height.
    m_save.push_back(f_stretch);
    m_save.push_back("-");
    m_save.push_back(f_stretch);
    m_save.push_back("-");
}

void waves::number(const sc_core::sc_signal_in_if<int>& s, const std::string& name) {
    m_vcd_writer->add(s, name, 32);
    add(f_dec, name + "[31:0]");
}

void waves::number(const sc_core::sc_signal_in_if<std::uint64_t>& s, const std::string& name) {
    m_vcd_writer->add(s, name, 64);
    add(f_dec, name + "[63:0]");
}

void waves::address(const sc_core::sc_signal_in_if<std::uint64_t>& s, const std::string& name) {
    m_vcd_writer->add(s, name, 64);
    add(f_hex, name + "[63:0]");
}

void waves::line(sc_core::sc_signal_in_if<bool>& s, const std::string& name, const std::string& leaf) {
    bit(s, name);
    m_lines->add(s, leaf);
}

void waves::cpu_and_bus(cpu::core& cpu) {
    const std::string c = cpu.basename();
    begin_group("CPU");
    number(cpu.running_task, c + ".task");
    bit(cpu.irqs_off, c + ".irqs_off");
    bit(cpu.in_hardirq, c + ".in_hardirq");
    bit(cpu.polling, c + ".polling");
    number(cpu.poll_reads, c + ".poll_reads");
    end_group();
    begin_group("Bus");
    address(cpu.mmio_addr, "bus.mmio_addr");
    bit(cpu.mmio_read, "bus.mmio_read");
    bit(cpu.mmio_write, "bus.mmio_write");
    end_group();
    cpu.observe_bus();
}

void waves::cores(cpu::machine& m) {
    if (m.cores.size() < 2) return;
    begin_group("Other CPUs");
    for (std::size_t i = 1; i < m.cores.size(); ++i) {
        cpu::core& c = *m.cores[i];
        const std::string n = c.basename();
        number(c.running_task, n + ".task");
        bit(c.irqs_off, n + ".irqs_off");
        bit(c.in_hardirq, n + ".in_hardirq");
    }
    end_group();
}

void waves::lines(sc_core::sc_signal_in_if<bool>& txd, sc_core::sc_signal_in_if<bool>& rxd) {
    begin_group("Lines");
    line(txd, "lines.txd", "txd");
    line(rxd, "lines.rxd", "rxd");
    end_group();
}

std::string waves::rtl_trace_path() {
    if (m_rtl_tmp.empty()) m_rtl_tmp = outputs::temporary(m_rtl_path);
    return m_rtl_tmp;
}

void waves::finish() {
    if (!m_vcd_writer->close() || !m_lines->close()) throw std::runtime_error("cannot write " + shown(m_vcd));
    std::ofstream g(m_gtkw_tmp);
    const std::string vcd_name =
        m_vcd.substr(m_vcd.rfind('/') == std::string::npos ? 0 : m_vcd.rfind('/') + 1);
    // The VCD is named relative to the save file, so the pair can move together; open both:
    // gtkwave DIR/NAME.vcd DIR/NAME.gtkw
    g << "[*] uartvp waves: gtkwave NAME.vcd NAME.gtkw\n"
      << "[dumpfile] \"" << vcd_name << "\"\n"
      << "[timestart] 0\n[size] 1600 900\n[pos] -1 -1\n"
      // Zoom to about 40 characters over the window (GTKWave's zoom: -(log2 of ps per pixel) - 8).
      << "*" << -std::ceil(std::log2(40 * 10 * 1e12 / m_baud / 1300)) - 8
      << ".000000 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n"
      << "[sst_width] 250\n[signals_width] 280\n[sst_expanded] 1\n[sst_vpaned_height] 300\n";
    for (const std::string& l : m_save)
        g << l << "\n";
    g << "[pattern_trace] 1\n[pattern_trace] 0\n";
    g.close();
    if (!g) throw std::runtime_error("cannot write " + shown(m_gtkw));
    // The renames wait for the run's other outputs: outputs::commit().
    m_done = true;
}

} // namespace uartvp::program
