// SPDX-License-Identifier: Apache-2.0
// The console-8250 scenario (seed 002) through the uartvp program: throughput of the per-character and
// FIFO paths on the slow machine and on a PC, the v6.14 FIFO timeouts against v5.19's, the loss of the
// first FIFO version before the port is started (and its garbled line), 8250_early's fixed 8N1, bad
// input, JSON.
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "program_runner.h"

using namespace uartvp::test;

namespace {

double kbps(const nlohmann::json& j) {
    return j["throughput_kbps"].get<double>();
}

// The kernel log around seed 002's garbled console, one console write per line.
std::string seed002_payload() {
    const std::string path = "/tmp/uartvp-test-seed002.txt";
    std::ofstream f(path);
    f << "[    6.443501] Serial: 8250/16550 driver, 4 ports, IRQ sharing enabled\n"
         "[    6.450643] 00:03: ttyS0 at I/O 0x3f8 (irq = 4, base_baud = 115200) is a 16550A\n"
         "[    6.451625] 00:04: ttyS1 at I/O 0x2f8 (irq = 3, base_baud = 115200) is a 16550A\n"
         "[    6.453808] Non-volatile memory driver v1.3\n"
         "[    6.475688] loop: module loaded\n"
         "[    6.476401] ahci 0000:00:1f.2: version 3.0\n"
         "[    6.487238] ahci 0000:00:1f.2: AHCI 0001.0300 32 slots 6 ports 6 Gbps 0x3f impl SATA mode\n";
    return path;
}

} // namespace

// Seed 002's slow machine: 2.5 KB/s per character, 3.1 KB/s through the FIFO (the fitted profile).
TEST(Program8250, SlowBmcThroughputOfBothPathsMatchesTheSeed) {
    const nlohmann::json pc = run_json("console-8250", "--variant putchar --profile slow-bmc");
    const nlohmann::json fifo = run_json("console-8250", "--variant fifo --profile slow-bmc");
    EXPECT_NEAR(kbps(pc), 2.5, 0.025) << "within 1 %";
    EXPECT_NEAR(kbps(fifo), 3.1, 0.031) << "within 1 %";
    EXPECT_NEAR(kbps(fifo) / kbps(pc), 3.1 / 2.5, 0.02);
    EXPECT_EQ(pc["seed_kbps"], 2.5);
    EXPECT_EQ(fifo["seed_kbps"], 3.1);
    EXPECT_EQ(pc["lost_bytes"], 0);
    EXPECT_EQ(fifo["lost_bytes"], 0);
    EXPECT_EQ(pc["tx_fifo_max"], 1) << "per character: one byte at a time";
    EXPECT_EQ(fifo["tx_fifo_max"], 16);
    EXPECT_NEAR(pc["params"]["tx_drain_ns"].get<double>(), 316500, 1);
    EXPECT_NEAR(pc["params"]["thre_delay_ns"].get<double>(), 78000, 1);
}

// The fast machine: both paths at the line rate (86.8 us per byte at 115200 8N1, 11.5 KB/s), a figure
// that follows from the inputs (the baud rate and the frame), held here.
TEST(Program8250, PcFifoPathIsNoSlowerThanPerCharacterBothHoldTheLineRate) {
    const nlohmann::json pc = run_json("console-8250", "--variant putchar --profile pc");
    const nlohmann::json fifo = run_json("console-8250", "--variant fifo --profile pc");
    EXPECT_GE(kbps(fifo), kbps(pc));
    EXPECT_NEAR(kbps(pc), 11.5, 0.1);
    EXPECT_NEAR(kbps(fifo), 11.5, 0.1);
    EXPECT_EQ(pc["params"]["port_io"], true);
    EXPECT_EQ(pc["params"]["uart_base"], 0x3F8);
    EXPECT_EQ(pc["params"]["divisor"], 1);
}

