// SPDX-License-Identifier: Apache-2.0
// uartvp: runs co-verification scenarios of serial-console driver routines against UART models.
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <uartvp/cpu/core.h>

#include "cli/csv.h"
#include "cli/jobs.h"
#include "cli/line_header.h"
#include "cli/outputs.h"
#include "cli/payload.h"
#include "cli/progress.h"
#include "cli/stop.h"
#include "cli/sweep.h"
#include "cli/terminal.h"
#include "cli/timeline.h"
#include "cli/version.h"
#include "cli/waves.h"
#include "plugins/plugins.h"
#include "scenarios/scenario.h"

using namespace uartvp;
using namespace uartvp::program;

namespace {

// Exit codes (docs/program.md, --help).
constexpr int exit_ok = 0, exit_difference = 1, exit_usage = 2, exit_internal = 3;

const char* exit_codes_text = "Exit codes: 0 ran, and the scoreboard found what the scenario expected; "
                              "1 ran, and the scoreboard found a difference the scenario did not expect; "
                              "2 bad usage or input (nothing was run, no output left behind); "
                              "3 internal error (also: an output or standard output could not be written). "
                              "Stopped by SIGINT, SIGTERM or SIGHUP: no output left behind, ended by that "
                              "signal (status 128 + its number).";

// Standard output could not be written (a closed pipe, a full disk): exit 3, the results are not whole.
struct stdout_error : std::runtime_error {
    explicit stdout_error(int err)
        : std::runtime_error(std::string("cannot write standard output: ") + std::strerror(err)) {}
};

// Writes all of `text` to `f` now. A failure on standard output is an error; on standard error there is
// nowhere left to say so.
void emit(std::FILE* f, const std::string& text) {
    errno = 0;
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
    if (!ok && f == stdout) throw stdout_error(errno ? errno : EIO);
}

// The --json output: a file (written under a temporary name, put in place by outputs::commit()) or,
// for "-", standard output.
class json_output {
public:
    explicit json_output(std::string path)
        : m_path(std::move(path)) {}
    bool to_stdout() const { return m_path == "-"; }
    void write(const std::string& text) {
        if (m_path.empty()) return;
        if (to_stdout()) return emit(stdout, text);
        const std::string tmp = outputs::temporary(m_path);
        std::ofstream f(tmp);
        f << text;
        f.close();
        if (!f) throw std::runtime_error("cannot write " + shown(m_path));
    }

private:
    std::string m_path;
};

struct run_options {
    std::string scenario, variant, profile, payload_file, json, csv;
    std::string payload_bytes; // as given: checked by payload_bytes_value()
    bool payload_bytes_given = false;
    std::vector<std::string> sets;
    std::string mode = "fast";
    std::string vcd;
    bool vcd_rtl = false;
    bool fst = false;  // --fst: NAME.fst instead of NAME.vcd
    std::string trace; // --trace FILE.json
    bool expect_loss = false;
    std::vector<std::string> plugins; // --plugin FILE, in order
    std::string terminal, duration;   // run --terminal, --duration (terminal.h)
    std::string elf;                  // run --elf
    std::string bus_log;              // run --bus-log
    bool duration_given = false;
    std::string variants, jobs; // compare --variants a,b and -j N
    bool progress = false, quiet = false;
};

// " (see 'uartvp list')", or where a variant of that name belongs when another scenario has it (a
// plugin's variant given with the wrong scenario).
std::string variant_hint(const std::string& variant) {
    std::string owners;
    for (const scenario_def& o : scenarios())
        if (std::any_of(o.variants.begin(), o.variants.end(),
                        [&](const named& n) { return n.name == variant; }))
            owners += (owners.empty() ? "" : ", ") + o.name;
    return owners.empty() ? " (see 'uartvp list')" : " (it is a variant of " + owners + ")";
}

// compare --variants: the scenario's variants named, in the order given, each once.
std::vector<std::string> chosen_variants(const scenario_def& s, const std::string& list) {
    if (list.empty()) return {};
    std::vector<std::string> out;
    for (const std::string& v : split_list(list, "--variants")) {
        if (std::none_of(s.variants.begin(), s.variants.end(), [&](const named& n) { return n.name == v; }))
            throw usage_error("--variants: unknown variant '" + shown(v) + "' of " + s.name +
                              variant_hint(v));
        if (std::find(out.begin(), out.end(), v) != out.end())
            throw usage_error("--variants: " + shown(v) + " listed twice");
        out.push_back(v);
    }
    return out;
}

// Outputs must be files of their own: not a directory, not the payload, not each other.
void check_outputs(const run_options& o) {
    std::vector<std::pair<std::string, std::string>> files; // (what, path)
    if (!o.payload_file.empty()) files.emplace_back("--payload", o.payload_file);
    if (!o.json.empty() && o.json != "-") {
        if (const std::string why = outputs::path_problem(o.json, "--json " + shown(o.json)); !why.empty())
            throw usage_error(why);
        files.emplace_back("--json", o.json);
    }
    if (!o.vcd.empty())
        for (const std::string& f : waves_outputs(o.vcd, o.fst))
            files.emplace_back("--vcd", f);
    if (!o.trace.empty()) files.emplace_back("--trace", o.trace);
    if (!o.bus_log.empty()) {
        if (const std::string why = outputs::path_problem(o.bus_log, "--bus-log " + shown(o.bus_log));
            !why.empty())
            throw usage_error(why);
        files.emplace_back("--bus-log", o.bus_log);
    }
    check_csv_path(o.csv);
    if (!o.csv.empty()) files.emplace_back("--csv", o.csv);
    for (std::size_t i = 0; i < files.size(); ++i)
        for (std::size_t k = i + 1; k < files.size(); ++k)
            if (outputs::absolute(files[i].second) == outputs::absolute(files[k].second))
                throw usage_error(files[i].first + " and " + files[k].first + " name the same file " +
                                  shown(files[k].second));
}

// --payload-bytes N: a whole number from 1 to 2^30; 0 when not given.
std::size_t payload_bytes_value(const run_options& o) {
    const std::string& v = o.payload_bytes;
    if (!o.payload_bytes_given) return 0;
    if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
        throw usage_error("--payload-bytes " + shown(v) + ": not a whole number");
    constexpr std::size_t max = std::size_t{1} << 30;
    const std::size_t digits = v.size() - std::min(v.find_first_not_of('0'), v.size());
    const std::size_t n = digits > 10 ? max + 1 : std::stoull(v);
    if (n < 1 || n > max)
        throw usage_error("--payload-bytes " + shown(v) + ": not in range 1 to " + std::to_string(max) +
                          " (2^30)");
    return n;
}

// The scenario, variant (`need_variant`: checked; compare checks its own) and profile asked for; the
// profile applied.
const scenario_def& choose_run(const run_options& o, bool need_variant, run_request& rq) {
    const scenario_def* s = find_scenario(o.scenario);
    if (!s) throw usage_error("unknown scenario '" + shown(o.scenario) + "' (see 'uartvp list')");
    if (o.mode != "fast" && o.mode != "reference")
        throw usage_error("--mode " + shown(o.mode) + ": expected fast or reference");
    rq.scenario = s->name;
    rq.variant = o.variant.empty() ? s->variants.front().name : o.variant;
    if (need_variant && std::none_of(s->variants.begin(), s->variants.end(),
                                     [&](const named& v) { return v.name == rq.variant; }))
        throw usage_error("unknown variant '" + shown(rq.variant) + "' of " + s->name +
                          variant_hint(rq.variant));
    rq.profile = o.profile.empty() ? s->default_profile : o.profile;
    const auto prof = std::find_if(s->profiles.begin(), s->profiles.end(),
                                   [&](const profile_def& p) { return p.name == rq.profile; });
    if (prof == s->profiles.end())
        throw usage_error("unknown profile '" + shown(rq.profile) + "' of " + s->name +
                          " (see 'uartvp list')");
    if (need_variant && s->variant_refusal)
        if (auto why = s->variant_refusal(rq.variant, rq.profile))
            throw usage_error(rq.variant + " on profile " + rq.profile + ": " + *why);
    // The keys follow the scenario and profile; line_model the mode.
    rq.p.scenario = s->name;
    rq.p.profile = rq.profile;
    rq.p.reference = o.mode == "reference";
    prof->apply(rq.p);
    return *s;
}

// --set KEY=VALUE, each key at most once, then the cross-checks: the scenario's, the UART's, the
// variants' (run: the one asked for; compare: every one it runs).
void apply_sets(const scenario_def& s, const run_options& o, bool need_variant, run_request& rq) {
    std::set<std::string> given;
    for (const std::string& kv : o.sets) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw usage_error("--set " + shown(kv) + ": expected KEY=VALUE");
        const std::string key = kv.substr(0, eq);
        if (auto err = rq.p.set(key, kv.substr(eq + 1))) throw usage_error(*err);
        // Checked after the key itself: an unknown key is named as such.
        if (!given.insert(key).second) throw usage_error("--set " + shown(key) + " given twice");
    }
    if (s.check_params)
        if (auto err = s.check_params(rq.p)) throw usage_error(*err);
    if (auto err = rq.p.check()) throw usage_error(*err);
    if (!s.check_variants) return;
    std::vector<std::string> vs;
    const std::vector<std::string> chosen = chosen_variants(s, o.variants);
    for (const named& v : s.variants)
        if (need_variant ? v.name == rq.variant
                         : chosen.empty() || std::find(chosen.begin(), chosen.end(), v.name) != chosen.end())
            vs.push_back(v.name);
    if (auto err = s.check_variants(vs, rq.p)) throw usage_error(*err);
}

