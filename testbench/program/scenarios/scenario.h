// SPDX-License-Identifier: Apache-2.0
#pragma once
// Scenarios: a platform, a workload and the driver routine under test, in named variants (before and
// after a patch) and timing profiles. One run is one simulation, in its own process.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <uartvp/cpu/core.h>
#include <uartvp/cpu/machine.h>
#include <uartvp/line_monitor.h>
#include <uartvp/scoreboard.h>
#include <uartvp/uart16550.h>

#include "cli/params.h"
#include "cli/payload.h"

namespace uartvp {
class pl011;
}
namespace uartvp::program {
class virt_platform;
}

namespace uartvp::program {

struct run_request {
    std::string scenario, variant, profile;
    params p;
    std::shared_ptr<payload_reader> payload; // console writes, one per log line, read as printed (null:
                                             // the profile's calibrated workload)
    std::string payload_source;              // "generated:N" or the file name
    bool expect_loss = false;
    std::string vcd;      // write waves to this DIR/NAME.vcd (and NAME.gtkw, NAME.lines.vcd beside it)
    bool vcd_rtl = false; // and the UART's full RTL trace, NAME.rtl.vcd
    bool fst = false;     // the waves as NAME.fst instead of NAME.vcd
    std::string trace;    // write the timeline (Trace Event Format) to this file
    // --terminal stdio|pty|tcp:PORT: the UART's lines on a host terminal, whose input replaces the RX
    // payload; the run is paced to wall-clock time and ends at the end of input, a hang-up or after
    // terminal_duration_s simulated seconds (0: no limit). Empty: no terminal.
    std::string terminal;
    double terminal_duration_s = 0;
    std::string elf;       // --elf: the image the aarch64 core runs (scenario firmware)
    std::string bus_log;   // --bus-log: every device access the cores issue, to this file
    double duration_s = 0; // --duration without a terminal: a time limit, simulated seconds (0: none)
};

struct run_result {
    std::string scenario, variant, profile;
    nlohmann::json params;
    std::string payload_source;
    std::uint64_t payload_lines = 0;
    double sim_time_ns = 0;  // the routine's time: the boot task, start to return of the last write
    double line_idle_ns = 0; // when the last stop bit left TXD, from the same start
    double wall_s = 0;
    std::uint64_t bytes_written = 0, bytes_on_line = 0;
    std::uint64_t lost_bytes = 0, corrupted_bytes = 0, duplicated_bytes = 0, extra_bytes = 0;
    std::uint64_t framing_errors = 0, parity_errors = 0;
    nlohmann::json first_difference; // null when clean
    std::uint64_t mmio_reads = 0, mmio_writes = 0, polls = 0;
    double irq_off_max_ns = 0, irq_off_total_ns = 0;
    unsigned tx_fifo_max = 0;
    std::uint64_t rtl_cycles = 0, rtl_edges_evaluated = 0;
    // Host figures for the benchmark: TLM transactions actually issued, and the wall-clock time spent
    // evaluating RTL (measured only when UARTVP_MEASURE_RTL=1 is in the environment; else 0).
    std::uint64_t transactions = 0;
    double rtl_eval_s = 0;
    // More host figures, deterministic counts of the simulation's work (JSON `host`): SystemC time steps
    // and delta cycles; on an RTL UART its process's activations (and those that changed no output) and
    // RTL eval() calls.
    nlohmann::json host = nlohmann::json::object();
    // Console output rate, KB/s (1000 bytes): bytes_written / sim_time. A seed's figure for the same
    // setup, when there is one (negative: none).
    double throughput_kbps() const { return sim_time_ns > 0 ? bytes_written / sim_time_ns * 1e6 : 0; }
    double seed_kbps = -1;
    // How the model's figure beside seed_kbps is obtained: calibrated, fitted, follows from inputs or
    // predicted (docs/seeds.md).
    std::string seed_obtained;
    std::string line_text_head; // the first decoded characters, when the scenario keeps them
    // The kernel model's figures: per_core, tasks, irq_lines, csd_reports (see kernel_results()).
    nlohmann::json kernel = nlohmann::json::object();
    // A scenario's own figures, put into the JSON as they are (tty-paste: the received side).
    nlohmann::json extra = nlohmann::json::object();
    // The received side's scoreboard (what a reader got against what was pasted), when there is one.
    std::uint64_t rx_lost_bytes = 0, rx_corrupted_bytes = 0, rx_duplicated_bytes = 0, rx_extra_bytes = 0;
    bool expect_loss = false;
    bool interactive = false; // a terminal run: no scoreboard, outcome "interactive"
    std::string failure;      // the run failed (a firmware fault): outcome "failure", exit 1
    bool clean() const {
        return failure.empty() && lost_bytes + corrupted_bytes + duplicated_bytes + extra_bytes +
                                          rx_lost_bytes + rx_corrupted_bytes + rx_duplicated_bytes +
                                          rx_extra_bytes ==
                                      0;
    }
    // What the run's expectation allows: --expect-loss covers lost bytes (sent or received), never
    // corrupted, duplicated or extra ones.
    bool as_expected() const {
        if (!failure.empty()) return false;
        return clean() || (expect_loss && corrupted_bytes + duplicated_bytes + extra_bytes +
                                                  rx_corrupted_bytes + rx_duplicated_bytes + rx_extra_bytes ==
                                              0);
    }
    nlohmann::json to_json() const;
};

struct named {
    std::string name, description;
};

struct profile_def {
    std::string name, description;
    std::function<void(params&)> apply;
};

// A scenario's `compare` table in three parts, so that its rows can stream as runs end and nothing
// printed has to change: the title and column headers (from the baseline run), one row a run, and
// what follows the last row (optional). `vw` is the variant column's width: the longest variant name,
// at least `variant_width`.
struct compare_table_def {
    std::function<std::string(const nlohmann::json& base, std::size_t vw)> head;
    std::function<std::string(const nlohmann::json& run, const nlohmann::json& base, std::size_t vw)> row;
    std::function<std::string(const std::vector<nlohmann::json>& runs, std::size_t vw)> tail;
    std::size_t variant_width = 7;
};

struct scenario_def {
    std::string name, description;
    std::vector<named> variants; // the first is the baseline of `compare`
    std::vector<profile_def> profiles;
    std::string default_profile;
    std::size_t default_payload_bytes; // 0: without --payload or --payload-bytes, the profile's own
    std::function<run_result(const run_request&)> run;
    // What `compare` prints for the runs' JSON, if not the console scenarios' table. Optional.
    compare_table_def compare_table;
    // Lines `run` adds to its summary (label, value). Optional.
    std::function<std::vector<std::pair<std::string, std::string>>(const run_result&)> summary_rows;
    // Cross-checks of its keys' values (a core number below cores), after --set and before the UART's
    // own: an error message, or nothing. Optional.
    std::function<std::optional<std::string>(const params&)> check_params;
    // Refuses parameters that some of the given variants cannot honour, before anything runs: an error
    // message naming them, or nothing. Optional.
    std::function<std::optional<std::string>(const std::vector<std::string>& variants, const params&)>
        check_variants;
    // Why a variant has no meaning on a profile (run: exit 2 with it; compare: skipped with a line saying
    // why), or nothing. Optional.
    std::function<std::optional<std::string>(const std::string& variant, const std::string& profile)>
        variant_refusal;
    bool has_rtl = false; // its UART is verilated RTL (--vcd-rtl)
    // The hook kinds of <uartvp/plugin.h> whose plugin variants this scenario runs (none: it takes no
    // plugins).
    std::vector<std::string> plugin_kinds;
    // The variants that take input from a terminal (--terminal), and why the others do not; a scenario
    // without any refuses --terminal.
    std::vector<std::string> terminal_variants;
    std::string terminal_refusal;
    bool takes_elf = false;      // runs the image --elf names (and needs one)
    bool takes_duration = false; // --duration limits a run without a terminal
    bool takes_bus_log = false;  // --bus-log
};

// A scenario's run in its steps: `run_t` built from the request (the platform and its outputs), each
// of `steps` in order (the workload's tasks, the simulation), then its results, with the wall-clock
// time of the whole.
template <class run_t, class... step_t> run_result run_in_steps(const run_request& rq, step_t... steps) {
    const auto wall0 = std::chrono::steady_clock::now();
    run_t run(rq);
    ((run.*steps)(), ...);
    run_result r = run.results();
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    return r;
}

// A result that names its run: scenario, variant, profile, the params, the payload and the
// expectation; the scenario adds its figures.
run_result result_of(const run_request& rq, std::uint64_t payload_lines);

// The line's figures from the scoreboard and the monitor of the transmitted side: bytes on the line,
// lost/corrupted/duplicated/extra, framing and parity errors, the first difference.
void add_line_results(run_result& r, const scoreboard& sb, const line_monitor& monitor);

// The figures every console scenario reports: from the request, the scoreboard and line monitor, the
// core and its boot task; the scenario adds its own (UART cycles, seed figures, wall time).
run_result console_result(const run_request& rq, const scoreboard& sb, const line_monitor& monitor,
                          const cpu::core& cpu, const cpu::task_stats& boot,
                          const sc_core::sc_time& line_idle_at, std::uint64_t payload_lines,
                          std::uint64_t bytes_written, unsigned tx_fifo_max);

// The register accesses and polls of every task and idle loop on every core, and the transactions the
// cores issued (the scenarios with a kernel of several tasks; console_result counts the boot task's).
void add_machine_accesses(run_result& r, const cpu::machine& m);

// The kernel's own costs where a scenario's interrupts matter (tty-paste, hvc-paste), assumed, not
// measured: interrupt entry 1 us and exit 0.5 us, the tick 2 us, at `hz`.
cpu::kernel_params assumed_kernel_costs(unsigned hz);

// A time as nanoseconds for the JSON: exact for whole picoseconds (t.to_seconds() * 1e9 is not: it
// turns 9951900 ns into 9951900.000000002).
inline double to_ns(const sc_core::sc_time& t) {
    return t.to_double() / sc_core::sc_time(1, sc_core::SC_NS).to_double();
}

// The aarch64 core's run on QEMU virt's map (scenario firmware, earlycon-pl011's -a64 variants): the
// core's time, accesses and IRQs-off windows, the PL011's line and FIFO, the host counts (the core's
// fast-forwards among them), line_text_head.
void add_a64_results(run_result& r, const virt_platform& soc);
// Text as the JSON carries it: its first `n` bytes, a byte outside ASCII as '?'.
std::string ascii_head(const std::string& text, std::size_t n = 256);

// The machine's figures for the JSON (per_core, tasks, irq_lines, csd_reports); also sets the result's
// irq_off_max_ns and irq_off_total_ns over all cores.
void add_kernel_results(run_result& r, const cpu::machine& m);
// The host counts (JSON `host`) of the simulation that ran: SystemC's, and the PL011's if there is one.
void add_host_counts(run_result& r, const pl011* uart);

// The profile console-8250 and tty-paste share: a PC's COM1, the 16550 at I/O port 0x3F8, 1.8432 MHz,
// 115200 8N1, 16-byte FIFOs, 1.7 us per port access, a 2.4 GHz CPU.
void pc_com1(params& p);
// The 16550 the params describe: clock, register layout, a slow part's latencies, OUT2 gating the
// IRQ on a PC board (port I/O).
uart16550_config uart16550_of(const params& p);

const std::vector<scenario_def>& scenarios();
const scenario_def* find_scenario(const std::string& name);
// The same, for the plugin loader, which adds variants (before anything runs).
scenario_def* find_scenario_for_plugins(const std::string& name);

constexpr int json_schema_version = 1;

} // namespace uartvp::program
