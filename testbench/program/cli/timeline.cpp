#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn: a method per counter
#include "cli/timeline.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli/outputs.h"
#include "cli/params.h"
#include "scenarios/scenario.h"

namespace uartvp::program {

using namespace sc_core;

namespace {
// A JSON string (invalid UTF-8 replaced, not refused: a payload is whatever the user gave).
std::string json_string(std::string_view s) {
    return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
// A record as a span's name: its first line, cut to fit a track ("..." marks the cut).
std::string short_text(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '\n' || c == '\r') break;
        out += c;
        if (out.size() >= 120) {
            out += "...";
            break;
        }
    }
    return out;
}
constexpr std::size_t max_text = 4096; // of a span's text argument
} // namespace

std::string trace_path_problem(const std::string& path) {
    return outputs::path_problem(path, "--trace " + shown(path));
}

std::unique_ptr<timeline> make_timeline(const run_request& rq) {
    if (rq.trace.empty()) return nullptr;
    return std::make_unique<timeline>("timeline", rq.trace,
                                      "uartvp " + rq.scenario + " " + rq.variant + " " + rq.profile);
}

timeline::timeline(const sc_module_name& name, const std::string& path, const std::string& title)
    : sc_module(name)
    , m_path(path) {
    if (const std::string why = trace_path_problem(path); !why.empty()) throw std::runtime_error(why);
    m_tmp = outputs::temporary(path);
    m_out = std::fopen(m_tmp.c_str(), "w");
    if (!m_out) throw std::runtime_error("cannot write " + shown(path));
    m_units_per_us = sc_time(1, SC_US).value();
    std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", m_out);
    event("\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":" +
          json_string(title) + "}");
}

timeline::~timeline() {
    if (m_out) std::fclose(m_out);
    if (!m_done) std::remove(m_tmp.c_str());
}

// Timestamps in microseconds as multiples of 2^-20 us (0.95 ps), written exactly: a viewer that adds
// a span's dur to its ts in floating point gets the next span's ts exactly (picosecond decimals would
// not add up, and spans that touch would overlap), up to 2^33 us (2.4 hours) of simulated time.
std::uint64_t timeline::steps(const sc_time& t) const {
    using u128 = unsigned __int128;
    return static_cast<std::uint64_t>((u128(t.value()) * (u128(1) << 20) + m_units_per_us / 2) /
                                      m_units_per_us);
}

std::string timeline::time(std::uint64_t q) const {
    using u128 = unsigned __int128;
    std::string frac;
    u128 f = u128(q & ((1u << 20) - 1)) * 95'367'431'640'625ull; // x 5^20: the fraction in 10^-20
    for (int i = 0; i < 20; ++i, f /= 10)
        frac.insert(frac.begin(), static_cast<char>('0' + static_cast<int>(f % 10)));
    while (!frac.empty() && frac.back() == '0')
        frac.pop_back();
    return std::to_string(q >> 20) + (frac.empty() ? "" : "." + frac);
}

std::string timeline::time(const sc_time& t) const {
    return time(steps(t));
}

void timeline::event(const std::string& body) {
    if (!m_out) return;
    if (std::fputs(m_first ? "{" : ",\n{", m_out) < 0 || std::fputs(body.c_str(), m_out) < 0 ||
        std::fputc('}', m_out) < 0)
        m_ok = false;
    m_first = false;
}

void timeline::complete(unsigned tid, const std::string& name, const char* cat, const sc_time& start,
                        const sc_time& end, const std::string& args) {
    const std::uint64_t a = steps(start), b = std::max(a, steps(end));
    event(fmt::format("\"ph\":\"X\",\"pid\":1,\"tid\":{},\"name\":{},\"cat\":\"{}\",\"ts\":{},\"dur\":{}{}",
                      tid, json_string(name), cat, time(a), time(b - a),
                      args.empty() ? "" : ",\"args\":" + args));
}

