// SPDX-License-Identifier: Apache-2.0
// Scenario hvc-paste through the program, the figures seed 004 is about: the IRQs-off time of each
// interrupt-driven __hvc_poll on OPAL (16-byte reads at 29.4 us, two firmware calls each), the read
// loop's 10 ms with 5.4 KB pending, the latency break's khvcd-paced paste on virtio per HZ, batching's
// source-limited paste; the scoreboard, the JSON, compare and the keys.
#include <string>

#include <gtest/gtest.h>

#include "program_runner.h"

using namespace uartvp::test;

namespace {

nlohmann::json hvc(const std::string& args, int expect_code = 0) {
    return run_json("hvc-paste", args, expect_code);
}

double us(const nlohmann::json& j, const char* key) {
    return j[key].get<double>() / 1e3;
}

} // namespace

// khvcd beside kopald on cpu0 (the default) or one core: nothing contends for hp->lock, every
// interrupt-driven poll but a last short one is the seed's: 8 reads of 16 bytes, 8 x 29.4 us IRQs off.
// Both stay runnable while the paste lasts and take turns of a slice (2.25 ms, ended at the 4 ms
// tick after it); khvcd's turns read what came meanwhile, kopald's polls the rest.
TEST(HvcPaste, OpalBatchingEachInterruptPollReads8ChunksWith023To026MsIrqsOff) {
    for (const char* cores : {"", " --set cores=1"}) {
        const nlohmann::json j = hvc(std::string("--variant batching --profile opal") + cores);
        EXPECT_EQ(j["reads_per_poll_max"], 8) << cores;
        EXPECT_LE(j["bytes_per_poll_max"].get<int>(), 143) << cores;
        EXPECT_GT(j["interrupt_polls"].get<int>(), 50) << cores;
        EXPECT_GE(us(j, "poll_irq_off_max_ns"), 230) << cores;
        EXPECT_LE(us(j, "poll_irq_off_max_ns"), 260) << cores;
        EXPECT_GE(us(j, "poll_irq_off_mean_ns"), 230) << cores;
        EXPECT_EQ(j["rx_bytes_received"], 16384) << cores;
        EXPECT_EQ(j["rx_lost_bytes"], 0) << cores;
        EXPECT_EQ(j["outcome"], "clean") << cores;
    }
    // khvcd on cpu1 drains too: kopald may spin on hp->lock for one of khvcd's reads with IRQs off
    // (and khvcd for kopald's batch); the mean stays in the seed's range.
    const nlohmann::json two = hvc("--variant batching --profile opal --set khvcd_cpu=1");
    EXPECT_EQ(two["params"]["khvcd_cpu"], 1);
    EXPECT_EQ(two["reads_per_poll_max"], 8);
    EXPECT_LE(two["bytes_per_poll_max"].get<int>(), 143);
    EXPECT_GE(us(two, "poll_irq_off_mean_ns"), 230);
    EXPECT_LE(us(two, "poll_irq_off_mean_ns"), 260);
    EXPECT_GT(us(two, "poll_irq_off_max_ns"), 235.2 + 1) << "kopald waited for the lock at least once";
    EXPECT_LE(us(two, "poll_irq_off_max_ns"), 235.2 + 29.4 + 1);
    EXPECT_GT(us(two, "khvcd_irq_off_max_ns"), 235.2) << "khvcd spun for kopald's batch";
    EXPECT_EQ(two["rx_lost_bytes"], 0);
    EXPECT_EQ(two["outcome"], "clean");
}

// Before the latency break, 5.4 KB pending when the interrupt is taken: one poll reads it all.
TEST(HvcPaste, OpalLoopWith5400BytesPendingReadsThemInOnePollOf338ReadsAnd9_9MsIrqsOff) {
    const nlohmann::json j = hvc("--variant loop --profile opal --payload-bytes 5400 --set burst_bytes=5400");
    EXPECT_EQ(j["interrupt_polls"], 1);
    EXPECT_EQ(j["reads_per_poll_max"], 338);
    EXPECT_EQ(j["bytes_per_poll_max"], 5400);
    EXPECT_NEAR(us(j, "poll_irq_off_max_ns"), 9900, 0.05 * 9900);
    EXPECT_EQ(j["rx_bytes_received"], 5400);
}

