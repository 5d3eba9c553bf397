// SPDX-License-Identifier: Apache-2.0
#include "cli/stop.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

#include <systemc>

#if defined(__SANITIZE_ADDRESS__)
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#endif

#include "cli/outputs.h"
#include "cli/progress.h"

namespace uartvp::program::stop {

namespace {

// Lets the signal thread stop the kernel: update() runs in the kernel's update phase, where
// sc_stop() is allowed.
class stop_channel final : public sc_core::sc_prim_channel {
public:
    stop_channel()
        : sc_core::sc_prim_channel("uartvp_stop") {}
    void request() { async_request_update(); }

private:
    void update() override {
        if (!m_stopped) sc_core::sc_stop();
        m_stopped = true;
    }
    bool m_stopped = false;
};

std::atomic<int> g_signal{0};
std::atomic<pid_t> g_child{0};
std::mutex g_lock; // g_channel, g_scratch, g_children
stop_channel* g_channel = nullptr;
std::string g_scratch;
std::set<pid_t> g_children;

void signal_children(int sig) {
    if (const pid_t c = g_child.load()) kill(c, sig);
    std::lock_guard<std::mutex> l(g_lock);
    for (pid_t c : g_children)
        kill(c, sig);
}

constexpr auto grace = std::chrono::milliseconds(500);

// The signals that stop the program: SIGINT, SIGTERM, SIGHUP, less those ignored when it started
// (nohup): a blocked signal reaches sigwait even when ignored, so they stay out of the set.
sigset_t stop_signals() {
    static const sigset_t set = [] {
        sigset_t s;
        sigemptyset(&s);
        for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
            struct sigaction now {};
            if (sigaction(sig, nullptr, &now) == 0 && now.sa_handler != SIG_IGN) sigaddset(&s, sig);
        }
        return s;
    }();
    return set;
}

void remove_dir(const std::string& dir) {
    if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d)) {
            const std::string n = e->d_name;
            if (n != "." && n != "..") unlink((dir + "/" + n).c_str());
        }
        closedir(d);
    }
    rmdir(dir.c_str());
}

void take_signals() {
    const sigset_t set = stop_signals();
    int sig = 0;
    while (sigwait(&set, &sig) != 0) {
    }
    g_signal.store(sig);
    signal_children(SIGTERM);
    {
        std::lock_guard<std::mutex> l(g_lock);
        if (g_channel) g_channel->request();
    }
    std::this_thread::sleep_for(grace);
    // The main thread has not ended the process: end it from here, leaving nothing behind.
    signal_children(SIGKILL);
    outputs::discard();
    {
        std::lock_guard<std::mutex> l(g_lock);
        if (!g_scratch.empty()) remove_dir(g_scratch);
    }
    die(sig);
}

// SystemC's coroutine switches tell AddressSanitizer which stack runs, but back in the main thread after
// sc_start() it is left with a coroutine's bounds: an exception thrown there then unwinds without ASan
// clearing the frames' marks, and later writes to that stack are false reports. Give it the main
// thread's own stack again (a switch to the stack it is already on).
void main_stack_for_sanitizer() {
#if defined(__SANITIZE_ADDRESS__)
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    void* bottom = nullptr;
    std::size_t size = 0;
    pthread_attr_getstack(&attr, &bottom, &size);
    pthread_attr_destroy(&attr);
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, bottom, size);
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

} // namespace

void ignore_write_signals() {
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
}

void install() {
    const sigset_t set = stop_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread(take_signals).detach();
}

int requested() {
    return g_signal.load();
}

void check() {
    if (const int s = g_signal.load()) throw interrupted(s);
}

void simulate(const sc_core::sc_time& limit) {
    {
        std::lock_guard<std::mutex> l(g_lock);
        // Created once, before sc_start (a primitive channel belongs to elaboration); kept for the
        // process's life: the kernel holds it.
        static stop_channel* channel = new stop_channel;
        g_channel = channel;
    }
    check();                // a signal before this point found no channel
    struct progress_guard { // the run's progress updates while the kernel runs, whatever ends it
        progress_guard() { progress::simulation_starting(); }
        ~progress_guard() { progress::simulation_ended(); }
    };
    {
        const progress_guard guard;
        if (limit == sc_core::SC_ZERO_TIME)
            sc_core::sc_start();
        else
            sc_core::sc_start(limit, sc_core::SC_EXIT_ON_STARVATION);
        main_stack_for_sanitizer();
    }
    {
        std::lock_guard<std::mutex> l(g_lock);
        g_channel = nullptr;
    }
    check();
}

void set_child(pid_t pid) {
    g_child.store(pid);
    // A signal taken just before the child was known: end the child here.
    if (pid && g_signal.load()) kill(pid, SIGTERM);
}

void add_child(pid_t pid) {
    {
        std::lock_guard<std::mutex> l(g_lock);
        g_children.insert(pid);
    }
    if (g_signal.load()) kill(pid, SIGTERM);
}

void remove_child(pid_t pid) {
    std::lock_guard<std::mutex> l(g_lock);
    g_children.erase(pid);
}

void set_scratch_dir(const std::string& dir) {
    std::lock_guard<std::mutex> l(g_lock);
    g_scratch = dir;
}

void die(int signo) {
    signal(signo, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signo);
    raise(signo);
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr); // delivered here, ending the process
    _exit(128 + signo);
}

} // namespace uartvp::program::stop
