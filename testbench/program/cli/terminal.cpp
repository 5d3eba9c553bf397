// SPDX-License-Identifier: Apache-2.0
#include "cli/terminal.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace uartvp::program {

void apply_terminal_options(const scenario_def& s, run_request& rq, const std::string& terminal,
                            const std::string& duration, bool duration_given, bool payload_given) {
    const auto seconds = [&]() {
        char* end = nullptr;
        errno = 0;
        const double d = std::strtod(duration.c_str(), &end);
        if (duration.empty() || *end || errno || !std::isfinite(d) || d <= 0 || d > 1e6)
            throw usage_error("--duration " + shown(duration) +
                              ": expected a number of simulated seconds, more than 0 and at most 10^6");
        return d;
    };
    if (terminal.empty()) {
        if (duration_given && !s.takes_duration)
            throw usage_error("--duration goes with --terminal (it ends an interactive run)");
        if (duration_given) rq.duration_s = seconds();
        return;
    }
    if (s.terminal_variants.empty()) {
        std::string takers;
        for (const scenario_def& o : scenarios())
            for (const std::string& v : o.terminal_variants)
                takers += (takers.empty() ? "" : ", ") + o.name + " --variant " + v;
        const std::string why = s.terminal_refusal.empty()
                                    ? "its routines only write to the UART, nothing reads what is typed"
                                    : s.terminal_refusal;
        throw usage_error("--terminal: " + s.name + " takes no terminal input: " + why +
                          " (scenarios that do: " + takers + ")");
    }
    bool takes = false;
    for (const std::string& v : s.terminal_variants)
        takes |= v == rq.variant;
    if (!takes)
        throw usage_error("--terminal: " + s.name + " --variant " + rq.variant + " " + s.terminal_refusal);
    try {
        (void)serial_terminal::spec::parse(terminal);
    } catch (const std::invalid_argument&) {
        throw usage_error("--terminal " + shown(terminal) + ": expected stdio, pty or tcp:PORT (0 to 65535)");
    }
    if (payload_given)
        throw usage_error("--terminal replaces the RX payload: give no --payload or --payload-bytes with it");
    if (!rq.vcd.empty()) throw usage_error("--terminal and --vcd do not go together (an interactive run)");
    if (duration_given) rq.terminal_duration_s = seconds();
    rq.terminal = terminal;
}

std::unique_ptr<serial_terminal> open_terminal(const run_request& rq, double baud, const serial_format& fmt,
                                               const sc_core::sc_time& input_from) {
    serial_terminal::options opt;
    opt.input_from = input_from;
    if (rq.terminal_duration_s > 0) opt.duration = sc_core::sc_time(rq.terminal_duration_s, sc_core::SC_SEC);
    std::unique_ptr<serial_terminal> t;
    try {
        t = std::make_unique<serial_terminal>("terminal", rq.terminal, baud, fmt, opt);
    } catch (const std::exception& e) {
        std::string why = e.what();
        if (why.rfind("serial_terminal: ", 0) == 0) why = why.substr(17);
        throw usage_error("--terminal " + shown(rq.terminal) + ": " + why);
    }
    std::fprintf(stderr, "terminal: %s\n", t->device().c_str());
    std::fflush(stderr);
    return t;
}

nlohmann::json terminal_results(const serial_terminal& t) {
    return {{"device", t.device()},
            {"end", serial_terminal::reason_name(t.reason())},
            {"end_time_ns", to_ns(t.end_time())},
            {"bytes_typed", t.bytes_typed()},
            {"bytes_shown", t.bytes_shown()},
            {"bytes_dropped", t.bytes_dropped()}};
}

} // namespace uartvp::program
