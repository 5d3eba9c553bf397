// SPDX-License-Identifier: Apache-2.0
// Long runs that talk: the line parameters in effect in run's and compare's headers, progress on
// standard error (forced with --progress off a terminal, silenced by --quiet), compare -j N with the
// same rows as one at a time, --variants, and sweep's cross product, JSON Lines, exit codes and checks.
#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "program_runner.h"

using namespace uartvp::test;

namespace {

// The figures a run must repeat exactly: everything but the host's wall-clock times and memory.
nlohmann::json simulated(nlohmann::json j) {
    for (const char* k : {"wall_s", "rtl_eval_s", "peak_rss_mb"})
        j.erase(k);
    return j;
}

std::vector<nlohmann::json> json_lines(const std::string& path) {
    std::vector<nlohmann::json> out;
    std::ifstream f(path);
    for (std::string line; std::getline(f, line);)
        out.push_back(nlohmann::json::parse(line));
    return out;
}

// A table's lines without their last column where it is a number (wall s).
std::string without_wall(const std::string& table) {
    std::istringstream in(table);
    std::string out;
    for (std::string line; std::getline(in, line);) {
        const auto cut = line.rfind(' ');
        const std::string last = cut == std::string::npos ? "" : line.substr(cut + 1);
        out +=
            (!last.empty() && last.find_first_not_of("0123456789.") == std::string::npos ? line.substr(0, cut)
                                                                                         : line) +
            "\n";
    }
    return out;
}

// The children of `pid` that are `uartvp run` already (right after fork they are still copies), with
// the directory their --json goes to.
std::vector<std::pair<pid_t, std::string>> running_children(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    std::vector<std::pair<pid_t, std::string>> out;
    for (pid_t c; f >> c;) {
        std::ifstream cl("/proc/" + std::to_string(c) + "/cmdline");
        std::vector<std::string> args;
        for (std::string a; std::getline(cl, a, '\0');)
            args.push_back(a);
        if (args.size() < 2 || args[1] != "run") continue;
        for (std::size_t i = 0; i + 1 < args.size(); ++i)
            if (args[i] == "--json") out.emplace_back(c, args[i + 1].substr(0, args[i + 1].rfind('/')));
    }
    return out;
}

bool gone(pid_t pid) {
    if (kill(pid, 0) != 0) return errno == ESRCH;
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string all((std::istreambuf_iterator<char>(f)), {});
    const auto close = all.rfind(')');
    return close != std::string::npos && close + 2 < all.size() && all[close + 2] == 'Z';
}

} // namespace

TEST(LongRuns, RunHeaderShowsTheLineParametersInEffect) {
    const result r = run_uartvp("run earlycon-pl011 --payload-bytes 100 --set baud=9600");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(
        r.out.find("  line: 9600 baud 8N1, UARTCLK 24 MHz, IBRD 156 FBRD 16 (divisor 156.25), 9600 baud "
                   "actual (+0.000 %)\n"),
        std::string::npos)
        << r.out;
    const result d = run_uartvp("run earlycon-pl011 --payload-bytes 100");
    EXPECT_NE(
        d.out.find("  line: 115200 baud 8N1, UARTCLK 24 MHz, IBRD 13 FBRD 1 (divisor 13.015625), 115246 "
                   "baud actual (+0.040 %)\n"),
        std::string::npos)
        << d.out;
    // The 16550's clock is XIN, its divisor one number: 1.8432 MHz / (16 * 3) = 38400.
    const result pc = run_uartvp("run console-8250 --payload-bytes 100 --set baud=38400 --set frame=7E1");
    ASSERT_EQ(pc.code, 0) << pc.err;
    EXPECT_NE(
        pc.out.find("  line: 38400 baud 7E1, XIN 1.8432 MHz, divisor 3, 38400 baud actual (+0.000 %)\n"),
        std::string::npos)
        << pc.out;
    // The VMM's 40 Mbaud line as a whole number, not 4e+07.
    const result vm = run_uartvp("run earlycon-pl011 --profile vm --payload-bytes 100");
    ASSERT_EQ(vm.code, 0) << vm.err;
    EXPECT_NE(
        vm.out.find("  line: 40000000 baud 8N1, UARTCLK 640 MHz, IBRD 1 FBRD 0 (divisor 1), 40000000 baud "
                    "actual (+0.000 %)\n"),
        std::string::npos)
        << vm.out;
}

