// SPDX-License-Identifier: Apache-2.0
// IPIs and the CSD lock (kernel/smp.c): per-CPU CSDs locked while in flight, one IPI to a target whose
// queue was empty, the caller spinning with IRQs on, csdlock_debug's reports.
#include "machine_state.h"

#include <algorithm>
#include <cstdio>

namespace uartvp::cpu {

using namespace sc_core;

namespace {
unsigned ilog2(unsigned v) {
    unsigned r = 0;
    while (v >>= 1)
        ++r;
    return r;
}
} // namespace

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
        if (m_on_report) m_on_report(r);
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
            // csd_lock_wait_toolong: the next interval counts from this check (ts2), not from the
            // end of the report's printing.
            last = sc_time_stamp();
            report(reports == 0 ? csd_report::detected : csd_report::continued);
            ++reports;
        }
    }
    if (reports) report(csd_report::unstuck);
    m_csd_wait_total += sc_time_stamp() - t0;
}

// __flush_smp_call_function_queue(): the entries queued so far, taken at once (llist_del_all: one queued
// meanwhile raises a new IPI), the synchronous ones first (call, then release: the caller waits for the
// call's end), then the asynchronous ones (release, then call), each group in arrival order.
void machine::flush_call_queue(core& c) {
    percpu& p = *m_percpu[c.id()];
    std::deque<csd*> batch;
    batch.swap(p.call_queue);
    auto unlock = [&](csd* d) {
        c.sync(); // the caller sees the release at this core's time
        d->locked = false;
        d->unlocked.notify();
    };
    for (csd* d : batch)
        if (d->sync) {
            d->func();
            unlock(d);
        }
    for (csd* d : batch)
        if (!d->sync) {
            std::function<void()> f = std::move(d->func);
            unlock(d);
            f();
        }
    // The waves' IPI line: pending or being handled, so low once handled unless another came meanwhile.
    if (p.call_queue.empty()) ipi[c.id()]->write(false);
}

} // namespace uartvp::cpu

// ---- the kernel API

namespace uartvp::kapi {

using cpu::core;
using cpu::machine;
using cpu::task;
using namespace sc_core;

int smp_call_function_single(int cpu, std::function<void(void*)> func, void* info, int wait) {
    preempt_disable();
    machine::get().call_function_single(
        static_cast<unsigned>(cpu), [func, info] { func(info); }, wait != 0);
    preempt_enable();
    return 0;
}

void smp_call_function_many(const std::vector<unsigned>& mask, std::function<void(void*)> func, void* info,
                            bool wait) {
    machine::get().call_function_many(
        mask, [func, info] { func(info); }, wait);
}

void smp_call_function(std::function<void(void*)> func, void* info, int wait) {
    preempt_disable();
    std::vector<unsigned> all;
    for (unsigned i = 0; i < num_online_cpus(); ++i)
        all.push_back(i);
    smp_call_function_many(all, std::move(func), info, wait != 0);
    preempt_enable();
}

void kick_all_cpus_sync() {
    smp_call_function([](void*) {}, nullptr, 1);
}

} // namespace uartvp::kapi
