#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn: a method per interrupt line

#include <uartvp/cpu/machine.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace uartvp::cpu {

using namespace sc_core;

namespace {
using u128 = unsigned __int128;

// The hard-IRQ spans' names (core::label_interrupt).
const std::string label_ipi = "IPI", label_tick = "tick", label_hrtimer = "hrtimer",
                  label_irq_work = "irq_work";

unsigned ilog2(unsigned v) {
    unsigned r = 0;
    while (v >>= 1)
        ++r;
    return r;
}
} // namespace

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

machine& machine::get() {
    machine* m = dynamic_cast<machine*>(core::current().interrupts());
    if (!m) throw std::logic_error("the kernel API's tasks, interrupts and IPIs need a uartvp::cpu::machine");
    return *m;
}

machine::machine(const sc_module_name& name, unsigned ncores, const timing_profile& timing,
                 const kernel_params& params)
    : sc_module(name)
    , m_params(params)
    , m_units_per_s(sc_time(1, SC_SEC).value()) {
    if (ncores < 1 || ncores > 64) throw std::invalid_argument("a machine has 1 to 64 cores");
    if (params.hz == 0) throw std::invalid_argument("hz must not be 0");
    for (unsigned i = 0; i < ncores; ++i) {
        cores.push_back(std::make_unique<core>(("cpu" + std::to_string(i)).c_str(), i, timing));
        cores.back()->irq_entry_cost = params.irq_entry;
        cores.back()->irq_exit_cost = params.irq_exit;
        cores.back()->set_interrupt_source(this);
        m_percpu.push_back(std::make_unique<percpu>());
        ipi.push_back(std::make_unique<sc_signal<bool, SC_UNCHECKED_WRITERS>>(
            sc_gen_unique_name(("ipi" + std::to_string(i)).c_str()), false));
    }
    for (auto& p : m_percpu)
        for (unsigned i = 0; i < ncores; ++i)
            p->csd_to.push_back(std::make_unique<csd>());
    SC_HAS_PROCESS(machine);
    SC_METHOD(tick_method);
    sensitive << m_tick_ev;
    dont_initialize();
    SC_METHOD(hrtimer_method);
    sensitive << m_hrtimer_ev;
    dont_initialize();
    if (params.tick_cost != SC_ZERO_TIME)
        for (unsigned i = 0; i < ncores; ++i)
            m_percpu[i]->armed = 1; // a periodic tick on every core
    m_tick_ev.notify(time_of_jiffy(1));
}

machine::~machine() = default;

// ---- interrupt lines

int machine::add_irq_line(sc_signal_in_if<bool>& sig, const std::string& name, unsigned cpu) {
    if (cpu >= cores.size())
        throw std::invalid_argument("irq line " + name + ": no cpu " + std::to_string(cpu));
    const int irq = static_cast<int>(m_lines.size());
    auto l = std::make_unique<line>();
    l->name = name;
    l->label = "irq " + name;
    l->cpu = cpu;
    l->sig = &sig;
    m_lines.push_back(std::move(l));
    irq_line_stats s;
    s.name = name;
    s.cpu = cpu;
    m_line_stats.push_back(s);
    sc_spawn_options opts;
    opts.spawn_method();
    opts.dont_initialize();
    opts.set_sensitivity(&sig.value_changed_event());
    sc_spawn([this, irq] { on_line(irq); }, sc_gen_unique_name("irq_line"), &opts);
    return irq;
}

const sc_signal_in_if<bool>& machine::irq_line_signal(int irq) const {
    return *m_lines.at(static_cast<std::size_t>(irq))->sig;
}

void machine::on_line(int irq) {
    line& l = *m_lines[static_cast<std::size_t>(irq)];
    if (l.sig->read()) {
        for (const auto& fn : l.on_raise)
            fn();
        l.awaiting = true;
        l.asserted_at = sc_time_stamp();
        cores[l.cpu]->notify_interrupt();
    } else {
        l.awaiting = false;
    }
}

void machine::on_irq_raised(int irq, std::function<void()> fn) {
    if (irq < 0 || static_cast<std::size_t>(irq) >= m_lines.size())
        throw std::invalid_argument("on_irq_raised: no irq line " + std::to_string(irq));
    m_lines[static_cast<std::size_t>(irq)]->on_raise.push_back(std::move(fn));
}

int machine::request_irq(int irq, irq_handler_t handler, const std::string& name, void* dev_id) {
    if (irq < 0 || static_cast<std::size_t>(irq) >= m_lines.size()) return -22; // -EINVAL
    line& l = *m_lines[static_cast<std::size_t>(irq)];
    l.actions.push_back({std::move(handler), name, dev_id});
    if (l.sig->read()) cores[l.cpu]->notify_interrupt();
    return 0;
}

