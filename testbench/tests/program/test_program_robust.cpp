// SPDX-License-Identifier: Apache-2.0
// The uartvp program under signals, odd input and full disks: a stop by SIGINT, SIGTERM or SIGHUP
// leaves nothing behind and ends by the signal (compare's children too), payloads that are not regular
// files, console writes longer than the scoreboard's limit, names at the file system's limits, JSON on
// standard output, standard output that cannot be written, the RTL trace on a full disk, and memory
// that does not grow with the generated payload.
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include <gtest/gtest.h>

#include "program_runner.h"

using namespace uartvp::test;
using namespace std::chrono_literals;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool sanitized = true; // AddressSanitizer's shadow memory and quarantine dwarf the program's own
#else
constexpr bool sanitized = false;
#endif

// A run long enough to be stopped in the middle (about a minute on vm), writing every output.
std::vector<std::string> long_run(const std::string& dir) {
    return {"run",   "earlycon-pl011", "--profile", "vm",     "--payload-bytes", "10000000",
            "--vcd", dir + "/w.vcd",   "--vcd-rtl", "--json", dir + "/o.json"};
}

const char* signal_name(int sig) {
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "?";
}

// Sends `sig` once `dir` holds the run's temporaries; expects the process to end by that signal within
// a second, leaving `dir` empty.
void stop_and_expect_clean(process& p, const std::string& dir, int sig, std::size_t temporaries) {
    ASSERT_TRUE(eventually([&] { return entries(dir).size() >= temporaries; }, 20s))
        << "the run never wrote its temporaries: " << p.err();
    ASSERT_TRUE(p.running()) << p.err();
    std::this_thread::sleep_for(200ms); // well into the simulation
    p.signal(sig);
    ASSERT_TRUE(p.wait_for(1s)) << signal_name(sig) << ": still running a second later";
    EXPECT_EQ(p.end_signal(), sig) << signal_name(sig) << ": exit code " << p.code() << ", " << p.err();
    EXPECT_EQ(entries(dir), std::vector<std::string>{}) << signal_name(sig) << " left files behind";
    EXPECT_EQ(p.err().find("internal error"), std::string::npos) << p.err();
}

// The directory of the --json file a compare child writes (compare's scratch directory), once the child
// is `uartvp run` (right after fork it is still a copy of compare).
std::string json_dir_of(pid_t child) {
    std::ifstream f("/proc/" + std::to_string(child) + "/cmdline");
    std::vector<std::string> args;
    for (std::string a; std::getline(f, a, '\0');)
        args.push_back(a);
    if (args.size() < 2 || args[1] != "run") return "";
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--json") return args[i + 1].substr(0, args[i + 1].rfind('/'));
    return "";
}

bool exists(const std::string& p) {
    struct stat st {};
    return stat(p.c_str(), &st) == 0;
}

// The children of `pid` (Linux: /proc/PID/task/PID/children).
std::vector<pid_t> children_of(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    std::vector<pid_t> c;
    for (pid_t x; f >> x;)
        c.push_back(x);
    return c;
}

bool gone(pid_t pid) {
    if (kill(pid, 0) != 0) return errno == ESRCH;
    // A zombie whose parent is gone waits for init to reap it: as good as gone.
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string all((std::istreambuf_iterator<char>(f)), {});
    const auto close = all.rfind(')');
    return close != std::string::npos && close + 2 < all.size() && all[close + 2] == 'Z';
}

std::string write_file(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

// No run of more than 80 characters of `c` in `s`, and the cut marked: a long value is quoted cut.
bool quotes_at_most_80(const std::string& s, char c) {
    return s.find(std::string(81, c)) == std::string::npos && s.find(c) != std::string::npos &&
           s.find("...") != std::string::npos;
}

} // namespace

// ---- signals

TEST(Signals, RunStoppedByIntTermOrHupLeavesNothingAndEndsByTheSignal) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        const std::string dir = make_tmpdir();
        process p(long_run(dir));
        stop_and_expect_clean(p, dir, sig, 3); // the VCD, lines VCD, RTL trace; the rest come at the end
        remove_dir(dir);
    }
}

