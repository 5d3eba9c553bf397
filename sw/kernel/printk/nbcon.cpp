// SPDX-License-Identifier: Apache-2.0
// The nbcon consoles (kernel/printk/nbcon.c): ownership and its handover, unsafe sections, emitting a
// record, the atomic flush and the printer kthreads.
#include "kernel/printk/printk.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>

#include <uartvp/cpu/core.h>

#include "kernel/printk/printk_internal.h"

namespace uartvp::sw {

using cpu::core;
using namespace kapi;
using namespace printk_internal;

// ---- nbcon ownership

namespace {

bool owner_is(const console& con, const nbcon_context& ctxt) {
    return con.state.cpu == static_cast<int>(this_cpu()) && con.state.prio == ctxt.prio;
}

void take(console& con, const nbcon_context& ctxt, bool hostile) {
    const bool was_unsafe = con.state.unsafe;
    con.state.prio = ctxt.prio;
    con.state.cpu = static_cast<int>(this_cpu());
    if (con.state.req_prio == ctxt.prio) con.state.req_prio = nbcon_prio::none;
    con.state.unsafe = hostile && was_unsafe;
    con.state.unsafe_takeover = con.state.unsafe_takeover || (hostile && was_unsafe);
    notify_state();
}

} // namespace

bool nbcon_context_try_acquire(nbcon_context& ctxt) {
    printk_globals& g = pk();
    console& con = *ctxt.con;
    core& c = now();
    const int me = static_cast<int>(this_cpu());
    if (g.panic_cpu >= 0 && g.panic_cpu != me) return false; // -EPERM: another CPU is in panic
    const nbcon_state cur = con.state;
    // Direct (nbcon_context_try_acquire_direct): -EPERM below the owner's or a waiter's priority (the
    // owner prints our records too); -EBUSY while unsafe, free or not (a console released after an
    // unsafe hostile takeover stays unsafe); else taken.
    if (ctxt.prio <= cur.prio || (cur.req_prio != nbcon_prio::none && ctxt.prio <= cur.req_prio))
        return false;
    if (!cur.unsafe) {
        take(con, ctxt, false);
        return true;
    }
    // Handover: ask the unsafe owner, poll for its release; not on the owner's CPU, not after an unsafe
    // takeover (waiting cannot help), not without a wait allowed (each -EBUSY: on to the hostile try).
    if (cur.cpu != me && !cur.unsafe_takeover && ctxt.spinwait_max_us > 0) {
        con.state.req_prio = ctxt.prio;
        notify_state();
        const sc_core::sc_time until =
            c.local_time() + sc_core::sc_time(static_cast<double>(ctxt.spinwait_max_us), sc_core::SC_US);
        for (;;) {
            if (con.state.req_prio != ctxt.prio) return false; // -EPERM: a higher waiter took over
            if (con.state.prio == nbcon_prio::none) {
                take(con, ctxt, false);
                return true;
            }
            if (sc_core::sc_time_stamp() >= until) break;
            c.wait_for(state_changed(), until); // udelay(1) polls in the kernel; the same end
            now();
        }
        if (con.state.req_prio == ctxt.prio) {
            con.state.req_prio = nbcon_prio::none;
            notify_state();
        }
    }
    // Hostile: panic only, when allowed.
    if (ctxt.prio == nbcon_prio::panic && ctxt.allow_unsafe_takeover) {
        take(con, ctxt, true);
        return true;
    }
    return false;
}

void nbcon_context_release(nbcon_context& ctxt) {
    console& con = *ctxt.con;
    now();
    if (!owner_is(con, ctxt)) return;
    con.state.prio = nbcon_prio::none;
    con.state.cpu = -1;
    con.state.unsafe = con.state.unsafe_takeover;
    notify_state();
}

namespace {

// nbcon_context_can_proceed: still the owner; a waiter in a safe state gets the console now.
bool can_proceed(nbcon_context& ctxt) {
    console& con = *ctxt.con;
    now();
    if (!owner_is(con, ctxt)) return false;
    if (con.state.req_prio == nbcon_prio::none || con.state.unsafe) return true;
    nbcon_context_release(ctxt); // hand over
    ++con.ownership_lost;
    return false;
}

bool update_unsafe(nbcon_write_context& wctxt, bool unsafe) {
    nbcon_context& ctxt = wctxt.ctxt;
    if (!can_proceed(ctxt)) return false;
    ctxt.con->state.unsafe = unsafe || ctxt.con->state.unsafe_takeover;
    return can_proceed(ctxt);
}

} // namespace

bool nbcon_can_proceed(nbcon_write_context& wctxt) {
    return can_proceed(wctxt.ctxt);
}
bool nbcon_enter_unsafe(nbcon_write_context& wctxt) {
    return update_unsafe(wctxt, true);
}
bool nbcon_exit_unsafe(nbcon_write_context& wctxt) {
    return update_unsafe(wctxt, false);
}
void nbcon_reacquire_nobuf(nbcon_write_context& wctxt) {
    while (!nbcon_context_try_acquire(wctxt.ctxt))
        core::current().wait_for(state_changed());
    wctxt.outbuf.clear();
}

bool nbcon_emit_next_record(nbcon_write_context& wctxt, bool use_atomic) {
    printk_globals& g = pk();
    nbcon_context& ctxt = wctxt.ctxt;
    console& con = *ctxt.con;
    if (!nbcon_enter_unsafe(wctxt)) return false;
    ctxt.backlog = false;
    printk_info r;
    std::uint64_t dropped = 0;
    bool suppressed = false;
    if (!printk_get_next_message(con, con.nbcon_seq, r, dropped, suppressed)) return nbcon_exit_unsafe(wctxt);
    ctxt.backlog = true;
    con.dropped += dropped;
    std::string text;
    bool replayed = false;
    if (!suppressed) {
        if (con.dropped) {
            text = dropped_marker(con.dropped);
            con.dropped = 0;
        }
        // Started by an owner that lost the console: print it again, marked.
        if (con.nbcon_prev_seq == r.seq) {
            text += replay_marker;
            replayed = true;
        }
        text += record_print_text(r, g.cfg.time);
        con.nbcon_prev_seq = r.seq;
    }
    if (!nbcon_exit_unsafe(wctxt)) return false;
    if (!text.empty()) {
        wctxt.outbuf = text;
        if (use_atomic)
            con.write_atomic(con, wctxt);
        else
            con.write_thread(con, wctxt);
    }
    // Only an owner may mark the record done; one that lost the console backs out.
    if (!nbcon_enter_unsafe(wctxt)) return false;
    if (!text.empty()) {
        record_printed(con, r, text, replayed, dropped);
        con.nbcon_prev_seq = ~0ull;
    }
    con.nbcon_seq = r.seq + 1;
    return nbcon_exit_unsafe(wctxt);
}

// ---- the atomic flush

namespace {

// -1: no ownership (-EPERM), -2: lost it (-EAGAIN), 0: printed up to stop_seq or the end.
int __nbcon_atomic_flush_pending_con(console& con, std::uint64_t stop_seq) {
    nbcon_write_context wctxt;
    nbcon_context& ctxt = wctxt.ctxt;
    ctxt.con = &con;
    ctxt.prio = nbcon_get_default_prio();
    ctxt.spinwait_max_us = 2000;
    ctxt.allow_unsafe_takeover = ctxt.prio == nbcon_prio::panic;
    if (!nbcon_context_try_acquire(ctxt)) return -1;
    while (con.nbcon_seq < stop_seq) {
        if (!nbcon_emit_next_record(wctxt, true)) return -2;
        if (!ctxt.backlog) break;
    }
    nbcon_context_release(ctxt);
    return 0;
}

void nbcon_atomic_flush_pending_con(console& con, std::uint64_t stop_seq) {
    for (;;) {
        irqflags flags;
        local_irq_save(flags); // IRQs off for the whole batch
        const int err = __nbcon_atomic_flush_pending_con(con, stop_seq);
        local_irq_restore(flags);
        if (err) return;
        // More came meanwhile and no kthread will take it: another batch, IRQs on for an instant.
        now();
        if (printk_get_console_flush_type().nbcon_offload) return;
        if (!pk().rb.read_valid(con.nbcon_seq)) return;
        stop_seq = pk().rb.next_reserve_seq();
    }
}

} // namespace

void nbcon_atomic_flush_pending() {
    printk_globals& g = pk();
    now();
    const std::uint64_t stop_seq = g.rb.next_reserve_seq();
    for (console* con : std::vector<console*>(g.consoles)) {
        if (!is_nbcon(*con) || !console_is_usable(*con) || !con->write_atomic) continue;
        if (con->nbcon_seq >= stop_seq) continue;
        nbcon_atomic_flush_pending_con(*con, stop_seq);
    }
}

// ---- the printer kthread

namespace {

// Usable with a record to print, whoever owns the console (v6.16: an owner does not keep it asleep).
bool nbcon_kthread_should_wakeup(console& con) {
    now();
    return console_is_usable(con) && pk().rb.read_valid(con.nbcon_seq);
}

// The kernel's kthread retries at once when the console is owned (device lock, a failed acquire,
// cond_resched(), again) for as long as the owner keeps it; each try changes nothing. The model
// stands for those tries with one wait, the task keeping its core with IRQs on: until the console's
// ownership changes, or need_resched is set (a wake-up, or the tick after a used-up slice), when its
// cond_resched() would switch.
void nbcon_kthread_spin_while_owned() {
    core& c = core::current();
    c.wait_for(state_changed() | c.resched_event(), c.resched_due());
    now();
}

int nbcon_kthread_func(void* data) {
    console& con = *static_cast<console*>(data);
    // The kernel's write context lives as long as the kthread: its backlog flag stays as the last record
    // left it when an acquire fails. Only that flag is kept here; the context itself (its text buffer)
    // is made per record, so that nothing of it is held while the kthread sleeps.
    bool backlog = false;
    for (;;) {
        con.kthread_waiting = true;
        wait_event(con.rcuwait, [&] { return kthread_should_stop() || nbcon_kthread_should_wakeup(con); });
        con.kthread_waiting = false;
        do {
            if (kthread_should_stop()) return 0;
            bool tried = false, acquired = false;
            if (console_is_usable(con)) {
                // nbcon_emit_one(wctxt, use_atomic = false): one record under the device lock.
                tried = true;
                nbcon_write_context wctxt;
                wctxt.ctxt.con = &con;
                wctxt.ctxt.prio = nbcon_prio::normal;
                wctxt.ctxt.backlog = backlog;
                irqflags flags;
                con.device_lock(con, flags);
                if (nbcon_context_try_acquire(wctxt.ctxt)) {
                    acquired = true;
                    if (nbcon_emit_next_record(wctxt, false)) nbcon_context_release(wctxt.ctxt);
                }
                con.device_unlock(con, flags);
                backlog = wctxt.ctxt.backlog;
            }
            // Tried and failed, and about to try again (the loop goes on, or wakes at once): spin.
            if (tried && !acquired && (backlog || nbcon_kthread_should_wakeup(con)))
                nbcon_kthread_spin_while_owned();
            cond_resched();
        } while (backlog && console_is_usable(con));
    }
}

} // namespace

bool printk_internal::nbcon_kthread_create(console& con) {
    if (con.kthread) return true;
    con.irq_work.lazy = false;
    con.irq_work.func = [&con](cpu::irq_work*) { wake_up(con.rcuwait); };
    con.kthread = kthread_run_on_cpu(nbcon_kthread_func, &con, pk().cfg.kthread_cpu, "pr/" + con.full_name());
    sched_set_normal(con.kthread, -20);
    return con.kthread != nullptr;
}

// `newcon`: a console about to be inserted (the reorder checks before the insertion).
void printk_internal::printk_kthreads_check_locked(console* newcon) {
    printk_globals& g = pk();
    if (!g.kthreads_ready) return;
    if (g.have_boot_console || !g.have_nbcon_console) {
        g.kthreads_running = false;
        return;
    }
    if (g.kthreads_running) return;
    for (console* con : g.consoles)
        if (is_nbcon(*con) && console_is_usable(*con)) nbcon_kthread_create(*con);
    if (newcon && is_nbcon(*newcon)) nbcon_kthread_create(*newcon);
    g.kthreads_running = true;
    g.pending_start = false;
}

void nbcon_kthreads_wake() {
    printk_globals& g = pk();
    if (!g.kthreads_running) return;
    for (console* con : g.consoles) {
        if (!is_nbcon(*con) || !con->kthread) continue;
        now();
        if (con->kthread_waiting) irq_work_queue(&con->irq_work);
    }
}

void printk_set_kthreads_ready() {
    pk().kthreads_ready = true;
    printk_kthreads_check_locked();
}

} // namespace uartvp::sw
