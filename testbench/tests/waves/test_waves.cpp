// SPDX-License-Identifier: Apache-2.0
// Waves of a run: the VCD read back (FIFO level and BUSY as the scenario implies), the GTKWave save
// file naming only signals the VCD has, GTKWave's vcd2fst accepting every VCD, sigrok decoding the
// serial lines to the payload, identical waves from identical runs, no results changed by tracing, and
// nothing left behind by a run refused for its --vcd path.
#include <sys/stat.h>

#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "program_runner.h"

using namespace uartvp::test;

namespace {

std::string tmpdir() {
    char d[] = "/tmp/uartvp-waves-XXXXXX";
    return mkdtemp(d);
}

bool exists(const std::string& p) {
    struct stat st {};
    return stat(p.c_str(), &st) == 0;
}

std::string write_payload(const std::string& dir, const std::string& text) {
    const std::string p = dir + "/payload.txt";
    std::ofstream(p) << text;
    return p;
}

// Value changes of scalar and vector variables, by full dotted name.
struct vcd {
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::uint64_t>>> changes;
    std::set<std::string> names; // as GTKWave names them: scope.leaf, vectors with their range
};

vcd parse_vcd(const std::string& path) {
    std::ifstream f(path);
    vcd v;
    std::map<std::string, std::string> id_name;
    std::vector<std::string> scope;
    std::string tok;
    std::uint64_t now = 0;
    bool defs = true;
    while (f >> tok) {
        if (defs) {
            if (tok == "$scope") {
                std::string kind, name;
                f >> kind >> name;
                scope.push_back(name);
            } else if (tok == "$upscope") {
                scope.pop_back();
            } else if (tok == "$var") {
                std::string type, width, id, name, rest;
                f >> type >> width >> id >> name;
                std::string full;
                for (const auto& s : scope)
                    full += s + ".";
                full += name;
                f >> rest;
                if (rest != "$end") {
                    v.names.insert(full + rest);
                    f >> rest;
                } else {
                    v.names.insert(full);
                }
                id_name[id] = full;
            } else if (tok == "$enddefinitions") {
                defs = false;
            }
            continue;
        }
        if (tok == "$comment") {
            while (f >> tok && tok != "$end") {
            }
        } else if (tok[0] == '$') {
            continue; // $dumpvars, $end
        } else if (tok[0] == '#') {
            now = std::stoull(tok.substr(1));
        } else if (tok[0] == 'b') {
            std::string id;
            f >> id;
            v.changes[id_name[id]].emplace_back(now, std::stoull(tok.substr(1), nullptr, 2));
        } else if (tok[0] == '0' || tok[0] == '1') {
            v.changes[id_name[tok.substr(1)]].emplace_back(now, tok[0] - '0');
        }
    }
    return v;
}

std::uint64_t max_value(const vcd& v, const std::string& name) {
    std::uint64_t m = 0;
    for (const auto& [t, x] : v.changes.at(name))
        m = std::max(m, x);
    return m;
}

std::string sigrok(const std::string& lines_vcd, const std::string& options) {
    const result r =
        run_command("sigrok-cli -i " + lines_vcd + " -I vcd -P uart:" + options + ":rx=txd -B uart=rx");
    return r.out;
}

// A save-file line that names a signal (not a flag, comment, blank row or setting).
bool is_signal_line(const std::string& l) {
    return !l.empty() && l[0] != '@' && l[0] != '-' && l[0] != '[' && l[0] != '*' && l[0] != '^';
}

std::string crlf(const std::string& s) {
    std::string o;
    for (char c : s)
        o += c == '\n' ? std::string("\r\n") : std::string(1, c);
    return o;
}

const std::string text = "[    0.000000] Booting Linux on physical CPU 0x0\n"
                         "[    0.000001] uartvp waves: sigrok reads this line back\n"
                         "[    0.000002] calling  pl011_init+0x0/0x2c @ 1\n";

} // namespace

