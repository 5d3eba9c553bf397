// SPDX-License-Identifier: Apache-2.0
// Plugins (--plugin): variants of one's own beside the built-in ones, loaded by list, run and compare;
// a plugin that cannot be loaded is bad input (exit 2, nothing run), a routine that misbehaves while it
// runs an internal error (exit 3, nothing left behind).
#include <sys/stat.h>

#include <fstream>

#include "program_runner.h"

using namespace uartvp::test;

namespace {

const std::string good = TEST_PLUGIN, misbehaving = MISBEHAVING_PLUGIN;
std::string bad(int n) {
    return std::string(BAD_PLUGIN_DIR) + "/libuartvp_bad_plugin" + std::to_string(n) + ".so";
}

// The simulated figures of a console run (everything but the variant's name and host figures).
void expect_same_figures(const nlohmann::json& a, const nlohmann::json& b) {
    for (const char* k : {"sim_time_ns", "line_idle_ns", "bytes_written", "bytes_on_line", "lost_bytes",
                          "mmio_reads", "mmio_writes", "polls", "irq_off_max_ns", "tx_fifo_max", "outcome"})
        EXPECT_EQ(a[k], b[k]) << k;
}

bool exists(const std::string& p) {
    struct stat st {};
    return stat(p.c_str(), &st) == 0;
}

} // namespace

TEST(Plugins, KernelStyleLiteralV0GivesTheBuiltInV0sFiguresOnBothProfiles) {
    for (const char* profile : {"hw", "vm"}) {
        const std::string common = std::string("--profile ") + profile + " --payload-bytes 400";
        const nlohmann::json v0 = run_json("earlycon-pl011", common + " --variant v0");
        const nlohmann::json mine =
            run_json("earlycon-pl011", common + " --plugin " + good + " --variant literal-v0");
        EXPECT_EQ(mine["variant"], "literal-v0");
        EXPECT_GT(mine["mmio_reads"].get<int>(), 0);
        expect_same_figures(v0, mine);
    }
}

TEST(Plugins, SetupRunsOnThePortBeforeTheWrites) {
    // The setup makes the port SBSA; the driver's console write then does what console-sbsa does.
    const nlohmann::json sbsa = run_json("earlycon-pl011", "--payload-bytes 300 --variant console-sbsa");
    const nlohmann::json arm = run_json("earlycon-pl011", "--payload-bytes 300 --variant console");
    const nlohmann::json mine =
        run_json("earlycon-pl011", "--payload-bytes 300 --plugin " + good + " --variant sbsa-by-setup");
    expect_same_figures(sbsa, mine);
    EXPECT_NE(arm["mmio_writes"], mine["mmio_writes"]); // ARM's part saves and restores CR: not what ran
}

TEST(Plugins, Console8250HookRunsOnThePortAsStartupLeavesIt) {
    const nlohmann::json builtin = run_json("console-8250", "--payload-bytes 300 --variant putchar");
    const nlohmann::json mine =
        run_json("console-8250", "--payload-bytes 300 --plugin " + good + " --variant my-putchar");
    expect_same_figures(builtin, mine);
    EXPECT_EQ(builtin["line_text_head"], mine["line_text_head"]);
}