// The payload: the file, the profile's calibrated workload, or a generated log (--payload-bytes or
// the scenario's size); a run counts what it has read for its progress.
void choose_payload(const scenario_def& s, const run_options& o, bool need_variant, run_request& rq) {
    const std::size_t bytes = payload_bytes_value(o);
    rq.payload_source = payload_source(o.payload_file, bytes, s.default_payload_bytes, rq.profile);
    if (!o.payload_file.empty())
        rq.payload = file_payload(o.payload_file);
    else if (bytes || s.default_payload_bytes)
        rq.payload = generated_payload(bytes ? bytes : s.default_payload_bytes);
    if (need_variant && rq.payload) {
        struct stat st {};
        const std::uint64_t total = !o.payload_file.empty()
                                        ? (stat(o.payload_file.c_str(), &st) == 0 ? st.st_size : 0)
                                        : (bytes ? bytes : s.default_payload_bytes);
        rq.payload = progress::counted(rq.payload, total);
    }
}

// The outputs (--fst, --vcd, --trace, --vcd-rtl) and the terminal, each checked.
void choose_outputs(const scenario_def& s, const run_options& o, run_request& rq) {
    if (o.fst) {
        if (o.vcd.empty())
            throw usage_error("--fst goes with --vcd DIR/NAME.vcd (it writes NAME.fst instead)");
        if (const std::string why = fst_problem(); !why.empty()) throw usage_error(why);
        rq.fst = true;
    }
    if (!o.vcd.empty()) {
        if (const std::string why = waves_path_problem(o.vcd, o.fst); !why.empty()) throw usage_error(why);
        rq.vcd = o.vcd;
    }
    if (!o.trace.empty()) {
        if (const std::string why = trace_path_problem(o.trace); !why.empty()) throw usage_error(why);
        rq.trace = o.trace;
    }
    if (o.vcd_rtl) {
        if (o.vcd.empty())
            throw usage_error("--vcd-rtl goes with --vcd DIR/NAME.vcd (it writes NAME.rtl.vcd)");
        if (!s.has_rtl) throw usage_error("--vcd-rtl: " + s.name + " has no RTL model");
        rq.vcd_rtl = true;
    }
    apply_terminal_options(s, rq, o.terminal, o.duration, o.duration_given,
                           !o.payload_file.empty() || o.payload_bytes_given);
    if (rq.terminal == "stdio" && o.json == "-")
        throw usage_error("--terminal stdio and --json - both want standard output");
    check_outputs(o);
}

