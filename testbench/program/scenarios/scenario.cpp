// SPDX-License-Identifier: Apache-2.0
#include "scenarios/scenario.h"
#include <algorithm>

#include <uartvp/pl011.h>

#include "platforms/virt_platform.h"

#include <stdexcept>

namespace uartvp::program {

scenario_def earlycon_pl011_scenario();
scenario_def console_8250_scenario();
scenario_def tty_paste_scenario();
scenario_def boot_console_scenario();
scenario_def hvc_paste_scenario();
scenario_def firmware_scenario();

namespace {
std::vector<scenario_def>& all_scenarios() {
    static std::vector<scenario_def> all{earlycon_pl011_scenario(), console_8250_scenario(),
                                         tty_paste_scenario(),      boot_console_scenario(),
                                         hvc_paste_scenario(),      firmware_scenario()};
    return all;
}
} // namespace

const std::vector<scenario_def>& scenarios() {
    return all_scenarios();
}

scenario_def* find_scenario_for_plugins(const std::string& name) {
    for (scenario_def& s : all_scenarios())
        if (s.name == name) return &s;
    return nullptr;
}

const scenario_def* find_scenario(const std::string& name) {
    for (const scenario_def& s : scenarios())
        if (s.name == name) return &s;
    return nullptr;
}

void pc_com1(params& p) {
    p.uart_model = "16550";
    p.port_io = true;
    p.uart_base = 0x3F8;
    p.reg_shift = 0;
    p.reg_io_width = 1;
    p.uartclk_hz = 1'843'200;
    p.baud = 115200;
    p.fifo_depth = 16;
    p.cpu_hz = 2'400'000'000;
    p.mmio_read_ns = 1700;
    p.mmio_write_ns = 1700;
}

run_result result_of(const run_request& rq, std::uint64_t payload_lines) {
    run_result r;
    r.scenario = rq.scenario;
    r.variant = rq.variant;
    r.profile = rq.profile;
    r.params = rq.p.to_json();
    r.payload_source = rq.payload_source;
    r.payload_lines = payload_lines;
    r.expect_loss = rq.expect_loss;
    return r;
}

uart16550_config uart16550_of(const params& p) {
    uart16550_config c;
    c.clock_hz = p.uartclk_hz;
    c.reg_shift = p.reg_shift;
    c.reg_io_width = p.reg_io_width;
    c.out2_gates_irq = p.port_io; // a PC board
    c.tx_drain_time = sc_core::sc_time(p.tx_drain_ns, sc_core::SC_NS);
    c.thre_delay = sc_core::sc_time(p.thre_delay_ns, sc_core::SC_NS);
    return c;
}

void add_line_results(run_result& r, const scoreboard& sb, const line_monitor& monitor) {
    r.bytes_on_line = sb.observed_count();
    r.lost_bytes = sb.lost();
    r.corrupted_bytes = sb.corrupted();
    r.duplicated_bytes = sb.duplicated();
    r.extra_bytes = sb.extra();
    r.framing_errors = monitor.framing_errors();
    r.parity_errors = monitor.parity_errors();
    if (const auto d = sb.first_difference())
        r.first_difference = {{"kind", to_string(d->kind)},          {"expected_index", d->expected_index},
                              {"observed_index", d->observed_index}, {"time_ns", to_ns(d->when)},
                              {"expected_byte", d->expected_byte},   {"observed_byte", d->observed_byte}};
}

run_result console_result(const run_request& rq, const scoreboard& sb, const line_monitor& monitor,
                          const cpu::core& cpu, const cpu::task_stats& boot,
                          const sc_core::sc_time& line_idle_at, std::uint64_t payload_lines,
                          std::uint64_t bytes_written, unsigned tx_fifo_max) {
    if (const std::string why = rq.payload->error(); !why.empty()) throw std::runtime_error(why);
    // The simulation ran out of events with the task still polling: its loop waits for a change that
    // nothing will bring (literal execution would spin forever). Or simulated time ran out of range.
    if (!cpu.idle())
        throw std::runtime_error(
            "the boot task never returned: a polling loop waits for a change that cannot come");
    if (sc_core::sc_time_stamp() >= sc_core::sc_max_time() / 2)
        throw std::runtime_error("simulated time ran out of range: the timing parameters are too slow");
    run_result r = result_of(rq, payload_lines);
    r.sim_time_ns = to_ns(boot.end - boot.start);
    r.line_idle_ns = line_idle_at > boot.start ? to_ns(line_idle_at - boot.start) : 0;
    r.bytes_written = bytes_written;
    add_line_results(r, sb, monitor);
    r.mmio_reads = boot.mmio_reads;
    r.mmio_writes = boot.mmio_writes;
    r.polls = boot.relax;
    r.irq_off_max_ns = to_ns(cpu.stats().irq_off_max);
    r.irq_off_total_ns = to_ns(cpu.stats().irq_off_total);
    r.tx_fifo_max = tx_fifo_max;
    r.transactions = cpu.transactions();
    return r;
}

void add_host_counts(run_result& r, const pl011* uart) {
    // SystemC advances its change stamp once per delta cycle that ran a process and once per time
    // step, its delta count once per such delta cycle.
    const std::uint64_t deltas = sc_core::sc_delta_count();
    r.host["delta_cycles"] = deltas;
    r.host["time_steps"] = sc_core::sc_get_curr_simcontext()->change_stamp() - deltas;
    if (uart) {
        r.host["uart_wakes"] = uart->wakes();
        r.host["uart_idle_wakes"] = uart->idle_wakes();
        r.host["rtl_evals"] = uart->rtl_evals();
    }
}

void add_machine_accesses(run_result& r, const cpu::machine& m) {
    auto add = [&](const cpu::task_stats& t) {
        r.mmio_reads += t.mmio_reads;
        r.mmio_writes += t.mmio_writes;
        r.polls += t.relax;
    };
    for (const auto& c : m.cores) {
        for (const cpu::task_stats& t : c->tasks())
            add(t);
        add(c->idle_stats());
        r.transactions += c->transactions();
    }
}

cpu::kernel_params assumed_kernel_costs(unsigned hz) {
    cpu::kernel_params k;
    k.hz = hz;
    k.irq_entry = sc_core::sc_time(1000, sc_core::SC_NS);
    k.irq_exit = sc_core::sc_time(500, sc_core::SC_NS);
    k.tick_cost = sc_core::sc_time(2, sc_core::SC_US);
    return k;
}

void add_kernel_results(run_result& r, const cpu::machine& m) {
    const auto ns = to_ns;
    nlohmann::json per_core = nlohmann::json::array(), tasks = nlohmann::json::array(),
                   lines = nlohmann::json::array(), reports = nlohmann::json::array();
    double off_max = 0, off_total = 0;
    for (const auto& c : m.cores) {
        const cpu::core_stats& s = c->stats();
        per_core.push_back({{"cpu", c->id()},
                            {"irq_off_max_ns", ns(s.irq_off_max)},
                            {"irq_off_total_ns", ns(s.irq_off_total)},
                            {"irq_off_windows", s.irq_off_windows},
                            {"hardirq_ns", ns(s.hardirq)},
                            {"busy_ns", ns(s.busy)}});
        off_max = std::max(off_max, ns(s.irq_off_max));
        off_total += ns(s.irq_off_total);
        for (const cpu::task_stats& t : c->tasks())
            tasks.push_back({{"name", t.name},
                             {"cpu", t.cpu},
                             {"cpu_ns", ns(t.cpu_time)},
                             {"wait_ns", ns(t.wait_time)},
                             {"switches", t.switches}});
    }
    for (const cpu::irq_line_stats& l : m.irq_lines())
        lines.push_back({{"name", l.name},
                         {"cpu", l.cpu},
                         {"count", l.count},
                         {"latency_max_ns", ns(l.latency_max)},
                         {"latency_mean_ns", l.served ? ns(l.latency_total) / l.served : 0.0}});
    static const char* const kinds[] = {"detected", "continued", "unstuck"};
    for (const cpu::csd_report& c : m.csd_reports())
        reports.push_back({{"kind", kinds[c.kind]},
                           {"time_ns", ns(c.time)},
                           {"cpu", c.cpu},
                           {"target_cpu", c.target_cpu},
                           {"wait_ns", ns(c.wait)}});
    r.kernel = {{"per_core", per_core},
                {"tasks", tasks},
                {"irq_lines", lines},
                {"csd_reports", reports},
                {"csd_wait_ns", ns(m.csd_wait_total())}};
    r.irq_off_max_ns = off_max;
    r.irq_off_total_ns = off_total;
}

std::string ascii_head(const std::string& text, std::size_t n) {
    std::string out;
    for (char c : text.substr(0, n))
        out += static_cast<unsigned char>(c) < 0x80 ? c : '?';
    return out;
}

void add_a64_results(run_result& r, const virt_platform& soc) {
    const cpu::a64_stats& s = soc.cpu->stats();
    r.sim_time_ns = to_ns(soc.cpu->local_time());
    r.line_idle_ns = to_ns(soc.line_idle_at());
    r.line_text_head = ascii_head(soc.monitor.text());
    r.mmio_reads = s.mmio_reads;
    r.mmio_writes = s.mmio_writes;
    r.transactions = s.transactions;
    r.irq_off_max_ns = to_ns(s.irq_off_max);
    r.irq_off_total_ns = to_ns(s.irq_off_total);
    r.tx_fifo_max = soc.tx_fifo_max();
    r.rtl_cycles = soc.uart.clock().edge_at_or_before(sc_core::sc_time_stamp());
    r.rtl_edges_evaluated = soc.uart.edges_evaluated();
    r.rtl_eval_s = soc.uart.rtl_eval_seconds();
    add_host_counts(r, &soc.uart);
    // The core's polling loops run as one operation (fast mode): how many, and the reads they stood for.
    r.host["a64_fast_forwards"] = s.fast_forwards;
    r.host["a64_skipped_reads"] = s.skipped_reads;
}

nlohmann::json run_result::to_json() const {
    nlohmann::json j = {{"schema_version", json_schema_version},
                        {"scenario", scenario},
                        {"variant", variant},
                        {"profile", profile},
                        {"params", params},
                        {"payload", payload_source},
                        {"payload_lines", payload_lines},
                        {"sim_time_ns", sim_time_ns},
                        {"line_idle_ns", line_idle_ns},
                        {"wall_s", wall_s},
                        {"bytes_written", bytes_written},
                        {"bytes_on_line", bytes_on_line},
                        {"lost_bytes", lost_bytes},
                        {"corrupted_bytes", corrupted_bytes},
                        {"duplicated_bytes", duplicated_bytes},
                        {"extra_bytes", extra_bytes},
                        {"framing_errors", framing_errors},
                        {"parity_errors", parity_errors},
                        {"first_difference", first_difference},
                        {"mmio_reads", mmio_reads},
                        {"mmio_writes", mmio_writes},
                        {"polls", polls},
                        {"irq_off_max_ns", irq_off_max_ns},
                        {"irq_off_total_ns", irq_off_total_ns},
                        {"tx_fifo_max", tx_fifo_max},
                        {"rtl_cycles", rtl_cycles},
                        {"rtl_edges_evaluated", rtl_edges_evaluated},
                        {"transactions", transactions},
                        {"rtl_eval_s", rtl_eval_s},
                        {"host", host},
                        {"expect_loss", expect_loss},
                        {"outcome", !failure.empty() ? "failure"
                                    : interactive    ? "interactive"
                                    : clean()        ? "clean"
                                    : as_expected()  ? "expected-loss"
                                                     : "difference"},
                        {"throughput_kbps", throughput_kbps()}};
    if (seed_kbps >= 0) j["seed_kbps"] = seed_kbps;
    if (!seed_obtained.empty()) j["seed_obtained"] = seed_obtained;
    if (!line_text_head.empty()) j["line_text_head"] = line_text_head;
    if (!failure.empty()) j["failure"] = failure;
    for (const auto& [k, v] : kernel.items())
        j[k] = v;
    for (const auto& [k, v] : extra.items())
        j[k] = v;
    return j;
}

} // namespace uartvp::program