// boot-console: the plugin's write as the legacy console, on the profile's UART; the mainline routines
// called through it give variant legacy's figures on both profiles. A profile without its routine
// refuses the variant (run: exit 2) and compare leaves it out, saying why.
TEST(Plugins, BootConsoleHookRunsAsTheLegacyConsoleOnEachProfilesUart) {
    for (const char* profile : {"grace", "rpi3b"}) {
        const std::string common = std::string("--profile ") + profile + " --payload-bytes 3000";
        const nlohmann::json legacy = run_json("boot-console", common + " --variant legacy");
        const nlohmann::json mine =
            run_json("boot-console", common + " --plugin " + good + " --variant my-legacy");
        ASSERT_FALSE(mine.is_null()) << profile;
        EXPECT_EQ(mine["variant"], "my-legacy");
        for (const char* k : {"sim_time_ns", "init_ns", "console_probe_ns", "irq_off_max_ns",
                              "records_printed", "bytes_on_line", "mmio_reads", "mmio_writes", "outcome"})
            EXPECT_EQ(legacy[k], mine[k]) << profile << " " << k;
        EXPECT_GT(mine["records_printed"].get<int>(), 10) << profile;
    }
    // The plugin's routine is what runs: one that waits for BUSY after each character reads FR more.
    const std::string grace = "--profile grace --payload-bytes 3000";
    const nlohmann::json legacy = run_json("boot-console", grace + " --variant legacy");
    const nlohmann::json busy =
        run_json("boot-console", grace + " --plugin " + good + " --variant busy-per-char");
    EXPECT_EQ(busy["outcome"], "clean");
    EXPECT_EQ(busy["records_printed"], legacy["records_printed"]);
    EXPECT_GT(busy["mmio_reads"].get<double>(), legacy["mmio_reads"].get<double>());
    expect_usage_error("run boot-console --profile rpi3b --payload-bytes 3000 --plugin " + good +
                           " --variant pl011-only",
                       "no serial8250_write");
    const result c = run_uartvp("compare boot-console --profile rpi3b --payload-bytes 3000 --plugin " + good +
                                " --variants legacy,pl011-only");
    EXPECT_EQ(c.code, 0) << c.err;
    EXPECT_NE(c.out.find("skipped pl011-only"), std::string::npos) << c.out;
}

TEST(Plugins, ListShowsPluginVariantsAfterTheBuiltInOnesAndOnlyWhenLoaded) {
    const result plain = run_uartvp("list");
    ASSERT_EQ(plain.code, 0);
    EXPECT_EQ(plain.out.find("literal-v0"), std::string::npos);
    const result r = run_uartvp("list --plugin " + good + " --plugin " + misbehaving);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto v0 = r.out.find("    v0 "), console_sbsa = r.out.find("console-qdf2400-e44 ");
    const auto mine = r.out.find("literal-v0"), later = r.out.find("never-returns");
    const auto c8250 = r.out.find("console-8250"), putchar = r.out.find("my-putchar");
    ASSERT_NE(mine, std::string::npos);
    EXPECT_LT(v0, mine);
    EXPECT_LT(console_sbsa, mine);
    EXPECT_LT(mine, later); // plugins in the order given
    EXPECT_LT(later, c8250);
    EXPECT_LT(c8250, putchar); // each variant under its own scenario
    EXPECT_NE(r.out.find("[plugin " + good + "]"), std::string::npos) << "says where it came from";
}

TEST(Plugins, CompareRunsPluginVariantsBesideTheBuiltInOnes) {
    char tmpl[] = "/tmp/uartvp-json-XXXXXX";
    close(mkstemp(tmpl));
    const result r = run_uartvp("compare earlycon-pl011 --profile vm --payload-bytes 300 --plugin " + good +
                                " --json " + tmpl);
    ASSERT_EQ(r.code, 0) << r.err;
    nlohmann::json j;
    std::ifstream(tmpl) >> j;
    std::remove(tmpl);
    ASSERT_EQ(j["runs"].size(), 13u); // 11 built-in (the aarch64 core's three among them), 2 of the plugin's
    EXPECT_EQ(j["runs"][11]["variant"], "literal-v0");
    EXPECT_EQ(j["runs"][12]["variant"], "sbsa-by-setup");
    expect_same_figures(j["runs"][0], j["runs"][11]);
    EXPECT_NE(r.out.find("literal-v0"), std::string::npos);
}

TEST(Plugins, APluginThatCannotBeLoadedIsBadInputAndNothingRuns) {
    char dir[] = "/tmp/uartvp-plugin-XXXXXX";
    const std::string d = mkdtemp(dir);
    const std::string text = d + "/libtext.so";
    std::ofstream(text) << "not an ELF file\n";
    const std::string json = d + "/out.json";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {d + "/libmissing.so", "no such file"},
        {d, "not a regular file"},
        {text, "cannot be loaded"},
        {bad(1), "no entry point"},
        {bad(2), "plugin ABI"},
        {bad(3), "variant v0 of earlycon-pl011 is taken already (built in)"},
        {bad(4), "no scenario no-such-scenario"},
        {bad(5), "tty-paste takes no hook of kind"},
        {bad(6), "variant name 'bad name'"},
        {bad(7), "adds no variant"},
        // A file name over 80 characters is shown cut (params.cpp's shown()): the build tree's path
        // decides which, so compare what is shown either way.
        {good + " --plugin " + bad(8), "is taken already (by " + good.substr(0, 80)},
        {good + " --plugin " + good, "given twice"},
    };
    for (const auto& [plugin, names] : cases) {
        for (const std::string& cmd :
             std::vector<std::string>{"list", "run earlycon-pl011 --json " + json,
                                      "compare earlycon-pl011 --profile vm --json " + json}) {
            const std::string command = cmd + " --plugin " + plugin;
            expect_usage_error(command, names);
            EXPECT_FALSE(exists(json)) << command;
        }
    }
    std::remove(text.c_str());
    rmdir(d.c_str());
}