// The run the options ask for, every part checked (exit 2 on the first problem, nothing run).
run_request make_request(const run_options& o, bool need_variant) {
    run_request rq;
    const scenario_def& s = choose_run(o, need_variant, rq);
    apply_sets(s, o, need_variant, rq);
    choose_payload(s, o, need_variant, rq);
    rq.expect_loss = o.expect_loss;
    choose_outputs(s, o, rq);
    if (!o.elf.empty() && !s.takes_elf)
        throw usage_error("--elf: " + s.name + " runs no firmware image (scenario firmware does)");
    rq.elf = o.elf;
    if (!o.bus_log.empty() && !s.takes_bus_log)
        throw usage_error("--bus-log: " + s.name + " does not log its bus (earlycon-pl011 and firmware do)");
    rq.bus_log = o.bus_log;
    return rq;
}

std::string summary(const run_result& r) {
    std::string out = fmt::format("{} / {} / {}  ({} console writes, {})\n", r.scenario, r.variant, r.profile,
                                  r.payload_lines, r.payload_source);
    if (const std::string line = line_header(r.params); !line.empty()) out += "  " + line;
    auto row = [&out](const char* k, const std::string& v) { out += fmt::format("  {:<22} {}\n", k, v); };
    row("sim time", fmt::format("{:.3f} ms", r.sim_time_ns / 1e6));
    row("line idle at", fmt::format("{:.3f} ms", r.line_idle_ns / 1e6));
    row("bytes written", std::to_string(r.bytes_written));
    row("bytes on line", std::to_string(r.bytes_on_line));
    row("lost / corrupted", fmt::format("{} / {}", r.lost_bytes, r.corrupted_bytes));
    row("duplicated / extra", fmt::format("{} / {}", r.duplicated_bytes, r.extra_bytes));
    row("mmio reads / writes", fmt::format("{} / {}", r.mmio_reads, r.mmio_writes));
    row("reads per byte",
        fmt::format("{:.3f}", r.bytes_written ? double(r.mmio_reads) / r.bytes_written : 0.0));
    row("polls (cpu_relax)", std::to_string(r.polls));
    row("irq off max", fmt::format("{:.3f} us", r.irq_off_max_ns / 1e3));
    row("tx fifo max", std::to_string(r.tx_fifo_max));
    row("wall", fmt::format("{:.3f} s", r.wall_s));
    if (!r.first_difference.is_null())
        row("first difference",
            fmt::format("{} at byte {} ({:.3f} ms)", r.first_difference["kind"].get<std::string>(),
                        r.first_difference["expected_index"].get<std::uint64_t>(),
                        r.first_difference["time_ns"].get<double>() / 1e6));
    row("outcome", r.interactive     ? "interactive"
                   : r.clean()       ? "clean"
                   : r.as_expected() ? "loss, as expected"
                                     : "DIFFERENCE");
    return out;
}

int cmd_run(const run_options& o) {
    const run_request rq = make_request(o, true);
    stop::check();
    json_output json(o.json);
    emit(stderr, waves_size_warning(rq));
    const run_result r = find_scenario(rq.scenario)->run(rq);
    // With --json - standard output carries the JSON alone, with --terminal stdio the console.
    std::FILE* text = json.to_stdout() || rq.terminal == "stdio" ? stderr : stdout;
    std::string out = summary(r);
    if (const scenario_def& s = *find_scenario(rq.scenario); s.summary_rows)
        for (const auto& [k, v] : s.summary_rows(r))
            out += fmt::format("  {:<22} {}\n", k, v);
    if (!rq.vcd.empty()) {
        const std::string stem = rq.vcd.substr(0, rq.vcd.size() - 4);
        out += fmt::format("  {:<22} {}, {}.gtkw, {}.lines.vcd{}\n", "waves", rq.fst ? stem + ".fst" : rq.vcd,
                           stem, stem, rq.vcd_rtl ? ", " + stem + ".rtl.vcd" : std::string());
        out += fmt::format("  {:<22} gtkwave {}.gtkw\n", "open with", stem);
    }
    if (!rq.trace.empty())
        out += fmt::format("  {:<22} {} (Perfetto, chrome://tracing, speedscope)\n", "timeline", rq.trace);
    emit(text, out);
    json.write(r.to_json().dump(2) + "\n");
    outputs::commit();
    return r.as_expected() ? exit_ok : exit_difference;
}

