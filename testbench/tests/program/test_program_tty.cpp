// SPDX-License-Identifier: Apache-2.0
// Scenario tty-paste through the program, the figures it is for: at 115200 8N1 (t_c = 86.806 us per
// character) how long a core may hold IRQs off before a paste loses characters, on the PL011 (hw: RX
// trigger 16 of 32) and the 16550 (pc: 8 of 16); the IRQ on another core than the hog; the write
// variant's interrupts; echo; the JSON, the outcome and the keys.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "program_runner.h"

using namespace uartvp::test;

namespace {

constexpr double t_c = 86.806; // us: 10 bits at 115200 baud

nlohmann::json tty(const std::string& args, int expect_code = 0) {
    return run_json("tty-paste", args, expect_code);
}

std::string hog(double us, const std::string& more = "") {
    return " --set hog_us=" + std::to_string(us) + more;
}

// Runs the paste with the hog once per phase: the periods step by one character time over a whole
// RX interrupt period (a periodic hog locks the interrupts' phase: after each window the handler
// drains the FIFO, so every window of a run but the first opens at the same fill).
struct phase_sweep {
    unsigned runs = 0, runs_all_windows_lost = 0;
    std::uint64_t windows = 0, windows_lost = 0, lost = 0;
};
phase_sweep sweep(const std::string& profile, double hog_us, unsigned phases) {
    phase_sweep s;
    for (unsigned k = 0; k < phases; ++k) {
        const nlohmann::json j = tty("--profile " + profile + " --payload-bytes 3000 --expect-loss" +
                                     hog(hog_us, " --set hog_period_us=" + std::to_string(10000 + k * t_c)));
        EXPECT_GT(j["hog_windows"].get<std::uint64_t>(), 20u);
        ++s.runs;
        s.windows += j["hog_windows"].get<std::uint64_t>();
        s.windows_lost += j["hog_windows_with_overrun"].get<std::uint64_t>();
        s.lost += j["rx_lost_bytes"].get<std::uint64_t>();
        if (j["hog_windows_with_overrun"] == j["hog_windows"]) ++s.runs_all_windows_lost;
    }
    return s;
}

} // namespace

// ---- RX: how long may IRQs be off

TEST(TtyPaste, HwNoLossForAnyPhaseWhileTheHogIsAtMost16CharacterTimes) {
    const phase_sweep s = sweep("hw", 16 * t_c, 16);
    EXPECT_EQ(s.lost, 0u);
    EXPECT_EQ(s.windows_lost, 0u);
}

TEST(TtyPaste, PcNoLossForAnyPhaseWhileTheHogIsAtMost8CharacterTimes) {
    const phase_sweep s = sweep("pc", 8 * t_c, 8);
    EXPECT_EQ(s.lost, 0u);
}

TEST(TtyPaste, HwLossInEveryWindowForEveryPhaseFrom33CharacterTimes) {
    const phase_sweep s = sweep("hw", 2865, 16);
    EXPECT_EQ(s.runs_all_windows_lost, s.runs);
    EXPECT_EQ(s.windows_lost, s.windows);
}

TEST(TtyPaste, PcLossInEveryWindowForEveryPhaseFrom17CharacterTimes) {
    const phase_sweep s = sweep("pc", 1476, 8);
    EXPECT_EQ(s.windows_lost, s.windows);
}

// One character less and the best phase keeps everything: the first window of each run opens at t0,
// the first pasted start bit, with the FIFO empty.
TEST(TtyPaste, HwOneCharacterLessThan33KeepsTheWindowThatOpensOnAnEmptyFifo) {
    const phase_sweep s = sweep("hw", 2780, 4);
    EXPECT_EQ(s.windows_lost, s.windows - s.runs);
}

