// SPDX-License-Identifier: Apache-2.0
// The benchmark: runs the standard workloads, each simulation in a child process of its own, and
// prints simulated time, wall and CPU time, their ratio, transactions and RTL cycles per wall second,
// peak memory and where the wall time went, with every speed-up a ratio measured side by side in this run.
//   uartvp-bench [--quick] [--instructions] [--json FILE]
// --instructions adds instructions per character, counted under callgrind (valgrind): deterministic, unlike
// wall time, so that a change's cost shows on a noisy machine.
// Workloads compared with each other run in rounds, in turn (A B C, then C B A, ...), so that the runs of
// one round share the machine's load of the moment; a ratio is the median of the per-round ratios (the
// ratio of the medians against a side that ran fewer rounds), shown with its spread. Exit code 0; 1 if two
// runs that must agree gave different simulated results; 2 bad usage or an output that cannot be written; 3 a
// workload that failed.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace {

// Removed when the benchmark ends, however it ends (std::exit runs the destructors of statics): no
// waves or half-written JSON left behind.
struct temp_path {
    std::string path;
    ~temp_path() {
        std::error_code ec;
        if (!path.empty()) std::filesystem::remove_all(path, ec);
    }
};
temp_path g_waves_dir, g_json_tmp;

struct workload {
    std::string name, mode; // as the table shows them
    std::vector<std::string> argv;
    bool json_on_stdout = false; // else the child writes it to --json FILE
    bool rtl_share = true;       // measure the RTL's share of the wall time in a run of its own
    int rounds = 1;
    void (*adapt)(nlohmann::json&) = nullptr; // gives the JSON the fields the table reads
};

// One child process's figures.
struct sample {
    nlohmann::json r;
    double wall = 0;    // the child's own wall_s: the simulation's
    double cpu = 0;     // user + system time of the whole child (wait4), start-up included
    double peak_mb = 0; // its peak resident set
};

std::string command_line(const std::vector<std::string>& argv) {
    std::string s;
    for (const std::string& a : argv)
        s += (s.empty() ? "" : " ") + a;
    return s;
}

// In a forked child: runs argv[0] with argv; exit status 3 if it cannot.
[[noreturn]] void exec_or_exit(std::vector<std::string>& argv) {
    std::vector<char*> a;
    for (std::string& s : argv)
        a.push_back(s.data());
    a.push_back(nullptr);
    execv(a[0], a.data());
    _exit(3);
}

// Runs the workload with stdout to a file, UARTVP_MEASURE_RTL=1 if `measure`; its JSON from --json or
// stdout.
sample run_once(const workload& w, bool measure) {
    char tmpl[] = "/tmp/uartvp-bench-XXXXXX";
    const int fd = mkstemp(tmpl);
    if (fd < 0) {
        std::fprintf(stderr, "uartvp-bench: cannot create a file in /tmp: %s\n", std::strerror(errno));
        std::exit(3);
    }
    close(fd);
    const std::string out = tmpl;
    std::vector<std::string> argv = w.argv;
    if (!w.json_on_stdout) argv.insert(argv.end(), {"--json", out});
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        if (measure) setenv("UARTVP_MEASURE_RTL", "1", 1);
        if (w.json_on_stdout && !std::freopen(out.c_str(), "w", stdout)) _exit(3);
        if (!w.json_on_stdout && !std::freopen("/dev/null", "w", stdout)) _exit(3);
        exec_or_exit(argv);
    }
    int status = 0;
    struct rusage ru {};
    const bool waited = pid > 0 && wait4(pid, &status, 0, &ru) == pid;
    sample s;
    {
        std::ifstream f(out);
        if (f.peek() != std::ifstream::traits_type::eof()) s.r = nlohmann::json::parse(f, nullptr, false);
    }
    std::remove(out.c_str());
    // Exit code 1 is a run whose scoreboard found a loss the scenario expects (v1's queued tail).
    if (!waited || !WIFEXITED(status) || WEXITSTATUS(status) > 1 || !s.r.is_object() ||
        !s.r.contains("wall_s")) {
        const std::string why = !waited ? "could not be run"
                                : WIFSIGNALED(status)
                                    ? fmt::format("was killed by signal {}", WTERMSIG(status))
                                : WEXITSTATUS(status) > 1 ? fmt::format("exited with {}", WEXITSTATUS(status))
                                                          : std::string("wrote no JSON with wall_s");
        std::fprintf(stderr, "uartvp-bench: `%s` %s\n", command_line(w.argv).c_str(), why.c_str());
        std::exit(3);
    }
    if (w.adapt) w.adapt(s.r);
    s.wall = s.r["wall_s"].get<double>();
    s.cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    s.peak_mb = ru.ru_maxrss / 1024.0;
    return s;
}

