// SPDX-License-Identifier: Apache-2.0
// earlycon-pl011 and console-8250 print through printk: each payload line is one record, written by
// printk's legacy loop (console_emit_next_record), IRQs off for the record. Held against the figures the
// scenarios gave before, when the routines were called directly: every simulated figure but the
// IRQs-off ones is unchanged, and a routine that did not hold IRQs off itself now has them off for
// exactly its records.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

#include "program_runner.h"

using namespace uartvp::test;

namespace {

struct before {
    const char* scenario;
    const char* args;
    double sim_time_ns, line_idle_ns;
    std::uint64_t reads, writes, polls, bytes_written, bytes_on_line, lost, fifo_max, lines;
    double irq_off_max_ns, irq_off_total_ns; // 0 where the routine itself never held IRQs off
};

// Recorded with the routines called directly (the scenarios before printk printed their records).
const before figures[] = {
    {"earlycon-pl011", "--variant v0", 363310072.0, 363309908.333, 2928175, 4161, 2919853, 4161, 4161, 0, 1,
     65, 0.0, 0.0},
    {"earlycon-pl011", "--profile vm --payload-bytes 99000 --variant v0", 113662107.0, 113661605.625, 200994,
     100497, 0, 100497, 100497, 0, 1, 1497, 0.0, 0.0},
    {"earlycon-pl011", "--variant v1", 358190636.0, 361053866.667, 2886755, 4161, 2882594, 4161, 4161, 0, 32,
     65, 0.0, 0.0},
    {"earlycon-pl011", "--profile vm --payload-bytes 99000 --variant v1", 75774738.0, 75774613.438, 100497,
     100497, 0, 100497, 100497, 0, 1, 1497, 0.0, 0.0},
    {"earlycon-pl011", "--variant v2", 361088752.0, 361088575.0, 2910129, 4161, 2905903, 4161, 4161, 0, 32,
     65, 0.0, 0.0},
    {"earlycon-pl011", "--profile vm --payload-bytes 99000 --variant v2", 76339107.0, 76338605.625, 101994,
     100497, 0, 100497, 100497, 0, 1, 1497, 0.0, 0.0},
    {"earlycon-pl011", "--variant qdf2400-e44", 360967340.0, 361053866.667, 2909282, 4161, 2900960, 4161,
     4161, 0, 1, 65, 0.0, 0.0},
    {"earlycon-pl011", "--profile vm --payload-bytes 99000 --variant qdf2400-e44", 113662107.0, 113661605.625,
     200994, 100497, 0, 100497, 100497, 0, 1, 1497, 0.0, 0.0},
    {"earlycon-pl011", "--variant console", 361117000.0, 361116783.333, 2910296, 4291, 2906005, 4161, 4161, 0,
     32, 65, 16140448.0, 361117000.0},
    {"earlycon-pl011", "--profile vm --payload-bytes 99000 --variant console", 78032214.0, 78031335.313,
     103491, 103491, 0, 100497, 100497, 0, 1, 1497, 141752.0, 78032214.0},
    {"earlycon-pl011", "--variant console-sbsa", 361088752.0, 361088575.0, 2910129, 4161, 2905903, 4161, 4161,
     0, 32, 65, 16139836.0, 361088752.0},
    {"earlycon-pl011", "--profile vm --payload-bytes 99000 --variant console-sbsa", 76339107.0, 76338605.625,
     101994, 100497, 0, 100497, 100497, 0, 1, 1497, 140621.0, 76339107.0},
    {"earlycon-pl011", "--variant console-qdf2400-e44", 360967356.0, 361053866.667, 2909150, 4161, 2904924,
     4161, 4161, 0, 32, 65, 16139340.0, 360967356.0},
    {"earlycon-pl011", "--profile vm --payload-bytes 99000 --variant console-qdf2400-e44", 76339107.0,
     76338605.625, 101994, 100497, 0, 100497, 100497, 0, 1, 1497, 140621.0, 76339107.0},
    {"earlycon-pl011", "--variant v0 --set frame=7E2 --set baud=57600 --set reset_after_write=1", 799310316.0,
     799310116.667, 6444306, 4161, 6435984, 4161, 4161, 0, 1, 65, 0.0, 0.0},
    {"earlycon-pl011", "--variant v1 --set reset_after_write=1 --expect-loss", 358190636.0, 358190658.333,
     2886755, 4161, 2882594, 4161, 4128, 33, 32, 65, 0.0, 0.0},
    {"earlycon-pl011", "--variant v2 --mode reference --payload-bytes 1500", 132426460.0, 132426283.333,
     1067267, 1526, 1065715, 1526, 1526, 0, 32, 26, 0.0, 0.0},
    {"earlycon-pl011", "--plugin " TEST_PLUGIN " --variant literal-v0", 363310072.0, 363309908.333, 2928175,
     4161, 2919853, 4161, 4161, 0, 1, 65, 0.0, 0.0},
    {"earlycon-pl011", "--plugin " TEST_PLUGIN " --variant sbsa-by-setup --profile vm", 3161899.0,
     3161397.813, 4226, 4161, 0, 4161, 4161, 0, 1, 65, 140621.0, 3161899.0},
    {"console-8250", "--profile pc --variant putchar --expect-loss", 221029300.0, 221023581.597, 81185, 2614,
     0, 2538, 2538, 0, 1, 38, 16164200.0, 221029300.0},
    {"console-8250", "--profile pc --variant fifo --expect-loss", 221028500.0, 221023581.597, 80311, 2614, 0,
     2538, 2538, 0, 16, 38, 16165400.0, 221028500.0},
    {"console-8250", "--profile pc --variant fifo-v6.14 --expect-loss", 221020200.0, 221016528.646, 80322,
     2614, 0, 2538, 2538, 0, 16, 38, 16164400.0, 221020200.0},
    {"console-8250", "--profile pc --variant fifo-before-init --expect-loss", 19611000.0, 19605395.833, 5726,
     2614, 0, 2538, 217, 2321, 1, 38, 1149700.0, 19611000.0},
    {"console-8250", "--profile pc --variant early --expect-loss", 250483585.248, 250480504.34, 144666, 2538,
     142128, 2538, 2538, 0, 0, 38, 0.0, 0.0},
    {"console-8250", "--profile slow-bmc --variant putchar --expect-loss", 1011010160.0, 1011006220.486,
     368314, 2614, 0, 2538, 2538, 0, 1, 38, 74051320.0, 1011010160.0},
    {"console-8250", "--profile slow-bmc --variant fifo --expect-loss", 818640100.0, 818634801.215, 297245,
     2614, 0, 2538, 2538, 0, 16, 38, 59859500.0, 818640100.0},
    {"console-8250", "--profile slow-bmc --variant fifo-v6.14 --expect-loss", 818662380.0, 818658130.208,
     297267, 2614, 0, 2538, 2538, 0, 16, 38, 59861240.0, 818662380.0},
    {"console-8250", "--profile slow-bmc --variant fifo-before-init --expect-loss", 72352140.0, 72347828.854,
     24891, 2614, 0, 2538, 179, 2359, 1, 38, 4811900.0, 72352140.0},
    {"console-8250", "--profile slow-bmc --variant early --expect-loss", 1051932920.688, 1051930619.653,
     601506, 2538, 598968, 2538, 2538, 0, 1, 38, 0.0, 0.0},
    {"console-8250", "--profile soc --variant putchar --expect-loss", 220332120.0, 220331650.0, 198919, 2614,
     0, 2538, 2538, 0, 1, 38, 16129360.0, 220332120.0},
    {"console-8250", "--profile soc --variant fifo --expect-loss", 220329040.0, 220327858.333, 196810, 2614,
     0, 2538, 2538, 0, 16, 38, 16129760.0, 220329040.0},
    {"console-8250", "--profile soc --variant fifo-v6.14 --expect-loss", 220328000.0, 220327816.667, 196843,
     2614, 0, 2538, 2538, 0, 16, 38, 16129880.0, 220328000.0},
    {"console-8250", "--profile soc --variant fifo-before-init --expect-loss", 19181600.0, 19180780.0, 17248,
     2614, 0, 2538, 217, 2321, 1, 38, 1136440.0, 19181600.0},
    {"console-8250", "--profile soc --variant early --expect-loss", 242470368.0, 242470196.667, 1954260, 2538,
     1951722, 2538, 2538, 0, 0, 38, 0.0, 0.0},
    {"console-8250", "--plugin " TEST_PLUGIN " --variant my-putchar", 221029300.0, 221023581.597, 81185, 2614,
     0, 2538, 2538, 0, 1, 38, 16164200.0, 221029300.0},
    {"console-8250", "--variant putchar --set frame=7E1", 221029300.0, 221023581.597, 81185, 2614, 0, 2538,
     2538, 0, 1, 38, 16164200.0, 221029300.0},
};

void expect_as_before(const before& b) {
    SCOPED_TRACE(std::string(b.scenario) + " " + b.args);
    const nlohmann::json j = run_json(b.scenario, b.args, 0);
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["sim_time_ns"].get<double>(), b.sim_time_ns);
    EXPECT_EQ(j["line_idle_ns"].get<double>(), b.line_idle_ns);
    EXPECT_EQ(j["mmio_reads"], b.reads);
    EXPECT_EQ(j["mmio_writes"], b.writes);
    EXPECT_EQ(j["polls"], b.polls);
    EXPECT_EQ(j["bytes_written"], b.bytes_written);
    EXPECT_EQ(j["bytes_on_line"], b.bytes_on_line);
    EXPECT_EQ(j["lost_bytes"], b.lost);
    EXPECT_EQ(j["tx_fifo_max"], b.fifo_max);
    EXPECT_EQ(j["payload_lines"], b.lines);
    EXPECT_EQ(j["corrupted_bytes"], 0);
    EXPECT_EQ(j["extra_bytes"], 0);
    // The boot task does nothing but print records, each with IRQs off from before its first access to
    // after its last: the IRQs-off total is its whole time.
    EXPECT_EQ(j["irq_off_total_ns"].get<double>(), j["sim_time_ns"].get<double>());
    if (b.irq_off_total_ns > 0) {
        // The full drivers' consoles held IRQs off for the record already: nothing moves.
        EXPECT_EQ(j["irq_off_max_ns"].get<double>(), b.irq_off_max_ns);
        EXPECT_EQ(j["irq_off_total_ns"].get<double>(), b.irq_off_total_ns);
    } else {
        EXPECT_GT(j["irq_off_max_ns"].get<double>(), 0) << "an early console's record, IRQs off";
    }
}

} // namespace