void timeline::watch(cpu::machine& m, const register_names& names) {
    m_machine = &m;
    m_names = names;
    m_io_base = m.cpu(0).timing().io_base;
    for (auto& c : m.cores) {
        event(fmt::format(
            "\"ph\":\"M\",\"pid\":1,\"tid\":{},\"name\":\"thread_name\",\"args\":{{\"name\":\"cpu{}\"}}",
            c->id(), c->id()));
        event(fmt::format(
            "\"ph\":\"M\",\"pid\":1,\"tid\":{},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{}}}",
            c->id(), c->id()));
        c->add_observer(*this);
    }
}

void timeline::counter(const sc_signal_in_if<unsigned>& s, const std::string& name) {
    sc_spawn_options opt;
    opt.spawn_method();
    opt.set_sensitivity(&s.value_changed_event());
    sc_spawn(
        [this, &s, name] {
            event(fmt::format("\"ph\":\"C\",\"pid\":1,\"name\":{},\"ts\":{},\"args\":{{\"level\":{}}}",
                              json_string(name), time(sc_time_stamp()), s.read()));
        },
        sc_gen_unique_name("counter"), &opt);
}

void timeline::watch(scoreboard& sb, const std::string& side) {
    sb.on_difference([this, side](const difference& d) {
        event(fmt::format(
            "\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,\"name\":{},\"cat\":\"difference\",\"ts\":{},"
            "\"args\":{{\"expected_index\":{},\"observed_index\":{},\"expected_byte\":{},"
            "\"observed_byte\":{}}}",
            json_string(side + " " + to_string(d.kind) + " byte"), time(d.when), d.expected_index,
            d.observed_index, d.expected_byte, d.observed_byte));
    });
}

void timeline::console_write(const cpu::core& c, const sc_time& start, const sc_time& end,
                             std::string_view text) {
    // The text is the name; args carry it whole only where the name does not (viewers such as
    // speedscope show every argument in the name).
    const std::string name = short_text(text);
    const bool whole = text.size() == name.size() + 1 && text.back() == '\n';
    complete(c.id(), name, "console", start, end,
             whole ? ""
                   : fmt::format("{{\"text\":{},\"bytes\":{}}}", json_string(text.substr(0, max_text)),
                                 text.size()));
}

void timeline::text_instant(const cpu::core& c, const std::string& name, const sc_time& at,
                            std::string_view text) {
    event(fmt::format("\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":{},\"name\":{},\"cat\":\"tty\",\"ts\":{},"
                      "\"args\":{{\"text\":{},\"bytes\":{}}}",
                      c.id(), json_string(name), time(at), json_string(text.substr(0, max_text)),
                      text.size()));
}

void timeline::task_span(const cpu::core& c, const cpu::task_stats& t, const sc_time& start,
                         const sc_time& end) {
    complete(c.id(), t.name, "task", start, end, "");
}

void timeline::irqs_off_span(const cpu::core& c, const sc_time& start, const sc_time& end) {
    complete(c.id(), "irqs off", "irqs_off", start, end, "");
}

void timeline::hardirq_span(const cpu::core& c, const std::string& what, const sc_time& start,
                            const sc_time& end) {
    complete(c.id(), what, "hardirq", start, end, "");
}

void timeline::poll_span(const cpu::core& c, std::uint64_t addr, const sc_time& start, const sc_time& end,
                         std::uint64_t reads) {
    if (reads == 0) return;
    complete(c.id(), "poll " + register_label(m_names, addr, m_io_base), "poll", start, end,
             fmt::format("{{\"reads\":{}}}", reads));
}

void timeline::finish() {
    if (m_machine)
        for (auto& c : m_machine->cores)
            c->end_observation();
    if (std::fputs("\n]}\n", m_out) < 0) m_ok = false;
    const bool closed = std::fclose(m_out) == 0;
    m_out = nullptr;
    if (!m_ok || !closed) throw std::runtime_error("cannot write " + shown(m_path));
    m_done = true; // outputs::commit() puts it in place
}

} // namespace uartvp::program
