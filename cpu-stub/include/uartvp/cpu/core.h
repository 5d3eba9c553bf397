// SPDX-License-Identifier: Apache-2.0
#pragma once
// The instruction-stub CPU: a core runs software tasks (C++ functions written against the kernel-like
// API of <uartvp/cpu/kernel.h>); every register access is a TLM-2.0 transaction at the core's own
// time, and everything else the software does costs time from the timing profile.
//
// Tasks: each task is bound to one core and runs in a SystemC thread of its own; a core runs one task at
// a time. The scheduler is the kernel's (v6.6+): SCHED_FIFO tasks first, then the fair class, EEVDF
// (kernel/sched/fair.c): each task's virtual runtime grows with its CPU time scaled by 1024 / its
// weight (sched_prio_to_weight of its nice); a task is eligible while its virtual runtime is not above
// the weighted average, and the eligible task with the earliest virtual deadline runs; a deadline is a
// base slice (0.75 ms x (1 + ilog2(min(CPUs, 8)))) of virtual time past the runtime at which the task's
// last slice ended. Preemption is voluntary (CONFIG_PREEMPT_VOLUNTARY): the tick (at HZ) that follows a
// used-up slice, and a wake-up of an eligible task with an earlier deadline, set need_resched; a task
// gives the core up when it ends, sleeps, blocks, calls schedule() or yield(), or calls cond_resched()
// with need_resched set (and preemption enabled). The tick is not simulated as an interrupt: its effect
// on the running task is worked out when the scheduler next looks, as it would have been at that tick.
// Interrupts interrupt a task without a task switch. With nothing runnable the core idles.
//
// Time: the core keeps its own time, ahead of SystemC time (temporal decoupling), and lets SystemC time
// catch up (synchronises) before every bus access and before everything another core or a device could
// observe: an access reaches the device at the time it is issued; the core continues after the access
// cost from the profile (or when the device answers, if later).
//
// Interrupts: an interrupt (a device line routed here and requested, an IPI, irq_work) is taken at the
// time it is raised if the core has IRQs enabled then, else when it enables them. Synchronising towards
// a time T with IRQs enabled, the core takes a pending interrupt first and is woken by a new one: its
// handler runs from that instant, and the work the core had done ahead (up to T) resumes after the
// handler, shifted by its length. An interrupt raised at the very instant the core reaches T is taken at
// its next synchronisation, after the action due at T (a bus access issued at T comes first).
//
// Polling loops (`while (readl(FR) & BUSY) cpu_relax();`, written with kapi::spin_while) run as one
// operation in fast mode: a target that promises how long the value read will hold
// (uartvp::read_promise) lets the core count the reads that fall before then without transactions,
// waiting once in SystemC time for the promise to hold, break or an interrupt to come. Reads, values,
// interrupts and end time are those of the literal loop, which reference mode executes read by read.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <uartvp/cpu/timing.h>
#include <uartvp/read_promise.h>