// compare's variants: every one or --variants', without those that have no meaning on the profile
// (not run: one line each in `skipped`, printed after the table).
std::vector<std::string> compared_variants(const scenario_def& s, const run_options& o,
                                           std::string& skipped) {
    std::vector<std::string> names = chosen_variants(s, o.variants);
    if (names.empty())
        for (const named& v : s.variants)
            names.push_back(v.name);
    if (!s.variant_refusal) return names;
    const std::string profile = o.profile.empty() ? s.default_profile : o.profile;
    std::vector<std::string> kept;
    for (const std::string& v : names)
        if (auto why = s.variant_refusal(v, profile))
            skipped += "skipped " + v + ": " + *why + "\n";
        else
            kept.push_back(v);
    if (kept.empty())
        throw usage_error("--variants: none has a meaning on profile " + profile + " (" +
                          skipped.substr(0, skipped.size() - 1) + ")");
    return kept;
}

// One variant's `run` as compare starts it: the same options, its JSON into `out`.
std::vector<std::string> compare_child_args(const run_options& o, const std::string& self,
                                            const scenario_def& s, const std::string& variant,
                                            const std::string& out) {
    std::vector<std::string> args{self, "run", s.name, "--variant", variant, "--json", out, "--quiet"};
    if (!o.profile.empty()) args.insert(args.end(), {"--profile", o.profile});
    if (!o.payload_file.empty()) args.insert(args.end(), {"--payload", o.payload_file});
    if (o.payload_bytes_given) args.insert(args.end(), {"--payload-bytes", o.payload_bytes});
    for (const std::string& kv : o.sets)
        args.insert(args.end(), {"--set", kv});
    args.insert(args.end(), {"--mode", o.mode});
    for (const std::string& f : o.plugins)
        args.insert(args.end(), {"--plugin", f});
    if (o.expect_loss) args.push_back("--expect-loss");
    return args;
}

// The console scenarios' compare table: sim time against the baseline's, the UART traffic, and after
// the rows the output rate beside the seed's figure where a run has one.
std::string console_head(const nlohmann::json& base, std::size_t vw) {
    return fmt::format("{} on profile {} ({} console writes, {} bytes written)\n",
                       base["scenario"].get<std::string>(), base["profile"].get<std::string>(),
                       base["payload_lines"].get<std::uint64_t>(),
                       base["bytes_written"].get<std::uint64_t>()) +
           fmt::format("{:<{}} {:>12} {:>7} {:>11} {:>10} {:>10} {:>10} {:>8} {:>6} {:>11} {:>8} {:>8}\n",
                       "variant", vw, "sim ms", "ratio", "delta ms", "reads", "reads/B", "writes", "polls",
                       "fifo", "irqoff us", "lost", "wall s");
}

std::string console_row(const nlohmann::json& r, const nlohmann::json& base, std::size_t vw) {
    const double t = r["sim_time_ns"].get<double>(), t0 = base["sim_time_ns"].get<double>();
    const double bw = std::max<double>(1, r["bytes_written"].get<double>());
    return fmt::format(
        "{:<{}} {:>12.3f} {:>7.3f} {:>+11.3f} {:>10} {:>10.3f} {:>10} {:>8} {:>6} {:>11.3f} {:>8} {:>8.2f}\n",
        r["variant"].get<std::string>(), vw, t / 1e6, t0 > 0 ? t / t0 : 0.0, (t - t0) / 1e6,
        r["mmio_reads"].get<std::uint64_t>(), r["mmio_reads"].get<double>() / bw,
        r["mmio_writes"].get<std::uint64_t>(), r["polls"].get<std::uint64_t>(),
        r["tx_fifo_max"].get<unsigned>(), r["irq_off_max_ns"].get<double>() / 1e3,
        r["lost_bytes"].get<std::uint64_t>(), r["wall_s"].get<double>());
}

std::string console_tail(const std::vector<nlohmann::json>& runs, std::size_t vw) {
    if (std::none_of(runs.begin(), runs.end(),
                     [](const nlohmann::json& r) { return r.contains("seed_kbps"); }))
        return "";
    std::string table = fmt::format("{:<{}} {:>10} {:>10} {:>10}  {}\n", "variant", vw + 1, "KB/s",
                                    "seed KB/s", "ratio", "obtained");
    const double k0 = runs.front().value("throughput_kbps", 0.0);
    for (const nlohmann::json& r : runs)
        table +=
            fmt::format("{:<{}} {:>10.3f} {:>10} {:>10.3f}  {}\n", r["variant"].get<std::string>(), vw + 1,
                        r.value("throughput_kbps", 0.0),
                        r.contains("seed_kbps") ? fmt::format("{:.1f}", r["seed_kbps"].get<double>()) : "-",
                        k0 > 0 ? r.value("throughput_kbps", 0.0) / k0 : 0.0, r.value("seed_obtained", "-"));
    return table;
}

const compare_table_def console_table{console_head, console_row, console_tail, 17};

