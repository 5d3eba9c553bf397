// SPDX-License-Identifier: Apache-2.0
#pragma once
// Stopping by signal. SIGINT, SIGTERM and SIGHUP are blocked in every thread and taken by one thread
// that waits for them (sigwait: no signal handler runs). It records the signal, ends compare's child,
// and asks the simulation to stop at its next update phase (a SystemC primitive channel's
// async_request_update(), the kernel's thread-safe way in: the kernel checks for such requests every
// delta cycle anyway, so the running simulation pays nothing for it). The main thread then unwinds as
// on an error (the temporaries are removed) and the process ends by re-raising the signal, as shells
// expect (exit status 128 + the signal's number). Should the main thread not get there within half a
// second (a write that blocks, say), the signal thread removes the temporaries and ends the process
// itself.
#include <sys/types.h>

#include <systemc>

#include <exception>
#include <string>

namespace uartvp::program::stop {

// A stop by signal, thrown from the main thread's checks.
struct interrupted : std::exception {
    explicit interrupted(int s)
        : signo(s) {}
    const char* what() const noexcept override { return "interrupted by a signal"; }
    int signo;
};

// Ignores SIGPIPE and SIGXFSZ (a write that fails is an error the program reports, exit 3). Call first.
void ignore_write_signals();
// Blocks SIGINT, SIGTERM and SIGHUP and starts the thread that takes them. Call before any other
// thread exists (threads inherit the mask).
void install();

// The signal that asked the program to stop, or 0.
int requested();
// Throws interrupted if a signal asked the program to stop.
void check();
// sc_start() until the simulation ends (or `limit` of simulated time has passed, if not zero), or until a
// signal stops it (then throws interrupted).
void simulate(const sc_core::sc_time& limit = sc_core::SC_ZERO_TIME);

// The child process that compare waits for (0: none): a stop sends it SIGTERM.
void set_child(pid_t pid);
// Children run side by side (compare -j, sweep): a stop sends each SIGTERM (and SIGKILL after the grace).
void add_child(pid_t pid);
void remove_child(pid_t pid);
// A directory a stop by the signal thread removes with its files (compare's scratch directory).
void set_scratch_dir(const std::string& dir);

// Ends the process as `signo` does by default (after the clean-up).
[[noreturn]] void die(int signo);

} // namespace uartvp::program::stop