TEST(Program8250, FifoBeforeInitLosesFifteenOfEverySixteenAndLooksLikeTheSeed) {
    const std::string payload = seed002_payload();
    const nlohmann::json j =
        run_json("console-8250", "--variant fifo-before-init --profile pc --payload " + payload, 1);
    // The driver's init line (the first record) goes out whole, a character per THRE; the records after
    // it lose about 15 of every 16 bytes.
    const double init_line =
        std::string("[    6.443501] Serial: 8250/16550 driver, 4 ports, IRQ sharing enabled\r\n").size();
    const auto lost = j["lost_bytes"].get<double>(), after = j["bytes_written"].get<double>() - init_line;
    EXPECT_GT(lost / after, 0.88) << "about 15 of every 16";
    EXPECT_LT(lost / after, 15.0 / 16.0 + 0.01);
    EXPECT_EQ(j["corrupted_bytes"], 0) << "what arrives is right, only most of it is missing";
    EXPECT_EQ(j["outcome"], "difference");
    // The seed's console: "[0I 15" twice, "[No", "[ld", "[a2", "[a20tm", each on its own staircase line
    // (the '\r' is lost with the rest).
    const std::string head = j["line_text_head"].get<std::string>();
    EXPECT_NE(head.find("\n[0I 15\n[0I 15\n[No\n[ld\n[a2\n[a20tm\n"), std::string::npos) << head;
    const nlohmann::json ok = run_json(
        "console-8250", "--variant fifo-before-init --profile pc --payload " + payload + " --expect-loss", 0);
    EXPECT_EQ(ok["outcome"], "expected-loss");
    std::remove(payload.c_str());
}

// Seed 002's excerpt from the line before the driver's init: every line up to and including "Serial:
// 8250/16550 driver, 4 ports, IRQ sharing enabled" (serial8250_init prints it before autoconfig gives the
// port its FIFO) intact, the garbling from the line after it, as the seed shows the console.
TEST(Program8250, FifoBeforeInitPrintsIntactUpToTheDriversInitLine) {
    const std::string path = "/tmp/uartvp-test-seed002-before.txt";
    std::ofstream(path)
        << "[    6.370196] ACPI: button: Power Button [PWRF]\n"
           "[    6.443501] Serial: 8250/16550 driver, 4 ports, IRQ sharing enabled\n"
           "[    6.450643] 00:03: ttyS0 at I/O 0x3f8 (irq = 4, base_baud = 115200) is a 16550A\n"
           "[    6.451625] 00:04: ttyS1 at I/O 0x2f8 (irq = 3, base_baud = 115200) is a 16550A\n";
    const nlohmann::json j = run_json("console-8250", "--variant fifo-before-init --profile pc --payload " +
                                                          path + " --expect-loss");
    EXPECT_EQ(j["line_text_head"],
              "[    6.370196] ACPI: button: Power Button [PWRF]\r\n"
              "[    6.443501] Serial: 8250/16550 driver, 4 ports, IRQ sharing enabled\r\n"
              "[0I 15\n[0I 15\n");
    EXPECT_EQ(j["driver_init_record"], 2);
    // The generated log has no such line: the init comes before its first record.
    const nlohmann::json g =
        run_json("console-8250", "--variant fifo-before-init --profile pc --payload-bytes 600 --expect-loss");
    EXPECT_EQ(g["driver_init_record"], 0);
    std::remove(path.c_str());
}

TEST(Program8250, EveryVariantOnEveryProfileRunsCleanExceptTheRevertedOne) {
    for (const char* prof : {"pc", "slow-bmc", "soc"})
        for (const char* v : {"putchar", "fifo", "fifo-v6.14", "early"}) {
            const nlohmann::json j = run_json("console-8250", std::string("--variant ") + v + " --profile " +
                                                                  prof + " --payload-bytes 600");
            EXPECT_EQ(j["outcome"], "clean") << v << " on " << prof;
            EXPECT_EQ(j["bytes_on_line"], j["bytes_written"]) << v << " on " << prof;
        }
    const nlohmann::json soc = run_json("console-8250", "--variant fifo --profile soc --payload-bytes 600");
    EXPECT_EQ(soc["params"]["reg_shift"], 2);
    EXPECT_EQ(soc["params"]["reg_io_width"], 4);
    EXPECT_EQ(soc["params"]["divisor"], 13);
}

TEST(Program8250, JsonCarriesTheEarlyconFieldsPlusThroughput) {
    const nlohmann::json j = run_json("console-8250", "--variant fifo --payload-bytes 300");
    for (const char* k : {"schema_version",   "scenario",      "variant",          "profile",
                          "params",           "sim_time_ns",   "line_idle_ns",     "wall_s",
                          "bytes_written",    "bytes_on_line", "lost_bytes",       "corrupted_bytes",
                          "duplicated_bytes", "extra_bytes",   "first_difference", "mmio_reads",
                          "mmio_writes",      "polls",         "irq_off_max_ns",   "irq_off_total_ns",
                          "tx_fifo_max",      "outcome",       "throughput_kbps"})
        EXPECT_TRUE(j.contains(k)) << k;
    EXPECT_NEAR(kbps(j), j["bytes_written"].get<double>() / j["sim_time_ns"].get<double>() * 1e6, 1e-9);
    EXPECT_GT(j["irq_off_max_ns"].get<double>(), 0) << "the console write holds the port lock, IRQs off";
}