namespace uartvp::cpu {

class core;
struct task;

// What a task did, for results and for tests.
struct task_stats {
    std::string name;
    unsigned cpu = 0;
    std::uint64_t mmio_reads = 0, mmio_writes = 0;
    std::uint64_t relax = 0; // cpu_relax() calls: iterations of polling loops that had to wait
    sc_core::sc_time start, end;
    sc_core::sc_time cpu_time;  // time the task held its core (interrupts taken meanwhile included)
    sc_core::sc_time wait_time; // time the task was runnable but another held its core
    std::uint64_t switches = 0; // times it left its core (blocking, yielding, preempted, ending)
};

struct core_stats {
    sc_core::sc_time irq_off_total, irq_off_max;
    std::uint64_t irq_off_windows = 0;
    sc_core::sc_time hardirq; // time in hard-IRQ context (entry and exit costs included)
    sc_core::sc_time busy;    // time not idle
    std::uint64_t interrupts = 0;
};

// What the core needs from the rest of the kernel model (the interrupt controller, IPIs, irq_work):
// whether an interrupt is pending for it, and running it. Installed by <uartvp/cpu/irq.h>.
struct interrupt_source {
    virtual ~interrupt_source() = default;
    // Something is pending for `c` (a line, an IPI, irq_work) that it would take with IRQs enabled.
    virtual bool pending(const core& c) const = 0;
    // Runs one pending interrupt's handlers on `c`, in hard-IRQ context (entry/exit costs are the core's).
    virtual void handle(core& c) = 0;
};

// What a core did, span by span, told as each span ends (times in SystemC time, nested as they happen:
// a task holds IRQs-off windows, polling spans and interrupts; an IRQs-off window holds polling spans):
// for timelines and waves. Added before the simulation starts; nothing is told when none is added.
struct core_observer {
    virtual ~core_observer() = default;
    // `t` held the core from `start` to `end` (also told at the end of the run for a task still on it).
    virtual void task_span(const core&, const task_stats& /*t*/, const sc_core::sc_time& /*start*/,
                           const sc_core::sc_time& /*end*/) {}
    // An IRQs-off window of a task, one per window counted in core_stats (hard-IRQ context apart).
    virtual void irqs_off_span(const core&, const sc_core::sc_time& /*start*/,
                               const sc_core::sc_time& /*end*/) {}
    // Hard-IRQ context, entry and exit costs included; `what` names the source (core::label_interrupt).
    virtual void hardirq_span(const core&, const std::string& /*what*/, const sc_core::sc_time& /*start*/,
                              const sc_core::sc_time& /*end*/) {}
    // A polling loop run as one operation (fast mode): poll_begin when the core decides, before any
    // change at or after `start` (the first counted read); poll_span once the count is known, `end`
    // being the time of the read after the last counted one. `reads` 0: no span after all.
    virtual void poll_begin(const core&, const sc_core::sc_time& /*start*/) {}
    virtual void poll_span(const core&, std::uint64_t /*addr*/, const sc_core::sc_time& /*start*/,
                           const sc_core::sc_time& /*end*/, std::uint64_t /*reads*/) {}
    // A register access (once the core's observe_accesses() was called; the reads a polling loop
    // counts are not told): a write or a read of `addr`, the core busy with it from `start` (the
    // present, or the core's time ahead of it for a read a standing promise answers) to `end`. What
    // the bus signals show, without their events.
    virtual void access(const core&, std::uint64_t /*addr*/, bool /*write*/,
                        const sc_core::sc_time& /*start*/, const sc_core::sc_time& /*end*/) {}
};

class core : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<core, 32> bus;
    // Observation for waves: the task running (index into tasks(), -1 idle), IRQs off, in hard IRQ.
    // Written by whichever of the core's threads (a task's, the idle loop) holds the core, possibly twice in
    // one delta (a task that ends at once): the last write wins.
    sc_core::sc_signal<int, sc_core::SC_UNCHECKED_WRITERS> running_task;
    sc_core::sc_signal<bool, sc_core::SC_UNCHECKED_WRITERS> irqs_off;
    sc_core::sc_signal<bool, sc_core::SC_UNCHECKED_WRITERS> in_hardirq;
    // The number of IRQs-off windows opened so far: a window reopened at the instant the last one
    // closed leaves irqs_off high, but moves this.
    sc_core::sc_signal<std::uint64_t, sc_core::SC_UNCHECKED_WRITERS> irqs_off_window;
    // Bus activity, driven only once trace() was called: the address of each access with a read or
    // write strobe held for the access's cost, and the spans in which a polling loop ran as one
    // operation, with the number of reads it stood for.
    sc_core::sc_signal<std::uint64_t> mmio_addr;
    sc_core::sc_signal<bool> mmio_read, mmio_write;
    sc_core::sc_signal<bool> polling;
    sc_core::sc_signal<std::uint64_t> poll_reads;

    core(const sc_core::sc_module_name& name, unsigned id, const timing_profile& timing);
    ~core() override;
    const char* kind() const override { return "uartvp::cpu::core"; }

