// SPDX-License-Identifier: Apache-2.0
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn: a thread per task

#include <uartvp/cpu/core.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include <uartvp/initiator_id.h>

namespace uartvp::cpu {

using namespace sc_core;

core* core::s_current = nullptr;

void core::no_current() {
    throw std::logic_error("kernel API called outside a task");
}

core::core(const sc_module_name& name, unsigned id, const timing_profile& timing)
    : sc_module(name)
    , bus("bus")
    , running_task("running_task", -1)
    , irqs_off("irqs_off", false)
    , in_hardirq("in_hardirq", false)
    , irqs_off_window("irqs_off_window", 0)
    , mmio_addr("mmio_addr", 0)
    , mmio_read("mmio_read", false)
    , mmio_write("mmio_write", false)
    , polling("polling", false)
    , poll_reads("poll_reads", 0)
    , m_id(id)
    , m_timing(timing)
    , m_max_ahead(sc_time(static_cast<double>(max_ahead_ns), SC_NS).value()) {
    m_relax_time = m_timing.cycles(m_timing.cpu_relax_cycles);
    m_call_time = m_timing.cycles(m_timing.call_cycles);
    set_sched_params(1, 250);
    m_cur_stats = &m_idle_stats;
    m_idle_stats.name = "(interrupts in idle)";
    m_idle_stats.cpu = id;
    SC_HAS_PROCESS(core);
    SC_THREAD(idle_loop);
    SC_METHOD(strobe);
    sensitive << m_strobe;
    dont_initialize();
    SC_METHOD(poll_span);
    sensitive << m_poll_ev;
    dont_initialize();
}

core::~core() {
    if (s_current == this) s_current = nullptr;
}

void core::trace(sc_trace_file* tf, const std::string& prefix) {
    observe_bus();
    sc_core::sc_trace(tf, running_task, prefix + "task");
    sc_core::sc_trace(tf, irqs_off, prefix + "irqs_off");
    sc_core::sc_trace(tf, mmio_addr, prefix + "mmio_addr");
    sc_core::sc_trace(tf, mmio_read, prefix + "mmio_read");
    sc_core::sc_trace(tf, mmio_write, prefix + "mmio_write");
    sc_core::sc_trace(tf, polling, prefix + "polling");
    sc_core::sc_trace(tf, poll_reads, prefix + "poll_reads");
}

// The waves' polling span: rises at the first read a collapsed loop counted, falls with the count.
void core::poll_span() {
    if (m_poll_rise) {
        polling.write(true);
    } else {
        poll_reads.write(m_poll_count);
        polling.write(false);
    }
}

// Shows a pending access (address, strobe until its end) or, at that end, drops the strobe.
void core::strobe() {
    if (m_pending.valid) {
        m_pending.valid = false;
        mmio_addr.write(m_pending.addr);
        mmio_write.write(m_pending.write);
        mmio_read.write(!m_pending.write);
        if (m_pending.end > sc_time_stamp()) m_strobe.notify(m_pending.end - sc_time_stamp());
    } else {
        mmio_read.write(false);
        mmio_write.write(false);
    }
}

// Called at the access's own time, or ahead of it where nothing is due before then.
void core::tell_access(std::uint64_t addr, bool write, const sc_time& start, const sc_time& end) {
    for (core_observer* o : m_observers)
        o->access(*this, addr, write, start, end);
}

void core::show_access(std::uint64_t addr, bool write, const sc_time& cost) {
    if (m_accesses_observed) tell_access(addr, write, sc_time_stamp(), sc_time_stamp() + cost);
    if (!m_traced) return;
    show_access_at(addr, write, sc_time_stamp(), cost);
}

// The strobe method shows it at `issued` (at or after the present; nothing else is due before then
// when it is later, so no other access's strobe is pending).
void core::show_access_at(std::uint64_t addr, bool write, const sc_time& issued, const sc_time& cost) {
    m_pending.valid = true;
    m_pending.write = write;
    m_pending.addr = addr;
    m_pending.end = issued + cost;
    m_strobe.cancel();
    m_strobe.notify(issued - sc_time_stamp());
}

// ---- tasks and the scheduler

void core::add_task(std::string name, std::function<void()> body) {
    create_task(std::move(name), std::move(body), 0);
}

task& core::create_task(std::string name, std::function<void()> body, int nice) {
    m_all_tasks.push_back(std::make_unique<task>());
    task& t = *m_all_tasks.back();
    t.name = name;
    t.cpu = this;
    t.nice = nice;
    t.body = std::move(body);
    t.index = m_stats.size();
    task_stats s;
    s.name = std::move(name);
    s.cpu = m_id;
    m_stats.push_back(s);
    sc_spawn_options opts;
    sc_spawn([this, &t] { task_main(t); }, sc_gen_unique_name("task"), &opts);
    t.st = task::state::blocked;
    make_runnable(t);
    return t;
}

bool core::idle() const {
    return !m_current && m_runnable.empty();
}

// ---- EEVDF (kernel/sched/fair.c, v6.6+)

namespace {
// sched_prio_to_weight: nice -20 .. 19; each level about 1.25 times the next.
constexpr std::uint32_t prio_to_weight[40] = {
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904,
    3906,  3121,  2501,  1991,  1586,  1277,  1024,  820,   655,   526,   423,  335,  272,  215,
    172,   137,   110,   87,    70,    56,    45,    36,    29,    23,    18,   15};
constexpr std::int64_t nice_0_load = 1024;

std::int64_t weight_of(const task& t) {
    return prio_to_weight[std::clamp(t.nice, -20, 19) + 20];
}

// calc_delta_fair: real time -> virtual time of `t`.
std::int64_t calc_delta_fair(std::uint64_t delta, const task& t) {
    const std::int64_t w = weight_of(t);
    return w == nice_0_load ? static_cast<std::int64_t>(delta)
                            : static_cast<std::int64_t>(static_cast<__int128>(delta) * nice_0_load / w);
}

// Division rounding towards minus infinity (the kernel's avg_vruntime rounds so).
std::int64_t div_floor(__int128 a, __int128 b) {
    __int128 q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return static_cast<std::int64_t>(q);
}
} // namespace

void core::set_sched_params(unsigned online_cpus, unsigned hz) {
    unsigned n = std::clamp(online_cpus, 1u, 8u), log2 = 0;
    while (n >>= 1)
        ++log2;
    m_units_per_s = sc_time(1, SC_SEC).value();
    m_slice = sc_time(750'000.0 * (1 + log2), SC_NS).value();
    m_hz = hz;
}

std::int64_t core::vslice(const task& t) const {
    return calc_delta_fair(m_slice, t);
}

bool core::counted(const task* t) const {
    return t && t->rt_priority == 0 &&
           (t->st == task::state::runnable || (t == m_current && t->st == task::state::running));
}

std::int64_t core::avg_vruntime() const {
    __int128 wv = 0, w = 0;
    auto add = [&](const task* t) {
        if (!counted(t)) return;
        const std::int64_t tw = weight_of(*t);
        wv += static_cast<__int128>(tw) * (t->vruntime - m_min_vruntime);
        w += tw;
    };
    add(m_current);
    for (const task* t : m_runnable)
        add(t);
    return w == 0 ? m_min_vruntime : m_min_vruntime + div_floor(wv, w);
}

// Eligible: its runtime is not above the weighted average (no rounding: sum w_j (v_j - v) >= 0).
bool core::eligible(const task& t) const {
    __int128 s = 0;
    auto add = [&](const task* u) {
        if (counted(u)) s += static_cast<__int128>(weight_of(*u)) * (u->vruntime - t.vruntime);
    };
    add(m_current);
    for (const task* u : m_runnable)
        add(u);
    return s >= 0;
}

// Jiffy j starts at ceil(j / HZ seconds), as machine::time_of_jiffy has it; the jiffy t falls in.
std::uint64_t core::tick_time(std::uint64_t j) const {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(j) * m_units_per_s + m_hz - 1) / m_hz);
}
std::uint64_t core::jiffy_of(std::uint64_t t) const {
    return static_cast<std::uint64_t>(static_cast<unsigned __int128>(t) * m_hz / m_units_per_s);
}

