// The benchmark: runs the standard workloads, each simulation in a child process of its own, and
// prints simulated time, wall time, their ratio, transactions and RTL cycles per wall second, peak
// memory and where the wall time went, with every speed-up a ratio measured side by side in this run.
//   uartvp-bench [--quick] [--json FILE]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace {

struct outcome {
    nlohmann::json r;
    double peak_mb = 0;
    double rtl_share = -1; // of the wall time, in RTL evaluation (a run of its own); < 0: not measured
};

// Runs argv with stdout to a file, UARTVP_MEASURE_RTL=1 if `measure`; returns its JSON (from --json or
// stdout).
outcome run_once(std::vector<std::string> argv, bool json_on_stdout, bool measure) {
    char tmpl[] = "/tmp/uartvp-bench-XXXXXX";
    const int fd = mkstemp(tmpl);
    close(fd);
    const std::string out = tmpl;
    if (!json_on_stdout) argv.insert(argv.end(), {"--json", out});
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        if (measure) setenv("UARTVP_MEASURE_RTL", "1", 1);
        if (json_on_stdout && !std::freopen(out.c_str(), "w", stdout)) _exit(3);
        if (!json_on_stdout && !std::freopen("/dev/null", "w", stdout)) _exit(3);
        std::vector<char*> a;
        for (std::string& s : argv)
            a.push_back(s.data());
        a.push_back(nullptr);
        execv(a[0], a.data());
        _exit(3);
    }
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    outcome o;
    std::ifstream f(out);
    if (f.peek() != std::ifstream::traits_type::eof()) f >> o.r;
    std::remove(out.c_str());
    if (!WIFEXITED(status) || WEXITSTATUS(status) > 1 || o.r.is_null()) {
        std::fprintf(stderr, "uartvp-bench: %s failed\n", argv[0].c_str());
        std::exit(3);
    }
    o.peak_mb = ru.ru_maxrss / 1024.0;
    return o;
}

// Timing the RTL's evaluations costs two clock reads per eval(), a quarter of the wall time of a run
// that does little else: the wall time comes from a run without, the RTL's share from a second run.
outcome run(const std::vector<std::string>& argv, bool json_on_stdout, bool rtl_share = true) {
    outcome o = run_once(argv, json_on_stdout, false);
    if (rtl_share) {
        const outcome m = run_once(argv, json_on_stdout, true);
        if (m.r.value("rtl_eval_s", 0.0) > 0) // the 16550 has no RTL
            o.rtl_share = m.r["rtl_eval_s"].get<double>() / m.r["wall_s"].get<double>();
    }
    return o;
}

outcome uartvp(const std::string& variant, const std::string& profile, std::size_t bytes,
               const std::string& mode, const std::string& vcd = "", bool at_25mhz = false) {
    std::vector<std::string> a{UARTVP_BIN,  "run",   "earlycon-pl011",  "--variant",           variant,
                               "--profile", profile, "--payload-bytes", std::to_string(bytes), "--mode",
                               mode};
    if (at_25mhz) a.insert(a.end(), {"--set", "uartclk_hz=25000000"}); // the naive baseline's clock
    if (!vcd.empty()) a.insert(a.end(), {"--vcd", vcd});
    return run(a, false);
}

// A paste of `bytes` through the interrupt-driven tty path.
outcome tty_paste(const std::string& variant, const std::string& profile, std::size_t bytes) {
    return run({UARTVP_BIN, "run", "tty-paste", "--variant", variant, "--profile", profile, "--payload-bytes",
                std::to_string(bytes)},
               false);
}

outcome naive(const std::string& variant, std::size_t bytes) {
    return run({NAIVE_BIN, variant, std::to_string(bytes)}, true, false);
}

outcome console_8250(std::size_t bytes) {
    return run({UARTVP_BIN, "run", "console-8250", "--variant", "fifo", "--profile", "pc", "--payload-bytes",
                std::to_string(bytes)},
               false);
}

// A paste into the PL011 with an interrupt-driven reader: JSON on stdout, without the console fields.
outcome rx_paste(std::size_t bytes) {
    outcome o = run({PASTE_BIN, std::to_string(bytes)}, true);
    o.r["bytes_written"] = o.r["bytes"];
    o.r["transactions"] = o.r["accesses"];
    o.r["mmio_reads"] = o.r["accesses"];
    o.r["rtl_cycles"] = o.r["sim_time_ns"].get<double>() * 0.024; // 24 MHz
    return o;
}

