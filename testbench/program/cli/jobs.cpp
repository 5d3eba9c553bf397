// SPDX-License-Identifier: Apache-2.0
#include "cli/jobs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "cli/params.h"
#include "cli/stop.h"

namespace uartvp::program::jobs {

namespace {
constexpr int exit_internal = 3;

pid_t spawn(const std::vector<std::string>& args) {
    std::vector<char*> argv;
    for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    sigset_t stop_set;
    sigemptyset(&stop_set);
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
        sigaddset(&stop_set, sig);
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        // Other threads exist (the signal thread): only async-signal-safe calls until exec.
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(exit_internal); // the parent is gone already
        sigprocmask(SIG_UNBLOCK, &stop_set, nullptr);
        const int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, STDOUT_FILENO) < 0) _exit(exit_internal);
        execv(argv[0], argv.data());
        _exit(exit_internal);
    }
    stop::add_child(pid);
    return pid;
}
} // namespace

scratch_dir::scratch_dir(const std::string& prefix) {
    std::string tmpl = prefix + "XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory");
    m_path = tmpl;
    stop::set_scratch_dir(m_path);
}

scratch_dir::~scratch_dir() {
    stop::set_scratch_dir("");
    if (DIR* d = opendir(m_path.c_str())) {
        while (const dirent* e = readdir(d)) {
            const std::string n = e->d_name;
            if (n != "." && n != "..") unlink((m_path + "/" + n).c_str());
        }
        closedir(d);
    }
    rmdir(m_path.c_str());
}

void run_all(const std::vector<std::vector<std::string>>& argvs, unsigned parallel,
             const std::function<void(std::size_t, const outcome&)>& in_order,
             const std::function<void(std::size_t)>& ended) {
    using clock = std::chrono::steady_clock;
    struct running {
        std::size_t index;
        clock::time_point start;
    };
    std::map<pid_t, running> live;
    std::map<std::size_t, outcome> finished; // ended, not yet handed over in order
    std::size_t next = 0, handed = 0, count = 0;
    auto reap_all = [&] { // after a stop: the children were sent SIGTERM
        while (!live.empty()) {
            int status = 0;
            const pid_t pid = waitpid(-1, &status, 0);
            if (pid < 0 && errno != EINTR) break;
            if (pid > 0) {
                stop::remove_child(pid);
                live.erase(pid);
            }
        }
    };
    while (handed < argvs.size()) {
        if (stop::requested()) {
            reap_all();
            stop::check();
        }
        while (next < argvs.size() && live.size() < parallel) {
            const pid_t pid = spawn(argvs[next]);
            live[pid] = {next++, clock::now()};
        }
        int status = 0;
        struct rusage ru {};
        const pid_t pid = wait4(-1, &status, 0, &ru);
        if (pid < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error("wait4 failed");
        }
        stop::remove_child(pid);
        const auto it = live.find(pid);
        if (it == live.end()) continue; // not one of ours
        outcome o;
        o.status = status;
        o.peak_mb = ru.ru_maxrss / 1024.0;
        o.wall_s = std::chrono::duration<double>(clock::now() - it->second.start).count();
        finished[it->second.index] = o;
        live.erase(it);
        if (ended) ended(++count);
        if (stop::requested()) continue; // reaped above, at the top
        try {
            while (!finished.empty() && finished.begin()->first == handed) {
                in_order(handed, finished.begin()->second);
                finished.erase(finished.begin());
                ++handed;
            }
        } catch (...) {
            // A failed run ends the rest: they are told to stop and reaped before the error goes on.
            for (const auto& [p, r] : live)
                kill(p, SIGTERM);
            reap_all();
            throw;
        }
    }
}

unsigned default_parallel() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0) return static_cast<unsigned>(n);
    }
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<unsigned>(n) : 1;
}

unsigned parse_parallel(const std::string& v) {
    if (v.empty() || v.size() > 4 || v.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(v) < 1 || std::stoul(v) > 1024)
        throw usage_error("-j " + shown(v) + ": expected a whole number of runs at once, 1 to 1024");
    return static_cast<unsigned>(std::stoul(v));
}

} // namespace uartvp::program::jobs
