// Fast mode against reference mode: every scenario, variant and profile on a short workload gives the
// same results, every simulated figure (only wall-clock and host figures may differ).
#include <gtest/gtest.h>

#include "program_runner.h"

using namespace uartvp::test;

namespace {

// Drops what may differ between modes: host figures and the mode itself.
nlohmann::json simulated(nlohmann::json j) {
    for (const char* k : {"wall_s", "rtl_edges_evaluated", "rtl_eval_s", "peak_rss_mb", "transactions"})
        j.erase(k);
    j["params"].erase("mode");
    return j;
}

void check_modes(const std::string& scenario, const std::string& variant, const std::string& profile,
                 const std::string& extra = "") {
    const std::string args = "--variant " + variant + " --profile " + profile + " " + extra;
    const nlohmann::json fast = run_json(scenario, args + " --mode fast");
    const nlohmann::json ref = run_json(scenario, args + " --mode reference");
    ASSERT_FALSE(fast.is_null());
    EXPECT_EQ(fast["params"]["mode"], "fast");
    EXPECT_EQ(ref["params"]["mode"], "reference");
    EXPECT_EQ(simulated(fast), simulated(ref))
        << scenario << " " << args << "\nfast: " << simulated(fast).dump()
        << "\nreference: " << simulated(ref).dump();
    EXPECT_GT(fast["mmio_reads"].get<double>(), 0);
}

} // namespace

class EarlyconModes : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(EarlyconModes, FastGivesTheSameResultsAsReference) {
    const auto [variant, profile] = GetParam();
    check_modes("earlycon-pl011", variant, profile, "--payload-bytes 1200");
}

INSTANTIATE_TEST_SUITE_P(AllVariantsAndProfiles, EarlyconModes,
                         ::testing::Combine(::testing::Values("v0", "v1", "v2", "qdf2400-e44", "console"),
                                            ::testing::Values("hw", "vm")),
                         [](const auto& info) {
                             std::string n =
                                 std::string(std::get<0>(info.param)) + "_" + std::get<1>(info.param);
                             for (char& c : n)
                                 if (c == '-') c = '_';
                             return n;
                         });

TEST(EarlyconModes, FastGivesTheSameResultsAsReference_ResetAfterWrite7E2At57600) {
    check_modes(
        "earlycon-pl011", "v1", "hw",
        "--payload-bytes 900 --set reset_after_write=1 --set frame=7E2 --set baud=57600 --expect-loss");
}

class ConsoleModes : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(ConsoleModes, FastGivesTheSameResultsAsReference) {
    const auto [variant, profile] = GetParam();
    const std::string loss = std::string(variant) == "fifo-before-init" ? " --expect-loss" : "";
    check_modes("console-8250", variant, profile, "--payload-bytes 700" + loss);
}

INSTANTIATE_TEST_SUITE_P(AllVariantsAndProfiles, ConsoleModes,
                         ::testing::Combine(::testing::Values("putchar", "fifo", "fifo-before-init", "early"),
                                            ::testing::Values("pc", "slow-bmc", "soc")),
                         [](const auto& info) {
                             std::string n =
                                 std::string(std::get<0>(info.param)) + "_" + std::get<1>(info.param);
                             for (char& c : n)
                                 if (c == '-') c = '_';
                             return n;
                         });

// Reads cheaper than one UARTCLK period end at the UART's edge, not by their cost: fast mode must not
// count them in advance.
TEST(EarlyconModes, FastGivesTheSameResultsAsReference_ReadsFasterThanTheUartClock) {
    check_modes("earlycon-pl011", "v0", "hw", "--payload-bytes 300 --set mmio_read_ns=30");
    check_modes("earlycon-pl011", "v2", "hw",
                "--payload-bytes 300 --set mmio_read_ns=40 --set mmio_write_ns=10");
}