struct row {
    std::string workload, mode;
    outcome o;
};

} // namespace

int main(int argc, char** argv) {
    bool quick = false;
    std::string json_path;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick")
            quick = true;
        else if (a == "--json" && i + 1 < argc)
            json_path = argv[++i];
        else {
            std::fprintf(stderr, "usage: uartvp-bench [--quick] [--json FILE]\n");
            return 2;
        }
    }
    const std::size_t boot = quick ? 20000 : 99000, slice = quick ? 2000 : 10000,
                      big = quick ? 100000 : 1000000;
    std::vector<row> rows;
    const std::string b = "earlycon v0 hw " + std::to_string(boot / 1000) + " KB";
    const std::string s = "earlycon v0 hw " + std::to_string(slice / 1000) + " KB slice 25MHz";
    rows.push_back({b, "fast", uartvp("v0", "hw", boot, "fast")});
    // v0 written with the kernel's literal loops, run right after v0 (side by side), shown at the end.
    const outcome literal_hw = uartvp("v0-literal", "hw", boot, "fast");
    char dir[] = "/tmp/uartvp-bench-waves-XXXXXX";
    const std::string wdir = mkdtemp(dir);
    rows.push_back({b, "fast+waves", uartvp("v0", "hw", boot, "fast", wdir + "/run.vcd")});
    for (const char* f : {"/run.vcd", "/run.gtkw", "/run.lines.vcd"})
        std::remove((wdir + f).c_str());
    rmdir(wdir.c_str());
    rows.push_back({s, "fast", uartvp("v0", "hw", slice, "fast", "", true)});
    rows.push_back({s, "reference", uartvp("v0", "hw", slice, "reference", "", true)});
    rows.push_back({s, "naive", naive("v0", slice)});
    rows.push_back(
        {"earlycon v0 vm " + std::to_string(boot / 1000) + " KB", "fast", uartvp("v0", "vm", boot, "fast")});
    const outcome literal_vm = uartvp("v0-literal", "vm", boot, "fast");
    rows.push_back({"earlycon v0 vm " + std::to_string(boot / 1000) + " KB", "reference",
                    uartvp("v0", "vm", boot, "reference")});
    rows.push_back(
        {"earlycon v1 hw " + std::to_string(big / 1000) + " KB", "fast", uartvp("v1", "hw", big, "fast")});
    const std::size_t paste = quick ? 20000 : 100000;
    const std::string t = "tty-paste read hw " + std::to_string(paste / 1000) + " KB";
    rows.push_back({t, "fast", tty_paste("read", "hw", paste)});
    rows.push_back({"8250 fifo pc " + std::to_string(paste / 1000) + " KB", "fast", console_8250(paste)});
    rows.push_back({"pl011 rx paste " + std::to_string(paste / 1000) + " KB", "fast", rx_paste(paste)});
    rows.push_back({"earlycon v0-literal hw " + std::to_string(boot / 1000) + " KB", "fast", literal_hw});
    rows.push_back({"earlycon v0-literal vm " + std::to_string(boot / 1000) + " KB", "fast", literal_vm});

    fmt::print("{:<32} {:<10} {:>9} {:>8} {:>9} {:>12} {:>12} {:>11} {:>8} {:>7}\n", "workload", "mode",
               "sim s", "wall s", "sim/wall", "trans/s", "reads/s", "cycles/s", "peak MB", "rtl %");
    nlohmann::json all = nlohmann::json::array();
    for (const row& w : rows) {
        const nlohmann::json& r = w.o.r;
        const double sim = r["sim_time_ns"].get<double>() / 1e9, wall = r["wall_s"].get<double>();
        const double rtl = w.o.rtl_share; // none for the 16550 or the naive baseline
        fmt::print("{:<32} {:<10} {:>9.3f} {:>8.3f} {:>9.2f} {:>12.0f} {:>12.0f} {:>11.0f} {:>8.1f} {:>7}\n",
                   w.workload, w.mode, sim, wall, sim / wall, r["transactions"].get<double>() / wall,
                   r["mmio_reads"].get<double>() / wall, r["rtl_cycles"].get<double>() / wall, w.o.peak_mb,
                   rtl >= 0 ? fmt::format("{:.0f}", 100 * rtl) : std::string("-"));
        nlohmann::json j = r;
        j["workload"] = w.workload;
        j["bench_mode"] = w.mode;
        j["peak_rss_mb"] = w.o.peak_mb;
        if (w.o.rtl_share >= 0) j["rtl_share"] = w.o.rtl_share;
        all.push_back(j);
    }
    auto wall_of = [&](std::size_t i) { return rows[i].o.r["wall_s"].get<double>(); };
    auto same = [&](std::size_t i, std::size_t k) {
        const auto& a = rows[i].o.r;
        const auto& c = rows[k].o.r;
        return a["mmio_reads"] == c["mmio_reads"] && a["bytes_on_line"] == c["bytes_on_line"] &&
               a["lost_bytes"] == c["lost_bytes"];
    };
    fmt::print("\nratios measured in this run:\n");
    fmt::print("  {:<58} {:>8.1f}x\n", b + ", fast: simulated / wall",
               rows[0].o.r["sim_time_ns"].get<double>() / 1e9 / wall_of(0));
    fmt::print("  {:<58} {:>8.2f}x{}\n", b + ": waves on / off (wall)", wall_of(1) / wall_of(0),
               same(0, 1) ? "" : "  (results differ!)");
    fmt::print("  {:<58} {:>8.1f}x{}\n", s + ": fast vs naive (wall)", wall_of(4) / wall_of(2),
               same(2, 4) ? "" : "  (results differ!)");
    fmt::print("  {:<58} {:>8.1f}x{}\n", s + ": fast vs reference (wall)", wall_of(3) / wall_of(2),
               same(2, 3) ? "" : "  (results differ!)");
    fmt::print("  {:<58} {:>8.1f}x{}\n", "earlycon v0 vm: fast vs reference (wall)", wall_of(6) / wall_of(5),
               same(5, 6) ? "" : "  (results differ!)");
    fmt::print("  {:<58} {:>8.1f} MB\n", rows[7].workload + ": peak memory", rows[7].o.peak_mb);
    fmt::print("  {:<58} {:>8.2f} us\n", rows[5].workload + ", fast: wall per character",
               wall_of(5) / rows[5].o.r["bytes_written"].get<double>() * 1e6);
    for (std::size_t i : {std::size_t(8), std::size_t(9), std::size_t(10)})
        fmt::print("  {:<58} {:>8.1f}x\n", rows[i].workload + ", fast: simulated / wall",
                   rows[i].o.r["sim_time_ns"].get<double>() / 1e9 / wall_of(i));
    fmt::print("  {:<58} {:>8.2f}x{}\n", "earlycon hw: v0-literal vs v0 (wall)", wall_of(11) / wall_of(0),
               same(0, 11) ? "" : "  (results differ!)");
    fmt::print("  {:<58} {:>8.2f}x{}\n", "earlycon vm: v0-literal vs v0 (wall)", wall_of(12) / wall_of(5),
               same(5, 12) ? "" : "  (results differ!)");
    fmt::print(
        "rtl %: wall time spent evaluating the verilated RTL, measured in a second run of each workload "
        "(the timing costs wall time of its own); the rest is SystemC scheduling, the CPU stub, the line "
        "monitor and scoreboard (naive: not separable, the RTL runs inside SystemC)\n");
    // Deterministic counts, per character written (received, for the paste): where the wall time goes.
    fmt::print("\nper character: {:<40} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}\n", "workload, mode", "trans",
               "steps", "deltas", "wakes", "idle", "evals");
    for (const row& w : rows) {
        const nlohmann::json& r = w.o.r;
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
                   w.workload + ", " + w.mode, r["transactions"].get<double>() / n, per("time_steps"),
                   per("delta_cycles"), per("uart_wakes"), per("uart_idle_wakes"), per("rtl_evals"));
    }
    fmt::print(
        "per character written (tty-paste: pasted). trans: TLM transactions; steps: SystemC time steps; "
        "deltas: delta cycles (each activates one process or more); wakes: activations of the PL011's "
        "processes (idle: those that changed no output); evals: RTL eval() calls\n");
    if (!json_path.empty()) std::ofstream(json_path) << nlohmann::json{{"runs", all}}.dump(2) << "\n";
    return 0;
}
