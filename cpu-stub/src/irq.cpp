// SPDX-License-Identifier: Apache-2.0
// Interrupt lines (level sensitive, each routed to one core), their handlers, irq_work, and the hard-IRQ
// dispatch of a core: IPIs, the tick, hrtimers, the lines, irq_work, in that order.
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn: a method per interrupt line

#include "machine_state.h"

#include <stdexcept>

namespace uartvp::cpu {

using namespace sc_core;

namespace {
// The hard-IRQ spans' names (core::label_interrupt).
const std::string label_ipi = "IPI", label_tick = "tick", label_hrtimer = "hrtimer",
                  label_irq_work = "irq_work";
} // namespace

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

// ---- irq_work

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

// ---- the kernel API

namespace uartvp::kapi {

using cpu::core;
using cpu::machine;
using cpu::task;
using namespace sc_core;

int request_irq(int irq, std::function<irqreturn_t(int, void*)> handler, unsigned long,
                const std::string& name, void* dev_id) {
    core::current().sync();
    return machine::get().request_irq(irq, std::move(handler), name, dev_id);
}

void free_irq(int irq, void* dev_id) {
    core::current().sync();
    machine::get().free_irq(irq, dev_id);
}

void disable_irq(int irq) {
    core::current().sync();
    machine::get().disable_irq(irq);
}

void enable_irq(int irq) {
    core::current().sync();
    machine::get().enable_irq(irq);
}

bool in_interrupt() {
    return core::current().in_interrupt();
}

bool irq_work_queue(irq_work* work) {
    core::current().sync();
    return machine::get().irq_work_queue(*work);
}

} // namespace uartvp::kapi