    // Queue a task with nice 0; tasks added together run in the order added (a boot task, then what
    // follows it), each until it sleeps, yields or calls cond_resched() with need_resched set.
    void add_task(std::string name, std::function<void()> body);
    // A task of any nice level, bound to this core; runnable at once (during elaboration: from the
    // start of the simulation). Returns it (it lives as long as the core).
    task& create_task(std::string name, std::function<void()> body, int nice = 0);
    const std::deque<task_stats>& tasks() const { return m_stats; }
    // The accesses and polls of interrupt handlers that ran while the core was idle (no task to charge).
    const task_stats& idle_stats() const { return m_idle_stats; }
    const core_stats& stats() const { return m_core_stats; }
    unsigned id() const { return m_id; }
    const timing_profile& timing() const { return m_timing; }
    // Fires when the core runs out of tasks (every task added has ended and none is runnable).
    const sc_core::sc_event& idle_event() const { return m_idle; }
    bool idle() const;
    // Adds the task, IRQs-off and bus signals to a trace file and starts driving the bus signals.
    void trace(sc_core::sc_trace_file* tf, const std::string& prefix);
    // Starts driving the bus signals (otherwise they cost nothing).
    void observe_bus() {
        m_traced = true;
        update_fast_reads();
    }
    // Tells the observers each access as it is issued (core_observer::access).
    void observe_accesses() {
        m_accesses_observed = true;
        update_fast_reads();
    }
    // Spans for a timeline or waves (see core_observer); the observer outlives the simulation's run.
    void add_observer(core_observer& o) { m_observers.push_back(&o); }
    // Tells the observers about the task still on the core at the end of the run.
    void end_observation();
    // Names the interrupt being handled, for the observers' hard-IRQ span (by the interrupt source;
    // the name must outlive the simulation).
    void label_interrupt(const std::string& what) { m_irq_label = &what; }

    // The core whose task (or interrupt handler) is executing: the kernel API acts on it.
    // Inline: the kernel API asks for it on every call (a literal loop's every readl() and cpu_relax()).
    static core& current() {
        if (!s_current) no_current();
        return *s_current;
    }

    // Fast mode (the default): polling loops with promised values run as one operation.
    void set_collapse_polls(bool on) {
        m_collapse = on;
        update_fast_reads();
    }
    bool collapse_polls() const { return m_collapse; }
    // Register reads that were transactions, and those a standing promise answered (see read()).
    std::uint64_t transactions() const { return m_transactions; }
    std::uint64_t promised_reads() const { return m_promised_reads; }
    // Transactions issued ahead of SystemC time, without synchronising first (fast mode; see
    // <uartvp/initiator_id.h>): SystemC had nothing to do until the access's time, and its target
    // applies an access at its time itself.
    std::uint64_t accesses_ahead() const { return m_accesses_ahead; }
    // How far the core's time may run ahead of SystemC time in local work (cpu_relax(), udelay(), reads
    // a promise answers) before it synchronises: a loop that never yields still lets time advance.
    static constexpr std::uint64_t max_ahead_ns = 1'000'000;