TEST(Signals, ReferenceModeAndThe16550StopAsFast) {
    const std::string dir = make_tmpdir();
    {
        process p({"run", "earlycon-pl011", "--mode", "reference", "--payload-bytes", "100000", "--vcd",
                   dir + "/w.vcd", "--json", dir + "/o.json"});
        stop_and_expect_clean(p, dir, SIGTERM, 2);
    }
    {
        process p({"run", "console-8250", "--profile", "slow-bmc", "--payload-bytes", "1000000", "--vcd",
                   dir + "/w.vcd", "--json", dir + "/o.json"});
        stop_and_expect_clean(p, dir, SIGINT, 2);
    }
    remove_dir(dir);
}

// `kill PARENT` (or timeout, or a CI cancel) reaches compare alone: it ends the variant running in its
// child, removes its scratch directory and ends by the signal.
TEST(Signals, CompareSignalledAloneEndsItsChildAndLeavesNothing) {
    const std::string dir = make_tmpdir();
    process p({"compare", "earlycon-pl011", "--profile", "vm", "--payload-bytes", "10000000", "--json",
               dir + "/c.json"});
    pid_t child = 0;
    std::string scratch;
    ASSERT_TRUE(eventually(
        [&] {
            const auto c = children_of(p.pid());
            if (c.empty()) return false;
            child = c.front();
            scratch = json_dir_of(child);
            return !scratch.empty();
        },
        20s))
        << p.err();
    EXPECT_EQ(scratch.rfind("/tmp/uartvp-compare-", 0), 0u) << scratch;
    EXPECT_TRUE(exists(scratch));
    std::this_thread::sleep_for(300ms);
    p.signal(SIGTERM); // the parent only
    ASSERT_TRUE(p.wait_for(1s)) << "still running a second later";
    EXPECT_EQ(p.end_signal(), SIGTERM) << p.code() << ": " << p.err();
    EXPECT_TRUE(eventually([&] { return gone(child); }, 1s)) << "the variant's process runs on";
    EXPECT_FALSE(exists(scratch)) << "the scratch directory is left";
    EXPECT_EQ(entries(dir), std::vector<std::string>{});
    remove_dir(dir);
}

// Started with SIGHUP ignored (nohup), the program keeps it ignored: a hangup does not stop the run.
TEST(Signals, SignalIgnoredAtStartStaysIgnored) {
    const std::string dir = make_tmpdir();
    process p(
        {"run", "earlycon-pl011", "--profile", "vm", "--payload-bytes", "200000", "--json", dir + "/o.json"},
        [] { signal(SIGHUP, SIG_IGN); });
    std::this_thread::sleep_for(300ms);
    ASSERT_TRUE(p.running()) << p.err();
    p.signal(SIGHUP);
    ASSERT_TRUE(p.wait_for(120s));
    EXPECT_EQ(p.code(), 0) << "signal " << p.end_signal() << ": " << p.err();
    EXPECT_EQ(entries(dir), std::vector<std::string>{"o.json"});
    remove_dir(dir);
}

// A main thread that cannot get to its checks (here: blocked writing the summary into a pipe nobody
// reads) is ended by the signal thread all the same, which removes the temporaries itself.
TEST(Signals, StopWhileBlockedOnAFullPipeStillLeavesNothing) {
    const std::string dir = make_tmpdir();
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    const std::string block(4096, 'z');
    while (write(fds[1], block.data(), block.size()) > 0) {
    }
    fcntl(fds[1], F_SETFL, 0); // the program's writes block
    process p({"run", "earlycon-pl011", "--payload-bytes", "1000", "--vcd", dir + "/w.vcd", "--json",
               dir + "/o.json"},
              {}, fds[1]);
    close(fds[1]);
    std::this_thread::sleep_for(1500ms); // the run takes a few tens of milliseconds
    ASSERT_TRUE(p.running()) << "did not block: " << p.code() << " " << p.err();
    EXPECT_FALSE(entries(dir).empty()) << "the finished waves wait under temporary names";
    p.signal(SIGTERM);
    ASSERT_TRUE(p.wait_for(1s)) << "still running a second later";
    EXPECT_EQ(p.end_signal(), SIGTERM);
    EXPECT_EQ(entries(dir), std::vector<std::string>{});
    close(fds[0]);
    remove_dir(dir);
}

