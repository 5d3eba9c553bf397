// SPDX-License-Identifier: Apache-2.0
// jiffies at HZ, the tick (only where a timer or lazy irq_work needs it, unless it has a cost), timers
// in the tick of their jiffy, hrtimers at their own time.
#include "machine_state.h"

namespace uartvp::cpu {

using namespace sc_core;

namespace {
using u128 = unsigned __int128;

} // namespace

// ---- jiffies and timers

std::uint64_t machine::jiffies() const {
    return static_cast<std::uint64_t>(u128(sc_time_stamp().value()) * m_params.hz / m_units_per_s);
}

// Jiffy j starts at j / hz seconds, rounded up to the resolution (so that jiffies() there is j).
sc_time machine::time_of_jiffy(std::uint64_t j) const {
    return sc_time::from_value(
        static_cast<std::uint64_t>((u128(j) * m_units_per_s + m_params.hz - 1) / m_params.hz));
}

void machine::arm_tick(unsigned cpu) {
    percpu& p = *m_percpu[cpu];
    std::uint64_t want = ~std::uint64_t(0);
    const std::uint64_t next = jiffies() + 1;
    if (m_params.tick_cost != SC_ZERO_TIME || !p.lazy_work.empty()) want = next;
    for (const timer_list* t : p.timers)
        want = std::min(want, std::max(t->expires, next));
    if (p.tick_pending) return; // re-armed after this tick is taken
    p.armed = want;
    if (want != ~std::uint64_t(0)) {
        const sc_time at = time_of_jiffy(want);
        m_tick_ev.notify(at > sc_time_stamp() ? at - sc_time_stamp() : SC_ZERO_TIME);
    }
}

void machine::tick_method() {
    const std::uint64_t now_j = jiffies();
    std::uint64_t next = ~std::uint64_t(0);
    for (unsigned i = 0; i < cores.size(); ++i) {
        percpu& p = *m_percpu[i];
        if (p.armed <= now_j && !p.tick_pending) {
            p.tick_pending = true;
            cores[i]->notify_interrupt();
        }
        if (!p.tick_pending && p.armed != ~std::uint64_t(0)) next = std::min(next, p.armed);
    }
    if (next != ~std::uint64_t(0)) {
        const sc_time at = time_of_jiffy(next);
        m_tick_ev.notify(at > sc_time_stamp() ? at - sc_time_stamp() : SC_ZERO_TIME);
    }
}

void machine::add_timer(timer_list& t) {
    core& c = core::current();
    c.sync();
    del_timer(t);
    t.pending = true;
    t.cpu = c.id();
    m_percpu[t.cpu]->timers.push_back(&t);
    arm_tick(t.cpu);
}

bool machine::del_timer(timer_list& t) {
    if (!t.pending) return false;
    auto& v = m_percpu[t.cpu]->timers;
    v.erase(std::remove(v.begin(), v.end(), &t), v.end());
    t.pending = false;
    return true;
}

// ---- hrtimers: each CPU's interrupt is raised when its earliest timer is due.

void machine::hrtimer_start(hrtimer& t, const sc_time& expires) {
    core& c = core::current();
    c.sync();
    hrtimer_cancel(t);
    t.pending = true;
    t.expires = expires;
    t.cpu = c.id();
    m_percpu[t.cpu]->hrtimers.push_back(&t);
    arm_hrtimers();
}

bool machine::hrtimer_cancel(hrtimer& t) {
    if (!t.pending) return false;
    auto& v = m_percpu[t.cpu]->hrtimers;
    v.erase(std::remove(v.begin(), v.end(), &t), v.end());
    t.pending = false;
    arm_hrtimers();
    return true;
}

// The event for the earliest timer whose interrupt is not raised yet.
void machine::arm_hrtimers() {
    const sc_time now = sc_time_stamp();
    sc_time next = sc_max_time();
    for (const auto& p : m_percpu)
        for (const hrtimer* t : p->hrtimers)
            if (!(p->hrtimer_pending && t->expires <= now)) next = std::min(next, t->expires);
    m_hrtimer_ev.cancel();
    if (next != sc_max_time()) m_hrtimer_ev.notify(next > now ? next - now : SC_ZERO_TIME);
}

void machine::hrtimer_method() {
    const sc_time now = sc_time_stamp();
    for (unsigned i = 0; i < cores.size(); ++i) {
        percpu& p = *m_percpu[i];
        if (p.hrtimer_pending) continue;
        for (const hrtimer* t : p.hrtimers)
            if (t->expires <= now) {
                p.hrtimer_pending = true;
                cores[i]->notify_interrupt();
                break;
            }
    }
    arm_hrtimers();
}

} // namespace uartvp::cpu