TEST(PrintkConsoles, EarlyconFiguresAreAsBeforeButIrqsOff) {
    for (const before& b : figures)
        if (std::string(b.scenario) == "earlycon-pl011") expect_as_before(b);
}

TEST(PrintkConsoles, Console8250FiguresAreAsBeforeButIrqsOff) {
    for (const before& b : figures)
        if (std::string(b.scenario) == "console-8250") expect_as_before(b);
}

// The earlycon's v2 makes the reads and writes of the SBSA vendor's legacy console, at the same times (one
// BUSY wait per record; 8-bit DR stores where the console's are 32-bit, at the same cost): inside
// printk's loop it holds IRQs off as long.
TEST(PrintkConsoles, EarlyconV2HoldsIrqsOffAsLongAsTheSbsaConsole) {
    const nlohmann::json v2 = run_json("earlycon-pl011", "--variant v2");
    const nlohmann::json sbsa = run_json("earlycon-pl011", "--variant console-sbsa");
    EXPECT_EQ(v2["irq_off_max_ns"], sbsa["irq_off_max_ns"]);
    EXPECT_EQ(v2["irq_off_total_ns"], sbsa["irq_off_total_ns"]);
    EXPECT_EQ(v2["per_core"][0]["irq_off_windows"], sbsa["per_core"][0]["irq_off_windows"]);
}

