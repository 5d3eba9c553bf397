// SPDX-License-Identifier: Apache-2.0
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn: a method per counter
#include "cli/timeline.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include <fmt/core.h>

#include "cli/outputs.h"
#include "cli/params.h"
#include "scenarios/scenario.h"

namespace uartvp::program {

using namespace sc_core;

namespace {
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
    try {
        m_out = std::make_unique<trace_event_writer>(m_tmp, title);
    } catch (const std::runtime_error&) {
        throw std::runtime_error("cannot write " + shown(path));
    }
}

timeline::~timeline() {
    m_out.reset();
    if (!m_done) std::remove(m_tmp.c_str());
}

void timeline::watch(cpu::machine& m, const register_names& names) {
    m_machine = &m;
    m_names = names;
    m_io_base = m.cpu(0).timing().io_base;
    for (auto& c : m.cores) {
        m_out->thread(c->id(), "cpu" + std::to_string(c->id()), c->id());
        c->add_observer(*this);
    }
}

void timeline::counter(const sc_signal_in_if<unsigned>& s, const std::string& name) {
    sc_spawn_options opt;
    opt.spawn_method();
    opt.set_sensitivity(&s.value_changed_event());
    sc_spawn([this, &s,
              name] { m_out->counter(name, sc_time_stamp(), fmt::format("{{\"level\":{}}}", s.read())); },
             sc_gen_unique_name("counter"), &opt);
}

void timeline::watch(scoreboard& sb, const std::string& side) {
    sb.on_difference([this, side](const difference& d) {
        m_out->instant('g', 0, side + " " + to_string(d.kind) + " byte", "difference", d.when,
                       fmt::format("{{\"expected_index\":{},\"observed_index\":{},\"expected_byte\":{},"
                                   "\"observed_byte\":{}}}",
                                   d.expected_index, d.observed_index, d.expected_byte, d.observed_byte));
    });
}

void timeline::console_write(const cpu::core& c, const sc_time& start, const sc_time& end,
                             std::string_view text) {
    // The text is the name; args carry it whole only where the name does not (viewers such as
    // speedscope show every argument in the name).
    const std::string name = short_text(text);
    const bool whole = text.size() == name.size() + 1 && text.back() == '\n';
    m_out->complete(c.id(), name, "console", start, end,
                    whole ? ""
                          : fmt::format("{{\"text\":{},\"bytes\":{}}}",
                                        trace_event_writer::json_string(text.substr(0, max_text)),
                                        text.size()));
}

void timeline::text_instant(const cpu::core& c, const std::string& name, const sc_time& at,
                            std::string_view text) {
    m_out->instant('t', c.id(), name, "tty", at,
                   fmt::format("{{\"text\":{},\"bytes\":{}}}",
                               trace_event_writer::json_string(text.substr(0, max_text)), text.size()));
}

void timeline::task_span(const cpu::core& c, const cpu::task_stats& t, const sc_time& start,
                         const sc_time& end) {
    m_out->complete(c.id(), t.name, "task", start, end, "");
}

void timeline::irqs_off_span(const cpu::core& c, const sc_time& start, const sc_time& end) {
    m_out->complete(c.id(), "irqs off", "irqs_off", start, end, "");
}

void timeline::hardirq_span(const cpu::core& c, const std::string& what, const sc_time& start,
                            const sc_time& end) {
    m_out->complete(c.id(), what, "hardirq", start, end, "");
}

void timeline::poll_span(const cpu::core& c, std::uint64_t addr, const sc_time& start, const sc_time& end,
                         std::uint64_t reads) {
    if (reads == 0) return;
    m_out->complete(c.id(), "poll " + register_label(m_names, addr, m_io_base), "poll", start, end,
                    fmt::format("{{\"reads\":{}}}", reads));
}

void timeline::track(unsigned tid, const std::string& name) {
    m_out->thread(tid, name, tid);
}

void timeline::spans(const sc_signal_in_if<bool>& s, unsigned tid, const std::string& name,
                     const std::string& cat) {
    m_spans.push_back(std::make_unique<open_span>(open_span{&s, tid, name, cat}));
    open_span* o = m_spans.back().get();
    o->open = s.read();
    sc_spawn_options opt;
    opt.spawn_method();
    opt.dont_initialize();
    opt.set_sensitivity(&s.value_changed_event());
    sc_spawn(
        [this, o] {
            const bool high = o->s->read();
            if (high == o->open) return;
            if (high)
                o->since = sc_time_stamp();
            else
                m_out->complete(o->tid, o->name, o->cat, o->since, sc_time_stamp(), "");
            o->open = high;
        },
        sc_gen_unique_name("span"), &opt);
}

void timeline::finish() {
    if (m_machine)
        for (auto& c : m_machine->cores)
            c->end_observation();
    for (const auto& o : m_spans)
        if (o->open) m_out->complete(o->tid, o->name, o->cat, o->since, sc_time_stamp(), "");
    if (!m_out->close()) throw std::runtime_error("cannot write " + shown(m_path));
    m_done = true; // outputs::commit() puts it in place
}

} // namespace uartvp::program