    // ---- used by the kernel API
    // One register read. In fast mode a read that the promise of an earlier read of the same register
    // still covers is answered from it without a transaction (kernel-style loops written literally,
    // `while (readl(FR) & BUSY) cpu_relax();`): its time is spent, and the core synchronises only
    // where something could have broken the promise before the read's time (any SystemC activity
    // due by then), when the promise ends, or when it ran max_ahead_ns ahead.
    // The hot path of literal loops is inline (read_fast()); every other case is read_slow().
    std::uint32_t read(std::uint64_t addr, unsigned size) {
        std::uint32_t v;
        return read_fast(addr, size, v) ? v : read_slow(addr, size);
    }
    // while (keep(read(addr)) cpu_relax(); returns the last value read. `bits`: the bits of the value
    // that keep() tests (0: any); a target may promise those for longer than the whole value.
    std::uint32_t spin_read_while(std::uint64_t addr, unsigned size,
                                  const std::function<bool(std::uint32_t)>& keep, std::uint32_t bits = 0);
    // Reads until !keep(value) or max_reads reads (0: no limit), waiting `delay` between reads (zero:
    // cpu_relax()), as one operation in fast mode. A read that a standing promise covers (of the bits
    // named, while the loop goes on; of the whole value, for the read that ends it) is answered from
    // it, as in read(). The value returned is always exact.
    struct poll_result {
        std::uint32_t value;
        std::uint64_t reads;
        bool timed_out;
    };
    poll_result poll(std::uint64_t addr, unsigned size, const std::function<bool(std::uint32_t)>& keep,
                     std::uint64_t max_reads, const sc_core::sc_time& delay, std::uint32_t bits = 0);
    void write(std::uint64_t addr, std::uint32_t value, unsigned size);
    void spend(const sc_core::sc_time& t) {
        m_time += t;
        bound_ahead();
    }
    void spend_cycles(std::uint64_t n) {
        m_time += m_timing.cycles(n);
        bound_ahead();
    }
    void relax() {
        ++m_cur_stats->relax;
        m_time += m_relax_time;
        bound_ahead();
    }
    // IRQ mask: returns the previous state (true = IRQs were enabled).
    bool irq_disable();
    void irq_restore(bool enabled);
    bool irqs_enabled() const { return m_irq_enabled; }
    bool in_interrupt() const { return m_hardirq_depth > 0; }
    // The core's own time (never behind SystemC time).
    sc_core::sc_time local_time() const { return m_time; }
    // Let SystemC time catch up with the core's time, taking interrupts on the way (see above).
    void sync();
    // Waits in SystemC time for `ev` (or until `until`, if given), interruptible like sync(); the
    // core's time is then the present. For spinning and sleeping primitives.
    void wait_for(const sc_core::sc_event& ev, const sc_core::sc_time& until = sc_core::sc_max_time());
    void wait_for(const sc_core::sc_event_or_list& evs, const sc_core::sc_time& until);