TEST(LongRuns, CompareHeaderShowsTheLineParameters) {
    const result r = run_uartvp("compare tty-paste --payload-bytes 200 --set baud=57600 -j 2");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\nline: 57600 baud 8N1, UARTCLK 24 MHz, IBRD 26 FBRD 3 (divisor 26.046875), 57588 "
                         "baud actual (-0.020 %)\n"),
              std::string::npos)
        << r.out;
}

TEST(LongRuns, ProgressOffATerminalOnlyWhenForced) {
    // Long enough for several updates (four a second at most).
    const std::string args = "run earlycon-pl011 --profile vm --payload-bytes 200000";
    const result quiet_default = run_uartvp(args);
    ASSERT_EQ(quiet_default.code, 0) << quiet_default.err;
    EXPECT_EQ(quiet_default.err, "") << "standard error is not a terminal: no progress unless forced";
    const result forced = run_uartvp(args + " --progress");
    ASSERT_EQ(forced.code, 0) << forced.err;
    const std::regex update(
        R"(run: ([0-9.]+) ms simulated, ([0-9.]+) % of the payload, ([0-9.]+) s wall(, about [0-9]+ s left)?)");
    std::istringstream in(forced.err);
    double last_ms = -1, last_share = -1;
    int updates = 0;
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        ASSERT_TRUE(std::regex_match(line, m, update)) << "one update per line: " << line;
        const double ms = std::stod(m[1]), share = std::stod(m[2]);
        EXPECT_GE(ms, last_ms);
        EXPECT_GE(share, last_share);
        EXPECT_LE(share, 100.0);
        last_ms = ms;
        last_share = share;
        ++updates;
    }
    EXPECT_GE(updates, 1) << forced.err;
    EXPECT_EQ(run_uartvp(args + " --quiet").err, "");
    expect_usage_error(args + " --progress --quiet", "--quiet");
}

TEST(LongRuns, ProgressSaysWhichRunsAreDone) {
    const result c = run_uartvp("compare tty-paste --payload-bytes 200 --progress -j 2");
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_NE(c.err.find("compare: 3/3 variants done\n"), std::string::npos) << c.err;
    const result s = run_uartvp("sweep tty-paste --variants read --payload-bytes 100,200 --progress -j 2");
    ASSERT_EQ(s.code, 0) << s.err;
    EXPECT_NE(s.err.find("sweep: 2/2 runs done\n"), std::string::npos) << s.err;
}

TEST(LongRuns, CompareInParallelGivesTheSameRowsInVariantOrder) {
    const std::string dir = make_tmpdir();
    const std::string args = "compare earlycon-pl011 --profile vm --payload-bytes 20000";
    const result one = run_uartvp(args + " -j 1 --json " + dir + "/one.json");
    const result two = run_uartvp(args + " -j 2 --json " + dir + "/two.json");
    ASSERT_EQ(one.code, 0) << one.err;
    ASSERT_EQ(two.code, 0) << two.err;
    EXPECT_EQ(without_wall(one.out), without_wall(two.out));
    const nlohmann::json a = nlohmann::json::parse(slurp(dir + "/one.json")),
                         b = nlohmann::json::parse(slurp(dir + "/two.json"));
    ASSERT_EQ(a["runs"].size(), 11u);
    ASSERT_EQ(b["runs"].size(), 11u);
    const char* order[] = {"v0",          "v0-literal", "v1",           "v2",
                           "qdf2400-e44", "console",    "console-sbsa", "console-qdf2400-e44",
                           "v0-a64",      "v1-a64",     "v2-a64"};
    for (std::size_t i = 0; i < 11; ++i) {
        EXPECT_EQ(b["runs"][i]["variant"], order[i]);
        EXPECT_EQ(simulated(a["runs"][i]), simulated(b["runs"][i])) << order[i];
    }
    remove_dir(dir);
}