// A payload's lines are records already formatted: printk adds no time prefix, keeps a line longer
// than the kernel's 1024-byte record, and each record is its own IRQs-off window.
TEST(PrintkConsoles, PayloadLinesAreWrittenAsGivenOneIrqsOffWindowEach) {
    char tmpl[] = "/tmp/uartvp-records-XXXXXX";
    const int fd = mkstemp(tmpl);
    ASSERT_GE(fd, 0);
    close(fd);
    const std::string text = "[    0.000000] Booting Linux\n" + std::string(3000, 'x') + "\nno prefix here\n";
    {
        std::ofstream f(tmpl);
        f << text;
    }
    for (const char* scenario : {"earlycon-pl011", "console-8250"}) {
        for (const char* variant : {"v0", "early"}) {
            if ((std::string(scenario) == "earlycon-pl011") != (std::string(variant) == "v0")) continue;
            SCOPED_TRACE(scenario);
            const nlohmann::json j =
                run_json(scenario, std::string("--variant ") + variant + " --payload " + tmpl, 0);
            ASSERT_FALSE(j.is_null());
            EXPECT_EQ(j["payload_lines"], 3);
            EXPECT_EQ(j["bytes_written"], text.size() + 3) << "the text and a \\r per line, nothing more";
            EXPECT_EQ(j["bytes_on_line"], j["bytes_written"]);
            EXPECT_EQ(j["outcome"], "clean");
            // Windows: the record's store (no cost) and its write, per record.
            EXPECT_EQ(j["per_core"][0]["irq_off_windows"], 6);
            // The long record is written whole inside one window: at least its 3001 character times.
            const double char_ns = 1e9 * 10 / 115200;
            EXPECT_GT(j["irq_off_max_ns"].get<double>(), 3001 * char_ns * 0.99);
            if (j.contains("line_text_head")) {
                const std::string head = j["line_text_head"];
                EXPECT_EQ(head.rfind("[    0.000000] Booting Linux\r\n", 0), 0u) << head;
            }
        }
    }
    std::remove(tmpl);
}

// printk ends every record with a newline: a payload whose last line has none gets one on the line.
TEST(PrintkConsoles, ALastLineWithoutANewlineIsPrintedWithOne) {
    char tmpl[] = "/tmp/uartvp-records-XXXXXX";
    const int fd = mkstemp(tmpl);
    ASSERT_GE(fd, 0);
    close(fd);
    {
        std::ofstream f(tmpl);
        f << "abc\nxyz";
    }
    for (const char* scenario : {"earlycon-pl011", "console-8250"}) {
        SCOPED_TRACE(scenario);
        const nlohmann::json j = run_json(scenario, std::string("--payload ") + tmpl, 0);
        ASSERT_FALSE(j.is_null());
        EXPECT_EQ(j["bytes_written"], 10) << "abc\\r\\n xyz\\r\\n";
        EXPECT_EQ(j["bytes_on_line"], 10);
        EXPECT_EQ(j["outcome"], "clean");
    }
    std::remove(tmpl);
}