// The simulated results: everything but the host's timings.
nlohmann::json simulated(nlohmann::json r) {
    r.erase("wall_s");
    r.erase("rtl_eval_s");
    return r;
}

// The first key in which two runs' simulated results differ ("" if none).
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b) {
    const nlohmann::json x = simulated(a), y = simulated(b);
    for (auto it = x.begin(); it != x.end(); ++it)
        if (!y.contains(it.key()) || y[it.key()] != it.value()) return it.key();
    for (auto it = y.begin(); it != y.end(); ++it)
        if (!x.contains(it.key())) return it.key();
    return "";
}

// Odd counts: the middle value; even: the mean of the two middle ones.
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct outcome {
    workload w;
    std::vector<sample> runs; // in round order
    nlohmann::json r;         // the JSON of the run with the median wall time (the lower middle one if even)
    double wall = 0, cpu = 0; // medians over the rounds
    double peak_mb = 0;       // the largest of the rounds'
    double rtl_share = -1;    // of the wall time, in RTL evaluation (a run of its own); < 0: not measured
    std::string unsteady;     // empty, or which round differed from the first in its simulated results
};

// One figure of every run, in round order: column(o, &sample::wall).
std::vector<double> column(const outcome& o, double sample::*figure) {
    std::vector<double> v;
    for (const sample& s : o.runs)
        v.push_back(s.*figure);
    return v;
}
double lowest(const std::vector<double>& v) {
    return *std::min_element(v.begin(), v.end());
}
double highest(const std::vector<double>& v) {
    return *std::max_element(v.begin(), v.end());
}

std::size_t g_child_runs = 0;

// Runs the workloads in rounds, in turn, each in its first `rounds` rounds, every other round in the
// reverse order (no workload always first); then, once each, the run that measures the RTL's share:
// timing the RTL's evaluations costs two clock reads per eval(), a quarter of the wall time of a run
// that does little else, so the wall time comes from runs without.
std::vector<outcome> alternate(const std::vector<workload>& ws) {
    std::vector<outcome> out(ws.size());
    int rounds = 0;
    for (std::size_t k = 0; k < ws.size(); ++k) {
        out[k].w = ws[k];
        rounds = std::max(rounds, ws[k].rounds);
    }
    for (int i = 0; i < rounds; ++i)
        for (std::size_t j = 0; j < ws.size(); ++j) {
            const std::size_t k = i % 2 ? ws.size() - 1 - j : j;
            if (i < ws[k].rounds) {
                out[k].runs.push_back(run_once(ws[k], false));
                ++g_child_runs;
            }
        }
    for (outcome& o : out) {
        std::vector<std::size_t> order(o.runs.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return o.runs[a].wall < o.runs[b].wall; });
        o.r = o.runs[order[(order.size() - 1) / 2]].r;
        o.wall = median(column(o, &sample::wall));
        o.cpu = median(column(o, &sample::cpu));
        for (std::size_t i = 0; i < o.runs.size(); ++i) {
            o.peak_mb = std::max(o.peak_mb, o.runs[i].peak_mb);
            const std::string d = first_difference(o.runs[0].r, o.runs[i].r);
            if (o.unsteady.empty() && !d.empty())
                o.unsteady = fmt::format("round {} differs from round 1 in {}", i + 1, d);
        }
        if (o.w.rtl_share) {
            const sample m = run_once(o.w, true);
            ++g_child_runs;
            if (m.r.value("rtl_eval_s", 0.0) > 0) // the 16550 has no RTL
                o.rtl_share = m.r["rtl_eval_s"].get<double>() / m.wall;
            const std::string d = first_difference(o.runs[0].r, m.r);
            if (o.unsteady.empty() && !d.empty())
                o.unsteady = fmt::format("the run timing the RTL differs from round 1 in {}", d);
        }
    }
    return out;
}

workload uartvp(const std::string& name, const std::string& variant, const std::string& profile,
                std::size_t bytes, const std::string& mode, int rounds, const std::string& vcd = "",
                bool at_25mhz = false) {
    workload w{name, vcd.empty() ? mode : mode + "+waves"};
    w.argv = {UARTVP_BIN,  "run",   "earlycon-pl011",  "--variant",           variant,
              "--profile", profile, "--payload-bytes", std::to_string(bytes), "--mode",
              mode};
    if (at_25mhz) w.argv.insert(w.argv.end(), {"--set", "uartclk_hz=25000000"}); // the naive baseline's clock
    if (!vcd.empty()) w.argv.insert(w.argv.end(), {"--vcd", vcd});
    w.rounds = rounds;
    return w;
}

