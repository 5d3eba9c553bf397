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
    return !l.empty() && l[0] != '@' && l[0] != '-' && l[0] != '[' && l[0] != '*';
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
    std::string ga = slurp(d + "/a.gtkw"), gb = slurp(d + "/b.gtkw");
    ga.replace(ga.find("\"a.vcd\""), 7, "\"x.vcd\"");
    gb.replace(gb.find("\"b.vcd\""), 7, "\"x.vcd\"");
    EXPECT_EQ(ga, gb);
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