TEST(LongRuns, CompareVariantsPicksThemInTheOrderGiven) {
    const std::string dir = make_tmpdir();
    const result r =
        run_uartvp("compare earlycon-pl011 --profile vm --payload-bytes 2000 --variants v2,v0 --json " + dir +
                   "/c.json");
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(slurp(dir + "/c.json"));
    ASSERT_EQ(j["runs"].size(), 2u);
    EXPECT_EQ(j["runs"][0]["variant"], "v2");
    EXPECT_EQ(j["runs"][1]["variant"], "v0");
    EXPECT_EQ(lines(r.out), 5) << "title, line, column names, two rows: " << r.out;
    // The worst child's exit code: v1 loses its tail at a reset, v2 does not.
    EXPECT_EQ(
        run_uartvp("compare earlycon-pl011 --payload-bytes 600 --set reset_after_write=1 --variants v2,v1")
            .code,
        1);
    expect_usage_error("compare earlycon-pl011 --variants v0,v9", "unknown variant 'v9'");
    expect_usage_error("compare earlycon-pl011 --variants v0,v0", "listed twice");
    expect_usage_error("compare earlycon-pl011 --variants v0,", "empty item");
    expect_usage_error("compare earlycon-pl011 -j 0", "-j 0");
    expect_usage_error("compare earlycon-pl011 -j x", "-j x");
    remove_dir(dir);
}

TEST(LongRuns, SweepRunsTheCrossProductIntoJsonLines) {
    const std::string dir = make_tmpdir();
    const result r = run_uartvp("sweep earlycon-pl011 --variants v1,v2 --payload-bytes 300,600 --set "
                                "reset_after_write=0,1 --set baud=115200,57600 -j 2 --json " +
                                dir + "/s.jsonl");
    EXPECT_EQ(r.code, 1) << "v1 loses its tail at a reset: the worst run's code. " << r.err;
    const std::vector<nlohmann::json> runs = json_lines(dir + "/s.jsonl");
    ASSERT_EQ(runs.size(), 16u);
    std::size_t i = 0;
    for (const char* n : {"300", "600"})
        for (const char* reset : {"0", "1"})
            for (const char* baud : {"115200", "57600"})
                for (const char* v : {"v1", "v2"}) {
                    const nlohmann::json& j = runs[i];
                    const nlohmann::json& pt = j["sweep"];
                    EXPECT_EQ(pt["index"], i);
                    EXPECT_EQ(pt["variant"], v);
                    EXPECT_EQ(j["variant"], v);
                    EXPECT_EQ(pt["profile"], "hw");
                    EXPECT_EQ(pt["payload_bytes"], std::stoull(n));
                    EXPECT_EQ(j["payload"], std::string("generated:") + n);
                    EXPECT_EQ(pt["set"], (nlohmann::json{{"reset_after_write", reset}, {"baud", baud}}));
                    EXPECT_EQ(j["params"]["baud"], std::stoull(baud)) << "the run had its parameters";
                    EXPECT_EQ(j["params"]["reset_after_write"], std::string(reset) == "1");
                    const bool loses = std::string(v) == "v1" && std::string(reset) == "1";
                    EXPECT_EQ(j["outcome"], loses ? "difference" : "clean") << i;
                    ++i;
                }
    EXPECT_EQ(lines(r.out), 2 + 16) << r.out;
    EXPECT_EQ(entries(dir), std::vector<std::string>{"s.jsonl"});
    remove_dir(dir);
}

TEST(LongRuns, SweepWorksForEveryScenarioAndProfile) {
    const result r =
        run_uartvp("sweep console-8250 --variants putchar --profile pc,slow-bmc --payload-bytes 100 "
                   "--json -");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(lines(r.out), 2) << r.out;
    EXPECT_NE(r.err.find("slow-bmc"), std::string::npos) << "the table goes to standard error: " << r.err;
    const result t = run_uartvp("sweep tty-paste --payload-bytes 100 --set hog_us=0,50 --json -");
    ASSERT_EQ(t.code, 0) << t.err;
    EXPECT_EQ(lines(t.out), 6) << "three variants, two values: " << t.out;
}