// A paste of `bytes` through the interrupt-driven tty path.
workload tty_paste(const std::string& name, const std::string& variant, const std::string& profile,
                   std::size_t bytes, int rounds) {
    workload w{name, "fast"};
    w.argv = {UARTVP_BIN,  "run",   "tty-paste",       "--variant",          variant,
              "--profile", profile, "--payload-bytes", std::to_string(bytes)};
    w.rounds = rounds;
    return w;
}

workload naive(const std::string& name, const std::string& variant, std::size_t bytes, int rounds) {
    workload w{name, "naive", {NAIVE_BIN, variant, std::to_string(bytes)}, true, false, rounds};
    return w;
}

workload console_8250(const std::string& name, std::size_t bytes, int rounds) {
    workload w{name, "fast"};
    w.argv = {UARTVP_BIN,  "run", "console-8250",    "--variant",          "fifo",
              "--profile", "pc",  "--payload-bytes", std::to_string(bytes)};
    w.rounds = rounds;
    return w;
}

// The aarch64 core (the add-on): earlycon-pl011's v0-a64 on profile hw, with the polling loops
// fast-forwarded or executed one by one.
workload a64_earlycon(const std::string& name, std::size_t bytes, bool fast_forward, int rounds) {
    workload w{name, fast_forward ? "fast" : "fast, literal"};
    w.argv = {UARTVP_BIN,
              "run",
              "earlycon-pl011",
              "--variant",
              "v0-a64",
              "--profile",
              "hw",
              "--payload-bytes",
              std::to_string(bytes),
              "--set",
              fast_forward ? "a64_fast_forward=1" : "a64_fast_forward=0"};
    w.rounds = rounds;
    return w;
}

// A project image (sw/firmware) on the aarch64 core: the bytes it sent count as written, a paste's as
// pasted.
workload firmware(const std::string& name, const std::string& image, const std::vector<std::string>& args,
                  int rounds) {
    workload w{name, "fast"};
    w.argv = {UARTVP_BIN, "run", "firmware", "--elf", std::string(FIRMWARE_DIR) + "/" + image};
    w.argv.insert(w.argv.end(), args.begin(), args.end());
    w.rounds = rounds;
    w.adapt = [](nlohmann::json& r) {
        r["bytes_written"] = r["bytes_on_line"];
        if (r.value("pasted_bytes", 0) > 0) r["rx_bytes_pasted"] = r["pasted_bytes"];
    };
    return w;
}

// boot-console's nbcon-atomic boot on grace (seed 001) with `cores` cores: the kernel model's cost per core.
workload boot_console(const std::string& name, unsigned cores, int rounds) {
    workload w{name, "fast"};
    w.argv = {UARTVP_BIN,  "run",          "boot-console",
              "--variant", "nbcon-atomic", "--profile",
              "grace",     "--set",        "cores=" + std::to_string(cores)};
    w.rounds = rounds;
    return w;
}

// A paste into the PL011 with an interrupt-driven reader: JSON on stdout, without the console fields.
workload rx_paste(const std::string& name, std::size_t bytes, int rounds) {
    workload w{name, "fast", {PASTE_BIN, std::to_string(bytes)}, true, true, rounds};
    w.adapt = [](nlohmann::json& r) {
        r["bytes_written"] = r["bytes"];
        r["transactions"] = r["accesses"];
        r["mmio_reads"] = r["accesses"];
        r["rtl_cycles"] = r["sim_time_ns"].get<double>() * 0.024; // 24 MHz
    };
    return w;
}

// A ratio of two workloads' wall (and CPU) times, or one workload's simulated / wall time. Two workloads
// that ran the same rounds: the median of the per-round ratios, the runs of a round having shared the
// machine's load of the moment, a load that comes and goes between rounds cancelling. A workload that ran
// fewer rounds (reference mode, the naive baseline: seconds each, against the other side's
// milliseconds): the ratio of the medians, so that every run of the short side counts; its spread then
// goes from the slowest short run against the fastest long one to the other way round.
struct ratio {
    std::string name;
    bool per_round = true;
    std::size_t rounds = 0; // the rounds both ran
    std::size_t base_runs = 0, other_runs = 0;
    double wall = 0, wall_min = 0, wall_max = 0, cpu = 0, cpu_min = 0, cpu_max = 0;
    std::string differ; // empty, or the first round whose two runs' simulated results differ
};