// At the worst phase (each window opens as the RX interrupt rises, the FIFO at its trigger) loss starts
// at 17 t_c (pc: 9 t_c) less the IRQ entry (1 us) and the handler's first data read (PL011: RIS, ICR,
// FR before DR, 0.3 us; 16550: IIR, LSR before RBR, 5.1 us): within one character of it.
TEST(TtyPaste, HwAtTheRxInterruptsRiseLossStartsAt17CharacterTimesLessEntryAndFirstRead) {
    const double threshold = 17 * t_c - 1.0 - 0.3; // 1474.4 us
    const nlohmann::json below = tty("--payload-bytes 6000" + hog(threshold - 8, " --set hog_sync=rx_irq"));
    EXPECT_EQ(below["rx_lost_bytes"], 0);
    EXPECT_GT(below["hog_windows"].get<int>(), 40);
    EXPECT_GE(below["irq_latency_max_ns"].get<double>(), (threshold - 8) * 1e3) << "the window held the IRQ";
    EXPECT_EQ(below["rx_fifo_max"], 32) << "the FIFO filled up to the last entry";
    const nlohmann::json above =
        tty("--payload-bytes 6000 --expect-loss" + hog(threshold + 6, " --set hog_sync=rx_irq"));
    EXPECT_EQ(above["hog_windows_with_overrun"], above["hog_windows"]);
    EXPECT_EQ(above["rx_lost_bytes"], above["hog_windows"]) << "one character per window";
    EXPECT_EQ(above["rx_overruns"], above["hog_windows"]);
}

TEST(TtyPaste, PcAtTheRxInterruptsRiseLossStartsAt9CharacterTimesLessEntryAndFirstRead) {
    const double threshold = 9 * t_c - 1.0 - 5.1; // 775.1 us
    const nlohmann::json below =
        tty("--profile pc --payload-bytes 6000" + hog(threshold - 7, " --set hog_sync=rx_irq"));
    EXPECT_EQ(below["rx_lost_bytes"], 0);
    EXPECT_EQ(below["rx_fifo_max"], 16);
    const nlohmann::json above =
        tty("--profile pc --payload-bytes 6000 --expect-loss" + hog(threshold + 7, " --set hog_sync=rx_irq"));
    EXPECT_EQ(above["hog_windows_with_overrun"], above["hog_windows"]);
    EXPECT_GT(above["hog_windows"].get<int>(), 40);
}

// The same 3 ms windows lose characters on the IRQ's core and nothing when the IRQ is on another one.
TEST(TtyPaste, NothingIsLostWithTheIrqOnAnotherCoreThanTheHog) {
    for (const char* profile : {"hw", "pc"}) {
        const std::string p = std::string("--profile ") + profile + " --payload-bytes 5000";
        const nlohmann::json one = tty(p + hog(3000), 1);
        EXPECT_GT(one["rx_lost_bytes"].get<int>(), 0) << profile;
        EXPECT_EQ(one["outcome"], "difference");
        const nlohmann::json two = tty(p + hog(3000, " --set cores=2 --set irq_cpu=1 --set hog_cpu=0"));
        EXPECT_EQ(two["rx_lost_bytes"], 0) << profile;
        EXPECT_EQ(two["rx_bytes_received"], 5000);
        EXPECT_EQ(two["outcome"], "clean");
        EXPECT_EQ(two["per_core"][0]["irq_off_max_ns"], 3e6) << "the hog held IRQs off on cpu0";
        EXPECT_LT(two["irq_latency_max_ns"].get<double>(), 10e3) << "cpu1 took each interrupt at once";
        EXPECT_EQ(two["irq_lines"][0]["cpu"], 1);
    }
}

// ---- TX