TEST(LongRuns, SweepChecksEveryRunBeforeRunningAny) {
    const std::string dir = make_tmpdir();
    expect_usage_error("sweep earlycon-pl011 --set baud=115200,0 --json " + dir + "/s.jsonl", "baud");
    expect_usage_error("sweep earlycon-pl011 --set nokey=1,2", "nokey");
    expect_usage_error("sweep earlycon-pl011 --set baud=1,,2", "empty item");
    expect_usage_error("sweep earlycon-pl011 --set baud=9600 --set baud=4800", "given twice");
    expect_usage_error("sweep earlycon-pl011 --variants v0,v0", "listed twice");
    expect_usage_error("sweep earlycon-pl011 --profile hw,nosuch", "unknown profile 'nosuch'");
    expect_usage_error("sweep earlycon-pl011 --payload-bytes 10,1e6", "1e6");
    expect_usage_error("sweep nosuch", "unknown scenario");
    expect_usage_error("sweep", "needs a scenario");
    expect_usage_error("sweep earlycon-pl011 --emit-jobs " + dir + "/j.txt --json " + dir + "/s.jsonl",
                       "--emit-jobs");
    expect_usage_error("sweep earlycon-pl011 --json " + dir + "/nodir/s.jsonl", "nodir");
    expect_usage_error("sweep --collect " + dir + " --json " + dir + "/c.jsonl", "sweep.json");
    EXPECT_EQ(entries(dir), std::vector<std::string>{}) << "nothing written";
    remove_dir(dir);
}

TEST(LongRuns, EmittedJobsAreAbsoluteAndCollectNamesAMissingResult) {
    const std::string dir = make_tmpdir();
    const result e =
        run_command("cd " + dir + " && " + UARTVP_BIN +
                    " sweep tty-paste --variants read --payload-bytes 100,200 --emit-jobs jobs.txt");
    ASSERT_EQ(e.code, 0) << e.err;
    EXPECT_EQ(entries(dir), (std::vector<std::string>{"jobs.txt", "sweep.json"}));
    const std::string jobs = slurp(dir + "/jobs.txt");
    ASSERT_EQ(lines(jobs), 2) << jobs;
    EXPECT_EQ(jobs.rfind(std::string(UARTVP_BIN) + " run tty-paste --variant read", 0), 0u) << jobs;
    EXPECT_NE(jobs.find("--json " + dir + "/run-00001.json\n"), std::string::npos) << jobs;
    // Only the first job ran: collect names the other.
    ASSERT_EQ(run_command("cd / && " + jobs.substr(0, jobs.find('\n'))).code, 0);
    const result c = run_uartvp("sweep --collect " + dir + " --json " + dir + "/c.jsonl");
    EXPECT_EQ(c.code, 2) << c.err;
    EXPECT_NE(c.err.find("run 1 (read hw 200 B), " + dir + "/run-00001.json: no result"), std::string::npos)
        << c.err;
    EXPECT_EQ(c.err.find("run 0 "), std::string::npos) << "the run that ran is not named: " << c.err;
    EXPECT_FALSE(std::ifstream(dir + "/c.jsonl").good()) << "no half-collected output";
    // Another run's result in its place is named as stale.
    std::ofstream(dir + "/run-00001.json") << slurp(dir + "/run-00000.json");
    const result stale = run_uartvp("sweep --collect " + dir + " --json " + dir + "/c.jsonl");
    EXPECT_EQ(stale.code, 2) << stale.err;
    EXPECT_NE(stale.err.find("run 1 (read hw 200 B)"), std::string::npos) << stale.err;
    EXPECT_NE(stale.err.find("payload is \"generated:100\" in the result, \"generated:200\" in the job"),
              std::string::npos)
        << stale.err;
    EXPECT_FALSE(std::ifstream(dir + "/c.jsonl").good());
    remove_dir(dir);
}