void per_round(ratio& q, const std::vector<double>& w, const std::vector<double>& c) {
    q.rounds = w.size();
    q.wall = median(w);
    q.wall_min = lowest(w);
    q.wall_max = highest(w);
    q.cpu = median(c);
    q.cpu_min = lowest(c);
    q.cpu_max = highest(c);
}

// other / base; the runs of each round must give the same console output and reads.
ratio pair_ratio(const std::string& name, const outcome& base, const outcome& other) {
    ratio q;
    q.name = name;
    q.base_runs = base.runs.size();
    q.other_runs = other.runs.size();
    const std::size_t n = std::min(q.base_runs, q.other_runs);
    std::vector<double> w, c;
    for (std::size_t i = 0; i < n; ++i) {
        const sample& a = base.runs[i];
        const sample& b = other.runs[i];
        w.push_back(b.wall / a.wall);
        c.push_back(b.cpu / a.cpu);
        const bool same = a.r["mmio_reads"] == b.r["mmio_reads"] &&
                          a.r["bytes_on_line"] == b.r["bytes_on_line"] &&
                          a.r["lost_bytes"] == b.r["lost_bytes"];
        if (!same && q.differ.empty()) q.differ = fmt::format("round {}", i + 1);
    }
    per_round(q, w, c);
    if (q.base_runs != q.other_runs) {
        const std::vector<double> aw = column(base, &sample::wall), bw = column(other, &sample::wall),
                                  ac = column(base, &sample::cpu), bc = column(other, &sample::cpu);
        q.per_round = false;
        q.wall = other.wall / base.wall;
        q.wall_min = lowest(bw) / highest(aw);
        q.wall_max = highest(bw) / lowest(aw);
        q.cpu = other.cpu / base.cpu;
        q.cpu_min = lowest(bc) / highest(ac);
        q.cpu_max = highest(bc) / lowest(ac);
    }
    return q;
}

ratio speed(const std::string& name, const outcome& o) {
    std::vector<double> w, c;
    for (const sample& s : o.runs) {
        const double sim = s.r["sim_time_ns"].get<double>() / 1e9;
        w.push_back(sim / s.wall);
        c.push_back(sim / s.cpu);
    }
    ratio q;
    q.name = name;
    q.base_runs = q.other_runs = o.runs.size();
    per_round(q, w, c);
    return q;
}

std::string spread(const ratio& q, double lo, double hi, int digits) {
    if (!q.per_round)
        return fmt::format("medians of {} and {} runs, {:.{}f}..{:.{}f}", q.base_runs, q.other_runs, lo,
                           digits, hi, digits);
    if (q.rounds < 2) return "one run";
    return fmt::format("{} rounds, {:.{}f}..{:.{}f}", q.rounds, lo, digits, hi, digits);
}

nlohmann::json to_json(const ratio& q) {
    return {{"name", q.name},
            {"method", q.per_round ? "median of per-round ratios" : "ratio of medians"},
            {"rounds", q.rounds},
            {"base_runs", q.base_runs},
            {"other_runs", q.other_runs},
            {"ratio", q.wall},
            {"ratio_min", q.wall_min},
            {"ratio_max", q.wall_max},
            {"cpu_ratio", q.cpu},
            {"cpu_ratio_min", q.cpu_min},
            {"cpu_ratio_max", q.cpu_max},
            {"results_identical", q.differ.empty()}};
}

// ---- instructions per character, under callgrind

// valgrind's path on PATH, or "" if there is none.
std::string find_on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::string p = path ? path : "";
    for (std::size_t i = 0; i <= p.size();) {
        const std::size_t j = std::min(p.find(':', i), p.size());
        const std::string dir = j > i ? p.substr(i, j - i) : ".";
        const std::string f = dir + "/" + name;
        if (access(f.c_str(), X_OK) == 0) return f;
        i = j + 1;
    }
    return "";
}

// The instructions one run of the workload (with `bytes` for its payload) executes, counted by callgrind,
// and the characters it wrote (pasted); false if the run failed.
bool count_instructions(const std::string& valgrind, const workload& w, std::uint64_t& instructions,
                        double& chars) {
    char tmpl[] = "/tmp/uartvp-bench-cg-XXXXXX";
    if (!mkdtemp(tmpl)) return false;
    temp_path dir{tmpl};
    const std::string out = dir.path + "/callgrind.out", json = dir.path + "/run.json";
    std::vector<std::string> argv{valgrind, "--tool=callgrind", "--callgrind-out-file=" + out};
    argv.insert(argv.end(), w.argv.begin(), w.argv.end());
    argv.insert(argv.end(), {"--json", json});
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr)) _exit(3);
        exec_or_exit(argv);
    }
    int status = 0;
    if (pid <= 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) > 1)
        return false;
    nlohmann::json r;
    {
        std::ifstream f(json);
        r = nlohmann::json::parse(f, nullptr, false);
    }
    if (!r.is_object() || !r.contains("bytes_written")) return false;
    chars = r.contains("rx_bytes_pasted") && r["rx_bytes_pasted"].get<double>() > 0
                ? r["rx_bytes_pasted"].get<double>()
                : r["bytes_written"].get<double>();
    // callgrind's file: "summary: N" (or "totals: N") with the instructions of the whole run.
    std::ifstream f(out);
    std::string line;
    instructions = 0;
    while (std::getline(f, line))
        if (line.rfind("summary:", 0) == 0 || line.rfind("totals:", 0) == 0)
            instructions = std::stoull(line.substr(line.find(':') + 1));
    return instructions > 0;
}