// One 16-byte chunk per khvcd pass, each pass a timed sleep of 11 ms rounded to jiffies plus one.
TEST(HvcPaste, VirtioLatencyBreakReads16BytesPerKhvcdPassAtTheJiffyRoundedBackoff) {
    const struct {
        const char* hz;
        double bps;
    } cases[] = {{"100", 533.3}, {"250", 1000}, {"1000", 1333.3}};
    for (const auto& c : cases) {
        const nlohmann::json j =
            hvc(std::string("--variant latency-break --profile virtio --payload-bytes 2048 "
                            "--set burst_bytes=4096 --set hz=") +
                c.hz);
        const double bps = j["rx_throughput_kbps"].get<double>() * 1000;
        EXPECT_NEAR(bps, c.bps, 0.05 * c.bps) << "HZ " << c.hz;
        EXPECT_EQ(std::string(c.hz) == "100", bps < 960) << "worse than 9600 baud at HZ 100 only";
        EXPECT_EQ(j["reads_per_poll_max"], 1);
        EXPECT_EQ(j["interrupt_polls"], 1) << "one buffer, one interrupt";
        EXPECT_EQ(j["khvcd_timed_sleeps"], 2048 / 16 - 1) << "one per chunk after the interrupt's";
        EXPECT_EQ(j["rx_bytes_received"], 2048);
    }
}

TEST(HvcPaste, VirtioBatchingRunsAtTheSourcesRateAndTenTimesTheLatencyBreak) {
    for (const char* hz : {"100", "250", "1000"}) {
        const std::string common = std::string("--profile virtio --payload-bytes 32768 --set hz=") + hz;
        const nlohmann::json b = hvc("--variant batching " + common);
        const nlohmann::json l = hvc("--variant latency-break " + common);
        EXPECT_GE(b["rx_throughput_kbps"].get<double>(), 0.9 * 1000) << hz;
        EXPECT_GE(b["rx_throughput_kbps"].get<double>(), 10 * l["rx_throughput_kbps"].get<double>()) << hz;
        EXPECT_EQ(b["reads_per_poll_max"], 8);
        EXPECT_EQ(b["khvcd_timed_sleeps"], 0) << "khvcd drains each buffer and sleeps until kicked";
        EXPECT_EQ(b["rx_bytes_received"], 32768);
        EXPECT_EQ(l["rx_bytes_received"], 32768);
    }
}

// OPAL's buffer overflows when the paste outruns the reads: the scoreboard finds the gap, in order.
TEST(HvcPaste, AnOverflowingOpalBufferLosesBytesTheScoreboardCountsInOrder) {
    const std::string a =
        "--variant batching --profile opal --payload-bytes 40000 --set bmc_buffer_bytes=8192";
    const nlohmann::json j = hvc(a, 1);
    EXPECT_GT(j["backend_lost_bytes"].get<int>(), 0);
    EXPECT_EQ(j["rx_lost_bytes"], j["backend_lost_bytes"]);
    EXPECT_EQ(j["rx_bytes_received"].get<int>() + j["rx_lost_bytes"].get<int>(), 40000);
    EXPECT_EQ(j["outcome"], "difference");
    EXPECT_EQ(j["rx_first_difference"]["kind"], "lost");
    EXPECT_EQ(hvc(a + " --expect-loss")["outcome"], "expected-loss");
}

TEST(HvcPaste, TheJsonCarriesTheScenariosFiguresAndParams) {
    const nlohmann::json j = hvc("--variant latency-break --profile opal --payload-bytes 4096");
    for (const char* k : {"rx_bytes_pasted", "rx_bytes_received", "rx_lost_bytes", "rx_throughput_kbps",
                          "poll_irq_off_max_ns", "poll_irq_off_mean_ns", "khvcd_irq_off_max_ns",
                          "reads_per_poll_max", "khvcd_wakeups", "khvcd_timed_sleeps", "per_core", "tasks"})
        EXPECT_TRUE(j.contains(k)) << k;
    for (const char* k : {"cores", "hz", "burst_bytes", "paste_kbps", "bmc_buffer_bytes", "khvcd_cpu"})
        EXPECT_TRUE(j["params"].contains(k)) << k;
    EXPECT_EQ(j["params"]["cores"], 2);
    EXPECT_EQ(j["params"]["hz"], 250);
    EXPECT_FALSE(hvc("--profile virtio --payload-bytes 100")["params"].contains("bmc_buffer_bytes"));
    // kopald re-polls while input stays pending: many interrupt-driven polls of one read each.
    EXPECT_EQ(j["reads_per_poll_max"], 1);
    EXPECT_GT(j["interrupt_polls"].get<int>(), 100);
}