    // ---- scheduler (used by <uartvp/cpu/sched.h>)
    task* current_task() const { return m_current; }
    void make_runnable(task& t); // from any core or process, at the present time
    // As make_runnable, ahead of the interrupts raised at this very instant: if t's core is idle now,
    // t gets it at once and its first action at this instant comes before them, as if t had been
    // woken an instant earlier (a busy core runs t when its task gives the core up, interrupts first).
    // For instruments that must act at an interrupt's worst phase (machine::on_irq_raised).
    void make_runnable_first(task& t);
    // The current task gives the core up: it stays runnable (schedule) or blocks until woken. A task
    // that stays runnable goes to the back of its level, or keeps its place if `preempted` (cond_resched).
    void schedule(bool block);
    // The kernel's yield(): the current task's deadline moves one slice on, then schedule().
    void yield();
    // need_resched for the current task (its runtime accounted up to the last tick first).
    bool need_resched();
    // For a loop that retries until something changes (the kernel spins, cond_resched() between tries):
    // when need_resched will be set by the tick if nothing else happens (the present if it is set,
    // sc_max_time() if nothing is queued), and the event of a wake-up setting it.
    sc_core::sc_time resched_due();
    const sc_core::sc_event& resched_event() {
        m_resched_watched = true; // notified from now on (nothing to notify while no one watches)
        return m_resched_ev;
    }
    // sched_set_normal (nice -20..19, the weight reweighted in place) and sched_set_fifo (priority
    // 1..99); either checks whether the task now preempts the current one.
    void set_nice(task& t, int nice);
    void set_fifo(task& t, int priority);
    // The fair class's parameters: the CPUs online (the base slice) and HZ (the tick that notices a
    // used-up slice). A machine sets them; a lone core has 1 CPU at HZ 250.
    void set_sched_params(unsigned online_cpus, unsigned hz);
    sc_core::sc_time base_slice() const { return sc_core::sc_time::from_value(m_slice); }
    // The interrupt sources (the machine installs itself); the entry/exit costs of an interrupt.
    void set_interrupt_source(interrupt_source* s) { m_source = s; }
    interrupt_source* interrupts() const { return m_source; }
    void notify_interrupt(); // something became pending for this core: wake it if it waits
    sc_core::sc_time irq_entry_cost = sc_core::SC_ZERO_TIME, irq_exit_cost = sc_core::SC_ZERO_TIME;
    // Whether an interrupt can ever come to this core (false: synchronise without watching for one).
    bool exposed() const;

private:
    static core* s_current; // current(): set by whichever of the cores' threads runs
    [[noreturn]] static void no_current();
    // A read of the whole value that the standing promise last used covers, with nothing to tell
    // (not traced, no access observers), the core's time within its bound ahead and SystemC quiet
    // before it: the same answer read_slow() gives in that case, without a call.
    bool read_fast(std::uint64_t addr, unsigned size, std::uint32_t& v) {
        if (!m_fast_reads) return false;
        standing_promise& s = m_standing[m_standing_hit];
        if (s.size != size || s.addr != addr || s.held != 0 || !s.holds() || !(m_time < s.until) ||
            m_time.value() > m_ahead_mark || !quiet_before(m_time))
            return false;
        m_time += s.read_part;
        ++m_promised_reads;
        ++m_cur_stats->mmio_reads;
        v = s.value;
        return true;
    }
    std::uint32_t read_slow(std::uint64_t addr, unsigned size);
    // read_fast() may answer: fast mode, nothing traced or observed (one test instead of three).
    bool m_fast_reads = true;
    void update_fast_reads() { m_fast_reads = m_collapse && !m_traced && !m_accesses_observed; }
    friend struct task;
    void idle_loop();
    void task_main(task& t);
    void switch_to(task* next);
    void take_interrupts();
    void advance_to(const sc_core::sc_time& t);
    void strobe();
    void poll_span();
    void show_access(std::uint64_t addr, bool write, const sc_core::sc_time& cost);
    void show_access_at(std::uint64_t addr, bool write, const sc_core::sc_time& issued,
                        const sc_core::sc_time& cost);
    void tell_access(std::uint64_t addr, bool write, const sc_core::sc_time& start,
                     const sc_core::sc_time& end);
    // Returns true if the target's own delay, not the profile's cost, decided when the access ended.
    bool transport(tlm::tlm_generic_payload& tx, bool synced = false);
    std::uint32_t read(std::uint64_t addr, unsigned size, read_promise* promise, bool* target_bound,
                       bool synced = false);
    // Local work ran far ahead of SystemC time: synchronise (exact: see max_ahead_ns). The mark is
    // SystemC time plus the bound as last seen (SystemC time only grows: a stale mark only looks again).
    void bound_ahead() {
        if (m_time.value() > m_ahead_mark) bound_ahead_slow();
    }
    void bound_ahead_slow();
    std::uint64_t m_ahead_mark = 0;
    // SystemC has nothing to do before t: no process runs, no event is due (nor an interrupt pending
    // that the core would take), so nothing changes. Looked up once per delta cycle; sync() forgets it,
    // as do IRQ mask changes (the kernel API synchronises before anything it notifies).
    bool quiet_before(const sc_core::sc_time& t) {
        return sc_core::sc_delta_count() == m_quiet_delta ? t < m_quiet_until : quiet_before_slow(t);
    }
    bool quiet_before_slow(const sc_core::sc_time& t);
    void forget_quiet() { m_quiet_delta = ~std::uint64_t(0); }
    sc_core::sc_time m_quiet_until;
    std::uint64_t m_quiet_delta = ~std::uint64_t(0);
    sc_core::sc_time m_relax_time, m_call_time; // cpu_relax()'s and a call's cost, computed once
    task_stats* m_cur_stats = nullptr;          // stats_of_current(): follows m_current
    // The promise of the last read of a register (fast mode), while it may still cover later reads.
    struct standing_promise {
        std::uint64_t addr = 0;
        unsigned size = 0; // 0: a free slot
        std::uint32_t value = 0;
        sc_core::sc_time until;
        sc_core::sc_time read_part; // the read's own cost: the call and the region's read cost
        const std::uint64_t* breaks = nullptr;
        std::uint64_t breaks_at_promise = 0;
        std::uint32_t held = 0; // the bits it covers (0: the whole value)
        read_promise promise;   // as the target gave it (its event and cause, for a polling span)
        bool holds() const { return size && *breaks == breaks_at_promise; }
        // Covers a read whose caller tests `bits` (0: the whole value).
        bool covers(std::uint32_t bits) const { return held == 0 || (bits != 0 && (bits & ~held) == 0); }
    };
    // A read answered from a standing promise, if one covers it (see read()): `bits` the bits the
    // caller tests, `keep` (if given) the loop's condition, which a promise of some bits only must
    // find true (the read that ends a loop returns its whole value; null for a read whose value is
    // returned whatever keep() says, the last a loop's limit allows). On success `v` and `p` (if
    // given) are the value and the promise; `synced` tells whether the core synchronised on the way.
    bool read_from_standing(std::uint64_t addr, unsigned size, std::uint32_t bits,
                            const std::function<bool(std::uint32_t)>* keep, std::uint32_t& v, read_promise* p,
                            bool& synced);
    standing_promise* standing(std::uint64_t addr, unsigned size) {
        standing_promise& last = m_standing[m_standing_hit];
        return last.size == size && last.addr == addr ? &last : standing_search(addr, size);
    }
    standing_promise* standing_search(std::uint64_t addr, unsigned size);
    unsigned m_standing_hit = 0;
    void remember(std::uint64_t addr, unsigned size, std::uint32_t v, const read_promise& p,
                  bool target_bound);
    // Registers whose target applies an access at SystemC time plus its delay (initiator_id's
    // delay_exact): an access to one of them issued with SystemC quiet until its time needs no
    // synchronisation first (fast mode). A few registers take the accesses of a polling driver.
    bool issues_ahead(std::uint64_t addr) const {
        for (unsigned i = 0; i < m_delay_exact_n; ++i)
            if (m_delay_exact[i] == addr) return true;
        return false;
    }
    static constexpr unsigned delay_exact_slots = 8;
    std::uint64_t m_delay_exact[delay_exact_slots] = {};
    unsigned m_delay_exact_n = 0;
    static constexpr unsigned standing_slots = 4;
    standing_promise m_standing[standing_slots];
    unsigned m_standing_next = 0;
    std::uint64_t m_promised_reads = 0;
    std::uint64_t m_accesses_ahead = 0;
    std::uint64_t m_max_ahead = 0; // max_ahead_ns in SystemC time units
    // A payload for one access, reused from access to access (building one allocates its extension
    // array): one per nesting level, as an interrupt handler taken in sync() issues its own accesses.
    tlm::tlm_generic_payload& payload(tlm::tlm_command cmd, std::uint64_t addr, unsigned char* data,
                                      unsigned size);
    struct payload_deleter {
        void operator()(tlm::tlm_generic_payload* tx) const;
    };
    std::vector<std::unique_ptr<tlm::tlm_generic_payload, payload_deleter>> m_payloads;
    unsigned m_payload_depth = 0;
    struct payload_lease;
    task_stats& stats_of_current();
    void account_switch(task* from, task* to);
    // EEVDF (times are SystemC time values; virtual times scaled by 1024 / weight).
    void update_curr(std::uint64_t now);
    void update_min_vruntime();
    void place(task& t);
    void wakeup_preempt(task& t);
    bool counted(const task* t) const; // in the fair class's sums: queued, or current and running
    std::int64_t avg_vruntime() const;
    bool eligible(const task& t) const;
    std::uint64_t next_tick_at_or_after(std::uint64_t t) const;
    std::uint64_t last_tick_before(std::uint64_t t) const;
    std::uint64_t tick_time(std::uint64_t jiffy) const;
    std::uint64_t jiffy_of(std::uint64_t t) const;
    std::uint64_t slice_left(const task& t) const;
    std::int64_t vslice(const task& t) const;
    // The task to run next among the queued ones and `curr` (null: the queued ones only), taken off
    // the queue if it is there.
    task* pick_next(task* curr);
    std::uint64_t m_slice = 0;
    unsigned m_hz = 250;
    std::uint64_t m_units_per_s = 0;
    std::int64_t m_min_vruntime = 0;
    bool m_need_resched = false;
    sc_core::sc_event m_resched_ev;
    bool m_resched_watched = false;
    void set_need_resched() {
        if (!m_need_resched && m_resched_watched) m_resched_ev.notify(sc_core::SC_ZERO_TIME);
        m_need_resched = true;
    }

