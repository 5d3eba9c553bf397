// SPDX-License-Identifier: Apache-2.0
// The timeline (--trace FILE.json): the Trace Event Format's rules (the JSON object form, each event's
// phase and fields, metadata naming a track per core, complete events nested per track), its totals
// against the run's JSON results (IRQs-off time and windows per core, console records, interrupts per
// line, lost bytes), the same file from the same run, and no file left by a refused or failed run.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "program_runner.h"

using namespace uartvp::test;

namespace {

std::string tmpdir() {
    char d[] = "/tmp/uartvp-timeline-XXXXXX";
    return mkdtemp(d);
}

bool exists(const std::string& p) {
    struct stat st {};
    return stat(p.c_str(), &st) == 0;
}

struct run {
    nlohmann::json trace, results;
};

run run_traced(const std::string& scenario, const std::string& args, int code = 0) {
    const std::string d = tmpdir();
    const result r =
        run_uartvp("run " + scenario + " " + args + " --trace " + d + "/t.json --json " + d + "/r.json");
    EXPECT_EQ(r.code, code) << args << ": " << r.err;
    run out;
    std::ifstream t(d + "/t.json"), j(d + "/r.json");
    EXPECT_TRUE(t && j) << args;
    if (t) t >> out.trace;
    if (j) j >> out.results;
    return out;
}

// The rules of the Trace Event Format (its JSON object form) that Perfetto and chrome://tracing hold
// a file to, and that speedscope needs: every event an object with a known phase, pid and tid integers,
// ts and dur non-negative numbers, names strings; metadata naming each track; complete events on one
// track nested (each starts and ends inside the one open around it, or after it ended).
void expect_format(const nlohmann::json& t, unsigned cores) {
    ASSERT_TRUE(t.is_object());
    ASSERT_TRUE(t.contains("traceEvents") && t["traceEvents"].is_array());
    EXPECT_EQ(t.value("displayTimeUnit", ""), "ns");
    std::map<int, std::string> thread_names;
    std::map<int, std::vector<std::pair<double, double>>> spans; // per tid: (ts, end)
    const std::set<std::string> phases{"X", "M", "C", "i"};
    for (const auto& e : t["traceEvents"]) {
        ASSERT_TRUE(e.is_object());
        const std::string ph = e.at("ph").get<std::string>();
        ASSERT_TRUE(phases.count(ph)) << e.dump();
        ASSERT_TRUE(e.at("pid").is_number_integer()) << e.dump();
        ASSERT_TRUE(e.at("name").is_string()) << e.dump();
        if (ph != "M") {
            ASSERT_TRUE(e.at("ts").is_number()) << e.dump();
            EXPECT_GE(e["ts"].get<double>(), 0) << e.dump();
        }
        if (ph == "M") {
            ASSERT_TRUE(e.at("args").is_object());
            if (e["name"] == "thread_name") thread_names[e.at("tid").get<int>()] = e["args"].at("name");
        } else if (ph == "X") {
            ASSERT_TRUE(e.at("tid").is_number_integer()) << e.dump();
            ASSERT_TRUE(e.at("dur").is_number()) << e.dump();
            EXPECT_GE(e["dur"].get<double>(), 0) << e.dump();
            spans[e["tid"].get<int>()].emplace_back(e["ts"].get<double>(),
                                                    e["ts"].get<double>() + e["dur"].get<double>());
        } else if (ph == "C") {
            ASSERT_TRUE(e.at("args").is_object());
            for (const auto& [k, v] : e["args"].items())
                EXPECT_TRUE(v.is_number()) << e.dump();
        } else if (ph == "i") {
            const std::string s = e.value("s", "t");
            EXPECT_TRUE(s == "g" || s == "p" || s == "t") << e.dump();
        }
    }
    for (unsigned c = 0; c < cores; ++c)
        EXPECT_EQ(thread_names[static_cast<int>(c)], "cpu" + std::to_string(c));
    EXPECT_EQ(thread_names.size(), cores);
    for (auto& [tid, v] : spans) {
        // Longest first among equal starts: the enclosing span comes first.
        std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first < b.first : a.second > b.second;
        });
        std::vector<double> open; // ends of the spans enclosing the current one
        // Exactly, in floating point: a span that ends where the next starts must not overlap it
        // (speedscope nests them wrongly else).
        const double eps = 0;
        for (const auto& [ts, end] : v) {
            while (!open.empty() && open.back() <= ts + eps)
                open.pop_back();
            if (!open.empty())
                ASSERT_LE(end, open.back() + eps)
                    << "tid " << tid << ": a span at " << ts << " us ends after the one around it";
            open.push_back(end);
        }
    }
}

