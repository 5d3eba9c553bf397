// SPDX-License-Identifier: Apache-2.0
#pragma once
// The kernel model around the cores: N cores, an interrupt controller (device lines, each routed to one
// core, level sensitive, shared handlers), the jiffies tick and timers, irq_work, IPIs with the
// per-CPU CSD locks of kernel/smp.c, and what all of it costs and counts. One machine per simulation;
// sw-tasks reach it through the kernel-like API (<uartvp/cpu/kernel.h>). Several machines may share
// one simulation (a test runs one in fast and one in reference mode side by side).
//
// Interrupt delivery: a core takes an interrupt at the time it is raised if it has IRQs enabled then,
// else when it enables them (see <uartvp/cpu/core.h>); pending sources are taken in this order: IPIs
// (the call-function queue), the tick (timers, lazy irq_work), hrtimers, device lines by number,
// irq_work.
// Hard-IRQ context runs with IRQs off, costs irq_entry + handlers + irq_exit, and is counted apart
// from the IRQs-off windows of tasks.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include <uartvp/cpu/core.h>
#include <uartvp/cpu/timing.h>

namespace uartvp::cpu {

struct kernel_params {
    unsigned hz = 250; // 100, 250, 300 or 1000
    sc_core::sc_time tick_cost =
        sc_core::SC_ZERO_TIME; // the tick interrupt's own cost (0: no tick unless needed)
    sc_core::sc_time irq_entry = sc_core::SC_ZERO_TIME, irq_exit = sc_core::SC_ZERO_TIME;
    std::uint64_t csd_lock_timeout_ms = 5000; // 0: off
    bool csdlock_debug = false;
};

// Linux's irqreturn_t handler(int irq, void *dev_id).
enum irqreturn_t { IRQ_NONE = 0, IRQ_HANDLED = 1 };
using irq_handler_t = std::function<irqreturn_t(int irq, void* dev_id)>;

struct irq_work {
    std::function<void(irq_work*)> func;
    bool lazy = false; // IRQ_WORK_LAZY: run from the next tick
    bool pending = false;
};

struct timer_list {
    std::function<void(timer_list*)> function;
    std::uint64_t expires = 0; // in jiffies
    bool pending = false;
    unsigned cpu = 0;
};

// A high-resolution timer (kernel/time/hrtimer.c): fires at its own time, not at a jiffy's tick, in
// hard-IRQ context on the core that started it.
struct hrtimer {
    std::function<void(hrtimer*)> function;
    sc_core::sc_time expires; // absolute simulated time
    bool pending = false;
    unsigned cpu = 0;
};

struct csd_report {
    enum kind_t { detected, continued, unstuck } kind;
    sc_core::sc_time time;
    unsigned cpu, target_cpu;
    sc_core::sc_time wait;
    std::uint64_t number; // the CSD's sequence number (#N)
    std::string text;     // as the kernel prints it
};

struct irq_line_stats {
    std::string name;
    unsigned cpu = 0;
    std::uint64_t count = 0;  // handler runs
    std::uint64_t served = 0; // assertions served (the latency's samples)
    sc_core::sc_time latency_max, latency_total;
};

class machine : public sc_core::sc_module, public interrupt_source {
public:
    machine(const sc_core::sc_module_name& name, unsigned ncores, const timing_profile& timing,
            const kernel_params& params = kernel_params());
    ~machine() override;
    const char* kind() const override { return "uartvp::cpu::machine"; }

    std::vector<std::unique_ptr<core>> cores;
    // Observation for waves, per core: an IPI (a call-function request) pending or being handled, from
    // the call that queues it until the target's handler has run the queue empty.
    std::vector<std::unique_ptr<sc_core::sc_signal<bool, sc_core::SC_UNCHECKED_WRITERS>>> ipi;
    core& cpu(unsigned i) const { return *cores.at(i); }
    const kernel_params& params() const { return m_params; }
    static machine& get(); // the current core's

    // A device's interrupt line, routed to `cpu`; returns its number (during elaboration).
    int add_irq_line(sc_core::sc_signal_in_if<bool>& line, const std::string& name, unsigned cpu);
    const std::vector<irq_line_stats>& irq_lines() const { return m_line_stats; }
    // The signal of line `irq` (for waves).
    const sc_core::sc_signal_in_if<bool>& irq_line_signal(int irq) const;
    // An instrument for worst-phase experiments: `fn` runs (in a SystemC method, not on a core) at the
    // instant line `irq` rises, before the interrupt is signalled to its core; it may wake a task
    // ahead of that interrupt with core::make_runnable_first.
    void on_irq_raised(int irq, std::function<void()> fn);
    const std::vector<csd_report>& csd_reports() const { return m_reports; }
    // Runs on the waiting core, in its context, as each report is made (printk prints it there).
    void on_csd_report(std::function<void(const csd_report&)> fn) { m_on_report = std::move(fn); }
    // Time spent in smp_call_function waits, per caller.
    sc_core::sc_time csd_wait_total() const { return m_csd_wait_total; }

    // ---- the kernel API's side (kapi calls these)
    int request_irq(int irq, irq_handler_t handler, const std::string& name, void* dev_id);
    void free_irq(int irq, void* dev_id);
    void disable_irq(int irq);
    void enable_irq(int irq);
    bool irq_work_queue(irq_work& w);
    std::uint64_t jiffies() const;
    sc_core::sc_time time_of_jiffy(std::uint64_t j) const;
    void add_timer(timer_list& t);
    bool del_timer(timer_list& t);
    // Starts `t` on the current core, to fire at `expires` (absolute; a time already past fires at
    // once); restarting a pending timer moves it. Cancel returns whether it was pending.
    void hrtimer_start(hrtimer& t, const sc_core::sc_time& expires);
    bool hrtimer_cancel(hrtimer& t);
    // IPIs: func runs on `target` in hard-IRQ context; with `wait`, the caller spins on the CSD lock
    // (IRQs on) until the target ran it.
    void call_function_single(unsigned target, std::function<void()> func, bool wait);
    void call_function_many(const std::vector<unsigned>& targets, std::function<void()> func, bool wait);

    // interrupt_source
    bool pending(const core& c) const override;
    void handle(core& c) override;

private:
    struct line;
    struct csd;
    struct percpu;
    void on_line(int irq);
    void arm_tick(unsigned cpu);
    void tick_method();
    void arm_hrtimers();
    void hrtimer_method();
    void queue_csd(unsigned caller, unsigned target, std::function<void()> func, bool wait, csd*& out);
    void csd_lock_wait(core& c, csd& d, unsigned target);
    void flush_call_queue(core& c);

    kernel_params m_params;
    std::vector<std::unique_ptr<line>> m_lines;
    std::vector<irq_line_stats> m_line_stats;
    std::vector<std::unique_ptr<percpu>> m_percpu;
    std::vector<csd_report> m_reports;
    std::function<void(const csd_report&)> m_on_report;
    sc_core::sc_time m_csd_wait_total;
    std::uint64_t m_csd_seq = 0;
    sc_core::sc_event m_tick_ev, m_hrtimer_ev;
    std::uint64_t m_units_per_s;
};

} // namespace uartvp::cpu