// SIGKILL cannot be caught: the child still ends (it asked for a signal when its parent dies).
TEST(Signals, CompareKilledOutrightStillEndsItsChild) {
    process p({"compare", "earlycon-pl011", "--profile", "vm", "--payload-bytes", "10000000"});
    pid_t child = 0;
    std::string scratch;
    ASSERT_TRUE(eventually(
        [&] {
            const auto c = children_of(p.pid());
            if (c.empty()) return false;
            child = c.front();
            scratch = json_dir_of(child);
            return !scratch.empty();
        },
        20s))
        << p.err();
    p.signal(SIGKILL);
    ASSERT_TRUE(p.wait_for(1s));
    EXPECT_TRUE(eventually([&] { return gone(child); }, 1s)) << "the variant's process runs on as an orphan";
    if (scratch.rfind("/tmp/uartvp-compare-", 0) == 0) remove_dir(scratch); // only the parent could have
}

// ---- odd input

TEST(OddInput, PayloadThatIsNotARegularFileIsRefusedWithoutReadingIt) {
    const std::string dir = make_tmpdir();
    const std::string fifo = dir + "/fifo", sock = dir + "/sock";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
    const int s = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, sock.c_str(), sizeof addr.sun_path - 1);
    ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    for (const std::string& payload : {fifo, sock, std::string("/dev/null"), std::string("/dev/zero")}) {
        process p({"run", "earlycon-pl011", "--payload", payload});
        ASSERT_TRUE(p.wait_for(10s)) << payload << ": blocked";
        EXPECT_EQ(p.code(), 2) << payload;
        EXPECT_NE(p.err().find("not a regular file"), std::string::npos) << payload << ": " << p.err();
        EXPECT_EQ(lines(p.err()), 1) << p.err();
        // Nobody opened the FIFO for reading: a writer that does not wait finds no reader.
        if (payload == fifo) {
            const int w = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
            EXPECT_EQ(w, -1);
            EXPECT_EQ(errno, ENXIO);
        }
    }
    close(s);
    remove_dir(dir);
}

// The scoreboard holds a console write whole, however long: every byte arrived, so the run is clean.
TEST(OddInput, ConsoleWritesLongerThanTheScoreboardLimitComeOutClean) {
    const std::string dir = make_tmpdir();
    std::string long_line = "[    0.000000] ";
    while (long_line.size() < 4095)
        long_line += static_cast<char>('a' + long_line.size() % 26);
    const std::string log = write_file(dir + "/4095.txt", "[    0.000000] before\n" + long_line + "\n" +
                                                              "[    0.000001] after\n");
    for (const char* scenario : {"earlycon-pl011", "console-8250"}) {
        const nlohmann::json j = run_json(scenario, "--payload " + log);
        EXPECT_EQ(j["outcome"], "clean") << scenario << ": " << j.dump();
        EXPECT_EQ(j["lost_bytes"], 0);
        EXPECT_EQ(j["duplicated_bytes"], 0);
        EXPECT_EQ(j["bytes_on_line"], j["bytes_written"]);
        EXPECT_EQ(j["payload_lines"], 3);
    }
    std::string mb(1 << 20, 'x');
    for (std::size_t i = 0; i < mb.size(); ++i)
        mb[i] = static_cast<char>('!' + (i * 31 + i / 93) % 94);
    mb.back() = '\n';
    const std::string one = write_file(dir + "/1mb.txt", mb);
    const nlohmann::json j = run_json("earlycon-pl011", "--variant v1 --profile vm --payload " + one);
    EXPECT_EQ(j["outcome"], "clean") << j.dump();
    EXPECT_EQ(j["bytes_on_line"], (1 << 20) + 1) << "the line and the \\r before its \\n";
    EXPECT_EQ(j["payload_lines"], 1);
    remove_dir(dir);
}

TEST(OddInput, UartClockAboveTheTimeResolutionIsRefused) {
    process p({"run", "earlycon-pl011", "--set", "uartclk_hz=3000000000000", "--set", "baud=187500000000"});
    ASSERT_TRUE(p.wait_for(10s)) << "spins";
    EXPECT_EQ(p.code(), 2);
    EXPECT_NE(p.err().find("10^12"), std::string::npos) << p.err();
    // At the limit itself every cycle is a picosecond of its own: it runs.
    const nlohmann::json j = run_json("console-8250", "--payload-bytes 300 --set uartclk_hz=1000000000000 "
                                                      "--set baud=62500000000 --set cpu_hz=100000000000");
    EXPECT_EQ(j["outcome"], "clean");
}