TEST(Program8250, ResultsAreDeterministic) {
    nlohmann::json a = run_json("console-8250", "--variant fifo --profile slow-bmc --payload-bytes 800");
    nlohmann::json b = run_json("console-8250", "--variant fifo --profile slow-bmc --payload-bytes 800");
    a.erase("wall_s");
    b.erase("wall_s");
    EXPECT_EQ(a, b);
}

TEST(Program8250, CompareShowsKilobytesPerSecondBesideTheSeed) {
    const result r = run_uartvp("compare console-8250 --profile slow-bmc --payload-bytes 1200");
    EXPECT_EQ(r.code, 1) << "fifo-before-init loses bytes: " << r.err;
    for (const char* w : {"KB/s", "seed KB/s", "2.5", "3.1", "putchar", "fifo-v6.14", "fifo-before-init",
                          "early", "obtained", "1.000  fitted"})
        EXPECT_NE(r.out.find(w), std::string::npos) << w << "\n" << r.out;
    const result ok = run_uartvp("compare console-8250 --profile pc --payload-bytes 600 --expect-loss");
    EXPECT_EQ(ok.code, 0) << ok.err;
    EXPECT_NE(ok.out.find("follows from inputs"), std::string::npos) << "the line rate\n" << ok.out;
}

TEST(Program8250, BadInputGetsOneLineAndExitCode2) {
    expect_usage_error("run console-8250 --variant nope", "nope");
    expect_usage_error("run console-8250 --profile moon", "moon");
    expect_usage_error("run console-8250 --set fifo_depth=32", "fifo_depth");
    expect_usage_error("run console-8250 --set reg_shift=3", "reg_shift");
    expect_usage_error("run console-8250 --set reg_io_width=4", "reg_io_width"); // port I/O: bytes
    expect_usage_error("run console-8250 --profile soc --set reg_shift=0", "reg_io_width");
    expect_usage_error("run console-8250 --set thre_delay_ns=-5", "thre_delay_ns");
    expect_usage_error("run console-8250 --set tx_drain_ns=x", "tx_drain_ns");
    expect_usage_error("run console-8250 --set uart_base=0x3F9", "uart_base");
    expect_usage_error("run console-8250 --set baud=921600", "impossible");
    expect_usage_error("run earlycon-pl011 --set thre_delay_ns=5", "16550");
    // The PL011's checks are unchanged.
    expect_usage_error("run earlycon-pl011 --set fifo_depth=64", "fifo_depth");
    expect_usage_error("run earlycon-pl011 --set uart_base=0x3F8", "4 KiB");
    const nlohmann::json j =
        run_json("earlycon-pl011", "--variant v1 --payload-bytes 100 --set fifo_depth=16");
    EXPECT_EQ(j["params"]["fifo_depth"], 16);
}

// Fast mode (promised LSR values let polling loops run as one operation) against reference mode (every
// poll a transaction): the same simulated results.
TEST(Program8250, FastModeGivesTheSameResultsAsReference) {
    for (const char* args : {"--variant early --profile soc", "--variant early --profile pc",
                             "--variant fifo --profile slow-bmc"}) {
        nlohmann::json f = run_json("console-8250", std::string(args) + " --payload-bytes 400");
        nlohmann::json r =
            run_json("console-8250", std::string(args) + " --payload-bytes 400 --mode reference");
        for (const char* host : {"wall_s", "transactions", "rtl_eval_s", "host"}) {
            f.erase(host);
            r.erase(host);
        }
        for (const char* mode : {"mode", "line_model"}) { // reference mode takes the pins
            f["params"].erase(mode);
            r["params"].erase(mode);
        }
        EXPECT_EQ(f, r) << args;
    }
}