// The PL011 interrupts at half FIFO: 16 DR writes each, once every 16 characters, and the line never
// idles. The task's start_tx filled the FIFO (32) and the shift register first.
TEST(TtyPaste, WriteOnHwOneTxInterruptPer16CharactersSixteenDrWritesEachLineNeverIdle) {
    const nlohmann::json j = tty("--variant write --payload-bytes 2000");
    EXPECT_EQ(j["outcome"], "clean");
    EXPECT_EQ(j["bytes_on_line"], 2000);
    EXPECT_EQ(j["tx_irq_chars"], 2000 - 33);
    EXPECT_EQ(j["tx_irq_bursts"], (2000 - 33 + 15) / 16);
    EXPECT_EQ(j["tx_irq_burst_max"], 16);
    EXPECT_EQ(j["uart_irqs"], j["tx_irq_bursts"]) << "one burst per interrupt";
    EXPECT_EQ(j["tx_idle_ns"], 0.0);
    EXPECT_NEAR(j["sim_time_ns"].get<double>(), 2000 * t_c * 1e3, t_c * 1e3) << "at the line rate";
}

// The 16550 interrupts when its FIFO is empty: one THRE interrupt per 16 characters, 16 THR writes
// each, all from the interrupt (setting THRI provoked the first). The refill comes while the last
// character is still in the shift register: the line idles only when the latency exceeds that character.
TEST(TtyPaste, WriteOnPcOneThreInterruptPer16CharactersTheLineIdlesOnlyForLatencyBeyondOneCharacter) {
    const nlohmann::json j = tty("--variant write --profile pc --payload-bytes 2000");
    EXPECT_EQ(j["outcome"], "clean");
    EXPECT_EQ(j["tx_irq_chars"], 2000);
    EXPECT_EQ(j["tx_irq_bursts"], 125);
    EXPECT_EQ(j["uart_irqs"], 125);
    EXPECT_EQ(j["tx_irq_burst_max"], 16);
    EXPECT_EQ(j["tx_idle_ns"], 0.0);
    // IRQs off for 1 ms every 10 ms: the 16550's line idles, the PL011's (16 characters of margin) not.
    const nlohmann::json pc = tty("--variant write --profile pc --payload-bytes 5000" + hog(1000));
    EXPECT_GT(pc["tx_idle_gaps"].get<int>(), 30);
    EXPECT_GT(pc["tx_idle_ns"].get<double>(), 0);
    EXPECT_LT(pc["tx_idle_ns"].get<double>() / pc["tx_idle_gaps"].get<double>(), 1000e3 - t_c * 1e3);
    const nlohmann::json hw = tty("--variant write --profile hw --payload-bytes 5000" + hog(1000));
    EXPECT_EQ(hw["tx_idle_ns"], 0.0);
}

TEST(TtyPaste, EchoCarriesExactlyThePasteOnTxd) {
    for (const char* profile : {"hw", "pc"}) {
        const nlohmann::json j =
            tty(std::string("--variant echo --profile ") + profile + " --payload-bytes 3000");
        EXPECT_EQ(j["outcome"], "clean") << profile;
        EXPECT_EQ(j["rx_bytes_received"], 3000);
        EXPECT_EQ(j["bytes_written"], 3000);
        EXPECT_EQ(j["bytes_on_line"], 3000);
        EXPECT_EQ(j["lost_bytes"], 0);
    }
}

// ---- JSON, outcome, keys