// ---- the kernel API

namespace uartvp::kapi {

using cpu::core;
using cpu::machine;
using cpu::task;
using namespace sc_core;

namespace {
// The timer schedule_timeout() arms: wakes the task at its jiffy.
struct sleep_timer : cpu::timer_list {
    task* who = nullptr;
};
} // namespace

unsigned hz() {
    return machine::get().params().hz;
}

unsigned long jiffies() {
    core::current().sync();
    return static_cast<unsigned long>(machine::get().jiffies());
}

unsigned long msecs_to_jiffies(unsigned int ms) {
    const unsigned h = hz();
    return (static_cast<unsigned long>(ms) * h + 999) / 1000;
}

// As the kernel's: a timer at jiffies + timeout wakes the task, unless something else did first.
long schedule_timeout(long timeout) {
    core& c = core::current();
    task& me = running();
    if (me.preempt_count > 0) throw std::logic_error("scheduling while atomic (preemption disabled)");
    if (timeout < 0) { // MAX_SCHEDULE_TIMEOUT
        c.schedule(true);
        return timeout;
    }
    machine& m = machine::get();
    c.sync();
    const std::uint64_t expire = m.jiffies() + static_cast<std::uint64_t>(timeout);
    sleep_timer t;
    t.who = &me;
    t.expires = expire;
    t.function = [](cpu::timer_list* tl) {
        task* who = static_cast<sleep_timer*>(tl)->who;
        who->cpu->make_runnable(*who);
    };
    m.add_timer(t);
    c.schedule(true);
    m.del_timer(t);
    const std::uint64_t now = m.jiffies();
    return now >= expire ? 0 : static_cast<long>(expire - now);
}

void msleep(unsigned int ms) {
    long timeout = static_cast<long>(msecs_to_jiffies(ms)) + 1;
    while (timeout)
        timeout = schedule_timeout(timeout);
}

ktime_t ktime_get() {
    core::current().sync();
    return static_cast<ktime_t>(sc_time_stamp().value() / sc_time(1, SC_NS).value());
}

int schedule_hrtimeout(ktime_t* expires, hrtimer_mode mode) {
    core& c = core::current();
    task& me = running();
    if (me.preempt_count > 0) throw std::logic_error("scheduling while atomic (preemption disabled)");
    c.sync();
    const sc_time ns = sc_time(static_cast<double>(*expires), SC_NS);
    const sc_time at = mode == HRTIMER_MODE_ABS ? ns : sc_time_stamp() + ns;
    if (at <= sc_time_stamp()) return 0;
    struct sleeper : cpu::hrtimer {
        task* who = nullptr;
    } t;
    t.who = &me;
    t.function = [](cpu::hrtimer* h) {
        task* who = static_cast<sleeper*>(h)->who;
        who->cpu->make_runnable(*who);
    };
    machine& m = machine::get();
    m.hrtimer_start(t, at);
    c.schedule(true);
    m.hrtimer_cancel(t);
    return sc_time_stamp() >= at ? 0 : -4; // -EINTR
}

} // namespace uartvp::kapi