// The first tick at or after t.
std::uint64_t core::next_tick_at_or_after(std::uint64_t t) const {
    std::uint64_t j = jiffy_of(t);
    while (tick_time(j) < t)
        ++j;
    return tick_time(j);
}

// The last tick before t (t > 0).
std::uint64_t core::last_tick_before(std::uint64_t t) const {
    std::uint64_t j = jiffy_of(t);
    while (j > 0 && tick_time(j) >= t)
        --j;
    return tick_time(j);
}

// Real time `t` must still run to reach its deadline (rounded up: that much runtime reaches it).
std::uint64_t core::slice_left(const task& t) const {
    return static_cast<std::uint64_t>(
        (static_cast<__int128>(t.deadline - t.vruntime) * weight_of(t) + nice_0_load - 1) / nice_0_load);
}

// update_curr: the running task's runtime up to `now`. A slice used up is noticed at the first tick
// after its end (or now, if no tick came between): the deadline moves one slice past the runtime of
// then, and need_resched is set if another task is queued (update_deadline).
void core::update_curr(std::uint64_t now) {
    task* t = m_current;
    if (!t || t->rt_priority || t->st != task::state::running) return;
    auto advance = [&](std::uint64_t to) {
        if (to > t->exec_start) t->vruntime += calc_delta_fair(to - t->exec_start, *t);
        t->exec_start = std::max(t->exec_start, to);
    };
    for (;;) {
        if (t->vruntime >= t->deadline) {
            t->deadline = t->vruntime + vslice(*t);
            if (!m_runnable.empty()) m_need_resched = true; // a spinner watches resched_due(), not the event
            continue;
        }
        const std::uint64_t end = t->exec_start + slice_left(*t);
        if (end > now) break;
        advance(std::min(next_tick_at_or_after(end), now));
        if (t->vruntime < t->deadline) break; // not reached after all (only if now < end)
    }
    advance(now);
    update_min_vruntime();
}