// Instructions per character of a workload: the difference between a run of `bytes` and one of a fifth
// of that, over the difference in characters, so that start-up (loading, elaboration, the payload's
// generation) does not count.
struct instruction_count {
    std::string name;
    double per_char = 0;
    std::uint64_t total = 0; // the larger run's
    double chars = 0;
};

bool per_character(const std::string& valgrind, const std::string& name, workload (*make)(std::size_t bytes),
                   std::size_t bytes, instruction_count& c) {
    std::uint64_t big = 0, small = 0;
    double big_chars = 0, small_chars = 0;
    if (!count_instructions(valgrind, make(bytes), big, big_chars) ||
        !count_instructions(valgrind, make(bytes / 5), small, small_chars) || big_chars <= small_chars)
        return false;
    c.name = name;
    c.total = big;
    c.chars = big_chars;
    c.per_char = (static_cast<double>(big) - static_cast<double>(small)) / (big_chars - small_chars);
    return true;
}

} // namespace

int main(int argc, char** argv) {
    const auto bench0 = std::chrono::steady_clock::now();
    bool quick = false, instructions = false;
    std::string json_path;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick")
            quick = true;
        else if (a == "--instructions")
            instructions = true;
        else if (a == "--json" && i + 1 < argc)
            json_path = argv[++i];
        else {
            std::fprintf(stderr, "usage: uartvp-bench [--quick] [--instructions] [--json FILE]\n");
            return 2;
        }
    }
    // The JSON goes to a file beside FILE, renamed to FILE at the end: a bad path fails before minutes of
    // runs, and a failed run leaves no half-written FILE.
    if (!json_path.empty()) {
        std::error_code ec;
        if (std::filesystem::is_directory(json_path, ec)) {
            std::fprintf(stderr, "uartvp-bench: cannot write %s: it is a directory\n", json_path.c_str());
            return 2;
        }
        std::string tmpl = json_path + ".XXXXXX";
        const int fd = mkstemp(tmpl.data());
        if (fd < 0) {
            std::fprintf(stderr, "uartvp-bench: cannot write %s: %s\n", json_path.c_str(),
                         std::strerror(errno));
            return 2;
        }
        const mode_t mask = umask(0); // mkstemp's file is private; FILE gets the usual permissions
        umask(mask);
        fchmod(fd, 0666 & ~mask);
        close(fd);
        g_json_tmp.path = tmpl;
    }
    char dir[] = "/tmp/uartvp-bench-waves-XXXXXX";
    if (!mkdtemp(dir)) {
        std::fprintf(stderr, "uartvp-bench: cannot create a directory in /tmp: %s\n", std::strerror(errno));
        return 3;
    }
    g_waves_dir.path = dir;

    const std::size_t boot = quick ? 20000 : 99000, slice = quick ? 2000 : 10000,
                      big = quick ? 100000 : 1000000, paste = quick ? 20000 : 100000;
    // Rounds: many of the short workloads, whose wall time swings by a tenth; three of reference mode,
    // whose runs take seconds and whose ratios are far from any target; one of the naive baseline and the
    // 1 MB boot.
    const int short_rounds = quick ? 3 : 9, long_rounds = quick ? 1 : 3;
    const std::string kb = " KB";
    const std::string b = "earlycon v0 hw " + std::to_string(boot / 1000) + kb;
    const std::string s = "earlycon v0 hw " + std::to_string(slice / 1000) + " KB slice 25MHz";
    const std::string v = "earlycon v0 vm " + std::to_string(boot / 1000) + kb;
    const std::string vcd = g_waves_dir.path + "/run.vcd"; // each round writes over the last one's waves

    const std::vector<outcome> hw =
        alternate({uartvp(b, "v0", "hw", boot, "fast", short_rounds),
                   uartvp(b, "v0", "hw", boot, "fast", short_rounds, vcd),
                   uartvp("earlycon v0-literal hw " + std::to_string(boot / 1000) + kb, "v0-literal", "hw",
                          boot, "fast", short_rounds)});
    const std::vector<outcome> sl = alternate(
        {uartvp(s, "v0", "hw", slice, "fast", short_rounds, "", true),
         uartvp(s, "v0", "hw", slice, "reference", long_rounds, "", true), naive(s, "v0", slice, 1)});
    const std::vector<outcome> vm =
        alternate({uartvp(v, "v0", "vm", boot, "fast", short_rounds),
                   uartvp("earlycon v0-literal vm " + std::to_string(boot / 1000) + kb, "v0-literal", "vm",
                          boot, "fast", short_rounds),
                   uartvp(v, "v0", "vm", boot, "reference", long_rounds)});
    const std::vector<outcome> one =
        alternate({uartvp("earlycon v1 hw " + std::to_string(big / 1000) + kb, "v1", "hw", big, "fast", 1)});
    const std::vector<outcome> rx =
        alternate({tty_paste("tty-paste read hw " + std::to_string(paste / 1000) + kb, "read", "hw", paste,
                             short_rounds),
                   console_8250("8250 fifo pc " + std::to_string(paste / 1000) + kb, paste, short_rounds),
                   rx_paste("pl011 rx paste " + std::to_string(paste / 1000) + kb, paste, short_rounds)});
    const std::vector<outcome> smp =
        alternate({boot_console("boot-console grace 4 cores", 4, short_rounds),
                   boot_console("boot-console grace 72 cores", 72, short_rounds)});
    // The aarch64 core, where the add-on and the images are built: the boot's console with the loops
    // fast-forwarded and (a slice) executed, the echo of a paste, a loop of arithmetic alone.
    std::vector<outcome> a64;
    const bool with_a64 = std::ifstream(std::string(FIRMWARE_DIR) + "/compute.elf").good() &&
                          std::ifstream(std::string(A64_LIBRARY)).good();
    if (with_a64)
        a64 = alternate(
            {a64_earlycon("earlycon v0-a64 hw " + std::to_string(boot / 1000) + kb, boot, true, short_rounds),
             a64_earlycon("earlycon v0-a64 hw " + std::to_string(slice / 1000) + kb, slice, false,
                          long_rounds),
             firmware("firmware echo " + std::to_string(paste / 1000) + kb, "echo.elf",
                      {"--payload-bytes", std::to_string(paste)}, short_rounds),
             firmware("firmware compute", "compute.elf", {}, short_rounds)});
    // The table's order.
    std::vector<const outcome*> rows{&hw[0], &hw[1], &sl[0], &sl[1], &sl[2], &vm[0],  &vm[2], &one[0],
                                     &rx[0], &rx[1], &rx[2], &hw[2], &vm[1], &smp[0], &smp[1]};
    for (const outcome& o : a64)
        rows.push_back(&o);
    bool differ = false;

    fmt::print("{:<32} {:<10} {:>9} {:>8} {:>8} {:>9} {:>12} {:>12} {:>11} {:>8} {:>7} {:>5}\n", "workload",
               "mode", "sim s", "wall s", "cpu s", "sim/wall", "trans/s", "reads/s", "cycles/s", "peak MB",
               "rtl %", "runs");
    nlohmann::json all = nlohmann::json::array();
    for (const outcome* o : rows) {
        const nlohmann::json& r = o->r;
        const double sim = r["sim_time_ns"].get<double>() / 1e9, wall = o->wall;
        const double rtl = o->rtl_share; // none for the 16550 or the naive baseline
        fmt::print(
            "{:<32} {:<10} {:>9.3f} {:>8.3f} {:>8.3f} {:>9.2f} {:>12.0f} {:>12.0f} {:>11.0f} {:>8.1f} {:>7} "
            "{:>5}{}\n",
            o->w.name, o->w.mode, sim, wall, o->cpu, sim / wall, r["transactions"].get<double>() / wall,
            r["mmio_reads"].get<double>() / wall, r["rtl_cycles"].get<double>() / wall, o->peak_mb,
            rtl >= 0 ? fmt::format("{:.0f}", 100 * rtl) : std::string("-"), o->runs.size(),
            o->unsteady.empty() ? "" : "  (rounds differ: " + o->unsteady + "!)");
        differ = differ || !o->unsteady.empty();
        nlohmann::json j = r;
        j["workload"] = o->w.name;
        j["bench_mode"] = o->w.mode;
        j["peak_rss_mb"] = o->peak_mb;
        if (o->rtl_share >= 0) j["rtl_share"] = o->rtl_share;
        const std::vector<double> w = column(*o, &sample::wall);
        j["rounds"] = o->runs.size();
        j["wall_s_median"] = o->wall;
        j["wall_s_min"] = lowest(w);
        j["wall_s_max"] = highest(w);
        j["wall_s_rounds"] = w;
        j["cpu_s_median"] = o->cpu;
        j["cpu_s_rounds"] = column(*o, &sample::cpu);
        j["rounds_identical"] = o->unsteady.empty();
        all.push_back(j);
    }

    nlohmann::json ratios = nlohmann::json::array();
    auto show = [&](const ratio& q, int digits, bool cpu_too = false) {
        const std::string mark = q.differ.empty() ? "" : "  (results differ in " + q.differ + "!)";
        differ = differ || !q.differ.empty();
        fmt::print("  {:<58} {:>8.{}f}x  {}{}\n", q.name + " (wall)", q.wall, digits,
                   spread(q, q.wall_min, q.wall_max, digits), mark);
        if (cpu_too)
            fmt::print("  {:<58} {:>8.{}f}x  {}{}\n", q.name + " (CPU)", q.cpu, digits,
                       spread(q, q.cpu_min, q.cpu_max, digits), mark);
        ratios.push_back(to_json(q));
    };
    fmt::print("\nratios measured in this run (N rounds: the median of the per-round ratios, then their "
               "min..max):\n");
    const ratio boot_speed = speed(b + ", fast: simulated / wall", hw[0]);
    fmt::print("  {:<58} {:>8.1f}x  {}\n", boot_speed.name, boot_speed.wall,
               spread(boot_speed, boot_speed.wall_min, boot_speed.wall_max, 1));
    ratios.push_back(to_json(boot_speed));
    show(pair_ratio(b + ": waves on / off", hw[0], hw[1]), 2, true);
    show(pair_ratio(s + ": fast vs naive", sl[0], sl[2]), 1);
    show(pair_ratio(s + ": fast vs reference", sl[0], sl[1]), 1);
    show(pair_ratio("earlycon v0 vm: fast vs reference", vm[0], vm[2]), 1);
    fmt::print("  {:<58} {:>8.1f} MB\n", one[0].w.name + ": peak memory", one[0].peak_mb);
    {
        std::vector<double> us, cpu_us;
        for (const sample& x : vm[0].runs) {
            us.push_back(x.wall / x.r["bytes_written"].get<double>() * 1e6);
            cpu_us.push_back(x.cpu / x.r["bytes_written"].get<double>() * 1e6);
        }
        ratio q;
        q.name = v + ", fast: wall per character (us)";
        per_round(q, us, cpu_us);
        fmt::print("  {:<58} {:>8.2f} us  {}\n", v + ", fast: wall per character", q.wall,
                   spread(q, q.wall_min, q.wall_max, 2));
        ratios.push_back(to_json(q));
    }
    for (const outcome& o : rx) {
        const ratio q = speed(o.w.name + ", fast: simulated / wall", o);
        fmt::print("  {:<58} {:>8.1f}x  {}\n", q.name, q.wall, spread(q, q.wall_min, q.wall_max, 1));
        ratios.push_back(to_json(q));
    }
    show(pair_ratio("earlycon hw: v0-literal vs v0", hw[0], hw[2]), 2);
    show(pair_ratio("earlycon vm: v0-literal vs v0", vm[0], vm[1]), 2);
    show(pair_ratio("boot-console grace: 72 cores / 4 cores", smp[0], smp[1]), 2, true);
    if (a64.empty()) {
        fmt::print("  aarch64 core: skipped, the add-on or the firmware images are not built\n");
    } else {
        for (std::size_t i = 0; i < 3; ++i) {
            const ratio q = speed(a64[i].w.name + ", " + a64[i].w.mode + ": simulated / wall", a64[i]);
            fmt::print("  {:<58} {:>8.1f}x  {}\n", q.name, q.wall, spread(q, q.wall_min, q.wall_max, 1));
            ratios.push_back(to_json(q));
        }
        std::vector<double> mips, cpu_mips;
        for (const sample& x : a64[3].runs) {
            mips.push_back(x.r["instructions"].get<double>() / x.wall / 1e6);
            cpu_mips.push_back(x.r["instructions"].get<double>() / x.cpu / 1e6);
        }
        ratio q;
        q.name = "firmware compute: instructions per second (millions)";
        per_round(q, mips, cpu_mips);
        fmt::print("  {:<58} {:>8.0f} M  {}\n", q.name, q.wall, spread(q, q.wall_min, q.wall_max, 0));
        ratios.push_back(to_json(q));
    }
    fmt::print(
        "rounds: the workloads of a pair run in turn (A B, B A, ...); wall s, cpu s: medians over the runs; "
        "cpu: user + system time of the whole child process, start-up included; a side that ran fewer "
        "rounds: "
        "the ratio of the medians, min..max from the extreme runs\n"
        "rtl %: wall time spent evaluating the verilated RTL, measured in a run of its own of each workload "
        "(the timing costs wall time of its own); the rest is SystemC scheduling, the CPU stub, the line "
        "monitor and scoreboard (naive: not separable, the RTL runs inside SystemC)\n");
    // Deterministic counts, per character written (received, for the paste): where the wall time goes.
    fmt::print("\nper character: {:<40} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}\n", "workload, mode", "trans",
               "steps", "deltas", "wakes", "idle", "evals");
    for (const outcome* o : rows) {
        const nlohmann::json& r = o->r;
        if (!r.contains("host") || !r["host"].contains("time_steps")) continue;
        // Per character sent; the paste's per character received.
        const double n = r.contains("rx_bytes_pasted") && r["rx_bytes_pasted"].get<double>() > 0
                             ? r["rx_bytes_pasted"].get<double>()
                             : r["bytes_written"].get<double>();
        const nlohmann::json& h = r["host"];
        auto per = [&](const char* k) {
            return h.contains(k) ? fmt::format("{:.2f}", h[k].get<double>() / n) : std::string("-");
        };
        fmt::print("               {:<40} {:>8.2f} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
                   o->w.name + ", " + o->w.mode, r["transactions"].get<double>() / n, per("time_steps"),
                   per("delta_cycles"), per("uart_wakes"), per("uart_idle_wakes"), per("rtl_evals"));
    }
    fmt::print(
        "per character written (tty-paste: pasted). trans: TLM transactions; steps: SystemC time steps; "
        "deltas: delta cycles (each activates one process or more); wakes: activations of the PL011's "
        "processes (idle: those that changed no output); evals: RTL eval() calls\n");
    nlohmann::json counted = nlohmann::json::array();
    if (instructions) {
        // Deterministic: one pair of runs each (5 KB and 1 KB), after the timed rounds (callgrind runs
        // them about 50 times slower, on one core).
        const std::string valgrind = find_on_path("valgrind");
        if (valgrind.empty()) {
            fmt::print("\ninstructions per character: skipped, valgrind is not on PATH\n");
        } else {
            fmt::print("\ninstructions per character (callgrind; a 5 KB run less a 1 KB run, over their "
                       "difference in characters):\n");
            struct item {
                const char* name;
                workload (*make)(std::size_t);
            };
            const item items[] = {
                {"earlycon v0 hw 5 KB", [](std::size_t n) { return uartvp("", "v0", "hw", n, "fast", 1); }},
                {"tty-paste read hw 5 KB", [](std::size_t n) { return tty_paste("", "read", "hw", n, 1); }},
                {"8250 fifo pc 5 KB", [](std::size_t n) { return console_8250("", n, 1); }},
            };
            for (const item& it : items) {
                instruction_count c;
                if (!per_character(valgrind, it.name, it.make, 5000, c)) {
                    fmt::print("  {:<58} failed under valgrind\n", it.name);
                    continue;
                }
                fmt::print("  {:<58} {:>8.0f}  ({} instructions, {:.0f} characters)\n", c.name, c.per_char,
                           c.total, c.chars);
                counted.push_back({{"name", c.name},
                                   {"instructions_per_char", c.per_char},
                                   {"instructions", c.total},
                                   {"chars", c.chars}});
            }
        }
    }
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - bench0).count();
    fmt::print("\n{} child runs in {:.1f} s{}\n", g_child_runs, total,
               differ ? "; SIMULATED RESULTS DIFFER between runs that must agree (marked above)" : "");
    if (!json_path.empty()) {
        const nlohmann::json doc{{"runs", all},
                                 {"ratios", ratios},
                                 {"quick", quick},
                                 {"instructions", counted},
                                 {"child_runs", g_child_runs},
                                 {"bench_wall_s", total}};
        std::ofstream f(g_json_tmp.path);
        f << doc.dump(2) << "\n";
        f.close();
        if (!f || std::rename(g_json_tmp.path.c_str(), json_path.c_str()) != 0) {
            std::fprintf(stderr, "uartvp-bench: cannot write %s: %s\n", json_path.c_str(),
                         std::strerror(errno));
            return 2;
        }
        g_json_tmp.path.clear();
    }
    return differ ? 1 : 0;
}