TEST(OddInput, KeyGivenTwiceIsRefused) {
    expect_usage_error("run earlycon-pl011 --set baud=9600 --set baud=19200", "--set baud given twice");
    expect_usage_error("compare console-8250 --set frame=8N1 --set frame=7E1", "given twice");
}

TEST(OddInput, MessagesQuoteAtMost80CharactersOfAValue) {
    const std::string x(5000, 'x');
    for (const std::string& args :
         {"run " + x, "run earlycon-pl011 --variant " + x, "run earlycon-pl011 --profile " + x,
          "run earlycon-pl011 --set baud=" + x, "run earlycon-pl011 --set " + x + "=1",
          "run earlycon-pl011 --payload /tmp/" + x, "run earlycon-pl011 --json /tmp/" + x,
          "run earlycon-pl011 --vcd /tmp/" + x + ".vcd", "run earlycon-pl011 --mode " + x,
          "run earlycon-pl011 --payload-bytes " + x, "run earlycon-pl011 " + x, x}) {
        const result r = run_uartvp(args);
        EXPECT_EQ(r.code, 2) << args.substr(0, 60);
        EXPECT_EQ(lines(r.err), 1) << r.err.substr(0, 300);
        EXPECT_TRUE(quotes_at_most_80(r.err, 'x')) << args.substr(0, 60) << ": " << r.err.substr(0, 300);
    }
    expect_usage_error("run earlycon-pl011 --payload-bytes 1e6", "not a whole number");
    expect_usage_error("run earlycon-pl011 --payload-bytes 12.5", "not a whole number");
    expect_usage_error("run earlycon-pl011 --payload-bytes 2000000000", "not in range");
}

// ---- outputs

TEST(Outputs, VcdUnderAFileOrWithTooLongANameIsBadUsage) {
    const std::string dir = make_tmpdir();
    const std::string file = write_file(dir + "/file", "x");
    expect_usage_error("run earlycon-pl011 --payload-bytes 100 --vcd " + file + "/w.vcd", "not a directory");
    expect_usage_error("run earlycon-pl011 --payload-bytes 100 --json " + file + "/o.json",
                       "not a directory");
    expect_usage_error("run earlycon-pl011 --payload-bytes 100 --vcd " + dir + "/" + std::string(252, 'n') +
                           ".vcd",
                       "longer than 255");
    // NAME.vcd fits, NAME.lines.vcd would not.
    expect_usage_error("run earlycon-pl011 --payload-bytes 100 --vcd " + dir + "/" + std::string(248, 'n') +
                           ".vcd",
                       "longer than 255");
    expect_usage_error("run earlycon-pl011 --payload-bytes 100 --json " + dir + "/" + std::string(256, 'j'),
                       "longer than 255");
    EXPECT_EQ(entries(dir), std::vector<std::string>{"file"});
    remove_dir(dir);
}

// The temporary name beside a 255-byte name must fit the file system too.
TEST(Outputs, LongestLegalNamesWork) {
    const std::string dir = make_tmpdir();
    const std::string json = std::string(250, 'j') + ".json", stem(245, 'w');
    ASSERT_EQ(json.size(), 255u);
    const result r = run_uartvp("run earlycon-pl011 --payload-bytes 200 --json " + dir + "/" + json +
                                " --vcd " + dir + "/" + stem + ".vcd");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(entries(dir),
              (std::vector<std::string>{json, stem + ".gtkw", stem + ".lines.vcd", stem + ".regs.txt",
                                        stem + ".tasks.txt", stem + ".vcd"}));
    EXPECT_EQ(nlohmann::json::parse(slurp(dir + "/" + json))["outcome"], "clean");
    remove_dir(dir);
}