    unsigned m_id;
    interrupt_source* m_source = nullptr;
    timing_profile m_timing;
    sc_core::sc_time m_time;
    bool m_collapse = true;
    std::uint64_t m_transactions = 0;
    std::vector<std::unique_ptr<task>> m_all_tasks;
    std::deque<task_stats> m_stats;
    std::deque<task*> m_runnable;
    task* m_current = nullptr;
    std::uint64_t m_seq = 0;
    task_stats m_idle_stats; // accesses made by handlers that interrupted the idle core
    core_stats m_core_stats;
    bool m_irq_enabled = true;
    unsigned m_hardirq_depth = 0;
    sc_core::sc_time m_irq_off_since;
    sc_core::sc_time m_busy_since;
    bool m_busy = false;
    sc_core::sc_event m_idle, m_wake_idle, m_interrupt;
    bool m_idle_waiting = false;
    sc_core::sc_time m_skip_irq_check_at = sc_core::sc_max_time();
    task* m_first = nullptr; // made runnable by make_runnable_first at m_first_at
    sc_core::sc_time m_first_at;
    bool m_traced = false;
    bool m_accesses_observed = false;
    std::vector<core_observer*> m_observers;
    const std::string* m_irq_label = nullptr;
    // The access the strobe method shows next (it alone writes the bus signals).
    struct {
        bool valid = false, write = false;
        std::uint64_t addr = 0;
        sc_core::sc_time end;
    } m_pending;
    sc_core::sc_event m_strobe;
    bool m_poll_rise = false;
    std::uint64_t m_poll_count = 0;
    sc_core::sc_event m_poll_ev;
};