void machine::free_irq(int irq, void* dev_id) {
    if (irq < 0 || static_cast<std::size_t>(irq) >= m_lines.size()) return;
    auto& a = m_lines[static_cast<std::size_t>(irq)]->actions;
    a.erase(std::remove_if(a.begin(), a.end(), [&](const line::action& x) { return x.dev_id == dev_id; }),
            a.end());
}

void machine::disable_irq(int irq) {
    if (irq >= 0 && static_cast<std::size_t>(irq) < m_lines.size())
        ++m_lines[static_cast<std::size_t>(irq)]->disable_depth;
}

void machine::enable_irq(int irq) {
    if (irq < 0 || static_cast<std::size_t>(irq) >= m_lines.size()) return;
    line& l = *m_lines[static_cast<std::size_t>(irq)];
    if (l.disable_depth > 0 && --l.disable_depth == 0 && l.sig->read()) cores[l.cpu]->notify_interrupt();
}

// ---- irq_work, jiffies, timers

bool machine::irq_work_queue(irq_work& w) {
    if (w.pending) return false;
    w.pending = true;
    core& c = core::current();
    percpu& p = *m_percpu[c.id()];
    if (w.lazy) {
        p.lazy_work.push_back(&w);
        arm_tick(c.id());
    } else {
        p.work.push_back(&w);
        c.notify_interrupt(); // a self-IPI: taken at the core's next IRQs-on point
    }
    return true;
}

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

// ---- IPIs and the CSD lock

void machine::queue_csd(unsigned caller, unsigned target, std::function<void()> func, bool wait, csd*& out) {
    core& c = *cores[caller];
    csd& d = *m_percpu[caller]->csd_to[target];
    while (d.locked) // csd_lock(): the previous call through this CSD must have finished
        c.wait_for(d.unlocked);
    d.locked = true;
    d.sync = wait;
    d.func = std::move(func);
    d.seq = ++m_csd_seq;
    d.caller = caller;
    percpu& t = *m_percpu[target];
    const bool was_empty = t.call_queue.empty();
    t.call_queue.push_back(&d);
    ipi[target]->write(true);
    if (was_empty) cores[target]->notify_interrupt(); // one IPI, only to a queue that was empty
    out = &d;
}

void machine::call_function_single(unsigned target, std::function<void()> func, bool wait) {
    core& c = core::current();
    if (target >= cores.size())
        throw std::invalid_argument("smp_call_function_single: no cpu " + std::to_string(target));
    c.sync();
    if (target == c.id()) { // the local call: with IRQs off
        const bool f = c.irq_disable();
        func();
        c.irq_restore(f);
        return;
    }
    csd* d = nullptr;
    queue_csd(c.id(), target, std::move(func), wait, d);
    if (wait) csd_lock_wait(c, *d, target);
}

void machine::call_function_many(const std::vector<unsigned>& targets, std::function<void()> func,
                                 bool wait) {
    core& c = core::current();
    c.sync();
    std::vector<std::pair<unsigned, csd*>> sent;
    for (unsigned t : targets) {
        if (t >= cores.size())
            throw std::invalid_argument("smp_call_function_many: no cpu " + std::to_string(t));
        if (t == c.id()) continue;
        csd* d = nullptr;
        queue_csd(c.id(), t, func, wait, d);
        sent.emplace_back(t, d);
    }
    if (wait)
        for (auto& [t, d] : sent) // each target in turn
            csd_lock_wait(c, *d, t);
}