TEST(Waves, SigrokDecodesTheLinesAt115200_8N1) {
    const std::string d = tmpdir(), payload = write_payload(d, text);
    const result r =
        run_uartvp("run earlycon-pl011 --variant v1 --payload " + payload + " --vcd " + d + "/run.vcd");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(sigrok(d + "/run.lines.vcd", "baudrate=115200"), crlf(text));
}

TEST(Waves, SigrokDecodesTheLinesAt57600_7E1) {
    const std::string d = tmpdir(), payload = write_payload(d, text);
    const result r = run_uartvp("run earlycon-pl011 --variant v2 --payload " + payload +
                                " --set baud=57600 --set frame=7E1 --vcd " + d + "/run.vcd");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(sigrok(d + "/run.lines.vcd", "baudrate=57600:data_bits=7:parity=even"), crlf(text));
}

TEST(Waves, VcdShowsV0KeepingTheFifoAtOneAndV1FillingIt) {
    const std::string d = tmpdir();
    ASSERT_EQ(run_uartvp("run earlycon-pl011 --variant v0 --payload-bytes 400 --vcd " + d + "/v0.vcd").code,
              0);
    ASSERT_EQ(run_uartvp("run earlycon-pl011 --variant v1 --payload-bytes 400 --vcd " + d + "/v1.vcd").code,
              0);
    const vcd v0 = parse_vcd(d + "/v0.vcd"), v1 = parse_vcd(d + "/v1.vcd");
    EXPECT_EQ(max_value(v0, "uart0.tx_fifo_level"), 1u);
    EXPECT_EQ(max_value(v1, "uart0.tx_fifo_level"), 32u);
    // v0: BUSY falls once per byte (the CPU waits for it); v1: the FIFO stays full, BUSY stays set.
    const auto& busy0 = v0.changes.at("uart0.busy");
    const auto falls0 =
        std::count_if(busy0.begin(), busy0.end(), [](const auto& c) { return c.second == 0; });
    EXPECT_GE(falls0, 400);
    const auto& busy1 = v1.changes.at("uart0.busy");
    const auto falls1 =
        std::count_if(busy1.begin(), busy1.end(), [](const auto& c) { return c.second == 0; });
    EXPECT_LE(falls1, 3) << "BUSY clears only when the line is idle";
    // The CPU's polling loops show as spans in fast mode, with the reads each stood for.
    EXPECT_GT(max_value(v0, "cpu0.poll_reads"), 100u);
    EXPECT_GT(v0.changes.at("bus.mmio_read").size(), 400u);
}

TEST(Waves, SaveFileNamesOnlySignalsOfTheVcdInGroups) {
    const std::string d = tmpdir();
    ASSERT_EQ(run_uartvp("run earlycon-pl011 --payload-bytes 100 --vcd " + d + "/run.vcd").code, 0);
    const vcd v = parse_vcd(d + "/run.vcd");
    std::ifstream g(d + "/run.gtkw");
    std::string line;
    int signals = 0, groups = 0;
    bool dumpfile = false;
    while (std::getline(g, line)) {
        if (line.rfind("[dumpfile]", 0) == 0) dumpfile = line.find("run.vcd") != std::string::npos;
        if (is_signal_line(line)) {
            EXPECT_TRUE(v.names.count(line)) << line << " is not in the VCD";
            ++signals;
        }
        if (line == "@800200") ++groups;
    }
    EXPECT_TRUE(dumpfile);
    EXPECT_GE(signals, 16);
    EXPECT_EQ(groups, 4) << "CPU, Bus, UART0, Lines";
}

TEST(Waves, Vcd2fstAcceptsEveryVcd) {
    const std::string d = tmpdir();
    ASSERT_EQ(run_uartvp("run earlycon-pl011 --payload-bytes 200 --vcd " + d + "/run.vcd").code, 0);
    for (const char* f : {"run.vcd", "run.lines.vcd"}) {
        const result r = run_command("vcd2fst " + d + "/" + f + " " + d + "/out.fst");
        EXPECT_EQ(r.code, 0) << f << ": " << r.err;
        EXPECT_TRUE(exists(d + "/out.fst"));
        std::remove((d + "/out.fst").c_str());
    }
}