// A part slower than one wait_for_lsr (10000 reads with udelay(1): 27 ms at 1.7 us per port read) per
// burst: 2 ms per byte, 32 ms per 16. v5.19 waits once and writes the next burst into a FIFO still
// holding bytes (lost); since v6.14 the wait allows one timeout per FIFO byte.
TEST(Program8250, FifoV614WaitsOneTimeoutPerFifoByteWhereV519Overruns) {
    const std::string args = " --profile pc --payload-bytes 300 --set tx_drain_ns=2000000";
    const nlohmann::json v519 = run_json("console-8250", "--variant fifo" + args, 1);
    const nlohmann::json v614 = run_json("console-8250", "--variant fifo-v6.14" + args);
    EXPECT_GT(v519["lost_bytes"].get<int>(), 0);
    EXPECT_EQ(v519["corrupted_bytes"], 0) << "whole bytes dropped at the full FIFO";
    EXPECT_EQ(v614["lost_bytes"], 0);
    EXPECT_EQ(v614["outcome"], "clean");
    EXPECT_EQ(v614["tx_fifo_max"], 16);
}

// The wait after the last burst: one record of 16 bytes, then a reboot as the write returns. v5.19's
// final THRE|TEMT wait gives up after one timeout with bytes still queued; v6.14 first waits for THRE
// with one timeout per byte of that burst, so the record is on the line when the write returns.
TEST(Program8250, FifoV614WaitsForTheLastBurstBeforeReturning) {
    const std::string payload = "/tmp/uartvp-test-one-burst.txt";
    std::ofstream(payload) << "0123456789abcd\n"; // 16 bytes with the '\r'
    const std::string args =
        " --profile pc --payload " + payload + " --set tx_drain_ns=2000000 --set reset_after_write=1";
    const nlohmann::json v519 = run_json("console-8250", "--variant fifo" + args, 1);
    const nlohmann::json v614 = run_json("console-8250", "--variant fifo-v6.14" + args);
    EXPECT_EQ(v519["bytes_written"], 16);
    EXPECT_GT(v519["lost_bytes"].get<int>(), 0) << "the tail still in the FIFO at the reboot";
    EXPECT_EQ(v614["lost_bytes"], 0);
    EXPECT_GE(v614["sim_time_ns"].get<double>(), 16 * 2e6) << "returned after the last byte left";
    std::remove(payload.c_str());
}

// On the seed's machines nothing times out: fifo-v6.14 gives fifo's rates (it has no seed figure of its
// own: seed 002 was measured with v5.19).
TEST(Program8250, FifoV614MatchesFifoWhereNoWaitTimesOut) {
    for (const char* prof : {"slow-bmc", "pc"}) {
        const nlohmann::json a = run_json("console-8250", std::string("--variant fifo --profile ") + prof);
        const nlohmann::json b =
            run_json("console-8250", std::string("--variant fifo-v6.14 --profile ") + prof);
        EXPECT_NEAR(kbps(b), kbps(a), kbps(a) * 1e-3) << prof;
        EXPECT_FALSE(b.contains("seed_kbps")) << prof;
        EXPECT_EQ(b["lost_bytes"], 0) << prof;
    }
}

// 8250_early's init_port programs 8N1 whatever frame was asked for: early and fifo-before-init (which
// runs on the port as 8250_early left it) refuse another frame before running; run and compare name
// the variants. The other variants program the frame asked for.
TEST(Program8250, EarlyVariantsAre8N1AndRefuseAnotherFrame) {
    for (const char* v : {"early", "fifo-before-init"}) {
        expect_usage_error(std::string("run console-8250 --variant ") + v + " --set frame=7E1",
                           "8250_early programs 8N1");
        const nlohmann::json j =
            run_json("console-8250", std::string("--variant ") + v + " --payload-bytes 200 --expect-loss");
        EXPECT_EQ(j["params"]["frame"], "8N1");
        EXPECT_EQ(j["framing_errors"], 0) << v;
    }
    const result c = run_uartvp("compare console-8250 --payload-bytes 200 --set frame=7E1");
    EXPECT_EQ(c.code, 2);
    EXPECT_EQ(lines(c.err), 1) << c.err;
    for (const char* w : {"8250_early programs 8N1", "early", "fifo-before-init", "7E1"})
        EXPECT_NE(c.err.find(w), std::string::npos) << w << ": " << c.err;
    EXPECT_TRUE(c.out.empty()) << "nothing run: " << c.out;
    const nlohmann::json ok =
        run_json("console-8250", "--variant putchar --payload-bytes 200 --set frame=7E1");
    EXPECT_EQ(ok["outcome"], "clean");
    EXPECT_EQ(ok["params"]["frame"], "7E1");
    EXPECT_EQ(run_uartvp("compare console-8250 --payload-bytes 200 --set frame=8N1 --expect-loss").code, 0);
}