void core::update_min_vruntime() {
    bool any = false;
    std::int64_t v = 0;
    auto look = [&](const task* t) {
        if (!counted(t)) return;
        v = any ? std::min(v, t->vruntime) : t->vruntime;
        any = true;
    };
    look(m_current);
    for (const task* t : m_runnable)
        look(t);
    if (any) m_min_vruntime = std::max(m_min_vruntime, v);
}

// place_entity: at the weighted average less the lag it left with (scaled so that adding it keeps
// that lag), the deadline a slice on (half a slice at its first placement).
void core::place(task& t) {
    const std::int64_t v = avg_vruntime();
    std::int64_t lag = 0;
    __int128 load = 0;
    if (counted(m_current)) load += weight_of(*m_current);
    for (const task* u : m_runnable)
        if (counted(u)) load += weight_of(*u);
    if (load > 0) lag = div_floor(static_cast<__int128>(t.vlag) * (load + weight_of(t)), load);
    t.vruntime = v - lag;
    t.deadline = t.vruntime + (t.placed ? vslice(t) : vslice(t) / 2);
    t.placed = true;
}

// A task just queued preempts the current one (need_resched) if it is SCHED_FIFO above it, or, both
// fair, if it is eligible with an earlier deadline.
void core::wakeup_preempt(task& t) {
    task* c = m_current;
    if (!c || c->st != task::state::running || &t == c) return;
    if (c->rt_priority || t.rt_priority) {
        if (t.rt_priority > c->rt_priority) set_need_resched();
        return;
    }
    if (eligible(t) && t.deadline < c->deadline) set_need_resched();
}

task* core::pick_next(task* curr) {
    task* best = nullptr;
    auto better = [&](task* a, task* b) { // a better than b
        if (a->rt_priority != b->rt_priority) return a->rt_priority > b->rt_priority;
        if (a->rt_priority) return a == curr || (b != curr && a->seq < b->seq);
        const bool ea = eligible(*a), eb = eligible(*b);
        if (ea != eb) return ea;
        if (a->deadline != b->deadline) return a->deadline < b->deadline;
        return a == curr || (b != curr && a->seq < b->seq);
    };
    if (curr) best = curr;
    for (task* t : m_runnable)
        if (!best || better(t, best)) best = t;
    if (best && best != curr) m_runnable.erase(std::find(m_runnable.begin(), m_runnable.end(), best));
    return best;
}

void core::make_runnable(task& t) {
    core& c = *t.cpu;
    if (t.st == task::state::running) {
        t.woken = true; // it is about to block: it will not
        return;
    }
    if (t.st != task::state::blocked) return;
    const std::uint64_t now = sc_time_stamp().value();
    c.update_curr(now);
    if (t.rt_priority == 0) c.place(t);
    t.st = task::state::runnable;
    t.seq = c.m_seq++;
    t.runnable_since = now;
    c.m_runnable.push_back(&t);
    c.wakeup_preempt(t);
    if (c.m_idle_waiting) c.m_wake_idle.notify();
}

void core::make_runnable_first(task& t) {
    core& c = *t.cpu;
    const bool was_blocked = t.st == task::state::blocked;
    c.make_runnable(t);
    if (!was_blocked) return;
    c.m_first = &t;
    c.m_first_at = sc_time_stamp();
}

// cond_resched() only reads the flag; the ticks up to now have done their update_curr (a tick at
// this very instant included).
bool core::need_resched() {
    const std::uint64_t now = sc_time_stamp().value();
    const std::uint64_t tick = next_tick_at_or_after(now);
    if (tick == now)
        update_curr(now);
    else if (tick > 0)
        update_curr(last_tick_before(now));
    return m_need_resched;
}

sc_time core::resched_due() {
    if (need_resched()) return sc_time_stamp();
    const task* t = m_current;
    if (!t || t->rt_priority || t->st != task::state::running || m_runnable.empty()) return sc_max_time();
    return sc_time::from_value(next_tick_at_or_after(t->exec_start + slice_left(*t)));
}

void core::set_nice(task& t, int nice) {
    nice = std::clamp(nice, -20, 19);
    core& c = *t.cpu;
    const std::uint64_t now = sc_time_stamp().value();
    c.update_curr(now);
    const std::int64_t old_w = weight_of(t);
    const bool on_rq = c.counted(&t);
    const std::int64_t v = on_rq ? c.avg_vruntime() : 0;
    const int old_nice = t.nice;
    t.nice = nice;
    const std::int64_t new_w = weight_of(t);
    if (t.rt_priority) return;
    if (on_rq) { // reweight_eevdf: lag and relative deadline scale with old / new weight
        t.vruntime = v - div_floor(static_cast<__int128>(v - t.vruntime) * old_w, new_w);
        t.deadline = v + div_floor(static_cast<__int128>(t.deadline - v) * old_w, new_w);
        if (&t == c.m_current) {
            if (nice > old_nice && !c.m_runnable.empty()) c.set_need_resched();
        } else {
            c.wakeup_preempt(t);
        }
    } else {
        t.vlag = div_floor(static_cast<__int128>(t.vlag) * old_w, new_w);
    }
}