// compare's table as its rows come: the head with the first row (the line's header after its first
// line), then each row as it and every earlier one is done, the tail after the last. What is printed
// is never printed again.
struct compare_rows {
    struct row {
        nlohmann::json r;
        double peak_mb;
    };
    const compare_table_def& def;
    std::size_t vw; // the variant column fits the longest name
    std::vector<row> rows;

    compare_rows(const scenario_def& s, const std::vector<std::string>& names)
        : def(s.compare_table.head ? s.compare_table : console_table)
        , vw(def.variant_width) {
        for (const std::string& v : names)
            vw = std::max(vw, v.size());
    }
    void add(row w, std::FILE* text) {
        rows.push_back(std::move(w));
        std::string t;
        if (rows.size() == 1) {
            t = def.head(rows.front().r, vw);
            const auto nl = t.find('\n');
            t.insert(nl == std::string::npos ? t.size() : nl + 1, line_header(rows.front().r["params"]));
        }
        t += def.row(rows.back().r, rows.front().r, vw);
        progress::print(text, t);
        if (text == stdout && std::ferror(stdout)) throw stdout_error(errno ? errno : EIO);
    }
    std::string tail() const {
        if (!def.tail || rows.empty()) return "";
        std::vector<nlohmann::json> runs;
        for (const row& w : rows)
            runs.push_back(w.r);
        return def.tail(runs, vw);
    }
};

// Runs each variant in a child process of its own, -j at once, each row streamed as soon as it and
// every earlier one is done; the worst exit code (a child ended by a signal or failing: an error).
int run_compared(const run_options& o, const std::string& self, const scenario_def& s,
                 const std::vector<std::string>& names, compare_rows& out, std::FILE* text) {
    int worst = exit_ok;
    const jobs::scratch_dir dir("/tmp/uartvp-compare-");
    std::vector<std::vector<std::string>> argvs;
    for (const std::string& v : names)
        argvs.push_back(compare_child_args(o, self, s, v, dir.path() + "/" + v + ".json"));
    const unsigned parallel = o.jobs.empty() ? jobs::default_parallel() : jobs::parse_parallel(o.jobs);
    jobs::run_all(
        argvs, parallel,
        [&](std::size_t i, const jobs::outcome& oc) {
            const std::string& v = names[i];
            if (WIFSIGNALED(oc.status))
                throw std::runtime_error("variant " + v + " was ended by signal " +
                                         std::to_string(WTERMSIG(oc.status)));
            const int code = WIFEXITED(oc.status) ? WEXITSTATUS(oc.status) : exit_internal;
            if (code != exit_ok && code != exit_difference)
                throw std::runtime_error("variant " + v + " failed with exit code " + std::to_string(code));
            std::ifstream f(dir.path() + "/" + v + ".json");
            nlohmann::json r;
            if (f) f >> r;
            worst = std::max(worst, code);
            out.add({r, oc.peak_mb}, text);
        },
        [&](std::size_t done) {
            progress::status(fmt::format("compare: {}/{} variants done", done, names.size()));
        });
    progress::clear();
    return worst;
}

// Runs the variants (every one, or --variants') side by side: the table, and the runs as JSON.
int cmd_compare(const run_options& o, const std::string& self) {
    (void)make_request(o, false); // check everything before running anything
    stop::check();
    const scenario_def& s = *find_scenario(o.scenario);
    std::string skipped;
    const std::vector<std::string> names = compared_variants(s, o, skipped);
    json_output json(o.json);
    // With --json - standard output carries the JSON alone.
    std::FILE* text = json.to_stdout() ? stderr : stdout;
    compare_rows out(s, names);
    const int worst = run_compared(o, self, s, names, out, text);
    emit(text, out.tail() + skipped);
    nlohmann::json all = nlohmann::json::array();
    for (const compare_rows::row& w : out.rows) {
        nlohmann::json j = w.r;
        j["peak_rss_mb"] = w.peak_mb;
        all.push_back(j);
    }
    json.write(nlohmann::json{{"schema_version", json_schema_version}, {"runs", all}}.dump(2) + "\n");
    write_csv(o.csv, std::vector<nlohmann::json>(all.begin(), all.end()));
    outputs::commit();
    return worst;
}

std::string list_text() {
    // One column width for every name, so that a plugin's long variant name keeps the columns.
    std::size_t w = 14, kw = 18;
    for (const scenario_def& s : scenarios()) {
        for (const named& v : s.variants)
            w = std::max(w, v.name.size());
        for (const profile_def& p : s.profiles)
            w = std::max(w, p.name.size());
    }
    for (const key_def& k : keys())
        kw = std::max(kw, k.name.size());
    std::string out;
    for (const scenario_def& s : scenarios()) {
        out += fmt::format("{}\n  {}\n  payload without --payload or --payload-bytes: {}\n  variants:\n",
                           s.name, s.description,
                           s.default_payload_bytes ? "a generated boot log of " +
                                                         std::to_string(s.default_payload_bytes) + " bytes"
                                                   : std::string("the profile's calibrated boot"));
        for (const named& v : s.variants)
            out += fmt::format("    {:<{}} {}\n", v.name, w, v.description);
        out += "  profiles:\n";
        for (const profile_def& p : s.profiles)
            out += fmt::format("    {:<{}} {}{}\n", p.name, w, p.description,
                               p.name == s.default_profile ? " (default)" : "");
    }
    out += "--set keys:\n";
    std::vector<const key_def*> by_name;
    for (const key_def& k : keys())
        by_name.push_back(&k);
    std::sort(by_name.begin(), by_name.end(),
              [](const key_def* a, const key_def* b) { return a->name < b->name; });
    for (const key_def* k : by_name)
        out += fmt::format("    {:<{}} {}\n", k->name, kw, k->description);
    return out;
}