TEST(Plugins, ARoutineThatMisbehavesEndsTheRunWithAnInternalErrorNamingIt) {
    char dir[] = "/tmp/uartvp-plugin-XXXXXX";
    const std::string d = mkdtemp(dir);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"earlycon-pl011 --variant throws", "its write routine threw: my routine gave up"},
        {"earlycon-pl011 --variant bus-error", "its write routine threw: "},
        {"earlycon-pl011 --variant never-returns", "its write routine has not returned after"},
        {"earlycon-pl011 --variant stuck", "its write routine has not returned after"},
        {"earlycon-pl011 --variant relaxes-forever", "its write routine has not returned after"},
        {"earlycon-pl011 --variant delays-forever", "its write routine has not returned after"},
        {"earlycon-pl011 --variant setup-never-returns", "its setup routine has not returned after 1 s"},
        {"console-8250 --variant 8250-never-returns", "its write routine has not returned after"},
    };
    for (const auto& [args, names] : cases) {
        const std::string json = d + "/out.json", vcd = d + "/w.vcd";
        const std::string command = "run " + args + " --payload-bytes 200 --plugin " + misbehaving +
                                    " --json " + json + " --vcd " + vcd;
        const result r = run_uartvp(command);
        EXPECT_EQ(r.code, 3) << command << ": " << r.err;
        EXPECT_EQ(lines(r.err), 1) << r.err;
        EXPECT_NE(r.err.find("variant " + args.substr(args.find("--variant ") + 10)), std::string::npos)
            << r.err;
        EXPECT_NE(r.err.find(names), std::string::npos) << r.err;
        EXPECT_TRUE(entries(d).empty()) << command << ": an output was left behind";
    }
    // A bus error says what the bus answered.
    const result r = run_uartvp("run earlycon-pl011 --variant bus-error --plugin " + misbehaving);
    EXPECT_NE(r.err.find("0x9100000"), std::string::npos) << r.err;
    rmdir(d.c_str());
}

TEST(Plugins, SweepRunsPluginVariantsAsItsRunsDo) {
    char tmpl[] = "/tmp/uartvp-jsonl-XXXXXX";
    close(mkstemp(tmpl));
    const result r =
        run_uartvp("sweep earlycon-pl011 --variants v0,literal-v0 --payload-bytes 300 --plugin " + good +
                   " --json " + tmpl);
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream f(tmpl);
    std::vector<nlohmann::json> runs;
    for (std::string line; std::getline(f, line);)
        runs.push_back(nlohmann::json::parse(line));
    std::remove(tmpl);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[1]["variant"], "literal-v0");
    expect_same_figures(runs[0], runs[1]);
}

// A plugin's variant named with another scenario: the message says which scenario it belongs to
// (run, compare and sweep alike); a name no scenario has still points to `list`.
TEST(Plugins, AVariantOfAnotherScenarioNamesTheScenarioItBelongsTo) {
    const std::string hint =
        "unknown variant 'literal-v0' of console-8250 (it is a variant of earlycon-pl011)";
    for (const std::string& cmd :
         {"run console-8250 --variant literal-v0", "compare console-8250 --variants literal-v0",
          "sweep console-8250 --variants literal-v0"}) {
        const result r = run_uartvp(cmd + " --plugin " + good);
        EXPECT_EQ(r.code, 2) << cmd;
        EXPECT_NE(r.err.find(hint), std::string::npos) << cmd << ": " << r.err;
    }
    const result none = run_uartvp("run console-8250 --variant nosuch --plugin " + good);
    EXPECT_NE(none.err.find("unknown variant 'nosuch' of console-8250 (see 'uartvp list')"),
              std::string::npos)
        << none.err;
}