// A task bound to one core: a kthread, the boot task, a kworker.
struct task {
    std::string name;
    core* cpu = nullptr;
    int nice = 0;
    std::function<void()> body;
    enum class state { runnable, running, blocked, dead } st = state::runnable;
    std::uint64_t seq = 0; // order of enqueueing: ties go to the earlier
    int rt_priority = 0;   // SCHED_FIFO priority 1..99; 0: SCHED_NORMAL (the fair class)
    // EEVDF, in virtual time (SystemC time units x 1024 / weight): runtime, deadline, and the lag kept
    // from its last dequeue; `placed` once it was enqueued (the first placement gets half a slice).
    std::int64_t vruntime = 0, deadline = 0, vlag = 0;
    bool placed = false;
    std::uint64_t exec_start = 0;     // SystemC time value up to which its runtime is accounted
    std::uint64_t runnable_since = 0; // SystemC time value it last became runnable (wait_time)
    std::size_t index = 0;            // into core::tasks()
    bool should_stop = false;         // kthread_stop() asked
    bool woken = false;               // a wake-up came while it was about to block
    int preempt_count = 0;            // preempt_disable() depth: no cond_resched() switch while > 0
    sc_core::sc_event resume;         // the core hands itself to this task
    sc_core::sc_event exited;
    bool go = false;
    sc_core::sc_time on_cpu_since;
};

// A bus error on a driver's access is a bug in the platform or the driver: it stops the run.
struct bus_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

} // namespace uartvp::cpu