// Jobs emitted again into the same folder with other --set values, and not run: every result there
// is stale, and each one whose --set value changed is named with both values (the collect used to
// label the old results with the new values). The mode is checked the same way.
TEST(LongRuns, CollectNamesResultsWhoseSetValuesOrModeDifferFromTheirJobs) {
    const std::string dir = make_tmpdir();
    const std::string emit = std::string(UARTVP_BIN) +
                             " sweep tty-paste --variants read --payload-bytes 100 --emit-jobs " + dir +
                             "/j.txt";
    ASSERT_EQ(run_command(emit + " --set hog_us=0,2500").code, 0);
    ASSERT_EQ(run_command("sh " + dir + "/j.txt").code, 0);
    const std::string collect = "sweep --collect " + dir + " --json " + dir + "/c.jsonl";
    ASSERT_EQ(run_uartvp(collect).code, 0) << "the jobs as they ran are collected";
    std::remove((dir + "/c.jsonl").c_str());
    ASSERT_EQ(run_command(emit + " --set hog_us=0,1000").code, 0);
    const result r = run_uartvp(collect);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("run 1 (read hw 100 B hog_us=1000)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--set hog_us is 2500.0 in the result, 1000.0 in the job"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("run 0 "), std::string::npos) << "hog_us=0 is the same value: " << r.err;
    EXPECT_NE(r.err.find("1 of 2 results missing or stale"), std::string::npos) << r.err;
    EXPECT_FALSE(std::ifstream(dir + "/c.jsonl").good()) << "nothing collected";
    ASSERT_EQ(run_command(emit + " --set hog_us=0,2500 --mode reference").code, 0);
    const result m = run_uartvp(collect);
    EXPECT_EQ(m.code, 2) << m.err;
    EXPECT_NE(m.err.find("mode is \"fast\" in the result, \"reference\" in the job"), std::string::npos)
        << m.err;
    remove_dir(dir);
}

// A stop by signal ends every child running side by side, removes the scratch directory and leaves no
// output; the sweep ends by the signal.
TEST(LongRuns, SweepStoppedBySignalEndsEveryChildAndLeavesNothing) {
    using namespace std::chrono_literals;
    const std::string dir = make_tmpdir();
    process p({"sweep", "earlycon-pl011", "--profile", "vm", "--variants", "v0,v1,v2", "--payload-bytes",
               "10000000", "-j", "2", "--json", dir + "/s.jsonl"});
    std::vector<std::pair<pid_t, std::string>> kids;
    ASSERT_TRUE(eventually(
        [&] {
            kids = running_children(p.pid());
            return kids.size() == 2;
        },
        20s))
        << p.err();
    const std::string scratch = kids.front().second;
    EXPECT_EQ(scratch.rfind("/tmp/uartvp-sweep-", 0), 0u) << scratch;
    std::this_thread::sleep_for(300ms);
    p.signal(SIGTERM);
    ASSERT_TRUE(p.wait_for(1s)) << "still running a second later";
    EXPECT_EQ(p.end_signal(), SIGTERM) << p.code() << ": " << p.err();
    for (const auto& k : kids)
        EXPECT_TRUE(eventually([&] { return gone(k.first); }, 1s)) << "run " << k.first << " goes on";
    struct stat st {};
    EXPECT_NE(stat(scratch.c_str(), &st), 0) << "the scratch directory is left";
    EXPECT_EQ(entries(dir), std::vector<std::string>{});
    remove_dir(dir);
}

TEST(LongRuns, EachCommandsHelpPrintsItAndRunsNothing) {
    for (const char* c : {"run", "compare", "sweep"}) {
        const result r = run_uartvp(std::string(c) + " --help");
        EXPECT_EQ(r.code, 0) << c << ": " << r.err;
        EXPECT_EQ(r.err, "") << c;
        EXPECT_NE(r.out.find("--progress"), std::string::npos) << c << ": " << r.out;
    }
    EXPECT_NE(run_uartvp("compare --help").out.find("--variants"), std::string::npos);
    EXPECT_NE(run_uartvp("run --help").out.find("--terminal"), std::string::npos);
}