std::vector<nlohmann::json> events(const nlohmann::json& t, const std::string& name) {
    std::vector<nlohmann::json> out;
    for (const auto& e : t["traceEvents"])
        if (e.value("name", "") == name) out.push_back(e);
    return out;
}

// The IRQs-off windows of each core: one `irqs off` event per window, their time the JSON's.
void expect_irqs_off_totals(const run& r) {
    double all = 0;
    for (const auto& c : r.results["per_core"]) {
        const int cpu = c["cpu"].get<int>();
        double total = 0, longest = 0;
        std::uint64_t n = 0;
        for (const auto& e : events(r.trace, "irqs off"))
            if (e["tid"].get<int>() == cpu) {
                total += e["dur"].get<double>() * 1e3;
                longest = std::max(longest, e["dur"].get<double>() * 1e3);
                ++n;
            }
        EXPECT_EQ(n, c["irq_off_windows"].get<std::uint64_t>()) << "cpu" << cpu;
        EXPECT_NEAR(total, c["irq_off_total_ns"].get<double>(), 1e-3 * (1 + n)) << "cpu" << cpu;
        EXPECT_NEAR(longest, c["irq_off_max_ns"].get<double>(), 1e-3) << "cpu" << cpu;
        all += total;
    }
    EXPECT_NEAR(all, r.results["irq_off_total_ns"].get<double>(), 1e-2);
}

std::size_t count_cat(const nlohmann::json& t, const std::string& cat) {
    std::size_t n = 0;
    for (const auto& e : t["traceEvents"])
        n += e.value("cat", "") == cat;
    return n;
}

} // namespace

// The legacy console holds IRQs off for each record, reopened at once record after record: one event
// per window, the records as spans with their text, the polls with their reads.
TEST(Timeline, ConsoleRecordsAndIrqsOffWindowsMatchTheResults) {
    const run r = run_traced("earlycon-pl011", "--variant console --payload-bytes 3000");
    expect_format(r.trace, 1);
    expect_irqs_off_totals(r);
    EXPECT_GT(r.results["per_core"][0]["irq_off_windows"].get<int>(), 10);
    // Every record is one console span whose text is the record's.
    EXPECT_EQ(count_cat(r.trace, "console"), r.results["payload_lines"].get<std::size_t>());
    std::uint64_t bytes = 0, poll_reads = 0, long_records = 0;
    for (const auto& e : r.trace["traceEvents"]) {
        if (e.value("cat", "") == "console") {
            // The record is the name, or (cut to 120 characters there) its args' text.
            const std::string name = e["name"];
            const std::string text = e.contains("args") ? e["args"]["text"].get<std::string>() : name + "\n";
            if (e.contains("args")) {
                EXPECT_EQ(e["args"]["bytes"].get<std::size_t>(), text.size());
                EXPECT_EQ(name.substr(0, 120), text.substr(0, std::min<std::size_t>(120, name.size())));
            }
            bytes += text.size() + std::count(text.begin(), text.end(), '\n');
            long_records += e.contains("args");
        }
        if (e.value("cat", "") == "poll") {
            poll_reads += e["args"]["reads"].get<std::uint64_t>();
            EXPECT_EQ(e["name"], "poll UART0 FR");
        }
    }
    // Bytes handed over: the records' bytes with '\r' before each '\n'.
    EXPECT_EQ(bytes, r.results["bytes_written"].get<std::uint64_t>());
    EXPECT_GT(long_records, 0u) << "the boot log has records longer than 120 characters";
    EXPECT_GT(poll_reads, 1000u);
    EXPECT_LE(poll_reads, r.results["mmio_reads"].get<std::uint64_t>());
    // The tasks by name, the FIFO level as a counter.
    EXPECT_EQ(events(r.trace, "boot").size(), 1u);
    EXPECT_EQ(events(r.trace, "firmware").size(), 1u);
    unsigned fifo_max = 0;
    for (const auto& e : events(r.trace, "uart0 tx_fifo_level"))
        fifo_max = std::max(fifo_max, e["args"]["level"].get<unsigned>());
    EXPECT_EQ(fifo_max, r.results["tx_fifo_max"].get<unsigned>());
}

