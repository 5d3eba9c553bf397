// SPDX-License-Identifier: Apache-2.0
// Fast mode against reference mode: every scenario, variant and profile on a short workload gives the
// same results, every simulated figure (only wall-clock and host figures may differ).
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <gtest/gtest.h>

#include "program_runner.h"

using namespace uartvp::test;

namespace {

// A test's name from its parameters: joined by '_', anything but letters and digits as '_'.
struct params_name {
    template <class params_t> std::string operator()(const ::testing::TestParamInfo<params_t>& info) const {
        std::string n;
        bool first = true;
        std::apply([&](const auto&... p) { ((n += first ? "" : "_", n += p, first = false), ...); },
                   info.param);
        for (char& c : n)
            if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
        return n;
    }
};

// Drops what may differ between modes: host figures, the mode itself and the line model it implies.
nlohmann::json simulated(nlohmann::json j) {
    for (const char* k :
         {"wall_s", "rtl_edges_evaluated", "rtl_eval_s", "peak_rss_mb", "transactions", "host"})
        j.erase(k);
    j["params"].erase("mode");
    j["params"].erase("line_model");
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

// Every variant and profile of each scenario: the parameterised tests below run them all, and a test
// holds these lists against what `uartvp list` shows, so a new variant cannot be left out.
constexpr const char* earlycon_variants[] = {
    "v0",           "v0-literal",          "v1",     "v2",     "qdf2400-e44", "console",
    "console-sbsa", "console-qdf2400-e44", "v0-a64", "v1-a64", "v2-a64"};
constexpr const char* earlycon_profiles[] = {"hw", "vm"};
constexpr const char* console_variants[] = {"putchar", "fifo", "fifo-v6.14", "fifo-before-init", "early"};
constexpr const char* console_profiles[] = {"pc", "slow-bmc", "soc"};
constexpr const char* tty_variants[] = {"read", "echo", "write"};
constexpr const char* tty_profiles[] = {"hw", "pc"};
constexpr const char* boot_variants[] = {"nbcon-atomic",  "legacy",        "console-initcall",
                                         "pending-start", "kthread-first", "merged"};
constexpr const char* boot_profiles[] = {"grace", "rpi3b"};
constexpr const char* hvc_variants[] = {"batching", "latency-break", "loop"};
constexpr const char* hvc_profiles[] = {"opal", "virtio"};
constexpr const char* firmware_variants[] = {"a64"};
constexpr const char* firmware_profiles[] = {"virt"};

// `uartvp list`: scenario -> (variants, profiles), each line's first word under "variants:"/"profiles:".
std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>> listed() {
    const result r = run_uartvp("list");
    EXPECT_EQ(r.code, 0) << r.err;
    std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>> m;
    std::istringstream in(r.out);
    std::string line, scenario;
    int section = 0; // 1 variants, 2 profiles
    while (std::getline(in, line)) {
        if (line.rfind("--set", 0) == 0) break;
        if (!line.empty() && line[0] != ' ') {
            scenario = line;
            section = 0;
        } else if (line == "  variants:") {
            section = 1;
        } else if (line == "  profiles:") {
            section = 2;
        } else if (section && line.rfind("    ", 0) == 0) {
            std::istringstream w(line);
            std::string name, description;
            w >> name;
            std::getline(w, description);
            EXPECT_NE(description.find_first_not_of(' '), std::string::npos) << name << " has a description";
            (section == 1 ? m[scenario].first : m[scenario].second).insert(name);
        }
    }
    return m;
}

template <std::size_t N> std::set<std::string> as_set(const char* const (&a)[N]) {
    return std::set<std::string>(std::begin(a), std::end(a));
}

} // namespace

TEST(Modes, EveryListedVariantAndProfileIsCovered) {
    const auto m = listed();
    ASSERT_EQ(m.size(), 6u) << "a new scenario needs its own fast-against-reference tests";
    EXPECT_EQ(m.at("earlycon-pl011").first, as_set(earlycon_variants));
    EXPECT_EQ(m.at("earlycon-pl011").second, as_set(earlycon_profiles));
    EXPECT_EQ(m.at("console-8250").first, as_set(console_variants));
    EXPECT_EQ(m.at("console-8250").second, as_set(console_profiles));
    EXPECT_EQ(m.at("tty-paste").first, as_set(tty_variants));
    EXPECT_EQ(m.at("tty-paste").second, as_set(tty_profiles));
    EXPECT_EQ(m.at("boot-console").first, as_set(boot_variants));
    EXPECT_EQ(m.at("boot-console").second, as_set(boot_profiles));
    EXPECT_EQ(m.at("hvc-paste").first, as_set(hvc_variants));
    EXPECT_EQ(m.at("hvc-paste").second, as_set(hvc_profiles));
    EXPECT_EQ(m.at("firmware").first, as_set(firmware_variants));
    EXPECT_EQ(m.at("firmware").second, as_set(firmware_profiles));
}

// The aarch64 core with the project's hello.elf (its default image) and the echo of a paste
// (test_program_firmware has the images and their other checks).
TEST(FirmwareModes, FastGivesTheSameResultsAsReference) {
    check_modes("firmware", "a64", "virt");
}

class EarlyconModes : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(EarlyconModes, FastGivesTheSameResultsAsReference) {
    const auto [variant, profile] = GetParam();
    check_modes("earlycon-pl011", variant, profile, "--payload-bytes 1200");
}

INSTANTIATE_TEST_SUITE_P(AllVariantsAndProfiles, EarlyconModes,
                         ::testing::Combine(::testing::ValuesIn(earlycon_variants),
                                            ::testing::ValuesIn(earlycon_profiles)),
                         params_name());

TEST(EarlyconModes, FastGivesTheSameResultsAsReference_ResetAfterWrite7E2At57600) {
    check_modes(
        "earlycon-pl011", "v1", "hw",
        "--payload-bytes 900 --set reset_after_write=1 --set frame=7E2 --set baud=57600 --expect-loss");
}

// Fast mode takes the PL011's line as characters (no TXD edge driven; the monitor decodes the reported
// characters); --set line_model=pins makes it decode the pin, driven edge by edge. Both give the same
// results, every simulated figure and the transactions too, also where a reset cuts a frame.
// `fewer`: the PL011's wakes with the line as characters at most this share of those on the pins.
void check_line_both_ways(const std::string& args, const std::string& scenario = "earlycon-pl011",
                          double fewer = 0.5) {
    const nlohmann::json chars = run_json(scenario, args);
    const nlohmann::json pins = run_json(scenario, args + " --set line_model=pins");
    ASSERT_FALSE(chars.is_null());
    EXPECT_EQ(chars["params"]["line_model"], "characters") << scenario << " " << args;
    EXPECT_EQ(pins["params"]["line_model"], "pins") << scenario << " " << args;
    EXPECT_EQ(simulated(chars), simulated(pins)) << scenario << " " << args;
    EXPECT_EQ(chars["transactions"], pins["transactions"]) << scenario << " " << args;
    // The point of it: the PL011 wakes per character, not per TXD (or RXD) edge.
    if (fewer < 1)
        EXPECT_LT(chars["host"]["uart_wakes"].get<double>(), pins["host"]["uart_wakes"].get<double>() * fewer)
            << scenario << " " << args;
}

TEST(EarlyconModes, LineAsCharactersGivesTheSameResultsAsThePin) {
    for (const char* v : {"v0", "v1", "console"})
        check_line_both_ways(std::string("--variant ") + v + " --profile hw --payload-bytes 1500");
    check_line_both_ways("--variant v1 --profile hw --payload-bytes 900 --set reset_after_write=1 --set "
                         "frame=7E2 --set baud=57600 --expect-loss");
}

// With --vcd the PL011 does not drive TXD edge by edge either: the waves write the line's edges from
// the reported characters. NAME.vcd and NAME.lines.vcd are byte for byte those of a run that drives and
// records the pin (and decodes it), and the UART still wakes per character, not per TXD edge.
// The 16550 (console-8250, boot-console rpi3b) the same way: it steps through fewer times without
// the TXD edges.
void check_waves_both_ways(const std::string& what, const std::string& scenario = "earlycon-pl011") {
    const std::string dir = make_tmpdir();
    const nlohmann::json chars = run_json(scenario, what + " --vcd " + dir + "/chars.vcd");
    const nlohmann::json pins =
        run_json(scenario, what + " --vcd " + dir + "/pins.vcd --set line_model=pins");
    ASSERT_FALSE(chars.is_null()) << what;
    ASSERT_FALSE(pins.is_null()) << what;
    EXPECT_EQ(simulated(chars), simulated(pins)) << what;
    if (scenario == "earlycon-pl011" || scenario == "tty-paste")
        EXPECT_LT(chars["host"]["uart_wakes"].get<double>() * 2, pins["host"]["uart_wakes"].get<double>())
            << what << ": with --vcd the UART must not wake per TXD (or RXD) edge";
    else
        EXPECT_LT(chars["host"]["time_steps"].get<double>(), pins["host"]["time_steps"].get<double>())
            << what << ": with --vcd the 16550 must not step per TXD edge";
    for (const char* f : {".vcd", ".lines.vcd"}) {
        const std::string a = slurp(dir + "/chars" + f), b = slurp(dir + "/pins" + f);
        EXPECT_GT(a.size(), 1000u) << f;
        EXPECT_NE(b.find("lines"), std::string::npos) << f;
        EXPECT_TRUE(a == b) << what << ": " << f << " differs between the line as characters and the pin";
    }
    remove_dir(dir);
}

TEST(EarlyconModes, WavesWithTheLineAsCharactersAreThoseOfThePin) {
    // One character in the FIFO at a time; several back to back, a reset cutting a frame; 7 data bits
    // with even parity and 2 stop bits at another rate, through the full driver.
    check_waves_both_ways("--variant v0 --profile hw --payload-bytes 1500");
    check_waves_both_ways("--variant v1 --profile hw --payload-bytes 1500 --set reset_after_write=1 "
                          "--expect-loss");
    check_waves_both_ways("--variant console --profile vm --payload-bytes 900 --set frame=7E2 --set "
                          "baud=57600");
}

// --set line_model: characters by default in fast mode; pins when asked for, and always in reference
// mode (which refuses characters). The JSON's params say which the run took.
TEST(Modes, LineModelIsInTheJsonAndReferenceModeTakesThePins) {
    const std::string args = "--variant v1 --payload-bytes 300";
    EXPECT_EQ(run_json("earlycon-pl011", args)["params"]["line_model"], "characters");
    EXPECT_EQ(run_json("earlycon-pl011", args + " --set line_model=pins")["params"]["line_model"], "pins");
    EXPECT_EQ(run_json("earlycon-pl011", args + " --mode reference")["params"]["line_model"], "pins");
    EXPECT_EQ(
        run_json("earlycon-pl011", args + " --mode reference --set line_model=pins")["params"]["line_model"],
        "pins");
    expect_usage_error("run earlycon-pl011 --mode reference --set line_model=characters", "--mode fast");
    expect_usage_error("run earlycon-pl011 --set line_model=edges", "expected characters or pins");
    expect_usage_error("run tty-paste --profile pc --set line_model=pins", "profile hw only");
    expect_usage_error("run hvc-paste --set line_model=pins", "does not apply to hvc-paste");
}

class ConsoleModes : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(ConsoleModes, FastGivesTheSameResultsAsReference) {
    const auto [variant, profile] = GetParam();
    const std::string loss = std::string(variant) == "fifo-before-init" ? " --expect-loss" : "";
    check_modes("console-8250", variant, profile, "--payload-bytes 700" + loss);
}

// Fast mode takes the 16550's line as characters too; --set line_model=pins decodes the pin instead. The
// same JSON both ways (every figure but wall time and the host's counts, transactions included), and
// the 16550 steps through fewer times per character without the TXD edges.
void check_console_line_both_ways(const std::string& args) {
    const nlohmann::json chars = run_json("console-8250", args);
    const nlohmann::json pins = run_json("console-8250", args + " --set line_model=pins");
    ASSERT_FALSE(chars.is_null());
    EXPECT_EQ(simulated(chars), simulated(pins))
        << args << "\nchars: " << simulated(chars).dump() << "\npins: " << simulated(pins).dump();
    EXPECT_EQ(chars["transactions"], pins["transactions"]) << args;
    // Where most bytes are lost the line is mostly idle: fewer steps, not a third fewer.
    const double lossless = chars["lost_bytes"].get<double>() == 0 ? 1.5 : 1.0;
    EXPECT_LT(chars["host"]["time_steps"].get<double>() * lossless, pins["host"]["time_steps"].get<double>())
        << args;
}

TEST_P(ConsoleModes, LineAsCharactersGivesTheSameResultsAsThePin) {
    const auto [variant, profile] = GetParam();
    const std::string loss = std::string(variant) == "fifo-before-init" ? " --expect-loss" : "";
    check_console_line_both_ways(std::string("--variant ") + variant + " --profile " + profile +
                                 " --payload-bytes 700" + loss);
}

// Other frames (5 data bits send 1.5 stop bits, parity), and a reset that cuts a frame on the line.
TEST(ConsoleModes, LineAsCharactersGivesTheSameResultsAsThePin_FramesAndReset) {
    for (const char* frame : {"5N2", "7E2", "8O1", "6M1"})
        check_console_line_both_ways(
            std::string("--variant fifo --profile pc --payload-bytes 500 --set frame=") + frame);
    check_console_line_both_ways(
        "--variant putchar --profile soc --payload-bytes 500 --set reset_after_write=1 --expect-loss");
    check_console_line_both_ways("--variant fifo --profile pc --payload-bytes 500 --set reset_after_write=1 "
                                 "--set frame=7E2 --expect-loss");
}

// With --vcd the 16550 reports its line as characters too, and the waves write TXD from the reports:
// byte for byte those of a run that drives, records and decodes the pin, for every variant and profile.
TEST_P(ConsoleModes, WavesWithTheLineAsCharactersAreThoseOfThePin) {
    const auto [variant, profile] = GetParam();
    const std::string loss = std::string(variant) == "fifo-before-init" ? " --expect-loss" : "";
    check_waves_both_ways(std::string("--variant ") + variant + " --profile " + profile +
                              " --payload-bytes 400" + loss,
                          "console-8250");
}

// A reset cutting a frame on the line; 5 data bits with 1.5 stop bits, 7E2 and 6M1.
TEST(ConsoleModes, WavesWithTheLineAsCharactersAreThoseOfThePin_FramesAndReset) {
    check_waves_both_ways("--variant fifo --profile pc --payload-bytes 600 --set reset_after_write=1 "
                          "--expect-loss",
                          "console-8250");
    for (const char* frame : {"5N2", "7E2", "6M1"})
        check_waves_both_ways(std::string("--variant fifo --profile pc --payload-bytes 400 --set frame=") +
                                  frame,
                              "console-8250");
}

INSTANTIATE_TEST_SUITE_P(AllVariantsAndProfiles, ConsoleModes,
                         ::testing::Combine(::testing::ValuesIn(console_variants),
                                            ::testing::ValuesIn(console_profiles)),
                         params_name());

// Reads cheaper than one UARTCLK period end at the UART's edge, not by their cost: fast mode must not
// count them in advance.
TEST(EarlyconModes, FastGivesTheSameResultsAsReference_ReadsFasterThanTheUartClock) {
    check_modes("earlycon-pl011", "v0", "hw", "--payload-bytes 300 --set mmio_read_ns=30");
    check_modes("earlycon-pl011", "v2", "hw",
                "--payload-bytes 300 --set mmio_read_ns=40 --set mmio_write_ns=10");
}

// tty-paste: interrupts, a kworker, a reader or writer, on one core; then on two cores with the IRQ on
// one and a task holding IRQs off on the other; then the hog at the RX interrupt's rise on the IRQ's
// core, which loses characters (every hog window opens with the FIFO at its trigger level).
constexpr const char* tty_setups[] = {"one_core", "two_cores_hog", "hog_at_rx_irq"};

class TtyModes : public ::testing::TestWithParam<std::tuple<const char*, const char*, const char*>> {};

TEST_P(TtyModes, FastGivesTheSameResultsAsReference) {
    const auto [variant, profile, setup] = GetParam();
    std::string extra = "--payload-bytes 600";
    if (std::string(setup) == "two_cores_hog")
        extra += " --set cores=2 --set irq_cpu=1 --set hog_cpu=0 --set hog_us=1500 --set hog_period_us=4000";
    if (std::string(setup) == "hog_at_rx_irq")
        extra += " --set hog_us=1500 --set hog_period_us=4000 --set hog_sync=rx_irq --expect-loss";
    check_modes("tty-paste", variant, profile, extra);
}

INSTANTIATE_TEST_SUITE_P(AllVariantsAndProfiles, TtyModes,
                         ::testing::Combine(::testing::ValuesIn(tty_variants),
                                            ::testing::ValuesIn(tty_profiles),
                                            ::testing::ValuesIn(tty_setups)),
                         params_name());

// tty-paste with the PL011's lines as characters (the paste reported to its receive line, the TX
// monitor taking its characters) against both on the pins: the same results and transactions, on
// every variant (pc's 16550 stays on its pins: it refuses the key), with the hog on the IRQ's
// core at the RX interrupt's rise (losses and overruns), on two cores, and in 7E2 at 57600.
TEST(TtyModes, LineAsCharactersGivesTheSameResultsAsThePins) {
    for (const char* v : tty_variants) {
        check_line_both_ways(std::string("--variant ") + v + " --profile hw --payload-bytes 1500",
                             "tty-paste", 0.35);
        // pc's 16550 drives its pins whatever the key says: the key is not its.
        expect_usage_error(std::string("run tty-paste --variant ") + v +
                               " --profile pc --set line_model=pins",
                           "profile hw only");
        check_line_both_ways(
            std::string("--variant ") + v +
                " --profile hw --payload-bytes 1500 --set hog_us=1500 --set hog_period_us=4000 "
                "--set hog_sync=rx_irq --expect-loss",
            "tty-paste", 0.5);
    }
    check_line_both_ways(
        "--variant echo --profile hw --payload-bytes 1200 --set cores=2 --set irq_cpu=1 --set "
        "hog_cpu=0 --set hog_us=1500 --set hog_period_us=4000",
        "tty-paste", 0.5);
    check_line_both_ways("--variant echo --profile hw --payload-bytes 800 --set frame=7E2 --set baud=57600",
                         "tty-paste", 0.5);
}

namespace {
// The changes of the 1-bit variable `name` in a VCD's text (its initial value included), each as
// "time value".
std::vector<std::string> history_of(const std::string& vcd, const std::string& name) {
    std::vector<std::string> h;
    const std::size_t def = vcd.find(" " + name + " $end");
    if (def == std::string::npos) return h;
    const std::size_t id_at = vcd.rfind(' ', def - 1) + 1;
    const std::string id = vcd.substr(id_at, def - id_at);
    std::string time = "0";
    for (std::size_t at = vcd.find("$enddefinitions"); at != std::string::npos; at = vcd.find('\n', at + 1)) {
        if (vcd.compare(at + 1, 1, "#") == 0) {
            time = vcd.substr(at + 2, vcd.find('\n', at + 1) - at - 2);
        } else if (vcd.compare(at + 1, 1 + id.size() + 1, "0" + id + "\n") == 0 ||
                   vcd.compare(at + 1, 1 + id.size() + 1, "1" + id + "\n") == 0) {
            h.push_back(time + " " + vcd.substr(at + 1, 1));
        }
    }
    return h;
}
std::size_t changes_of(const std::string& vcd, const std::string& name) {
    return history_of(vcd, name).size();
}
} // namespace

// earlycon with --vcd in fast mode (the core's accesses issued ahead of SystemC time where nothing is
// due first, each shown at its own time) against reference mode (every access synchronised, every
// poll read a transaction): the same results, and the core's write strobes (mmio_write, which the
// collapsed polls do not touch) at the same times.
TEST(EarlyconModes, FastWithWavesShowsTheCoresWritesAtTheReferencesTimes) {
    const std::string dir = make_tmpdir();
    for (const char* args : {"--variant v0 --profile hw --payload-bytes 300",
                             "--variant v0-literal --profile vm --payload-bytes 300",
                             "--variant console --profile hw --payload-bytes 300 --set frame=7E2"}) {
        const std::string a = args;
        const nlohmann::json fast = run_json("earlycon-pl011", a + " --vcd " + dir + "/fast.vcd");
        const nlohmann::json ref =
            run_json("earlycon-pl011", a + " --mode reference --vcd " + dir + "/ref.vcd");
        ASSERT_FALSE(fast.is_null()) << a;
        ASSERT_FALSE(ref.is_null()) << a;
        EXPECT_EQ(simulated(fast), simulated(ref)) << a;
        const std::vector<std::string> x = history_of(slurp(dir + "/fast.vcd"), "mmio_write"),
                                       y = history_of(slurp(dir + "/ref.vcd"), "mmio_write");
        EXPECT_GT(x.size(), 600u) << a;
        EXPECT_EQ(x, y) << a;
    }
    remove_dir(dir);
}

// With --vcd, tty-paste's PL011 keeps both lines as characters: the waves write TXD from the PL011's
// reports and RXD from the paste's (the injector's) reports, NAME.vcd and NAME.lines.vcd byte for byte
// those of a run that drives and records both pins, and the PL011 wakes per character, not per TXD or
// RXD edge. Every variant on hw; the hog at the RX interrupt's rise (overruns, lost characters); two
// cores with the hog on the other; 7E2 at 57600; a 16-entry FIFO at RX trigger 1/8 with HZ 1000. RXD
// carries the paste in both files.
TEST(TtyModes, WavesWithTheLinesAsCharactersAreThoseOfThePins) {
    for (const char* v : tty_variants) {
        const std::string base = std::string("--variant ") + v + " --profile hw";
        check_waves_both_ways(base + " --payload-bytes 400", "tty-paste");
        check_waves_both_ways(base + " --payload-bytes 1200 --set hog_us=1500 --set hog_period_us=4000 "
                                     "--set hog_sync=rx_irq --expect-loss",
                              "tty-paste");
    }
    check_waves_both_ways("--variant echo --profile hw --payload-bytes 600 --set cores=2 --set irq_cpu=1 "
                          "--set hog_cpu=0 --set hog_us=1500 --set hog_period_us=4000",
                          "tty-paste");
    check_waves_both_ways("--variant read --profile hw --payload-bytes 300 --set frame=7E2 --set baud=57600",
                          "tty-paste");
    check_waves_both_ways("--variant echo --profile hw --payload-bytes 500 --set fifo_depth=16 --set "
                          "rx_trigger=1/8 --set hz=1000",
                          "tty-paste");
    // The paste is on RXD, from the reports (the pin stays high): at least a fall and a rise a byte.
    const std::string dir = make_tmpdir();
    ASSERT_EQ(run_uartvp("run tty-paste --variant read --payload-bytes 300 --vcd " + dir + "/r.vcd").code, 0);
    EXPECT_GE(changes_of(slurp(dir + "/r.vcd"), "rxd"), 600u);
    EXPECT_GE(changes_of(slurp(dir + "/r.lines.vcd"), "rxd"), 600u);
    EXPECT_LE(changes_of(slurp(dir + "/r.lines.vcd"), "txd"), 1u) << "read writes nothing: TXD stays idle";
    remove_dir(dir);
}

// tty-paste with --vcd in fast mode (both lines as characters) against reference mode (both on the
// pins, every cycle clocked): the same results and NAME.vcd, NAME.lines.vcd byte for byte; and the
// waves change no result of the fast run.
TEST(TtyModes, FastWithWavesGivesTheReferencesResultsAndWaves) {
    const std::string dir = make_tmpdir();
    for (const char* args :
         {"--variant read --profile hw --payload-bytes 400",
          "--variant echo --profile hw --payload-bytes 400",
          "--variant write --profile hw --payload-bytes 400",
          "--variant echo --profile hw --payload-bytes 800 --set hog_us=1500 --set hog_period_us=4000 "
          "--set hog_sync=rx_irq --expect-loss",
          "--variant read --profile pc --payload-bytes 300"}) {
        const std::string a = args;
        const nlohmann::json fast = run_json("tty-paste", a + " --vcd " + dir + "/fast.vcd");
        const nlohmann::json ref = run_json("tty-paste", a + " --mode reference --vcd " + dir + "/ref.vcd");
        const nlohmann::json plain = run_json("tty-paste", a);
        ASSERT_FALSE(fast.is_null()) << a;
        ASSERT_FALSE(ref.is_null()) << a;
        EXPECT_EQ(simulated(fast), simulated(ref)) << a;
        EXPECT_EQ(simulated(fast), simulated(plain)) << a << ": the waves changed a result";
        for (const char* f : {".vcd", ".lines.vcd"}) {
            const std::string x = slurp(dir + "/fast" + f), y = slurp(dir + "/ref" + f);
            EXPECT_GT(x.size(), 1000u) << a << f;
            EXPECT_TRUE(x == y) << a << ": " << f << " differs between fast and reference mode";
        }
    }
    remove_dir(dir);
}

// boot-console on grace: the PL011's TX line as characters (the monitor and the BMC's CTS pacing take
// the reported characters) against the pin.
TEST(BootModes, LineAsCharactersGivesTheSameResultsAsThePin) {
    for (const char* v : boot_variants)
        if (std::string(v) != "console-initcall")
            check_line_both_ways(std::string("--variant ") + v + " --profile grace --payload-bytes 3000",
                                 "boot-console", 0.8);
    check_line_both_ways("--variant legacy --profile grace --payload-bytes 3000 --set earlycon=1",
                         "boot-console", 0.8);
}

// boot-console on a reduced boot: the log's records replayed or printed by the kthread under CTS flow
// control, the IPI at 413.5 ms during the replay, four cores.
class BootModes : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(BootModes, FastGivesTheSameResultsAsReference) {
    const auto [variant, profile] = GetParam();
    if (std::string(variant) == "console-initcall" && std::string(profile) == "rpi3b") { // no meaning there
        EXPECT_EQ(run_uartvp("run boot-console --variant console-initcall --profile rpi3b").code, 2);
        return;
    }
    if (std::string(variant) == "console-initcall") { // no console: no UART access to compare
        const nlohmann::json fast =
            run_json("boot-console", "--variant console-initcall --payload-bytes 3000");
        const nlohmann::json ref =
            run_json("boot-console", "--variant console-initcall --payload-bytes 3000 --mode reference");
        EXPECT_EQ(simulated(fast), simulated(ref));
        return;
    }
    check_modes("boot-console", variant, profile, "--payload-bytes 3000");
}

INSTANTIATE_TEST_SUITE_P(AllVariantsAndProfiles, BootModes,
                         ::testing::Combine(::testing::ValuesIn(boot_variants),
                                            ::testing::ValuesIn(boot_profiles)),
                         params_name());

// rpi3b's mini UART and grace's PL011 with --vcd: TXD from their reports, the waves those of the pin.
TEST(BootModes, WavesWithTheLineAsCharactersAreThoseOfThePin) {
    for (const char* profile : {"rpi3b", "grace"})
        for (const char* v : {"legacy", "nbcon-atomic"})
            check_waves_both_ways(std::string("--variant ") + v + " --profile " + profile +
                                      " --payload-bytes 3000",
                                  "boot-console");
}

// rpi3b's mini UART reports its line as characters in fast mode too: the same results as on the pin.
TEST(BootModes, Rpi3bLineAsCharactersGivesTheSameResultsAsThePin) {
    for (const char* v : {"legacy", "nbcon-atomic", "merged"}) {
        const std::string args = std::string("--variant ") + v + " --profile rpi3b --payload-bytes 3000";
        const nlohmann::json chars = run_json("boot-console", args);
        const nlohmann::json pins = run_json("boot-console", args + " --set line_model=pins");
        ASSERT_FALSE(chars.is_null());
        EXPECT_EQ(simulated(chars), simulated(pins)) << args;
        EXPECT_EQ(chars["transactions"], pins["transactions"]) << args;
        EXPECT_LT(chars["host"]["time_steps"].get<double>(), pins["host"]["time_steps"].get<double>())
            << args;
    }
}

// boot-console with the earlycon as a boot console from the first record (the real console then skips
// the replay), and with console_loglevel keeping records off the console.
TEST(BootModes, FastGivesTheSameResultsAsReference_EarlyconAndLoglevel) {
    for (const char* v : {"nbcon-atomic", "legacy", "merged"})
        check_modes("boot-console", v, "grace", "--payload-bytes 3000 --set earlycon=1");
    check_modes("boot-console", "nbcon-atomic", "grace", "--payload-bytes 3000 --set quiet=1");
}

// hvc-paste: kopald or the virtqueue's interrupt, khvcd and the reader on two cores, on one core, and
// under stress: a paste that overflows OPAL's buffer, a 5 MB/s source on virtio.
constexpr const char* hvc_setups[] = {"two_cores", "one_core", "stress"};

class HvcModes : public ::testing::TestWithParam<std::tuple<const char*, const char*, const char*>> {};

TEST_P(HvcModes, FastGivesTheSameResultsAsReference) {
    const auto [variant, profile, setup] = GetParam();
    std::string extra = "--payload-bytes 3000 --set burst_bytes=1024";
    if (std::string(setup) == "one_core") extra += " --set cores=1";
    if (std::string(setup) == "stress")
        extra = std::string("--payload-bytes 6000 --expect-loss") +
                (std::string(profile) == "opal" ? " --set bmc_buffer_bytes=1024" : " --set paste_kbps=5000");
    check_modes("hvc-paste", variant, profile, extra);
}

INSTANTIATE_TEST_SUITE_P(AllVariantsAndProfiles, HvcModes,
                         ::testing::Combine(::testing::ValuesIn(hvc_variants),
                                            ::testing::ValuesIn(hvc_profiles),
                                            ::testing::ValuesIn(hvc_setups)),
                         params_name());