TEST(Outputs, JsonOnStandardOutputCarriesTheJsonAlone) {
    const result r = run_uartvp("run earlycon-pl011 --payload-bytes 300 --json -");
    EXPECT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out); // throws if anything else is there
    EXPECT_EQ(j["outcome"], "clean");
    EXPECT_NE(r.err.find("outcome"), std::string::npos) << "the summary, on standard error: " << r.err;
    const result c = run_uartvp("compare earlycon-pl011 --profile vm --payload-bytes 300 --json -");
    EXPECT_EQ(c.code, 0) << c.err;
    const nlohmann::json all = nlohmann::json::parse(c.out);
    // One run per earlycon-pl011 variant, as `uartvp list` names them.
    const result l = run_uartvp("list");
    std::size_t variants = 0;
    for (const char* v : {"v0", "v0-literal", "v1", "v2", "qdf2400-e44", "console", "console-sbsa",
                          "console-qdf2400-e44", "v0-a64", "v1-a64", "v2-a64"})
        if (l.out.find(v) != std::string::npos) ++variants;
    EXPECT_EQ(all["runs"].size(), variants);
    EXPECT_EQ(variants, 11u);
    EXPECT_NE(c.err.find("qdf2400-e44"), std::string::npos) << "the table, on standard error: " << c.err;
}

TEST(Outputs, StandardOutputThatCannotBeWrittenIsExit3) {
    for (const std::string& args :
         {std::string("run earlycon-pl011 --payload-bytes 300"),
          std::string("run earlycon-pl011 --payload-bytes 300 --json -"),
          std::string("compare earlycon-pl011 --profile vm --payload-bytes 300"), std::string("list")}) {
        // ENOSPC
        const result full =
            run_command("(" + std::string(UARTVP_BIN) + " " + args + " >/dev/full; echo \"code $?\")");
        EXPECT_NE(full.err.find("cannot write standard output"), std::string::npos)
            << args << ": " << full.err;
        EXPECT_NE(full.out.find("code 3"), std::string::npos) << args << ": " << full.out;
        // EPIPE: the reader is gone before the first write (SIGPIPE must not end the run silently).
        int fds[2];
        ASSERT_EQ(pipe(fds), 0);
        std::istringstream split(args);
        std::vector<std::string> argv;
        for (std::string a; split >> a;)
            argv.push_back(a);
        close(fds[0]);
        process p(argv, {}, fds[1]);
        close(fds[1]);
        ASSERT_TRUE(p.wait_for(60s));
        EXPECT_EQ(p.code(), 3) << args << ": " << p.err() << " (signal " << p.end_signal() << ")";
        EXPECT_NE(p.err().find("cannot write standard output"), std::string::npos) << p.err();
    }
}

TEST(Outputs, FailedWriteToStandardOutputLeavesNoOutputFile) {
    const std::string dir = make_tmpdir();
    const result r =
        run_command("(" + std::string(UARTVP_BIN) + " run earlycon-pl011 --payload-bytes 300 --json " + dir +
                    "/o.json --vcd " + dir + "/w.vcd >/dev/full; echo \"code $?\")");
    EXPECT_NE(r.out.find("code 3"), std::string::npos) << r.out << r.err;
    EXPECT_EQ(entries(dir), std::vector<std::string>{}) << "outputs of a run whose summary was lost";
    remove_dir(dir);
}

// ---- full disk

namespace {

// A 200 KB file system of this test process's own (a private mount namespace, gone with the process),
// or a reason it cannot be had.
std::string small_tmpfs(const std::string& at) {
    if (unshare(CLONE_NEWNS) != 0) return std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno);
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        return std::string("making / private: ") + std::strerror(errno);
    if (mount("tmpfs", at.c_str(), "tmpfs", 0, "size=200k") != 0)
        return std::string("mounting a 200 KB tmpfs: ") + std::strerror(errno);
    return "";
}

// A file size limit of 200 KB for the child, SIGXFSZ ignored: writes past it fail with EFBIG.
void limit_file_size() {
    struct rlimit rl {
        200 * 1024, 200 * 1024
    };
    setrlimit(RLIMIT_FSIZE, &rl);
    signal(SIGXFSZ, SIG_IGN);
}