TEST(Waves, TwoRunsGiveIdenticalWavesApartFromTheDate) {
    const std::string d = tmpdir();
    ASSERT_EQ(run_uartvp("run earlycon-pl011 --variant v2 --payload-bytes 300 --vcd " + d + "/a.vcd").code,
              0);
    ASSERT_EQ(run_uartvp("run earlycon-pl011 --variant v2 --payload-bytes 300 --vcd " + d + "/b.vcd").code,
              0);
    auto body = [](const std::string& p) {
        std::string s = slurp(p);
        const auto e = s.find("$end"); // the $date block comes first
        return s.substr(e);
    };
    EXPECT_EQ(body(d + "/a.vcd"), body(d + "/b.vcd"));
    EXPECT_EQ(slurp(d + "/a.lines.vcd"), slurp(d + "/b.lines.vcd"));
    // The save files name their own dump and filters (by absolute path): alike but for those names.
    auto named_x = [&](std::string s, const std::string& stem) {
        for (std::size_t at; (at = s.find(d + "/" + stem + ".")) != std::string::npos;)
            s.replace(at, d.size() + 2 + stem.size(), d + "/x.");
        return s;
    };
    EXPECT_EQ(named_x(slurp(d + "/a.gtkw"), "a"), named_x(slurp(d + "/b.gtkw"), "b"));
    EXPECT_EQ(slurp(d + "/a.tasks.txt"), slurp(d + "/b.tasks.txt"));
    EXPECT_EQ(slurp(d + "/a.regs.txt"), slurp(d + "/b.regs.txt"));
    EXPECT_GT(slurp(d + "/a.vcd").size(), 1000u);
}

TEST(Waves, TracingChangesNoResult) {
    const std::string d = tmpdir();
    nlohmann::json with =
        run_json("earlycon-pl011", "--variant v0 --payload-bytes 300 --vcd " + d + "/w.vcd");
    nlohmann::json without = run_json("earlycon-pl011", "--variant v0 --payload-bytes 300");
    for (auto* j : {&with, &without})
        for (const char* k : {"wall_s", "rtl_edges_evaluated", "rtl_eval_s", "transactions", "host"})
            j->erase(k);
    EXPECT_EQ(with, without);
}

TEST(Waves, RefusedVcdPathLeavesNothingBehind) {
    const std::string d = tmpdir();
    expect_usage_error("run earlycon-pl011 --vcd " + d + "/missing/run.vcd", "--vcd");
    expect_usage_error("run earlycon-pl011 --vcd " + d + "/run.txt", "--vcd");
    EXPECT_FALSE(exists(d + "/missing"));
    EXPECT_FALSE(exists(d + "/run.gtkw"));
    EXPECT_FALSE(exists(d + "/run.lines.vcd"));
}

TEST(Waves, SigrokDecodesThe16550ConsoleAndTheSaveFileMatchesItsVcd) {
    const std::string d = tmpdir(), payload = write_payload(d, text);
    const result r = run_uartvp("run console-8250 --variant fifo --profile pc --payload " + payload +
                                " --vcd " + d + "/c.vcd");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(sigrok(d + "/c.lines.vcd", "baudrate=115200"), crlf(text));
    const vcd v = parse_vcd(d + "/c.vcd");
    EXPECT_LE(max_value(v, "uart0.tx_fifo_level"), 16u);
    EXPECT_GT(max_value(v, "uart0.tx_fifo_level"), 1u) << "the FIFO path fills the FIFO";
    std::ifstream g(d + "/c.gtkw");
    std::string line;
    while (std::getline(g, line))
        if (is_signal_line(line)) EXPECT_TRUE(v.names.count(line)) << line;
}