TEST(HvcPaste, KeysItDoesNotUseAreRefusedAndItsKeysElsewhereToo) {
    expect_usage_error("run hvc-paste --set baud=9600", "does not apply to hvc-paste");
    expect_usage_error("run hvc-paste --set hog_us=10", "does not apply to hvc-paste");
    expect_usage_error("run hvc-paste --profile virtio --set bmc_buffer_bytes=100", "opal profile only");
    expect_usage_error("run tty-paste --set burst_bytes=100", "applies to hvc-paste only");
    expect_usage_error("run earlycon-pl011 --set paste_kbps=100", "applies to hvc-paste only");
    expect_usage_error("run hvc-paste --set paste_kbps=0", "more than 0");
    expect_usage_error("run hvc-paste --set burst_bytes=0", "from 1 to 2^30");
    expect_usage_error("run hvc-paste --set hz=200", "100, 250, 300 or 1000");
    expect_usage_error("run hvc-paste --set cores=129", "from 1 to 128");
    expect_usage_error("run hvc-paste --set khvcd_cpu=2", "khvcd_cpu 2 is not a core");
    expect_usage_error("run hvc-paste --set cores=1 --set khvcd_cpu=1", "khvcd_cpu 1 is not a core");
    expect_usage_error("run tty-paste --set khvcd_cpu=0", "applies to hvc-paste only");
    expect_usage_error("compare hvc-paste --set paste_kbps=x", "more than 0");
    const result l = run_uartvp("list");
    for (const char* k : {"burst_bytes", "paste_kbps", "bmc_buffer_bytes", "khvcd_cpu"})
        EXPECT_NE(l.out.find(k), std::string::npos) << k;
    EXPECT_NE(l.out.find("KB/s"), std::string::npos);
}

TEST(HvcPaste, CompareShowsEveryVariantsRowOnBothProfiles) {
    for (const char* profile : {"opal", "virtio"}) {
        const result r =
            run_uartvp(std::string("compare hvc-paste --profile ") + profile + " --payload-bytes 3000");
        EXPECT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.out.find("hvc-paste on profile " + std::string(profile)), std::string::npos) << r.out;
        for (const char* v : {"batching", "latency-break", "loop"})
            EXPECT_NE(r.out.find(std::string("\n") + v + " "), std::string::npos) << v << "\n" << r.out;
        EXPECT_NE(r.out.find("poll off max"), std::string::npos);
        EXPECT_EQ(lines(r.out), 6) << r.out;
    }
}

// Waves: per core IRQs off and hard IRQ, khvcd running and asleep, kopald's handler, bytes per poll;
// the same run writes the same files.
TEST(HvcPaste, WavesShowKhvcdKopaldAndBytesPerPollAndRepeatExactly) {
    const std::string dir = make_tmpdir("uartvp-hvc-waves");
    const std::string args = "--variant batching --profile opal --payload-bytes 3000 --vcd " + dir;
    ASSERT_EQ(run_uartvp("run hvc-paste " + args + "/a.vcd").code, 0);
    ASSERT_EQ(run_uartvp("run hvc-paste " + args + "/b.vcd").code, 0);
    const std::string a = slurp(dir + "/a.vcd");
    EXPECT_EQ(a, slurp(dir + "/b.vcd"));
    for (const char* sig : {"khvcd_running", "kopald_handler", "irq_poll_bytes", "khvcd_poll_bytes",
                            "irqs_off", "in_hardirq", "buffered"})
        EXPECT_NE(a.find(sig), std::string::npos) << sig;
    // The 128 bytes of a batch show as a level of 10000000 (binary) on irq_poll_bytes.
    EXPECT_NE(a.find("b10000000 "), std::string::npos);
    EXPECT_NE(slurp(dir + "/a.gtkw").find("hvc.khvcd_running"), std::string::npos);
    remove_dir(dir);
}
