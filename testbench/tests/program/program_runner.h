// SPDX-License-Identifier: Apache-2.0
#pragma once
// Runs the uartvp program (UARTVP_BIN) as a user would, for tests: exit code, stdout, stderr, JSON; and
// as a process of its own (process): signals, resource limits, memory while it runs.
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace uartvp::test {

struct result {
    int code;
    std::string out, err;
};

inline std::string slurp(const std::string& path) {
    std::ifstream f(path);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

// Runs a shell command line, capturing exit code, stdout and stderr.
inline result run_command(const std::string& command) {
    char dir[] = "/tmp/uartvp-test-XXXXXX";
    const std::string d = mkdtemp(dir);
    const std::string cmd = command + " >" + d + "/out 2>" + d + "/err";
    const int st = std::system(cmd.c_str());
    result r{WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(d + "/out"), slurp(d + "/err")};
    std::remove((d + "/out").c_str());
    std::remove((d + "/err").c_str());
    rmdir(d.c_str());
    return r;
}

inline result run_uartvp(const std::string& args) {
    return run_command(std::string(UARTVP_BIN) + " " + args);
}

// `uartvp run SCENARIO ARGS --json F`, expecting `expect_code`; returns the JSON.
inline nlohmann::json run_json(const std::string& scenario, const std::string& args, int expect_code = 0) {
    char tmpl[] = "/tmp/uartvp-json-XXXXXX";
    const int fd = mkstemp(tmpl);
    close(fd);
    const result r = run_uartvp("run " + scenario + " " + args + " --json " + tmpl);
    EXPECT_EQ(r.code, expect_code) << args << ": " << r.err;
    nlohmann::json j;
    std::ifstream f(tmpl);
    if (f.peek() != std::ifstream::traits_type::eof()) f >> j;
    std::remove(tmpl);
    return j;
}

inline int lines(const std::string& s) {
    return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

inline void expect_usage_error(const std::string& args, const std::string& names) {
    const result r = run_uartvp(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(lines(r.err), 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find(names), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.err.find("SystemC"), std::string::npos) << "no SystemC banner: " << r.err;
}

// The names in a directory (without . and ..).
inline std::vector<std::string> entries(const std::string& dir) {
    std::vector<std::string> names;
    if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d))
            if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
        closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
}

// Removes a directory and the files in it.
inline void remove_dir(const std::string& dir) {
    for (const std::string& n : entries(dir))
        std::remove((dir + "/" + n).c_str());
    rmdir(dir.c_str());
}

inline std::string make_tmpdir(const char* what = "uartvp-test") {
    std::string t = std::string("/tmp/") + what + "-XXXXXX";
    return mkdtemp(t.data());
}

// A figure of /proc/PID/status in kB (VmRSS, VmHWM), or -1 when the process is gone.
inline long proc_status_kb(pid_t pid, const std::string& field) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(f, line);)
        if (line.rfind(field + ":", 0) == 0) return std::atol(line.c_str() + field.size() + 1);
    return -1;
}

// The uartvp program started as a process of its own, without a shell: standard output and error go to
// files (or standard output to `stdout_fd` when given), `in_child` runs in the child before exec (a
// resource limit, say). SIGINT, SIGTERM and SIGHUP start at their defaults, as from a terminal.
class process {
public:
    explicit process(const std::vector<std::string>& args, const std::function<void()>& in_child = {},
                     int stdout_fd = -1)
        : m_dir(make_tmpdir("uartvp-proc")) {
        std::vector<std::string> argv_s{UARTVP_BIN};
        argv_s.insert(argv_s.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (std::string& a : argv_s)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        const std::string out = m_dir + "/out", err = m_dir + "/err";
        m_pid = fork();
        if (m_pid == 0) {
            // Only async-signal-safe calls from here to exec, and _exit: the test's objects stay untouched.
            const int o = stdout_fd >= 0 ? stdout_fd : open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(127);
            sigset_t none;
            sigemptyset(&none);
            sigprocmask(SIG_SETMASK, &none, nullptr);
            for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ})
                ::signal(sig, SIG_DFL);
            if (in_child) in_child();
            execv(argv[0], argv.data());
            _exit(127);
        }
    }
    ~process() {
        if (running()) {
            kill(m_pid, SIGKILL);
            wait_for(std::chrono::seconds(10));
        }
        remove_dir(m_dir);
    }
    process(const process&) = delete;
    process& operator=(const process&) = delete;

    pid_t pid() const { return m_pid; }
    void signal(int sig) const { kill(m_pid, sig); }
    bool running() const { return m_pid > 0 && !m_ended; }
    // Waits until the process ends or `timeout` passes; true if it ended.
    bool wait_for(std::chrono::milliseconds timeout) {
        const auto until = std::chrono::steady_clock::now() + timeout;
        while (!m_ended) {
            struct rusage ru {};
            const pid_t r = wait4(m_pid, &m_status, WNOHANG, &ru);
            if (r == m_pid) {
                m_ended = true;
                m_peak_kb = ru.ru_maxrss;
                break;
            }
            if (r < 0 || std::chrono::steady_clock::now() >= until) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        return m_ended;
    }
    bool exited() const { return m_ended && WIFEXITED(m_status); }
    int code() const { return exited() ? WEXITSTATUS(m_status) : -1; }
    // The signal that ended it, or 0.
    int end_signal() const { return m_ended && WIFSIGNALED(m_status) ? WTERMSIG(m_status) : 0; }
    long peak_rss_kb() const { return m_peak_kb; }
    std::string out() const { return slurp(m_dir + "/out"); }
    std::string err() const { return slurp(m_dir + "/err"); }

private:
    std::string m_dir;
    pid_t m_pid = -1;
    bool m_ended = false;
    int m_status = 0;
    long m_peak_kb = 0;
};

// Waits up to `timeout` for `ready` to hold; its last answer.
inline bool eventually(const std::function<bool()>& ready, std::chrono::milliseconds timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (!ready()) {
        if (std::chrono::steady_clock::now() >= until) return ready();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

} // namespace uartvp::test