// The full RTL trace beside the waves: Verilator's VCD of the verilated PL011, whose TXD changes fall
// exactly where the waves' TXD changes (the wrapper evaluates the RTL wherever an output changes).
TEST(Waves, RtlTraceHasTheSameTxdEdgesAsTheWaves) {
    const std::string d = tmpdir();
    const result r =
        run_uartvp("run earlycon-pl011 --variant v1 --payload-bytes 200 --vcd " + d + "/r.vcd --vcd-rtl");
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_TRUE(exists(d + "/r.rtl.vcd"));
    const vcd rtl = parse_vcd(d + "/r.rtl.vcd"), waves = parse_vcd(d + "/r.vcd");
    // Verilator names the top's ports in two scopes with one identifier; the parser keeps the inner name.
    const std::string txd = rtl.changes.count("pl011.txd") ? "pl011.txd" : "pl011.pl011.txd";
    ASSERT_TRUE(rtl.changes.count(txd)) << "the RTL's own TXD";
    auto edges = [](std::vector<std::pair<std::uint64_t, std::uint64_t>> c) {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> e;
        std::uint64_t last = 1;
        for (const auto& [t, v] : c)
            if (v != last && t > 0) e.emplace_back(t, last = v);
        return e;
    };
    const auto a = edges(rtl.changes.at(txd)), b = edges(waves.changes.at("lines.txd"));
    EXPECT_GT(b.size(), 500u);
    EXPECT_EQ(a, b);
    EXPECT_EQ(run_command("vcd2fst " + d + "/r.rtl.vcd " + d + "/r.fst").code, 0);
    expect_usage_error("run console-8250 --vcd " + d + "/c.vcd --vcd-rtl", "no RTL");
    expect_usage_error("run earlycon-pl011 --vcd-rtl", "--vcd");
}

namespace {

// The value of `name` at each change time, the last change at a time winning.
std::map<std::uint64_t, std::uint64_t> at_times(const vcd& v, const std::string& name) {
    std::map<std::uint64_t, std::uint64_t> m;
    for (const auto& [t, x] : v.changes.at(name))
        m[t] = x;
    return m;
}

std::string save_line_after(const std::string& gtkw, const std::string& prefix) {
    std::istringstream in(gtkw);
    for (std::string l; std::getline(in, l);)
        if (l.rfind(prefix, 0) == 0) return l;
    return "";
}

} // namespace

// A collapsed polling loop's count shows from the span's start (not at its end, under the next span):
// each rise of `polling` carries its reads, each fall 0; with the timeline beside it, the same counts.
TEST(Waves, PollReadsCarryTheSpansCountFromItsStart) {
    const std::string d = tmpdir();
    ASSERT_EQ(run_uartvp("run earlycon-pl011 --variant v0 --payload-bytes 300 --vcd " + d +
                         "/p.vcd --trace " + d + "/p.json")
                  .code,
              0);
    const vcd v = parse_vcd(d + "/p.vcd");
    const auto polling = at_times(v, "cpu0.polling"), reads = at_times(v, "cpu0.poll_reads");
    std::vector<std::uint64_t> counts;
    for (const auto& [t, x] : polling) {
        if (t == 0) continue;
        ASSERT_TRUE(reads.count(t)) << "poll_reads changes with polling at " << t;
        if (x) {
            EXPECT_GT(reads.at(t), 0u) << t;
            counts.push_back(reads.at(t));
        } else if (!polling.count(t) || !polling.at(t)) {
            EXPECT_EQ(reads.at(t), 0u) << t;
        }
    }
    EXPECT_GT(counts.size(), 200u);
    nlohmann::json trace;
    std::ifstream(d + "/p.json") >> trace;
    std::vector<std::uint64_t> spans;
    std::vector<std::pair<double, std::uint64_t>> by_time;
    for (const auto& e : trace["traceEvents"])
        if (e.value("cat", "") == "poll")
            by_time.emplace_back(e["ts"].get<double>(), e["args"]["reads"].get<std::uint64_t>());
    std::sort(by_time.begin(), by_time.end());
    for (const auto& [t, n] : by_time)
        spans.push_back(n);
    EXPECT_EQ(counts, spans);
}

