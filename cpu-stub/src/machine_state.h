// SPDX-License-Identifier: Apache-2.0
#pragma once
// The machine's state that its mechanisms share (interrupt lines, CSDs, per-CPU queues and timers);
// each mechanism's code is in a file of its own: irq.cpp, timer.cpp, smp.cpp, machine.cpp.
#include <uartvp/cpu/kernel.h>
#include <uartvp/cpu/machine.h>

#include <deque>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace uartvp::cpu {

using namespace sc_core;

struct machine::line {
    std::string name, label; // label: "irq NAME", the hard-IRQ span's name
    unsigned cpu = 0;
    sc_signal_in_if<bool>* sig = nullptr;
    struct action {
        irq_handler_t handler;
        std::string name;
        void* dev_id;
    };
    std::vector<action> actions;
    std::vector<std::function<void()>> on_raise;
    int disable_depth = 0;
    bool awaiting = false; // raised and not yet served: its latency is still to be measured
    sc_time asserted_at;
};

// A CPU's call-function data towards one target (kernel/smp.c's csd), locked while in flight.
struct machine::csd {
    bool locked = false;
    bool sync = false;
    std::function<void()> func;
    std::uint64_t seq = 0;
    unsigned caller = 0;
    sc_event unlocked;
};

struct machine::percpu {
    std::deque<csd*> call_queue;              // call_single_queue
    std::vector<std::unique_ptr<csd>> csd_to; // this CPU's CSD towards each target
    std::deque<irq_work*> work, lazy_work;
    std::vector<timer_list*> timers;
    std::vector<hrtimer*> hrtimers;
    bool tick_pending = false;
    bool hrtimer_pending = false;            // an hrtimer of this CPU is due: its interrupt is raised
    std::uint64_t armed = ~std::uint64_t(0); // the jiffy of the next tick this CPU takes
};

} // namespace uartvp::cpu

namespace uartvp::kapi {

// The task a kernel API call is made from.
inline cpu::task& running() {
    cpu::task* t = cpu::core::current().current_task();
    if (!t) throw std::logic_error("a task's call outside a task (in an idle core's interrupt)");
    return *t;
}

} // namespace uartvp::kapi