void core::set_fifo(task& t, int priority) {
    core& c = *t.cpu;
    c.update_curr(sc_time_stamp().value());
    t.rt_priority = std::clamp(priority, 1, 99);
    if (t.st == task::state::runnable) c.wakeup_preempt(t);
}

void core::account_switch(task* from, task* to) {
    const std::uint64_t now = sc_time_stamp().value();
    if (from) {
        m_stats[from->index].cpu_time += m_time - from->on_cpu_since;
        ++m_stats[from->index].switches;
        for (core_observer* o : m_observers)
            o->task_span(*this, m_stats[from->index], from->on_cpu_since, m_time);
    }
    if (to) {
        to->on_cpu_since = m_time;
        to->exec_start = now;
        if (now > to->runnable_since)
            m_stats[to->index].wait_time += sc_time::from_value(now - to->runnable_since);
    }
}

void core::end_observation() {
    if (!m_current) return;
    const sc_time end = std::max(m_time, m_current->on_cpu_since);
    for (core_observer* o : m_observers)
        o->task_span(*this, m_stats[m_current->index], m_current->on_cpu_since, end);
}

// Hands the core to `next` (null: the idle loop) from the thread running on it now.
void core::switch_to(task* next) {
    account_switch(m_current, next);
    m_current = next;
    m_need_resched = false;
    m_cur_stats = next ? &m_stats[next->index] : &m_idle_stats;
    if (next) {
        next->st = task::state::running;
        next->go = true;
        next->resume.notify();
        running_task.write(static_cast<int>(next->index));
    } else {
        running_task.write(-1);
        m_wake_idle.notify();
    }
}

void core::yield() {
    task* me = m_current;
    if (!me) throw std::logic_error("yield() outside a task");
    sync();
    update_curr(sc_time_stamp().value());
    if (me->rt_priority == 0) me->deadline += vslice(*me);
    schedule(false);
}

void core::schedule(bool block) {
    task* me = m_current;
    if (!me) throw std::logic_error("schedule() outside a task");
    sync(); // wake-ups by others up to this core's time are visible now
    const std::uint64_t now = sc_time_stamp().value();
    update_curr(now);
    if (block) {
        if (me->woken) {
            me->woken = false;
            return;
        }
        // update_entity_lag: what it is owed (or owes), kept for its next placement, clamped.
        if (me->rt_priority == 0) {
            const std::int64_t limit = calc_delta_fair(std::max(2 * m_slice, m_units_per_s / m_hz), *me);
            me->vlag = std::clamp(avg_vruntime() - me->vruntime, -limit, limit);
        }
        me->st = task::state::blocked;
        update_min_vruntime();
    }
    task* next = pick_next(block ? nullptr : me);
    m_need_resched = false;
    if (next == me) return;
    if (!block) {
        me->st = task::state::runnable;
        me->runnable_since = now;
        me->seq = m_seq++;
        m_runnable.push_back(me);
    }
    switch_to(next);
    while (!me->go)
        wait(me->resume);
    me->go = false;
    me->woken = false;
    s_current = this;
    if (m_time < sc_time_stamp()) m_time = sc_time_stamp();
}

void core::task_main(task& t) {
    while (!t.go)
        wait(t.resume);
    t.go = false;
    s_current = this;
    if (m_time < sc_time_stamp()) m_time = sc_time_stamp();
    sync();
    task_stats& s = m_stats[t.index];
    s.start = sc_time_stamp();
    t.body();
    sync();
    s.end = sc_time_stamp();
    t.st = task::state::dead;
    t.exited.notify();
    switch_to(pick_next(nullptr));
}

// The core's own thread: runs whenever no task holds the core, and takes interrupts while idle.
void core::idle_loop() {
    for (;;) {
        task* next = nullptr;
        if (m_first && m_first_at == sc_time_stamp()) {
            // Woken ahead of this instant's interrupts: its first sync here does not take them.
            const auto it = std::find(m_runnable.begin(), m_runnable.end(), m_first);
            if (it != m_runnable.end()) {
                next = *it;
                m_runnable.erase(it);
                m_skip_irq_check_at = sc_time_stamp();
            }
        }
        m_first = nullptr;
        if (!next) next = pick_next(nullptr);
        if (next) {
            if (!m_busy) {
                m_busy = true;
                m_busy_since = m_time;
            }
            switch_to(next);
            while (m_current)
                wait(m_wake_idle);
            continue;
        }
        s_current = this;
        sync(); // the last task's work ends, interrupts on the way
        if (!m_runnable.empty()) continue;
        if (m_busy) {
            m_core_stats.busy += m_time - m_busy_since;
            m_busy = false;
        }
        m_idle.notify(SC_ZERO_TIME);
        m_idle_waiting = true;
        if (m_irq_enabled && m_source && m_source->pending(*this)) {
            m_idle_waiting = false;
            take_interrupts();
            continue;
        }
        wait(m_wake_idle | m_interrupt);
        m_idle_waiting = false;
        if (m_time < sc_time_stamp()) m_time = sc_time_stamp();
        if (m_first && m_first_at == sc_time_stamp()) continue; // it goes before the interrupts
        if (m_irq_enabled && m_source && m_source->pending(*this)) {
            if (!m_busy) {
                m_busy = true;
                m_busy_since = m_time;
            }
            take_interrupts();
        }
    }
}