// The legacy console reopens its IRQs-off window at the instant the last closed, record after record:
// irqs_off stays high across them, the window's number moves at each.
TEST(Waves, IrqsOffWindowsReopenedAtOnceAreCounted) {
    const std::string d = tmpdir();
    const nlohmann::json j =
        run_json("earlycon-pl011", "--variant console --payload-bytes 2000 --vcd " + d + "/c.vcd");
    const vcd v = parse_vcd(d + "/c.vcd");
    const std::uint64_t windows = j["per_core"][0]["irq_off_windows"].get<std::uint64_t>();
    EXPECT_EQ(max_value(v, "cpu0.irqs_off_window"), windows);
    std::uint64_t rises = 0, last = 0;
    for (const auto& [t, x] : at_times(v, "cpu0.irqs_off")) {
        rises += x && !last;
        last = x;
    }
    EXPECT_GT(windows, 10u);
    EXPECT_LT(rises, windows) << "some windows reopen at once: irqs_off alone does not show them";
}

// `gtkwave NAME.gtkw` alone: the dump and the filter files by absolute path; the task signal's values
// are names in NAME.tasks.txt, the bus address's registers in NAME.regs.txt (I/O ports explained).
TEST(Waves, SaveFileNamesItsDumpAndFiltersByAbsolutePath) {
    const std::string d = tmpdir();
    ASSERT_EQ(run_uartvp("run earlycon-pl011 --payload-bytes 100 --vcd " + d + "/run.vcd").code, 0);
    const std::string g = slurp(d + "/run.gtkw");
    EXPECT_EQ(save_line_after(g, "[dumpfile]"), "[dumpfile] \"" + d + "/run.vcd\"");
    EXPECT_EQ(save_line_after(g, "^1 "), "^1 " + d + "/run.tasks.txt");
    EXPECT_EQ(save_line_after(g, "^2 "), "^2 " + d + "/run.regs.txt");
    const std::string tasks = slurp(d + "/run.tasks.txt"), regs = slurp(d + "/run.regs.txt");
    const vcd v = parse_vcd(d + "/run.vcd");
    for (const auto& [t, x] : v.changes.at("cpu0.task"))
        EXPECT_NE(tasks.find(std::to_string(x) + " "), std::string::npos) << x << " has no name";
    EXPECT_NE(tasks.find(" boot\n"), std::string::npos) << tasks;
    EXPECT_NE(tasks.find("0 (idle)\n"), std::string::npos) << tasks;
    EXPECT_NE(regs.find("0000000009000018 UART0 FR\n"), std::string::npos) << regs;
    for (const auto& [t, x] : v.changes.at("bus.mmio_addr"))
        if (t > 0) {
            char key[32];
            std::snprintf(key, sizeof key, "%016llX ", static_cast<unsigned long long>(x));
            EXPECT_NE(regs.find(key), std::string::npos) << key << "has no name";
        }
    // On a PC the UART's registers are I/O ports, 0x3F8 + n on the bus's I/O space.
    ASSERT_EQ(run_uartvp("run console-8250 --profile pc --payload-bytes 100 --vcd " + d + "/pc.vcd").code, 0);
    EXPECT_NE(slurp(d + "/pc.regs.txt").find("00000001000003FD UART0 LSR (I/O port 0x3FD)\n"),
              std::string::npos)
        << slurp(d + "/pc.regs.txt");
}

// Two cores: a group per core, each with the IRQ lines routed to it and its IPI signal.
TEST(Waves, EveryCoreHasItsGroupWithItsIrqLinesAndIpi) {
    const std::string d = tmpdir();
    ASSERT_EQ(
        run_uartvp("run tty-paste --payload-bytes 200 --set cores=2 --set irq_cpu=1 --vcd " + d + "/t.vcd")
            .code,
        0);
    const vcd v = parse_vcd(d + "/t.vcd");
    for (const char* n : {"cpu0.task[15:0]", "cpu1.task[15:0]", "cpu0.ipi", "cpu1.ipi", "cpu1.irq_uart-pl011",
                          "cpu1.irqs_off_window[63:0]", "cpu1.poll_reads[31:0]"})
        EXPECT_TRUE(v.names.count(n)) << n;
    EXPECT_FALSE(v.names.count("cpu0.irq_uart-pl011")) << "the line goes to cpu1 alone";
    EXPECT_GT(v.changes.at("cpu1.irq_uart-pl011").size(), 5u);
    const std::string g = slurp(d + "/t.gtkw");
    EXPECT_NE(g.find("-CPU1\n"), std::string::npos);
    std::istringstream in(g);
    for (std::string l; std::getline(in, l);)
        if (is_signal_line(l)) EXPECT_TRUE(v.names.count(l)) << l;
}