// CLI11's own messages quote what was given: each long word cut as shown() cuts a value.
std::string shorten_words(const std::string& msg) {
    std::string out;
    std::size_t i = 0;
    while (i < msg.size()) {
        const std::size_t end = std::min(msg.find(' ', i), msg.size());
        out += shown(std::string_view(msg).substr(i, end - i));
        if (end < msg.size()) out += ' ';
        i = end + 1;
    }
    return out;
}

// The command line: the commands and their options, and where CLI11 puts what it parses (it keeps
// pointers to these: built in place, never copied).
struct command_line {
    CLI::App app{"uartvp " UARTVP_VERSION ": co-verify serial-console driver routines against UART models.\n"
                 "A run prints a summary table and can write its results as JSON."};
    run_options o;
    sweep_options so;
    std::string sw_variants, sw_profiles, sw_sizes, sw_jobs; // sweep's lists, as given
    CLI::App *list = nullptr, *run = nullptr, *compare = nullptr, *sweep = nullptr;

    command_line();

private:
    void add_progress_flags(CLI::App* c);
    void add_common(CLI::App* c, bool with_variant);
    void add_run();
    void add_compare();
    void add_sweep();
};

command_line::command_line() {
    app.name("uartvp");
    app.footer("'uartvp COMMAND --help' shows a command's options, defaults and examples: uartvp run --help, "
               "uartvp compare --help, uartvp sweep --help, uartvp list --help.\n\n"
               "Examples:\n"
               "  uartvp list\n"
               "  uartvp run earlycon-pl011 --variant v0\n"
               "  uartvp compare boot-console --profile grace\n\n" +
               std::string(exit_codes_text));
    app.set_version_flag("--version", "uartvp " UARTVP_VERSION);
    app.require_subcommand(1);
    list =
        app.add_subcommand("list", "list the scenarios with their variants and profiles, and the --set keys");
    list->add_option("--plugin", o.plugins, "load a plugin's variants: a shared object (repeatable)")
        ->type_name("FILE.so");
    list->footer("Examples:\n"
                 "  uartvp list\n"
                 "  uartvp list | grep _ns\n"
                 "  uartvp list --plugin ./libmy_console.so");
    add_run();
    add_compare();
    add_sweep();
}

void command_line::add_progress_flags(CLI::App* c) {
    auto* pr = c->add_flag("--progress", o.progress,
                           "show progress on standard error even when it is not a terminal (one line "
                           "per update)");
    c->add_flag("--quiet", o.quiet, "no progress on standard error")->excludes(pr);
}

// What run and compare share.
// The payload each scenario generates without --payload or --payload-bytes, for the help.
std::string default_payloads() {
    std::string t;
    for (const scenario_def& s : scenarios())
        t += (t.empty() ? "" : ", ") + s.name + " " +
             (s.default_payload_bytes ? std::to_string(s.default_payload_bytes)
                                      : "the profile's calibrated boot");
    return t;
}

void command_line::add_common(CLI::App* c, bool with_variant) {
    c->add_option("scenario", o.scenario, "scenario name (see 'uartvp list')")
        ->required()
        ->type_name("SCENARIO");
    if (with_variant)
        c->add_option("--variant", o.variant, "variant (default: the scenario's first)")->type_name("NAME");
    c->add_option("--profile", o.profile, "timing profile (default: the scenario's)")->type_name("NAME");
    auto* pf =
        c->add_option("--payload", o.payload_file, "console text: a log file, one console write per line")
            ->type_name("FILE");
    c->add_option("--payload-bytes", o.payload_bytes,
                  "generate a boot log of N bytes, 1 to 2^30 (default: " + default_payloads() + ")")
        ->type_name("N")
        ->excludes(pf)
        ->each([this](const std::string&) { o.payload_bytes_given = true; });
    c->add_option("--plugin", o.plugins, "load a plugin's variants: a shared object (repeatable)")
        ->type_name("FILE.so");
    c->add_option("--set", o.sets, "override a parameter (repeatable; the keys and defaults: 'uartvp list')")
        ->type_name("KEY=VALUE");
    c->add_option("--json", o.json,
                  "write the results as JSON to FILE ('-': standard output, the summary then goes to "
                  "standard error)")
        ->type_name("FILE");
    c->add_flag("--expect-loss", o.expect_loss, "the scenario expects lost bytes: they do not fail the run");
    c->add_option("--mode", o.mode,
                  "fast: polling loops collapsed, idle UART cycles skipped; reference: every poll a "
                  "transaction, the RTL clocked through every cycle (same results, slower)")
        ->type_name("fast|reference")
        ->default_str("fast");
    add_progress_flags(c);
}