void expect_write_failure_leaves_nothing(const std::string& dir, const std::vector<std::string>& args,
                                         const std::function<void()>& in_child, const std::string& how) {
    process p(args, in_child);
    ASSERT_TRUE(p.wait_for(120s)) << how << ": hangs";
    EXPECT_EQ(p.code(), 3) << how << ": " << p.err();
    EXPECT_NE(p.err().find("cannot write"), std::string::npos) << how << ": " << p.err();
    EXPECT_EQ(entries(dir), std::vector<std::string>{}) << how;
}

} // namespace

TEST(FullDisk, RtlTraceOnAFullDiskEndsWithExit3AndLeavesNothing) {
    const std::string dir = make_tmpdir();
    auto args = [&](bool rtl) {
        std::vector<std::string> a{"run",   "earlycon-pl011", "--payload-bytes", "20000",
                                   "--vcd", dir + "/w.vcd",   "--json",          dir + "/o.json"};
        if (rtl) a.push_back("--vcd-rtl");
        return a;
    };
    // RLIMIT_FSIZE: lowering one's own limit needs no privilege.
    for (bool rtl : {true, false})
        expect_write_failure_leaves_nothing(dir, args(rtl), limit_file_size,
                                            rtl ? "RLIMIT_FSIZE, --vcd-rtl" : "RLIMIT_FSIZE, --vcd");
    const std::string why = small_tmpfs(dir);
    if (why.empty()) {
        for (bool rtl : {true, false})
            expect_write_failure_leaves_nothing(dir, args(rtl), {},
                                                rtl ? "tmpfs, --vcd-rtl" : "tmpfs, --vcd");
        umount2(dir.c_str(), MNT_DETACH);
    } else {
        std::cout << "the 200 KB tmpfs part did not run (" << why << "); RLIMIT_FSIZE stood in\n";
    }
    remove_dir(dir);
}

// ---- memory

// The generated boot log is streamed: 10^7 bytes use no more memory than 10^6 (the log was once built
// whole first: 28 MB more for 10^7 before the first byte was printed). The longer run is sampled for as
// long as the shorter one took in all, then stopped.
TEST(Memory, PeakDoesNotGrowWithPayloadBytes) {
    if (sanitized)
        GTEST_SKIP() << "peak memory is measured without AddressSanitizer (its shadow and quarantine)";
    const auto t0 = std::chrono::steady_clock::now();
    process small({"run", "earlycon-pl011", "--profile", "vm", "--payload-bytes", "1000000"});
    ASSERT_TRUE(small.wait_for(300s));
    ASSERT_EQ(small.code(), 0) << small.err();
    const auto took =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
    process large({"run", "earlycon-pl011", "--profile", "vm", "--payload-bytes", "10000000"});
    long hwm = 0;
    const auto until = std::chrono::steady_clock::now() + took;
    while (std::chrono::steady_clock::now() < until && large.running()) {
        hwm = std::max(hwm, proc_status_kb(large.pid(), "VmHWM"));
        std::this_thread::sleep_for(20ms);
    }
    ASSERT_TRUE(large.running()) << "10^7 bytes ended early: " << large.err();
    large.signal(SIGTERM);
    ASSERT_TRUE(large.wait_for(2s));
    std::cout << "peak RSS: 10^6 bytes " << small.peak_rss_kb() << " kB (whole run), 10^7 bytes " << hwm
              << " kB (first " << took.count() << " ms)\n";
    EXPECT_LT(hwm - small.peak_rss_kb(), 10 * 1024);
}

TEST(Memory, GigabytePayloadStaysUnder200MegabytesInItsFirstTenSeconds) {
    if (sanitized)
        GTEST_SKIP() << "peak memory is measured without AddressSanitizer (its shadow and quarantine)";
    process p({"run", "earlycon-pl011", "--profile", "vm", "--payload-bytes", "1073741824"});
    long hwm = 0;
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < until && p.running()) {
        hwm = std::max(hwm, proc_status_kb(p.pid(), "VmHWM"));
        std::this_thread::sleep_for(20ms);
    }
    ASSERT_TRUE(p.running()) << p.err();
    p.signal(SIGTERM);
    ASSERT_TRUE(p.wait_for(2s));
    EXPECT_EQ(p.end_signal(), SIGTERM);
    std::cout << "peak RSS in the first 10 s of 2^30 bytes: " << hwm << " kB\n";
    EXPECT_GT(hwm, 0);
    EXPECT_LT(hwm, 200 * 1024);
}