// --fst: NAME.fst instead of NAME.vcd, named by the save file, at least 4x smaller, and GTKWave's
// fst2vcd reads back the same changes as the VCD of the same run.
TEST(Waves, FstIsSmallerAndReadsBackAsTheSameWaves) {
    const std::string d = tmpdir();
    ASSERT_EQ(run_uartvp("run earlycon-pl011 --variant v2 --payload-bytes 2000 --vcd " + d + "/v.vcd").code,
              0);
    const result r =
        run_uartvp("run earlycon-pl011 --variant v2 --payload-bytes 2000 --vcd " + d + "/f.vcd --fst");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(exists(d + "/f.vcd"));
    ASSERT_TRUE(exists(d + "/f.fst"));
    EXPECT_EQ(save_line_after(slurp(d + "/f.gtkw"), "[dumpfile]"), "[dumpfile] \"" + d + "/f.fst\"");
    const std::size_t vcd_size = slurp(d + "/v.vcd").size(), fst_size = slurp(d + "/f.fst").size();
    EXPECT_GE(vcd_size, 4 * fst_size) << vcd_size << " against " << fst_size;
    ASSERT_EQ(run_command("fst2vcd -f " + d + "/f.fst -o " + d + "/back.vcd").code, 0);
    const vcd a = parse_vcd(d + "/v.vcd"), b = parse_vcd(d + "/back.vcd");
    auto last_per_time = [](const std::vector<std::pair<std::uint64_t, std::uint64_t>>& c) {
        std::map<std::uint64_t, std::uint64_t> m;
        for (const auto& [t, x] : c)
            m[t] = x;
        std::vector<std::pair<std::uint64_t, std::uint64_t>> out; // changes only
        for (const auto& [t, x] : m)
            if (out.empty() || out.back().second != x) out.emplace_back(t, x);
        return out;
    };
    EXPECT_EQ(a.names, b.names);
    for (const auto& [name, changes] : a.changes) {
        ASSERT_TRUE(b.changes.count(name)) << name;
        EXPECT_EQ(last_per_time(changes), last_per_time(b.changes.at(name))) << name;
    }
    expect_usage_error("run earlycon-pl011 --fst", "--vcd");
}

// A run whose waves would pass 1 GB says so before it starts (stopped here at once).
TEST(Waves, HugeWavesWarnBeforeTheRun) {
    const std::string d = tmpdir();
    const result r = run_command("timeout -s INT 2 " + std::string(UARTVP_BIN) +
                                 " run earlycon-pl011 --payload-bytes 1073741824 --vcd " + d + "/w.vcd");
    EXPECT_NE(r.err.find("warning: the waves of this run will take about"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--fst"), std::string::npos) << r.err;
    EXPECT_EQ(entries(d), std::vector<std::string>{});
    const result small = run_uartvp("run earlycon-pl011 --payload-bytes 1000 --vcd " + d + "/s.vcd");
    EXPECT_EQ(small.err.find("warning"), std::string::npos) << small.err;
}

// Stopped by a signal mid-run, a run with --fst and --trace leaves no file (nor vcd2fst behind it).
TEST(Waves, StoppedFstAndTraceRunLeavesNothing) {
    const std::string d = tmpdir();
    const result r = run_command("timeout -s INT 1.5 " + std::string(UARTVP_BIN) +
                                 " run earlycon-pl011 --payload-bytes 400000 --vcd " + d +
                                 "/f.vcd --fst --trace " + d + "/t.json");
    EXPECT_EQ(r.code, 124) << "still running after 1.5 s, then stopped: " << r.err;
    EXPECT_EQ(entries(d), std::vector<std::string>{});
    // No vcd2fst is left writing there (it names its output, a temporary in d; "[v]" keeps pgrep from
    // finding the shell that runs it).
    EXPECT_NE(run_command("pgrep -f '[v]cd2fst - " + d + "'").code, 0);
}