void command_line::add_run() {
    run = app.add_subcommand("run", "run one scenario variant: a summary, and JSON, waves or a timeline");
    add_common(run, true);
    run->add_option("--vcd", o.vcd,
                    "write waves: DIR/NAME.vcd (FIFO levels, flags, lines, IRQ, tasks, bus), NAME.gtkw "
                    "(GTKWave layout) and NAME.lines.vcd (serial lines for sigrok)")
        ->type_name("DIR/NAME.vcd");
    run->add_flag("--fst", o.fst,
                  "with --vcd: the waves as NAME.fst (GTKWave's compressed format) instead of NAME.vcd");
    run->add_option(
           "--trace", o.trace,
           "write the run's timeline to FILE in the Trace Event Format (Perfetto, "
           "chrome://tracing, speedscope): a track per core, IRQs-off windows, polls, console writes")
        ->type_name("FILE.json");
    run->add_flag("--vcd-rtl", o.vcd_rtl,
                  "with --vcd: also NAME.rtl.vcd, the full RTL trace from Verilator (every evaluated edge; "
                  "every cycle with --mode reference)");
    run->add_option("--terminal", o.terminal,
                    "the UART's lines on a host terminal whose input replaces the RX payload (tty-paste "
                    "--variant echo or read, firmware), paced to wall-clock time; no scoreboard")
        ->type_name("stdio|pty|tcp:PORT");
    run->add_option("--duration", o.duration,
                    "with --terminal (or for firmware): end after S simulated seconds (default: none)")
        ->type_name("S")
        ->each([this](const std::string&) { o.duration_given = true; });
    run->add_option("--bus-log", o.bus_log,
                    "write every device access the cores issue to FILE, one line each: time (ns), R or W, "
                    "address, size, value (earlycon-pl011, firmware)")
        ->type_name("FILE");
    run->add_option("--elf", o.elf, "firmware: the aarch64 ELF image to run (docs/firmware.md)")
        ->type_name("FILE");
    run->footer("Examples:\n"
                "  uartvp run earlycon-pl011 --variant v0 --payload-bytes 20000\n"
                "  uartvp run tty-paste --variant read --set hog_us=2500 --json read.json\n"
                "  uartvp run boot-console --profile rpi3b --variant merged --vcd waves/boot.vcd\n"
                "  uartvp run firmware --elf build/sw/firmware/echo.elf --payload notes.txt\n\n" +
                std::string(exit_codes_text));
}

void command_line::add_compare() {
    compare = app.add_subcommand("compare", "run every variant, each in its own process, side by side");
    add_common(compare, false);
    compare->add_option("-j,--jobs", o.jobs, "run N variants at once (default: the cores)")->type_name("N");
    compare
        ->add_option("--variants", o.variants,
                     "the variants to compare (default: all; the first is the baseline)")
        ->type_name("A,B,...");
    compare->add_option("--csv", o.csv, "write one row a run to FILE, the result fields as columns")
        ->type_name("FILE.csv");
    compare->footer("Examples:\n"
                    "  uartvp compare earlycon-pl011 --payload-bytes 20000\n"
                    "  uartvp compare boot-console --profile rpi3b --variants legacy,merged --json c.json\n"
                    "  uartvp compare console-8250 --set baud=921600 --csv 8250.csv\n\n" +
                    std::string(exit_codes_text));
}

void command_line::add_sweep() {
    sweep = app.add_subcommand("sweep", "run the cross product of variants, profiles, payload sizes and "
                                        "--set values, one process each, into JSON Lines or CSV");
    sweep->add_option("scenario", so.scenario, "scenario name (see 'uartvp list'; not with --collect)")
        ->type_name("SCENARIO");
    sweep->add_option("--variants", sw_variants, "variants (default: all)")->type_name("A,B,...");
    sweep->add_option("--profile", sw_profiles, "profiles (default: the scenario's)")->type_name("P,Q,...");
    auto* sw_pf =
        sweep->add_option("--payload", so.payload_file, "one console text for every run")->type_name("FILE");
    sweep
        ->add_option("--payload-bytes", sw_sizes,
                     "generated boot logs of these sizes (default: the scenario's, as for run)")
        ->type_name("N,M,...")
        ->excludes(sw_pf);
    sweep->add_option("--set", so.sets, "a parameter's values (repeatable: the cross product)")
        ->type_name("KEY=A,B,...");
    sweep->add_option("--mode", so.mode, "as for run")->type_name("fast|reference")->default_str("fast");
    sweep->add_option("--plugin", o.plugins, "load a plugin's variants: a shared object (repeatable)")
        ->type_name("FILE.so");
    sweep->add_flag("--expect-loss", so.expect_loss, "the scenario expects lost bytes");
    sweep->add_option("-j,--jobs", sw_jobs, "N runs at once (default: the cores)")->type_name("N");
    sweep
        ->add_option("--json", so.json,
                     "write one JSON object per run and line (JSON Lines) to FILE ('-': "
                     "standard output)")
        ->type_name("FILE");
    sweep->add_option("--csv", so.csv, "write one row a run to FILE, the point and result fields as columns")
        ->type_name("FILE.csv");
    sweep
        ->add_option("--emit-jobs", so.emit_jobs,
                     "write the runs as shell commands to FILE instead (one a line), each writing its "
                     "result into FILE's directory, for GNU parallel or a Slurm array")
        ->type_name("FILE");
    sweep
        ->add_option("--collect", so.collect,
                     "gather the results of emitted jobs in DIR into --json or --csv FILE (each checked "
                     "against its job)")
        ->type_name("DIR");
    add_progress_flags(sweep);
    sweep->footer(
        "Examples:\n"
        "  uartvp sweep tty-paste --variants read --set hog_us=0,1000,2500 --json s.jsonl\n"
        "  uartvp sweep earlycon-pl011 --payload-bytes 1000,10000 --set baud=115200,921600 --csv s.csv\n"
        "  uartvp sweep tty-paste --set hog_us=0,2500 --emit-jobs jobs/j.txt && parallel < jobs/j.txt "
        "&& uartvp sweep --collect jobs --json s.jsonl\n\n" +
        std::string(exit_codes_text));
}