// The caller spins with IRQs on until the target has run the function; with csdlock_debug it reports
// a wait longer than csd_lock_timeout, again at growing intervals, and the release.
void machine::csd_lock_wait(core& c, csd& d, unsigned target) {
    c.sync();
    const sc_time t0 = sc_time_stamp();
    const bool debug = m_params.csdlock_debug && m_params.csd_lock_timeout_ms > 0;
    const sc_time timeout(static_cast<double>(m_params.csd_lock_timeout_ms), SC_MS);
    const std::uint64_t seq = d.seq;
    unsigned reports = 0;
    sc_time last;
    auto report = [&](csd_report::kind_t k) {
        csd_report r;
        r.kind = k;
        r.time = sc_time_stamp();
        r.cpu = c.id();
        r.target_cpu = target;
        r.wait = sc_time_stamp() - t0;
        r.number = seq;
        char buf[200];
        if (k == csd_report::unstuck)
            std::snprintf(buf, sizeof buf,
                          "smp: csd: CSD lock (#%llu) got unstuck on CPU#%02u, CPU#%02u released the lock.",
                          static_cast<unsigned long long>(seq), c.id(), target);
        else
            std::snprintf(
                buf, sizeof buf,
                "smp: csd: %s non-responsive CSD lock (#%llu) on CPU#%u, waiting %llu ns for CPU#%02u.",
                k == csd_report::detected ? "Detected" : "Continued", static_cast<unsigned long long>(seq),
                c.id(), static_cast<unsigned long long>(r.wait.value() / (sc_time(1, SC_NS).value())),
                target);
        r.text = buf;
        m_reports.push_back(r);
    };
    while (d.locked && d.seq == seq) {
        sc_time until = sc_max_time();
        if (debug) {
            if (reports == 0)
                until = t0 + timeout;
            else
                until = last +
                        timeout * static_cast<double>((reports + 1) *
                                                      (ilog2(static_cast<unsigned>(cores.size())) / 2 + 1));
        }
        c.wait_for(d.unlocked, until);
        if (!d.locked || d.seq != seq) break;
        if (debug && sc_time_stamp() >= until) {
            report(reports == 0 ? csd_report::detected : csd_report::continued);
            ++reports;
            last = sc_time_stamp();
        }
    }
    if (reports) report(csd_report::unstuck);
    m_csd_wait_total += sc_time_stamp() - t0;
}

void machine::flush_call_queue(core& c) {
    percpu& p = *m_percpu[c.id()];
    while (!p.call_queue.empty()) {
        csd* d = p.call_queue.front();
        p.call_queue.pop_front();
        auto unlock = [&] {
            c.sync(); // the caller sees the release at this core's time
            d->locked = false;
            d->unlocked.notify();
        };
        if (d->sync) {
            d->func();
            unlock();
        } else {
            std::function<void()> f = std::move(d->func);
            unlock();
            f();
        }
    }
    ipi[c.id()]->write(false);
}

// ---- interrupt_source

bool machine::pending(const core& c) const {
    const percpu& p = *m_percpu[c.id()];
    if (!p.call_queue.empty() || p.tick_pending || p.hrtimer_pending || !p.work.empty()) return true;
    for (const auto& l : m_lines)
        if (l->cpu == c.id() && !l->actions.empty() && l->disable_depth == 0 && l->sig->read()) return true;
    return false;
}

void machine::handle(core& c) {
    percpu& p = *m_percpu[c.id()];
    if (!p.call_queue.empty()) {
        c.label_interrupt(label_ipi);
        flush_call_queue(c);
        return;
    }
    if (p.tick_pending) {
        p.tick_pending = false;
        c.label_interrupt(label_tick);
        c.spend(m_params.tick_cost);
        const std::uint64_t now_j = jiffies();
        std::vector<timer_list*> due;
        for (timer_list* t : p.timers)
            if (t->expires <= now_j) due.push_back(t);
        for (timer_list* t : due) {
            del_timer(*t);
            t->function(t);
        }
        std::deque<irq_work*> lazy;
        lazy.swap(p.lazy_work);
        for (irq_work* w : lazy) {
            w->pending = false;
            w->func(w);
        }
        arm_tick(c.id());
        return;
    }
    if (p.hrtimer_pending) { // hrtimer_interrupt(): every timer due by now, earliest first
        p.hrtimer_pending = false;
        c.label_interrupt(label_hrtimer);
        const sc_time now = sc_time_stamp();
        for (;;) {
            hrtimer* first = nullptr;
            for (hrtimer* t : p.hrtimers)
                if (t->expires <= now && (!first || t->expires < first->expires)) first = t;
            if (!first) break;
            hrtimer_cancel(*first);
            first->function(first);
        }
        arm_hrtimers();
        return;
    }
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        line& l = *m_lines[i];
        if (l.cpu != c.id() || l.actions.empty() || l.disable_depth != 0 || !l.sig->read()) continue;
        irq_line_stats& s = m_line_stats[i];
        c.label_interrupt(l.label);
        ++s.count;
        if (l.awaiting) {
            const sc_time lat = c.local_time() - l.asserted_at;
            s.latency_total += lat;
            ++s.served;
            if (lat > s.latency_max) s.latency_max = lat;
            l.awaiting = false;
        }
        const std::vector<line::action> actions = l.actions; // a handler may free_irq
        for (const line::action& a : actions)
            a.handler(static_cast<int>(i), a.dev_id);
        return;
    }
    if (!p.work.empty()) {
        c.label_interrupt(label_irq_work);
        std::deque<irq_work*> w;
        w.swap(p.work);
        for (irq_work* x : w) {
            x->pending = false;
            x->func(x);
        }
    }
}

} // namespace uartvp::cpu