// The 8250 console on a PC: its polls name the I/O port they read.
TEST(Timeline, PortIoPollsNameTheirPort) {
    const run r = run_traced("console-8250", "--variant fifo --profile pc --payload-bytes 800");
    expect_format(r.trace, 1);
    expect_irqs_off_totals(r);
    EXPECT_EQ(count_cat(r.trace, "console"), r.results["payload_lines"].get<std::size_t>());
    EXPECT_GT(events(r.trace, "poll UART0 LSR (I/O port 0x3FD)").size(), 10u);
}

// Two cores: the paste's interrupts on cpu1 and a hog holding IRQs off on cpu0; each handler run is a
// hard-IRQ span on its core's track, the reads instants with their text.
TEST(Timeline, TwoCoresShowTheirInterruptsAndWindowsOnTheirTracks) {
    const run r = run_traced("tty-paste", "--variant read --payload-bytes 2000 --set cores=2 --set irq_cpu=1 "
                                          "--set hog_cpu=0 --set hog_us=500 --set hog_period_us=2000");
    expect_format(r.trace, 2);
    expect_irqs_off_totals(r);
    for (const auto& l : r.results["irq_lines"]) {
        std::uint64_t n = 0;
        for (const auto& e : events(r.trace, "irq " + l["name"].get<std::string>()))
            n += e["tid"].get<unsigned>() == l["cpu"].get<unsigned>();
        EXPECT_EQ(n, l["count"].get<std::uint64_t>()) << l.dump();
        EXPECT_GT(n, 0u);
    }
    std::uint64_t read = 0;
    for (const auto& e : r.trace["traceEvents"])
        if (e.value("cat", "") == "tty" && e["name"].get<std::string>().rfind("read ", 0) == 0) {
            EXPECT_EQ(e["tid"], 1);
            read += e["args"]["bytes"].get<std::uint64_t>();
        }
    EXPECT_EQ(read, 2000u);
    bool hog_on_cpu0 = false;
    for (const auto& e : events(r.trace, "hog"))
        hog_on_cpu0 |= e["tid"] == 0;
    EXPECT_TRUE(hog_on_cpu0);
}

// A reboot right after the last write cuts v1's queued tail off: one instant per lost byte.
TEST(Timeline, LostBytesAreInstants) {
    const run r =
        run_traced("earlycon-pl011", "--variant v1 --payload-bytes 500 --set reset_after_write=1", 1);
    expect_format(r.trace, 1);
    const std::uint64_t lost = r.results["lost_bytes"].get<std::uint64_t>();
    EXPECT_GT(lost, 0u);
    EXPECT_EQ(events(r.trace, "console lost byte").size(), lost);
}

TEST(Timeline, SameRunSameFile) {
    const std::string d = tmpdir();
    for (const char* f : {"a", "b"})
        ASSERT_EQ(
            run_uartvp("run earlycon-pl011 --variant v2 --payload-bytes 400 --trace " + d + "/" + f + ".json")
                .code,
            0);
    EXPECT_EQ(slurp(d + "/a.json"), slurp(d + "/b.json"));
    EXPECT_GT(slurp(d + "/a.json").size(), 1000u);
}

TEST(Timeline, RefusedOrFailedRunLeavesNoFile) {
    const std::string d = tmpdir();
    expect_usage_error("run earlycon-pl011 --trace " + d + "/missing/t.json", "--trace");
    expect_usage_error("run earlycon-pl011 --trace " + d, "--trace");
    expect_usage_error("run earlycon-pl011 --trace " + d + "/t.json --json " + d + "/t.json", "same file");
    expect_usage_error("run earlycon-pl011 --fst", "--vcd");
    // A run whose summary cannot be written, and one whose timeline outgrows a file size limit (50 KB).
    const result full = run_command("(" + std::string(UARTVP_BIN) + " run earlycon-pl011 --trace " + d +
                                    "/t.json >/dev/full; echo \"code $?\")");
    EXPECT_NE(full.out.find("code 3"), std::string::npos) << full.out << full.err;
    EXPECT_EQ(entries(d), std::vector<std::string>{});
    const result big = run_command("(ulimit -f 100; " + std::string(UARTVP_BIN) +
                                   " run earlycon-pl011 --payload-bytes 20000 --trace " + d + "/t.json)");
    EXPECT_EQ(big.code, 3) << big.err;
    EXPECT_NE(big.err.find("cannot write"), std::string::npos) << big.err;
    EXPECT_EQ(entries(d), std::vector<std::string>{});
}
