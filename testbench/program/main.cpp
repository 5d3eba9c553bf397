// uartvp: runs co-verification scenarios of serial-console driver routines against UART models.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <uartvp/cpu/core.h>

#include "bootlog.h"
#include "scenario.h"
#include "version.h"
#include "waves.h"

using namespace uartvp;
using namespace uartvp::program;

namespace {

// Exit codes (README, --help).
constexpr int exit_ok = 0, exit_difference = 1, exit_usage = 2, exit_internal = 3;

struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

const char* exit_codes_text = "Exit codes: 0 ran, and the scoreboard found what the scenario expected; "
                              "1 ran, and the scoreboard found a difference the scenario did not expect; "
                              "2 bad usage or input (nothing was run, no output left behind); "
                              "3 internal error.";

// An output file written whole or not at all: a temporary beside it, renamed at the end.
class output_file {
public:
    explicit output_file(std::string path)
        : m_path(std::move(path)) {
        if (m_path.empty()) return;
        m_tmp = m_path + ".tmp." + std::to_string(getpid());
        std::ofstream probe(m_tmp);
        if (!probe) throw usage_error("cannot write " + m_path);
        probe.close();
    }
    ~output_file() {
        if (!m_tmp.empty()) std::remove(m_tmp.c_str());
    }
    void commit(const std::string& text) {
        if (m_path.empty()) return;
        std::ofstream f(m_tmp);
        f << text;
        f.close();
        if (!f || std::rename(m_tmp.c_str(), m_path.c_str()) != 0)
            throw std::runtime_error("cannot write " + m_path);
        m_tmp.clear();
    }

private:
    std::string m_path, m_tmp;
};

struct run_options {
    std::string scenario, variant, profile, payload_file, json;
    std::size_t payload_bytes = 0;
    std::vector<std::string> sets;
    std::string mode = "fast";
    std::string vcd;
    bool vcd_rtl = false;
    bool expect_loss = false;
};

// A path as the file it names: the real directory, then the name (the file need not exist yet).
std::string same_file_key(const std::string& p) {
    const auto slash = p.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : p.substr(0, slash);
    char* real = realpath(dir.c_str(), nullptr);
    const std::string key = std::string(real ? real : dir.c_str()) + "/" + p.substr(slash + 1);
    std::free(real);
    return key;
}

// Outputs must be files of their own: not a directory, not the payload, not each other.
void check_outputs(const run_options& o) {
    std::vector<std::pair<std::string, std::string>> files; // (what, path)
    if (!o.payload_file.empty()) files.emplace_back("--payload", o.payload_file);
    if (!o.json.empty()) {
        struct stat st {};
        if (stat(o.json.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
            throw usage_error("cannot write " + o.json + ": not a file");
        files.emplace_back("--json", o.json);
    }
    if (!o.vcd.empty())
        for (const std::string& f : waves_outputs(o.vcd))
            files.emplace_back("--vcd", f);
    for (std::size_t i = 0; i < files.size(); ++i)
        for (std::size_t k = i + 1; k < files.size(); ++k)
            if (same_file_key(files[i].second) == same_file_key(files[k].second))
                throw usage_error(files[i].first + " and " + files[k].first + " name the same file " +
                                  files[k].second);
}

run_request make_request(const run_options& o, bool need_variant) {
    const scenario_def* s = find_scenario(o.scenario);
    if (!s) throw usage_error("unknown scenario '" + o.scenario + "' (see 'uartvp list')");
    run_request rq;
    rq.scenario = s->name;
    rq.variant = o.variant.empty() ? s->variants.front().name : o.variant;
    if (need_variant) {
        bool found = false;
        for (const named& v : s->variants)
            found |= v.name == rq.variant;
        if (!found)
            throw usage_error("unknown variant '" + rq.variant + "' of " + s->name + " (see 'uartvp list')");
    }
    rq.profile = o.profile.empty() ? s->default_profile : o.profile;
    const profile_def* prof = nullptr;
    for (const profile_def& p : s->profiles)
        if (p.name == rq.profile) prof = &p;
    if (!prof)
        throw usage_error("unknown profile '" + rq.profile + "' of " + s->name + " (see 'uartvp list')");
    prof->apply(rq.p);
    for (const std::string& kv : o.sets) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) throw usage_error("--set " + kv + ": expected KEY=VALUE");
        if (auto err = rq.p.set(kv.substr(0, eq), kv.substr(eq + 1))) throw usage_error(*err);
    }
    if (auto err = rq.p.check()) throw usage_error(*err);
    if (s->check_variants) { // run: the variant asked for; compare: every variant
        std::vector<std::string> vs;
        for (const named& v : s->variants)
            if (!need_variant || v.name == rq.variant) vs.push_back(v.name);
        if (auto err = s->check_variants(vs, rq.p)) throw usage_error(*err);
    }
    rq.p.reference = o.mode == "reference";
    if (!o.payload_file.empty()) {
        std::ifstream f(o.payload_file, std::ios::binary);
        struct stat st {};
        if (!f || stat(o.payload_file.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
            throw usage_error("cannot read payload " + o.payload_file);
        std::stringstream ss;
        ss << f.rdbuf();
        rq.payload = sw::split_log_lines(ss.str());
        rq.payload_source = o.payload_file;
        if (rq.payload.empty()) throw usage_error("payload " + o.payload_file + " is empty");
    } else {
        const std::size_t n = o.payload_bytes ? o.payload_bytes : s->default_payload_bytes;
        rq.payload = sw::generate_boot_log(n);
        rq.payload_source = "generated:" + std::to_string(n);
    }
    rq.expect_loss = o.expect_loss;
    if (!o.vcd.empty()) {
        if (const std::string why = waves_path_problem(o.vcd); !why.empty()) throw usage_error(why);
        rq.vcd = o.vcd;
    }
    if (o.vcd_rtl) {
        if (o.vcd.empty())
            throw usage_error("--vcd-rtl goes with --vcd DIR/NAME.vcd (it writes NAME.rtl.vcd)");
        if (!s->has_rtl) throw usage_error("--vcd-rtl: " + s->name + " has no RTL model");
        rq.vcd_rtl = true;
    }
    check_outputs(o);
    return rq;
}

void print_summary(const run_result& r) {
    fmt::print("{} / {} / {}  ({} console writes, {})\n", r.scenario, r.variant, r.profile, r.payload_lines,
               r.payload_source);
    auto row = [](const char* k, const std::string& v) { fmt::print("  {:<22} {}\n", k, v); };
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
    row("outcome", r.clean() ? "clean" : r.as_expected() ? "loss, as expected" : "DIFFERENCE");
}

int cmd_run(const run_options& o) {
    const run_request rq = make_request(o, true);
    output_file json(o.json);
    const run_result r = find_scenario(rq.scenario)->run(rq);
    print_summary(r);
    if (!rq.vcd.empty()) {
        const std::string stem = rq.vcd.substr(0, rq.vcd.size() - 4);
        fmt::print("  {:<22} {}, {}.gtkw, {}.lines.vcd{}\n", "waves", rq.vcd, stem, stem,
                   rq.vcd_rtl ? ", " + stem + ".rtl.vcd" : std::string());
        fmt::print("  {:<22} gtkwave {} {}.gtkw\n", "open with", rq.vcd, stem);
    }
    json.commit(r.to_json().dump(2) + "\n");
    return r.as_expected() ? exit_ok : exit_difference;
}

// Runs every variant in a child process of its own (SystemC simulates once per process).
int cmd_compare(const run_options& o, const std::string& self) {
    (void)make_request(o, false); // check everything before running anything
    const scenario_def& s = *find_scenario(o.scenario);
    output_file json(o.json);
    struct row {
        nlohmann::json r;
        double peak_mb;
        int status;
    };
    std::vector<row> rows;
    int worst = exit_ok;
    char dir_tmpl[] = "/tmp/uartvp-compare-XXXXXX";
    const char* dir = mkdtemp(dir_tmpl);
    if (!dir) throw std::runtime_error("cannot create a temporary directory");
    for (const named& v : s.variants) {
        const std::string out = std::string(dir) + "/" + v.name + ".json";
        std::vector<std::string> args{self, "run", s.name, "--variant", v.name, "--json", out};
        if (!o.profile.empty()) args.insert(args.end(), {"--profile", o.profile});
        if (!o.payload_file.empty()) args.insert(args.end(), {"--payload", o.payload_file});
        if (o.payload_bytes) args.insert(args.end(), {"--payload-bytes", std::to_string(o.payload_bytes)});
        for (const std::string& kv : o.sets)
            args.insert(args.end(), {"--set", kv});
        args.insert(args.end(), {"--mode", o.mode});
        if (o.expect_loss) args.push_back("--expect-loss");
        std::fflush(stdout);
        const pid_t pid = fork();
        if (pid < 0) throw std::runtime_error("fork failed");
        if (pid == 0) {
            std::vector<char*> argv;
            for (std::string& a : args)
                argv.push_back(a.data());
            argv.push_back(nullptr);
            if (!std::freopen("/dev/null", "w", stdout)) _exit(exit_internal);
            execv(self.c_str(), argv.data());
            _exit(exit_internal);
        }
        int status = 0;
        struct rusage ru {};
        wait4(pid, &status, 0, &ru);
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : exit_internal;
        std::ifstream f(out);
        nlohmann::json r;
        if (f) f >> r;
        std::remove(out.c_str());
        if (code != exit_ok && code != exit_difference) {
            rmdir(dir);
            throw std::runtime_error("variant " + v.name + " failed with exit code " + std::to_string(code));
        }
        worst = std::max(worst, code);
        rows.push_back({r, ru.ru_maxrss / 1024.0, code});
    }
    rmdir(dir);
    const nlohmann::json& base = rows.front().r;
    fmt::print("{} on profile {} ({} console writes, {} bytes written)\n", s.name,
               base["profile"].get<std::string>(), base["payload_lines"].get<std::uint64_t>(),
               base["bytes_written"].get<std::uint64_t>());
    std::size_t vw = 17; // the variant column fits the longest name
    for (const named& v : s.variants)
        vw = std::max(vw, v.name.size());
    fmt::print("{:<{}} {:>12} {:>7} {:>11} {:>10} {:>10} {:>10} {:>8} {:>6} {:>11} {:>8} {:>8}\n", "variant",
               vw, "sim ms", "ratio", "delta ms", "reads", "reads/B", "writes", "polls", "fifo", "irqoff us",
               "lost", "wall s");
    nlohmann::json all = nlohmann::json::array();
    for (const row& w : rows) {
        const nlohmann::json& r = w.r;
        const double t = r["sim_time_ns"].get<double>(), t0 = base["sim_time_ns"].get<double>();
        const double bw = std::max<double>(1, r["bytes_written"].get<double>());
        fmt::print("{:<{}} {:>12.3f} {:>7.3f} {:>+11.3f} {:>10} {:>10.3f} {:>10} {:>8} {:>6} {:>11.3f} {:>8} "
                   "{:>8.2f}\n",
                   r["variant"].get<std::string>(), vw, t / 1e6, t0 > 0 ? t / t0 : 0.0, (t - t0) / 1e6,
                   r["mmio_reads"].get<std::uint64_t>(), r["mmio_reads"].get<double>() / bw,
                   r["mmio_writes"].get<std::uint64_t>(), r["polls"].get<std::uint64_t>(),
                   r["tx_fifo_max"].get<unsigned>(), r["irq_off_max_ns"].get<double>() / 1e3,
                   r["lost_bytes"].get<std::uint64_t>(), r["wall_s"].get<double>());
        nlohmann::json j = r;
        j["peak_rss_mb"] = w.peak_mb;
        all.push_back(j);
    }
    // Console output rate beside the seed's figure, for scenarios that have one.
    if (std::any_of(rows.begin(), rows.end(), [](const row& w) { return w.r.contains("seed_kbps"); })) {
        fmt::print("{:<{}} {:>10} {:>10} {:>10}\n", "variant", vw + 1, "KB/s", "seed KB/s", "ratio");
        const double k0 = base.value("throughput_kbps", 0.0);
        for (const row& w : rows)
            fmt::print("{:<{}} {:>10.3f} {:>10} {:>10.3f}\n", w.r["variant"].get<std::string>(), vw + 1,
                       w.r.value("throughput_kbps", 0.0),
                       w.r.contains("seed_kbps") ? fmt::format("{:.1f}", w.r["seed_kbps"].get<double>())
                                                 : "-",
                       k0 > 0 ? w.r.value("throughput_kbps", 0.0) / k0 : 0.0);
    }
    json.commit(nlohmann::json{{"schema_version", json_schema_version}, {"runs", all}}.dump(2) + "\n");
    return worst;
}

void cmd_list() {
    for (const scenario_def& s : scenarios()) {
        fmt::print("{}\n  {}\n  variants:\n", s.name, s.description);
        for (const named& v : s.variants)
            fmt::print("    {:<14} {}\n", v.name, v.description);
        fmt::print("  profiles:\n");
        for (const profile_def& p : s.profiles)
            fmt::print("    {:<14} {}{}\n", p.name, p.description,
                       p.name == s.default_profile ? " (default)" : "");
    }
    fmt::print("--set keys:\n");
    for (const auto& [k, d] : params::keys())
        fmt::print("    {:<18} {}\n", k, d);
}

} // namespace

int main(int argc, char** argv) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    // sc_stop() reports "Simulation stopped by user." as info: not for the user's terminal.
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    CLI::App app{"uartvp " UARTVP_VERSION ": co-verify serial-console driver routines against UART models.\n"
                 "A run prints a summary table and can write its results as JSON."};
    app.footer(exit_codes_text);
    app.set_version_flag("--version", "uartvp " UARTVP_VERSION);
    app.require_subcommand(1);

    run_options o;
    auto add_common = [&](CLI::App* c, bool with_variant) {
        c->add_option("scenario", o.scenario, "scenario name (see 'uartvp list')")->required();
        if (with_variant) c->add_option("--variant", o.variant, "variant (default: the scenario's first)");
        c->add_option("--profile", o.profile, "timing profile (default: the scenario's)");
        auto* pf = c->add_option("--payload", o.payload_file,
                                 "console text: a log file, one console write per line");
        c->add_option("--payload-bytes", o.payload_bytes, "generate a boot log of this many bytes")
            ->excludes(pf)
            ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30));
        c->add_option("--set", o.sets, "override a parameter, KEY=VALUE (repeatable; see 'uartvp list')");
        c->add_option("--json", o.json, "write the results as JSON to this file");
        c->add_flag("--expect-loss", o.expect_loss,
                    "the scenario expects lost bytes: they do not fail the run");
        c->add_option("--mode", o.mode,
                      "fast (default): polling loops collapsed, idle UART cycles skipped; reference: every "
                      "poll a transaction, the RTL clocked through every cycle (same results, slower)")
            ->check(CLI::IsMember({"fast", "reference"}));
    };
    auto* list = app.add_subcommand("list", "list scenarios with their variants and profiles");
    auto* run = app.add_subcommand("run", "run one scenario variant");
    add_common(run, true);
    run->add_option("--vcd", o.vcd,
                    "write waves: DIR/NAME.vcd (FIFO levels, flags, lines, IRQ, tasks, bus), NAME.gtkw "
                    "(GTKWave layout) and NAME.lines.vcd (serial lines for sigrok)");
    run->add_flag("--vcd-rtl", o.vcd_rtl,
                  "with --vcd: also NAME.rtl.vcd, the full RTL trace from Verilator (every evaluated edge; "
                  "every cycle with --mode reference)");
    auto* compare = app.add_subcommand("compare", "run every variant, each in its own process, side by side");
    add_common(compare, false);

    const std::string first = argc > 1 ? argv[1] : "";
    if (!first.empty() && first[0] != '-' && first != "list" && first != "run" && first != "compare") {
        std::cerr << "uartvp: unknown command '" << argv[1] << "' (commands: list, run, compare)\n";
        return exit_usage;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e); // --help, --version
        std::cerr << "uartvp: " << e.what() << " (see 'uartvp --help')\n";
        return exit_usage;
    }
    try {
        if (list->parsed()) {
            cmd_list();
            return exit_ok;
        }
        if (run->parsed()) return cmd_run(o);
        if (compare->parsed()) {
            char self[4096];
            const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
            if (n <= 0) throw std::runtime_error("cannot find my own executable");
            self[n] = 0;
            return cmd_compare(o, self);
        }
    } catch (const usage_error& e) {
        std::cerr << "uartvp: " << e.what() << "\n";
        return exit_usage;
    } catch (const std::exception& e) {
        std::cerr << "uartvp: internal error: " << e.what() << "\n";
        return exit_internal;
    }
    return exit_internal;
}

// libsystemc's own main() refers to sc_main; this program has its own main, so it is never called.
extern "C" int sc_main(int, char**) {
    return exit_internal;
}
