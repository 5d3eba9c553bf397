#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn
#include <uartvp/lines_vcd.h>

#include <stdexcept>

namespace uartvp {

struct lines_vcd::line {
    sc_core::sc_signal_in_if<bool>* signal;
    std::string leaf, id;
};

lines_vcd::lines_vcd(const sc_core::sc_module_name& name, const std::string& path, std::uint64_t timescale_ps)
    : sc_module(name)
    , m_path(path)
    , m_ts_ps(timescale_ps)
    , m_out(path) {
    if (!m_out) throw std::runtime_error("cannot write " + path);
}

lines_vcd::~lines_vcd() {
    close();
}

void lines_vcd::add(sc_core::sc_signal_in_if<bool>& sig, const std::string& leaf) {
    auto l = std::make_unique<line>();
    l->signal = &sig;
    l->leaf = leaf;
    l->id = std::string(1, static_cast<char>('!' + m_lines.size()));
    line* raw = l.get();
    m_lines.push_back(std::move(l));
    sc_core::sc_spawn_options opt;
    opt.spawn_method();
    opt.set_sensitivity(&sig.value_changed_event());
    opt.dont_initialize();
    sc_core::sc_spawn([this, raw] { change(*raw); }, sc_core::sc_gen_unique_name("watch"), &opt);
}

std::uint64_t lines_vcd::timescale_for(double baud, unsigned samples_per_bit) {
    const double want_ps = 1e12 / baud / samples_per_bit;
    std::uint64_t ts = 1;
    while (ts * 10 <= want_ps)
        ts *= 10;
    return ts;
}

static std::string unit(std::uint64_t ps) {
    const char* units[] = {"ps", "ns", "us", "ms", "s"};
    int u = 0;
    while (ps >= 1000 && u < 4) {
        ps /= 1000;
        ++u;
    }
    return std::to_string(ps) + " " + units[u];
}

void lines_vcd::start_of_simulation() {
    header();
}

void lines_vcd::header() {
    m_out << "$timescale " << unit(m_ts_ps) << " $end\n$scope module lines $end\n";
    for (const auto& l : m_lines)
        m_out << "$var wire 1 " << l->id << " " << l->leaf << " $end\n";
    m_out << "$upscope $end\n$enddefinitions $end\n#0\n";
    for (const auto& l : m_lines)
        m_out << (l->signal->read() ? '1' : '0') << l->id << "\n";
    m_last_tick = 0;
}

void lines_vcd::change(line& l) {
    const std::uint64_t ps = static_cast<std::uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e12 + 0.5);
    const std::uint64_t tick = (ps + m_ts_ps / 2) / m_ts_ps;
    if (tick != m_last_tick) m_out << "#" << tick << "\n";
    m_last_tick = tick;
    m_out << (l.signal->read() ? '1' : '0') << l.id << "\n";
}

void lines_vcd::close() {
    if (!m_out.is_open()) return;
    // A last timestamp, so that a decoder sees the line idle after the last stop bit.
    const std::uint64_t end =
        (static_cast<std::uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e12) + m_ts_ps - 1) / m_ts_ps +
        1;
    if (end > m_last_tick) m_out << "#" << end << "\n";
    m_out.close();
}

} // namespace uartvp
