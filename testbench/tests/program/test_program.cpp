// SPDX-License-Identifier: Apache-2.0
// The uartvp program as a user runs it: its answers to bad input (one line, exit code 2, no output file
// left), its JSON, and the earlycon-pl011 scenario's outcomes (seed 000, and the legacy console write
// per PL011 vendor).
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "program_runner.h"

using namespace uartvp::test;

TEST(Program, BadInputGetsOneLineAndExitCode2) {
    expect_usage_error("run no-such-scenario", "no-such-scenario");
    expect_usage_error("run earlycon-pl011 --variant v9", "v9");
    expect_usage_error("run earlycon-pl011 --profile moon", "moon");
    expect_usage_error("run earlycon-pl011 --set colour=blue", "colour");
    expect_usage_error("run earlycon-pl011 --set baud=fast", "baud=fast");
    expect_usage_error("run earlycon-pl011 --set baud", "baud");
    expect_usage_error("run earlycon-pl011 --set frame=9Q1", "frame=9Q1");
    expect_usage_error("run earlycon-pl011 --set baud=3000000", "impossible"); // 24 MHz / 16 < 3 Mbaud
    expect_usage_error("run earlycon-pl011 --set fifo_depth=64", "fifo_depth");
    expect_usage_error("run earlycon-pl011 --payload /nonexistent/log.txt", "/nonexistent/log.txt");
    expect_usage_error("run earlycon-pl011 --payload /tmp", "/tmp");
    expect_usage_error("run earlycon-pl011 --payload-bytes 0", "payload-bytes");
    expect_usage_error("run earlycon-pl011 --payload-bytes 10 --payload /etc/hostname", "payload");
    expect_usage_error("frobnicate", "frobnicate");
    expect_usage_error("compare earlycon-pl011 --set baud=0", "baud=0");
}