std::string self_path() {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) throw std::runtime_error("cannot find my own executable");
    self[n] = 0;
    return std::string(self);
}

// sweep: its lists and its jobs checked, each point checked as `run` checks it (the same messages).
int run_sweep(command_line& cl) {
    sweep_options& so = cl.so;
    if (so.collect.empty() && so.scenario.empty())
        throw usage_error("sweep needs a scenario (or --collect DIR)");
    if (!so.collect.empty() && !so.scenario.empty())
        throw usage_error("sweep --collect DIR takes no scenario: the jobs' manifest names it");
    if (!cl.sw_variants.empty()) so.variants = split_list(cl.sw_variants, "--variants");
    if (!cl.sw_profiles.empty()) so.profiles = split_list(cl.sw_profiles, "--profile");
    if (!cl.sw_sizes.empty()) so.payload_bytes = split_list(cl.sw_sizes, "--payload-bytes");
    so.parallel = cl.sw_jobs.empty() ? jobs::default_parallel() : jobs::parse_parallel(cl.sw_jobs);
    for (const std::string& f : cl.o.plugins) { // loaded already: the paths exist
        char* real = realpath(f.c_str(), nullptr);
        so.plugins.push_back(real ? real : f);
        std::free(real);
    }
    const auto check = [&so](const sweep_point& p) {
        run_options r;
        r.scenario = so.scenario;
        r.variant = p.variant;
        r.profile = p.profile;
        r.payload_file = so.payload_file;
        r.payload_bytes = p.payload_bytes;
        r.payload_bytes_given = !p.payload_bytes.empty();
        for (const auto& [k, v] : p.sets)
            r.sets.push_back(k + "=" + v);
        r.mode = so.mode;
        r.expect_loss = so.expect_loss;
        (void)make_request(r, true);
    };
    return cmd_sweep(so, self_path(), check);
}

// The command parsed: list, run, compare or sweep (after its plugins are loaded), or CLI11's --help
// and --version.
int run_command(command_line& cl, int argc, char** argv) {
    try {
        cl.app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() != 0) {
            // The help of the command whose options were wrong, where one was named.
            std::string help = "uartvp --help";
            for (const CLI::App* c : {cl.list, cl.run, cl.compare, cl.sweep})
                if (c->parsed()) help = "uartvp " + c->get_name() + " --help";
            throw usage_error(shorten_words(e.what()) + " (see '" + help + "')");
        }
        return cl.app.exit(e); // --help, --version (a subcommand's too): printed, nothing to run
    }
    // Before anything runs: a plugin that cannot be loaded is bad input.
    load_plugins(cl.o.plugins);
    if (cl.list->parsed()) {
        emit(stdout, list_text());
        return exit_ok;
    }
    const run_options& o = cl.o;
    // An interactive run shows no progress: the terminal may be this one.
    progress::configure(o.quiet || !o.terminal.empty() ? progress::setting::quiet
                        : o.progress                   ? progress::setting::forced
                                                       : progress::setting::automatic);
    // Signals are taken from here on: a stop removes the temporaries and ends the process.
    stop::install();
    if (cl.run->parsed()) return cmd_run(o);
    if (cl.compare->parsed()) {
        if (!o.jobs.empty()) (void)jobs::parse_parallel(o.jobs);
        return cmd_compare(o, self_path());
    }
    return run_sweep(cl);
}

} // namespace

int main(int argc, char** argv) {
    stop::ignore_write_signals();
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    // sc_stop() reports "Simulation stopped by user." as info: not for the user's terminal.
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    command_line cl;
    const std::string first = argc > 1 ? argv[1] : "";
    if (!first.empty() && first[0] != '-' && first != "list" && first != "run" && first != "compare" &&
        first != "sweep") {
        std::cerr << "uartvp: unknown command '" << shown(first)
                  << "' (commands: list, run, compare, sweep)\n";
        return exit_usage;
    }
    int code = exit_internal;
    try {
        code = run_command(cl, argc, argv);
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw stdout_error(errno ? errno : EIO);
    } catch (const stop::interrupted& e) {
        outputs::discard();
        stop::die(e.signo);
    } catch (const usage_error& e) {
        outputs::discard();
        std::cerr << "uartvp: " << e.what() << "\n";
        code = exit_usage;
    } catch (const stdout_error& e) {
        outputs::discard();
        std::cerr << "uartvp: " << e.what() << "\n";
        code = exit_internal;
    } catch (const std::exception& e) {
        outputs::discard();
        std::cerr << "uartvp: internal error: " << e.what() << "\n";
        code = exit_internal;
    }
    // A signal that came after the last check still ends the process as the signal does.
    if (const int s = stop::requested()) stop::die(s);
    return code;
}

// libsystemc's own main() refers to sc_main; this program has its own main, so it is never called.
extern "C" int sc_main(int, char**) {
    return exit_internal;
}