// ---- time and interrupts

bool core::exposed() const {
    return m_source != nullptr;
}

void core::notify_interrupt() {
    m_interrupt.notify();
}

// Runs the pending interrupts one after the other, from the core's time (the present).
void core::take_interrupts() {
    unsigned same_instant = 0;
    while (m_irq_enabled && m_hardirq_depth == 0 && m_source && m_source->pending(*this)) {
        const sc_time t0 = m_time;
        ++m_hardirq_depth;
        m_irq_enabled = false; // hard-IRQ context: not an IRQs-off window of the task's
        in_hardirq.write(true);
        m_time += irq_entry_cost;
        s_current = this;
        static const std::string unnamed = "irq";
        m_irq_label = &unnamed;
        m_source->handle(*this);
        m_time += irq_exit_cost;
        // The handler's end, in SystemC time: the waves' in_hardirq falls there, and a line the
        // handler cleared reads low before it is looked at again (a delta at least).
        if (m_time > sc_time_stamp()) {
            wait(m_time - sc_time_stamp());
            same_instant = 0;
        } else {
            wait(SC_ZERO_TIME);
            if (++same_instant > 100000)
                throw std::runtime_error(std::string(name()) + ": interrupt storm: a source stays pending "
                                                               "however often its handlers run");
        }
        s_current = this;
        in_hardirq.write(false);
        m_irq_enabled = true;
        --m_hardirq_depth;
        forget_quiet();
        m_core_stats.hardirq += m_time - t0;
        for (core_observer* o : m_observers)
            o->hardirq_span(*this, *m_irq_label, t0, m_time);
        ++m_core_stats.interrupts;
    }
}

void core::sync() {
    forget_quiet();
    for (;;) {
        const sc_time now = sc_time_stamp();
        const bool can_take = m_irq_enabled && m_hardirq_depth == 0 && m_source;
        if (can_take && now != m_skip_irq_check_at && m_source->pending(*this)) {
            // Taken now; the work done ahead resumes after the handler.
            const sc_time ahead = m_time - now;
            m_time = now;
            take_interrupts();
            m_time += ahead;
            continue;
        }
        if (m_time <= now) break;
        if (can_take && exposed()) {
            const sc_time target = m_time;
            wait(target - now, m_interrupt);
            if (sc_time_stamp() < target) continue; // an interrupt came first
            break; // reached: one raised at this very instant is taken at the next sync
        }
        wait(m_time - now);
        break;
    }
    m_skip_irq_check_at = sc_max_time();
    m_ahead_mark = sc_time_stamp().value() + m_max_ahead;
    s_current = this;
}

void core::wait_for(const sc_event& ev, const sc_time& until) {
    sync();
    const bool can_take = m_irq_enabled && m_hardirq_depth == 0 && m_source;
    const sc_time now = sc_time_stamp();
    if (until == sc_max_time()) {
        if (can_take && exposed())
            wait(ev | m_interrupt);
        else
            wait(ev);
    } else if (until > now) {
        if (can_take && exposed())
            wait(until - now, ev | m_interrupt);
        else
            wait(until - now, ev);
    }
    s_current = this;
    if (m_time < sc_time_stamp()) m_time = sc_time_stamp();
}

void core::wait_for(const sc_event_or_list& evs, const sc_time& until) {
    sync();
    const bool can_take = m_irq_enabled && m_hardirq_depth == 0 && m_source && exposed();
    const sc_time now = sc_time_stamp();
    if (until == sc_max_time()) {
        if (can_take)
            wait(evs | m_interrupt);
        else
            wait(evs);
    } else if (until > now) {
        if (can_take)
            wait(until - now, evs | m_interrupt);
        else
            wait(until - now, evs);
    }
    s_current = this;
    if (m_time < sc_time_stamp()) m_time = sc_time_stamp();
}

void core::bound_ahead_slow() {
    const std::uint64_t now = sc_time_stamp().value();
    if (m_time.value() > now + m_max_ahead)
        sync();
    else
        m_ahead_mark = now + m_max_ahead;
}

bool core::quiet_before_slow(const sc_time& t) {
    m_quiet_delta = sc_delta_count();
    const bool can_take = m_irq_enabled && m_hardirq_depth == 0 && m_source;
    if (can_take && m_source->pending(*this))
        m_quiet_until = SC_ZERO_TIME; // the literal read's synchronisation takes it first
    else
        m_quiet_until = sc_time_stamp() + sc_time_to_pending_activity();
    return t < m_quiet_until;
}

task_stats& core::stats_of_current() {
    return *m_cur_stats;
}