TEST(Program, UnwritableOutputIsRefusedBeforeRunningAndLeavesNothing) {
    const result r = run_uartvp("run earlycon-pl011 --payload-bytes 100 --json /nonexistent-dir/out.json");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("/nonexistent-dir/out.json"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << "nothing was run";
    // A bad input after a good --json path leaves no file behind either.
    const std::string path = "/tmp/uartvp-test-never-written.json";
    std::remove(path.c_str());
    const result r2 = run_uartvp("run earlycon-pl011 --set baud=x --json " + path);
    EXPECT_EQ(r2.code, 2);
    EXPECT_FALSE(std::ifstream(path).good());
}

TEST(Program, HelpListAndVersion) {
    const result h = run_uartvp("--help");
    EXPECT_EQ(h.code, 0);
    EXPECT_NE(h.out.find("Exit codes"), std::string::npos);
    const result v = run_uartvp("--version");
    EXPECT_EQ(v.code, 0);
    EXPECT_NE(v.out.find("uartvp "), std::string::npos);
    const result l = run_uartvp("list");
    EXPECT_EQ(l.code, 0);
    for (const char* w : {"earlycon-pl011", "v0", "v1", "v2", "qdf2400-e44", "console", "hw", "vm", "baud"})
        EXPECT_NE(l.out.find(w), std::string::npos) << w;
    EXPECT_TRUE(l.err.empty()) << l.err;
}

TEST(Program, JsonCarriesTheSchemaAndEveryParameter) {
    const nlohmann::json j =
        run_json("earlycon-pl011", "--variant v1 --payload-bytes 300 --set frame=7E1 --set baud=230400");
    EXPECT_EQ(j["schema_version"], 1);
    for (const char* k : {"scenario", "variant", "profile", "sim_time_ns", "wall_s", "bytes_written",
                          "bytes_on_line", "lost_bytes", "corrupted_bytes", "mmio_reads", "mmio_writes",
                          "polls", "irq_off_max_ns", "tx_fifo_max", "params"})
        EXPECT_TRUE(j.contains(k)) << k;
    EXPECT_EQ(j["params"]["frame"], "7E1");
    EXPECT_EQ(j["params"]["baud"], 230400);
    EXPECT_EQ(j["params"]["uartclk_hz"], 24000000);
    EXPECT_EQ(j["lost_bytes"], 0) << "7E1 compares the low 7 bits only";
    EXPECT_EQ(j["bytes_on_line"], j["bytes_written"]);
}

// Seed 000 in the VMM: v0 pays one more trapped read per byte than v1; v2 one per console write.
TEST(Program, EarlyconVmV0PaysOneMoreTrappedReadPerByte) {
    const nlohmann::json v0 = run_json("earlycon-pl011", "--variant v0 --profile vm --payload-bytes 5000");
    const nlohmann::json v1 = run_json("earlycon-pl011", "--variant v1 --profile vm --payload-bytes 5000");
    const nlohmann::json v2 = run_json("earlycon-pl011", "--variant v2 --profile vm --payload-bytes 5000");
    const auto n = v0["bytes_written"].get<std::uint64_t>();
    EXPECT_EQ(v0["mmio_reads"].get<std::uint64_t>() - v1["mmio_reads"].get<std::uint64_t>(), n);
    EXPECT_EQ(v2["mmio_reads"].get<std::uint64_t>() - v1["mmio_reads"].get<std::uint64_t>(),
              v0["payload_lines"].get<std::uint64_t>());
    EXPECT_GT(v0["sim_time_ns"].get<double>(), v2["sim_time_ns"].get<double>());
    EXPECT_GT(v2["sim_time_ns"].get<double>(), v1["sim_time_ns"].get<double>());
    // The delta is one trap per byte.
    const double trap = v0["params"]["mmio_read_ns"].get<double>();
    EXPECT_NEAR(v0["sim_time_ns"].get<double>() - v1["sim_time_ns"].get<double>(), n * trap, n * 1.0);
    for (const auto* j : {&v0, &v1, &v2})
        EXPECT_EQ((*j)["lost_bytes"], 0);
}

// On an SoC the per-byte BUSY wait keeps the FIFO at one entry; without it the FIFO fills up.
// v0 written as the kernel writes it, literal loops instead of spin_while: every figure but the host's
// is v0's, and the reads its loops make are mostly answered from the FR promises, not transactions.
TEST(Program, EarlyconV0LiteralGivesV0sFiguresWithoutATransactionPerRead) {
    for (const char* profile : {"hw", "vm"}) {
        const std::string common = std::string("--profile ") + profile + " --payload-bytes 3000";
        nlohmann::json v0 = run_json("earlycon-pl011", common + " --variant v0");
        nlohmann::json lit = run_json("earlycon-pl011", common + " --variant v0-literal");
        ASSERT_FALSE(v0.is_null());
        ASSERT_FALSE(lit.is_null());
        EXPECT_EQ(lit["variant"], "v0-literal");
        if (std::string(profile) == "hw") {
            // Each byte waits a character time, some 700 FR reads: all but a few answered by a promise.
            EXPECT_GT(lit["mmio_reads"].get<double>(), 100 * lit["bytes_written"].get<double>());
            EXPECT_LT(lit["transactions"].get<double>(), 10 * lit["bytes_written"].get<double>());
        }
        for (nlohmann::json* j : {&v0, &lit})
            for (const char* k : {"variant", "wall_s", "rtl_edges_evaluated", "rtl_eval_s", "peak_rss_mb",
                                  "transactions", "host"})
                j->erase(k);
        EXPECT_EQ(v0, lit) << profile << "\nv0: " << v0.dump() << "\nv0-literal: " << lit.dump();
    }
}

TEST(Program, EarlyconHwFifoHighWaterMarks) {
    const nlohmann::json v0 = run_json("earlycon-pl011", "--variant v0 --payload-bytes 400");
    const nlohmann::json v1 = run_json("earlycon-pl011", "--variant v1 --payload-bytes 400");
    const nlohmann::json v2 =
        run_json("earlycon-pl011", "--variant v2 --payload-bytes 400 --set fifo_depth=16");
    EXPECT_EQ(v0["tx_fifo_max"], 1);
    EXPECT_EQ(v1["tx_fifo_max"], 32);
    EXPECT_EQ(v2["tx_fifo_max"], 16);
    // v0 stalls a whole character time per byte: hundreds of FR reads per byte at 115200.
    EXPECT_GT(v0["mmio_reads"].get<double>() / v0["bytes_written"].get<double>(), 500);
    EXPECT_LT(v1["sim_time_ns"].get<double>(), v0["sim_time_ns"].get<double>());
}

// The flush guarantee: a reset right after the last write returns loses v1's queued tail, none of v2's.
TEST(Program, EarlyconResetAfterLastWriteLosesTheTailOfV1Only) {
    const nlohmann::json v1 =
        run_json("earlycon-pl011", "--variant v1 --payload-bytes 600 --set reset_after_write=1", 1);
    EXPECT_GT(v1["lost_bytes"].get<int>(), 1);
    EXPECT_LE(v1["lost_bytes"].get<int>(), 33) << "at most the FIFO and the shift register";
    EXPECT_EQ(v1["first_difference"]["kind"], "lost");
    EXPECT_EQ(v1["outcome"], "difference");
    const nlohmann::json v2 =
        run_json("earlycon-pl011", "--variant v2 --payload-bytes 600 --set reset_after_write=1");
    EXPECT_EQ(v2["lost_bytes"], 0);
    // Told to expect the loss, v1 exits 0.
    const nlohmann::json v1e = run_json(
        "earlycon-pl011", "--variant v1 --payload-bytes 600 --set reset_after_write=1 --expect-loss");
    EXPECT_EQ(v1e["outcome"], "expected-loss");
}

TEST(Program, CompareRunsEveryVariantWithRatiosToTheFirst) {
    const result r = run_uartvp("compare earlycon-pl011 --profile vm --payload-bytes 2000");
    EXPECT_EQ(r.code, 0) << r.err;
    for (const char* v :
         {"v0", "v0-literal", "v1", "v2", "qdf2400-e44", "console", "console-sbsa", "console-qdf2400-e44"})
        EXPECT_NE(r.out.find(v), std::string::npos) << v;
    EXPECT_NE(r.out.find("1.000"), std::string::npos) << "the baseline's ratio";
    EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(Program, OutputsMustBeFilesOfTheirOwn) {
    char dir[] = "/tmp/uartvp-outputs-XXXXXX";
    const std::string d = mkdtemp(dir);
    mkdir((d + "/dir.json").c_str(), 0755);
    mkdir((d + "/w.gtkw").c_str(), 0755);
    std::ofstream(d + "/log.txt") << "[    0.000000] hello\n";
    expect_usage_error("run earlycon-pl011 --payload-bytes 100 --vcd " + d + "/v.vcd --json " + d +
                           "/dir.json",
                       "not a file");
    expect_usage_error("run earlycon-pl011 --payload-bytes 100 --vcd " + d + "/w.vcd", "w.gtkw");
    expect_usage_error("run earlycon-pl011 --payload " + d + "/log.txt --json " + d + "/log.txt",
                       "same file");
    expect_usage_error("run earlycon-pl011 --payload-bytes 100 --vcd " + d + "/x.vcd --json " + d + "/../" +
                           d.substr(d.rfind('/') + 1) + "/x.vcd",
                       "same file");
    EXPECT_EQ(slurp(d + "/log.txt"), "[    0.000000] hello\n") << "the payload is untouched";
    for (const char* f : {"/v.vcd", "/v.gtkw", "/v.lines.vcd", "/w.vcd", "/x.vcd"})
        EXPECT_FALSE(std::ifstream(d + f).good()) << f << " left behind";
}

// The legacy console write per vendor, in the VMM (no polling: every read returns at once): ARM's PL011
// saves and restores CR around each record (one read, two writes), the SBSA UART and QDF2400 leave CR
// alone; all read FR once per byte (TXFF) and once per record (the final wait).
TEST(Program, EarlyconLegacyConsoleTouchesCrOnlyOnArmsPl011) {
    const std::string args = " --profile vm --payload-bytes 3000";
    const nlohmann::json arm = run_json("earlycon-pl011", "--variant console" + args);
    const nlohmann::json sbsa = run_json("earlycon-pl011", "--variant console-sbsa" + args);
    const nlohmann::json qdf = run_json("earlycon-pl011", "--variant console-qdf2400-e44" + args);
    const auto bytes = arm["bytes_written"].get<std::uint64_t>(),
               lines = arm["payload_lines"].get<std::uint64_t>();
    EXPECT_EQ(arm["mmio_writes"].get<std::uint64_t>(), bytes + 2 * lines)
        << "DR per byte, CR twice per record";
    EXPECT_EQ(arm["mmio_reads"].get<std::uint64_t>(), bytes + 2 * lines)
        << "FR per byte, CR and FR per record";
    for (const auto* j : {&sbsa, &qdf}) {
        EXPECT_EQ((*j)["mmio_writes"].get<std::uint64_t>(), bytes) << (*j)["variant"];
        EXPECT_EQ((*j)["mmio_reads"].get<std::uint64_t>(), bytes + lines) << (*j)["variant"];
        EXPECT_EQ((*j)["lost_bytes"], 0);
        EXPECT_GT((*j)["irq_off_max_ns"].get<double>(), 0) << "IRQs off for each record, as on ARM's part";
    }
    EXPECT_LT(sbsa["sim_time_ns"].get<double>(), arm["sim_time_ns"].get<double>());
}

// Where the CPU waits at the end of a record: on BUSY (the last stop bit has left) for ARM's PL011 and
// the SBSA UART; on TXFE for QDF2400 (erratum 44), which returns as the last character starts, one
// character time (86.8 us at 115200 8N1) before the line is idle.
TEST(Program, EarlyconQdf2400ConsoleReturnsOnTxfeOneCharacterBeforeTheLineIsIdle) {
    const nlohmann::json sbsa = run_json("earlycon-pl011", "--variant console-sbsa --payload-bytes 600");
    const nlohmann::json qdf =
        run_json("earlycon-pl011", "--variant console-qdf2400-e44 --payload-bytes 600");
    const double char_ns = 10 * 16 * (13 + 1 / 64.0) / 24e6 * 1e9; // 24 MHz, IBRD 13, FBRD 1
    EXPECT_LE(sbsa["line_idle_ns"].get<double>(), sbsa["sim_time_ns"].get<double>())
        << "BUSY clear: the line is idle when the record returns";
    const double early = qdf["line_idle_ns"].get<double>() - qdf["sim_time_ns"].get<double>();
    EXPECT_GT(early, 0.9 * char_ns) << "TXFE: the last character is still on the wire";
    EXPECT_LE(early, char_ns);
    EXPECT_EQ(qdf["tx_fifo_max"], 32) << "no wait per byte: the FIFO fills, unlike the qdf2400-e44 earlycon";
    EXPECT_EQ(qdf["lost_bytes"], 0);
}

// The console scenarios print from core 0: with more cores the others stay idle and every simulated
// figure is the one-core run's; each core and task is reported.
TEST(Program, MoreCoresLeaveEveryConsoleResultAsOnOneCore) {
    for (const std::string& scenario : {std::string("earlycon-pl011 --variant console --profile hw"),
                                        std::string("console-8250 --variant fifo --profile pc")}) {
        const std::string sc = scenario.substr(0, scenario.find(' ')),
                          rest = scenario.substr(scenario.find(' '));
        const nlohmann::json one = run_json(sc, rest + " --payload-bytes 2000");
        const nlohmann::json four = run_json(sc, rest + " --payload-bytes 2000 --set cores=4");
        for (const auto& [key, value] : one.items()) {
            if (key == "wall_s" || key == "transactions" || key == "rtl_edges_evaluated" ||
                key == "rtl_eval_s" || key == "params" || key == "per_core" || key == "tasks")
                continue;
            EXPECT_EQ(four[key], value) << sc << ": " << key;
        }
        ASSERT_EQ(one["per_core"].size(), 1u);
        ASSERT_EQ(four["per_core"].size(), 4u);
        EXPECT_EQ(four["params"]["cores"], 4);
        for (unsigned c = 1; c < 4; ++c) {
            EXPECT_EQ(four["per_core"][c]["cpu"], c);
            EXPECT_EQ(four["per_core"][c]["busy_ns"], 0.0) << sc << ": core " << c << " stays idle";
        }
        EXPECT_EQ(four["per_core"][0]["irq_off_max_ns"], four["irq_off_max_ns"]);
        EXPECT_GT(four["per_core"][0]["busy_ns"].get<double>(), 0.0);
        ASSERT_GE(four["tasks"].size(), 2u);
        EXPECT_EQ(four["tasks"][1]["name"], "boot");
        EXPECT_EQ(four["tasks"][1]["cpu"], 0);
        EXPECT_TRUE(four["irq_lines"].is_array());
        EXPECT_TRUE(four["csd_reports"].empty());
    }
    const result bad = run_uartvp("run earlycon-pl011 --set cores=129");
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("cores from 1 to 128"), std::string::npos) << bad.err;
    EXPECT_EQ(run_uartvp("run console-8250 --set cores=0").code, 2);
}