TEST(TtyPaste, ReceivedPlusLostIsPastedAndTheKernelFiguresAreThere) {
    const nlohmann::json j = tty("--payload-bytes 4000 --expect-loss" + hog(4000));
    EXPECT_EQ(j["outcome"], "expected-loss");
    EXPECT_EQ(j["rx_bytes_pasted"], 4000);
    EXPECT_GT(j["rx_lost_bytes"].get<int>(), 0);
    EXPECT_EQ(j["rx_bytes_received"].get<int>() + j["rx_lost_bytes"].get<int>(), 4000);
    EXPECT_EQ(j["rx_first_difference"]["kind"], "lost");
    EXPECT_EQ(j["rx_overruns"], j["rx_overruns_reported"])
        << "each OE the driver saw reached the line discipline";
    EXPECT_EQ(j["rx_fifo_max"], 32);
    EXPECT_GE(j["irq_latency_max_ns"].get<double>(), 1000e3);
    EXPECT_EQ(j["irq_off_max_ns"], 4e6);
    for (const char* k : {"per_core", "tasks", "irq_lines"})
        ASSERT_TRUE(j.contains(k)) << k;
    EXPECT_EQ(j["irq_lines"][0]["name"], "uart-pl011");
    EXPECT_EQ(j["irq_lines"][0]["count"], j["uart_irqs"]);
    std::set<std::string> tasks;
    for (const auto& t : j["tasks"])
        tasks.insert(t["name"].get<std::string>());
    EXPECT_EQ(tasks, (std::set<std::string>{"open", "reader", "hog", "kworker/0:0"}));
    EXPECT_GT(j["per_core"][0]["hardirq_ns"].get<double>(), 0);
    EXPECT_NEAR(j["sim_time_ns"].get<double>(), 4000 * t_c * 1e3, 500e3) << "to the reader's last byte";
    // Without --expect-loss the loss is a difference: exit 1.
    const nlohmann::json d = tty("--payload-bytes 4000" + hog(4000), 1);
    EXPECT_EQ(d["outcome"], "difference");
}

TEST(TtyPaste, KeysOtherScenariosDoNotUseAreRefusedAndBadValuesToo) {
    expect_usage_error("run tty-paste --set reset_after_write=1",
                       "applies to earlycon-pl011 and console-8250");
    expect_usage_error("run earlycon-pl011 --set hog_us=100", "applies to tty-paste only");
    expect_usage_error("run console-8250 --set rx_trigger=8", "applies to tty-paste only");
    expect_usage_error("run tty-paste --set reg_shift=2", "applies to the 16550");
    expect_usage_error("run tty-paste --set irq_cpu=1", "irq_cpu 1 is not a core");
    expect_usage_error("run tty-paste --set cores=2 --set hog_cpu=2", "hog_cpu 2 is not a core");
    expect_usage_error("run tty-paste --set hog_us=20000", "hog_period_us must be more than hog_us");
    expect_usage_error("run tty-paste --set hog_sync=always", "expected none or rx_irq");
    expect_usage_error("run tty-paste --set rx_trigger=8", "1/8, 1/4, 1/2, 3/4 or 7/8");
    expect_usage_error("run tty-paste --profile pc --set rx_trigger=1/2", "1, 4, 8 or 14");
    expect_usage_error("run tty-paste --set hz=200", "100, 250, 300 or 1000");
    expect_usage_error("compare tty-paste --set hog_us=-1", "from 0 to 1e7");
}

TEST(TtyPaste, RxTriggerSetsTheInterruptsPerCharacter) {
    const nlohmann::json q = tty("--payload-bytes 640 --set rx_trigger=1/4");
    EXPECT_EQ(q["uart_irqs"], 80);
    EXPECT_EQ(q["rx_fifo_max"], 8);
    const nlohmann::json c = tty("--profile pc --payload-bytes 640 --set rx_trigger=14");
    EXPECT_EQ(c["rx_fifo_max"], 14);
    EXPECT_EQ(c["params"]["rx_trigger"], "14");
}

TEST(TtyPaste, CompareShowsPastedReceivedLostOverrunsIrqsLatencyAndIrqsOff) {
    const result r = run_uartvp("compare tty-paste --payload-bytes 3000 --set hog_us=3000");
    EXPECT_EQ(r.code, 1) << r.err; // read and echo lose characters
    for (const char* col :
         {"pasted", "received", "lost", "overruns", "uart irqs", "irq lat max us", "irqoff max us"})
        EXPECT_NE(r.out.find(col), std::string::npos) << col << "\n" << r.out;
    EXPECT_NE(r.out.find("hog 3000 us every 10000 us on cpu0"), std::string::npos) << r.out;
    for (const char* v : {"\nread ", "\necho ", "\nwrite "})
        EXPECT_NE(r.out.find(v), std::string::npos) << v;
}