bool core::transport(tlm::tlm_generic_payload& tx, bool synced) {
    const std::uint64_t addr = tx.get_address();
    // Interrupts that come before the access's issue are taken first. With SystemC quiet until the
    // access's time (no interrupt pending or due, nothing that could raise one), a target that applies
    // it at its time itself takes it without the wait (fast mode).
    const bool known = m_collapse && m_delay_exact_n && issues_ahead(addr);
    bool ahead = false;
    if (!synced) {
        ahead = known && m_time > sc_time_stamp() && m_time.value() <= m_ahead_mark && quiet_before(m_time);
        if (!ahead) sync();
    }
    const region_cost& cost = m_timing.cost_for(addr);
    const sc_time issued = m_time;
    const sc_time done_by_cost =
        issued + m_timing.cycles(m_timing.call_cycles) + (tx.is_read() ? cost.read : cost.write);
    sc_time delay = issued - sc_time_stamp();
    ++m_transactions;
    initiator_id who(m_id); // targets order accesses issued at the same time by it
    who.unsynchronised = ahead;
    tx.set_extension(&who);
    try {
        bus->b_transport(tx, delay);
    } catch (...) {
        tx.clear_extension(&who);
        throw;
    }
    tx.clear_extension(&who); // it lives on our stack, not the payload's
    s_current = this;         // the target may have waited
    if (ahead) {
        ++m_accesses_ahead;
        forget_quiet(); // the target may have planned activity of its own
    } else if (who.delay_exact && m_collapse && !known && m_delay_exact_n < delay_exact_slots) {
        m_delay_exact[m_delay_exact_n++] = addr;
    }
    if (!tx.is_response_ok()) {
        std::ostringstream msg;
        msg << name() << ": " << (tx.is_read() ? "read" : "write") << " of " << tx.get_data_length()
            << " bytes at 0x" << std::hex << addr << ": " << tx.get_response_string();
        throw bus_error(msg.str());
    }
    if ((m_traced || m_accesses_observed) && sc_time_stamp() == issued) {
        show_access(addr, tx.is_write(), done_by_cost - issued);
    } else if (ahead && sc_time_stamp() < issued) { // served ahead: shown and told at its own time
        if (m_accesses_observed) tell_access(addr, tx.is_write(), issued, done_by_cost);
        if (m_traced) show_access_at(addr, tx.is_write(), issued, done_by_cost - issued);
    }
    const sc_time by_target = sc_time_stamp() + delay;
    m_time = std::max(done_by_cost, by_target);
    return by_target > done_by_cost;
}

core::standing_promise* core::standing_search(std::uint64_t addr, unsigned size) {
    for (unsigned i = 0; i < standing_slots; ++i)
        if (m_standing[i].size == size && m_standing[i].addr == addr) {
            m_standing_hit = i;
            return &m_standing[i];
        }
    return nullptr;
}

// Keeps a read's promise for the reads of that register that follow, if it can cover any: only when
// the read ended by its own cost, which it would also do at any later time before `until`.
void core::remember(std::uint64_t addr, unsigned size, std::uint32_t v, const read_promise& p,
                    bool target_bound) {
    standing_promise* s = standing(addr, size);
    const sc_time read_part = m_call_time + m_timing.cost_for(addr).read;
    if (!p.valid || !p.breaks || target_bound || read_part < p.latency || p.until <= m_time) {
        if (s) s->size = 0;
        return;
    }
    if (!s) {
        s = &m_standing[m_standing_next];
        m_standing_next = (m_standing_next + 1) % standing_slots;
    }
    *s = {addr, size, v, p.until, read_part, p.breaks, p.breaks_at_promise, p.held, p};
}

// A read the standing promise of an earlier read covers returns that read's value if nothing broke the
// promise before it is issued (at the core's time t), and takes its cost. Nothing can break it where no
// SystemC process runs before t: then no input changes, no other initiator acts, no interrupt is raised
// (every one of them is some process's doing), and a transaction at t would be served at once, with
// the promised value. So the read is answered without synchronising while SystemC has nothing to do
// before t (and no interrupt is pending: the literal read's synchronisation would take it first).
// Otherwise the core synchronises as for a transaction, and answers from the promise if it still holds
// with nothing else left to happen at t (access_order.h: the target would serve the read at once);
// else the read is a transaction. Any number of initiators: their processes are SystemC activity.
std::uint32_t core::read_slow(std::uint64_t addr, unsigned size) {
    if (!m_collapse) return read(addr, size, nullptr, nullptr);
    bool synced = false;
    std::uint32_t v = 0; // a promise of the whole value (bits 0) answers it, as read_fast() does inline
    if (read_from_standing(addr, size, 0, nullptr, v, nullptr, synced)) return v;
    read_promise promise;
    bool target_bound = false;
    v = read(addr, size, &promise, &target_bound, synced);
    remember(addr, size, v, promise, target_bound);
    return v;
}

bool core::read_from_standing(std::uint64_t addr, unsigned size, std::uint32_t bits,
                              const std::function<bool(std::uint32_t)>* keep, std::uint32_t& v,
                              read_promise* p, bool& synced) {
    // A promise of some bits only answers a read whose value the loop does not return.
    auto covered = [&](const standing_promise* s) {
        return s && s->holds() && m_time < s->until && s->covers(bits) &&
               (s->held == 0 || (keep && (*keep)(s->value)));
    };
    standing_promise* s = standing(addr, size);
    if (!covered(s)) return false;
    if (m_time.value() > m_ahead_mark) m_ahead_mark = sc_time_stamp().value() + m_max_ahead;
    if (!m_traced && m_time.value() <= m_ahead_mark && quiet_before(m_time)) {
        if (m_accesses_observed) tell_access(addr, false, m_time, m_time + s->read_part);
    } else {
        sync(); // interrupts may be taken here: they may do accesses of their own (and reuse s)
        synced = true;
        s = standing(addr, size);
        if (!covered(s) || sc_pending_activity_at_current_time()) return false;
        if (m_traced || m_accesses_observed) show_access(addr, false, s->read_part);
    }
    m_time += s->read_part;
    ++m_promised_reads;
    ++m_cur_stats->mmio_reads;
    v = s->value;
    if (p) *p = s->promise;
    return true;
}

// Holds one nesting level's payload for the duration of an access.
struct core::payload_lease {
    explicit payload_lease(core& c)
        : m_c(c) {
        ++m_c.m_payload_depth;
    }
    ~payload_lease() { --m_c.m_payload_depth; }
    payload_lease(const payload_lease&) = delete;
    payload_lease& operator=(const payload_lease&) = delete;

private:
    core& m_c;
};

// A payload may still hold extensions that live on a stack (an access in progress when the simulation
// ended): drop them, not free them, before deleting it.
void core::payload_deleter::operator()(tlm::tlm_generic_payload* tx) const {
    for (unsigned i = 0; i < tlm::max_num_extensions(); ++i)
        tx->set_extension(i, nullptr);
    delete tx;
}

tlm::tlm_generic_payload& core::payload(tlm::tlm_command cmd, std::uint64_t addr, unsigned char* data,
                                        unsigned size) {
    // Called with the lease already taken: level m_payload_depth - 1.
    while (m_payloads.size() < m_payload_depth)
        m_payloads.emplace_back(new tlm::tlm_generic_payload);
    tlm::tlm_generic_payload& tx = *m_payloads[m_payload_depth - 1];
    tx.set_command(cmd);
    tx.set_address(addr);
    tx.set_data_ptr(data);
    tx.set_data_length(size);
    tx.set_streaming_width(size);
    tx.set_byte_enable_ptr(nullptr);
    tx.set_byte_enable_length(0);
    tx.set_dmi_allowed(false);
    tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    return tx;
}

std::uint32_t core::read(std::uint64_t addr, unsigned size, read_promise* promise, bool* target_bound,
                         bool synced) {
    std::uint32_t v = 0;
    payload_lease lease(*this);
    tlm::tlm_generic_payload& tx =
        payload(tlm::TLM_READ_COMMAND, addr, reinterpret_cast<unsigned char*>(&v), size);
    if (promise) tx.set_extension(promise);
    try {
        const bool bound = transport(tx, synced);
        if (target_bound) *target_bound = bound;
    } catch (...) {
        if (promise) tx.clear_extension(promise);
        throw;
    }
    if (promise) tx.clear_extension(promise); // it lives on our stack, not the payload's
    ++stats_of_current().mmio_reads;
    return v;
}

std::uint32_t core::spin_read_while(std::uint64_t addr, unsigned size,
                                    const std::function<bool(std::uint32_t)>& keep, std::uint32_t bits) {
    return poll(addr, size, keep, 0, SC_ZERO_TIME, bits).value;
}

core::poll_result core::poll(std::uint64_t addr, unsigned size,
                             const std::function<bool(std::uint32_t)>& keep, std::uint64_t max_reads,
                             const sc_time& delay, std::uint32_t bits) {
    const bool relaxing = delay == SC_ZERO_TIME; // cpu_relax() between reads, else udelay
    const sc_time read_part = m_timing.cycles(m_timing.call_cycles) + m_timing.cost_for(addr).read;
    const sc_time per = read_part + (relaxing ? m_timing.cycles(m_timing.cpu_relax_cycles) : delay);
    std::uint64_t reads = 0;
    for (;;) {
        read_promise promise;
        bool target_bound = false;
        std::uint32_t v = 0;
        if (!m_collapse) {
            v = read(addr, size, nullptr, &target_bound);
        } else {
            // The read the last one's promise still covers (the first of a loop after another on the
            // same register, say) needs no transaction; the others ask for the bits the loop tests.
            // (The limit's last read returns its value, whatever keep() says.)
            bool synced = false;
            const bool last = max_reads && reads + 1 == max_reads;
            if (!read_from_standing(addr, size, bits, last ? nullptr : &keep, v, &promise, synced)) {
                promise.mask = bits;
                v = read(addr, size, &promise, &target_bound, synced);
                remember(addr, size, v, promise, target_bound);
            }
        }
        ++reads;
        if (!keep(v)) return {v, reads, false};
        if (max_reads && reads == max_reads) return {v, reads, true};
        if (relaxing)
            relax();
        else
            m_time += delay;
        // The literal loop reads again at m_time, m_time + per, ...; every read issued before
        // `until` returns v, so keeps it looping. Count them without transactions, waiting in
        // SystemC time for the promise to break or an interrupt to come, but the last: it is issued
        // for real at its time, so that it takes its place among other initiators' accesses of that
        // time. Only when every such read ends by its own cost, not later by the target's latency.
        if (!promise.valid || target_bound || m_time >= promise.until || per == SC_ZERO_TIME ||
            read_part < promise.latency)
            continue;
        const std::uint64_t p = per.value(), start = m_time.value();
        const std::uint64_t left = max_reads ? max_reads - reads : ~std::uint64_t(0);
        // The reads issued before `until` are counted, and the one after them (at or after `until`)
        // is real; within the limit, its last read is real (its value is returned).
        const std::uint64_t before =
            promise.until == sc_max_time() ? ~std::uint64_t(0) : (promise.until.value() - start + p - 1) / p;
        std::uint64_t n = before;
        if (left <= before) n = left == ~std::uint64_t(0) ? left : left - 1;
        if (n == 0) continue;
        if (promise.broken_already()) continue; // another initiator's access right after this read
        const bool interruptible = m_irq_enabled && m_hardirq_depth == 0 && m_source && exposed();
        if (interruptible && m_source->pending(*this)) continue; // taken before the next read
        // In the waves, the span rises at the first counted read (a method writes it: no sync here,
        // which could miss the promise breaking before the core's time).
        if (m_traced) {
            m_poll_rise = true;
            m_poll_ev.notify(m_time - sc_time_stamp());
        }
        for (core_observer* o : m_observers)
            o->poll_begin(*this, m_time);
        // The reads issued before the present came first. One issued at this very instant came first
        // too if an interrupt woke us (the literal loop issues it before it can see one raised now),
        // or if another initiator's access broke the promise and that initiator comes after us by id;
        // not if an input change or an earlier initiator broke it.
        auto counted_until_now = [&]() -> std::uint64_t {
            const std::uint64_t t = sc_time_stamp().value();
            if (t < start) return 0;
            std::uint64_t c = (t - start + p - 1) / p; // issued strictly before t
            if ((t - start) % p == 0) {
                bool mine_first = true;
                if (promise.broken_already()) {
                    const read_promise::break_cause* why = promise.cause;
                    mine_first =
                        why && why->when == sc_time_stamp() && why->by_access && m_id < why->initiator;
                }
                if (mine_first)
                    ++c;
                else
                    m_skip_irq_check_at = sc_time_stamp(); // that read is issued for real, first
            }
            return c;
        };
        if (n == ~std::uint64_t(0)) {
            // No limit and no change by itself: only an access, an input or an interrupt ends it.
            if (interruptible)
                wait(*promise.broken | m_interrupt);
            else
                wait(*promise.broken);
            n = counted_until_now();
        } else {
            // Wait until the real read's time (the one after the last counted), the break, or an
            // interrupt.
            const sc_time real = sc_time::from_value(start + n * p);
            if (real > sc_time_stamp()) {
                if (interruptible)
                    wait(real - sc_time_stamp(), *promise.broken | m_interrupt);
                else
                    wait(real - sc_time_stamp(), *promise.broken);
            }
            if (sc_time_stamp() < real) n = std::min(n, counted_until_now());
        }
        s_current = this;
        stats_of_current().mmio_reads += n;
        reads += n;
        m_time = sc_time::from_value(start + n * p); // each counted read was followed by the wait
        if (relaxing) stats_of_current().relax += n;
        for (core_observer* o : m_observers)
            o->poll_span(*this, addr, sc_time::from_value(start), m_time, n);
        if (m_traced) {
            if (n == 0) {
                m_poll_ev.cancel(); // broken before the first counted read: no span
                m_poll_rise = false;
            } else {
                m_poll_rise = false;
                m_poll_count = n;
                m_poll_ev.notify(SC_ZERO_TIME);
            }
        }
    }
}

void core::write(std::uint64_t addr, std::uint32_t value, unsigned size) {
    payload_lease lease(*this);
    tlm::tlm_generic_payload& tx =
        payload(tlm::TLM_WRITE_COMMAND, addr, reinterpret_cast<unsigned char*>(&value), size);
    (void)transport(tx);
    ++stats_of_current().mmio_writes;
}

bool core::irq_disable() {
    const bool was = m_irq_enabled;
    if (was) {
        sync(); // the IRQs-off window starts now, in SystemC time (and in the waves)
        m_irq_enabled = false;
        forget_quiet();
        m_irq_off_since = sc_time_stamp();
        irqs_off.write(true);
        irqs_off_window.write(m_core_stats.irq_off_windows + 1);
    }
    return was;
}

void core::irq_restore(bool enabled) {
    if (enabled && !m_irq_enabled && m_hardirq_depth == 0) {
        sync();
        const sc_time len = sc_time_stamp() - m_irq_off_since;
        m_core_stats.irq_off_total += len;
        if (len > m_core_stats.irq_off_max) m_core_stats.irq_off_max = len;
        ++m_core_stats.irq_off_windows;
        m_irq_enabled = true;
        forget_quiet();
        irqs_off.write(false);
        for (core_observer* o : m_observers)
            o->irqs_off_span(*this, m_irq_off_since, sc_time_stamp());
        // An interrupt that came meanwhile is taken at this instant: at the next sync, from now.
    }
}

} // namespace uartvp::cpu
