// SPDX-License-Identifier: Apache-2.0
// printk (kernel/printk/printk.c): the global state, console_lock and the legacy consoles' loop,
// vprintk_emit, register_console. The ring buffer is printk_ringbuffer.cpp, the nbcon consoles nbcon.cpp.
#include "kernel/printk/printk.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>

#include <uartvp/cpu/core.h>

#include "kernel/printk/printk_internal.h"

namespace uartvp::sw::printk_internal {

using cpu::core;

std::unique_ptr<printk_globals> g_printk;

printk_globals& pk() {
    if (!g_printk) throw std::logic_error("printk used before printk_init()");
    return *g_printk;
}

core& now() {
    core& c = core::current();
    c.sync();
    return c;
}
unsigned this_cpu() {
    return core::current().id();
}

sc_core::sc_event& state_changed() {
    static sc_core::sc_event e("uartvp_printk_state_changed");
    return e;
}
void notify_state() {
    state_changed().notify(sc_core::SC_ZERO_TIME);
}

bool console_is_usable(const console& con) {
    return con.registered && (con.flags & CON_ENABLED);
}
bool is_nbcon(const console& con) {
    return (con.flags & CON_NBCON) != 0;
}

void record_printed(console& con, const printk_info& r, const std::string& text, bool replayed,
                    std::uint64_t dropped) {
    printk_globals& g = pk();
    ++con.records_written;
    if (replayed) ++con.replays;
    if (g.cfg.keep_printed) {
        g.printed[&con].push_back({r.seq, text, replayed, dropped});
        if (g.on_printed) g.on_printed(con, g.printed[&con].back());
    } else if (g.on_printed) {
        g.on_printed(con, printed_record{r.seq, text, replayed, dropped});
    }
}

bool printk_get_next_message(console& con, std::uint64_t seq, printk_info& r, std::uint64_t& dropped,
                             bool& suppressed) {
    if (!pk().rb.read_valid(seq, &r)) return false;
    dropped = r.seq > seq ? r.seq - seq : 0;
    suppressed = suppress_message_printing(r.level);
    return true;
}

std::string con_name(const console& con) {
    return std::string(is_nbcon(con) ? "" : "legacy ") + ((con.flags & CON_BOOT) ? "boot" : "") +
           "console [" + con.full_name() + "] ";
}
void con_printk(int level, const console& con, const std::string& msg) {
    if (!pk().cfg.announce_consoles) return;
    printk(level, "printk: " + con_name(con) + msg);
}

} // namespace uartvp::sw::printk_internal

namespace uartvp::sw {

using cpu::core;
using namespace kapi;
using namespace printk_internal;

void printk_init(const printk_config& cfg) {
    g_printk = std::make_unique<printk_globals>(cfg);
    for (unsigned i = 0; i < g_printk->deferred_work.size(); ++i)
        g_printk->deferred_work[i].lazy = true;
}
const printk_config& printk_cfg() {
    return pk().cfg;
}
bool suppress_message_printing(int level) {
    return level >= pk().cfg.console_loglevel;
}
printk_ringbuffer& printk_rb() {
    return pk().rb;
}
void printk_on_store(std::function<void(const printk_info&)> fn) {
    pk().on_store = std::move(fn);
}
void printk_on_printed(std::function<void(const console&, const printed_record&)> fn) {
    pk().on_printed = std::move(fn);
}
const std::vector<console*>& console_list() {
    return pk().consoles;
}
const std::vector<printed_record>& printk_printed(const console& con) {
    return pk().printed[&con];
}
bool printk_kthreads_running() {
    return pk().kthreads_running;
}
bool printk_kthreads_pending_start() {
    return pk().pending_start;
}

nbcon_prio nbcon_get_default_prio() {
    const printk_globals& g = pk();
    const unsigned cpu = this_cpu();
    if (g.panic_cpu >= 0 && static_cast<unsigned>(g.panic_cpu) == cpu) return nbcon_prio::panic;
    if (g.emergency_nesting[cpu]) return nbcon_prio::emergency;
    return nbcon_prio::normal;
}

void nbcon_cpu_emergency_enter() {
    ++pk().emergency_nesting[this_cpu()];
}
void nbcon_cpu_emergency_exit() {
    unsigned& n = pk().emergency_nesting[this_cpu()];
    if (n) --n;
}
void printk_set_panic_cpu(int cpu) {
    now();
    pk().panic_cpu = cpu;
    notify_state();
}

console_flush_type printk_get_console_flush_type() {
    const printk_globals& g = pk();
    console_flush_type ft;
    const nbcon_prio prio = nbcon_get_default_prio();
    if (g.have_nbcon_console && !g.have_boot_console) {
        if (prio == nbcon_prio::normal &&
            (g.kthreads_running || (g.cfg.variant == printk_variant::pending_start && g.pending_start)))
            ft.nbcon_offload = true;
        else
            ft.nbcon_atomic = true;
    }
    if (g.have_legacy_console || g.have_boot_console) {
        const unsigned cpu = this_cpu();
        if (prio == nbcon_prio::panic)
            ft.legacy_direct = !ft.nbcon_atomic || g.legacy_allow_panic_sync;
        else if (g.deferred[cpu]) // printk_deferred (in_nmi and PREEMPT_RT are not modelled)
            ft.legacy_offload = true;
        else
            ft.legacy_direct = true;
    }
    return ft;
}

// ---- console_lock and the legacy loop

void console_lock() {
    printk_globals& g = pk();
    wait_event(g.console_sem_wq, [&] {
        now();
        return !g.console_locked;
    });
    g.console_locked = true;
    g.console_lock_owner = static_cast<int>(this_cpu());
    g.console_may_schedule = true;
}

bool console_trylock() {
    printk_globals& g = pk();
    now();
    if (g.console_locked) return false;
    g.console_locked = true;
    g.console_lock_owner = static_cast<int>(this_cpu());
    g.console_may_schedule = false;
    return true;
}

namespace {

void __console_unlock() {
    printk_globals& g = pk();
    now();
    g.console_locked = false;
    g.console_lock_owner = -1;
    g.console_may_schedule = false;
    notify_state();
    if (!g.console_sem_wq.waiters.empty()) wake_up(g.console_sem_wq);
}

} // namespace

bool console_trylock_spinning() {
    printk_globals& g = pk();
    if (console_trylock()) return true;
    const int me = static_cast<int>(this_cpu());
    // Spin only for an owner inside a record (spinning enabled) on another CPU, one waiter at a time.
    if (g.console_owner < 0 || g.console_owner == me || g.console_waiter) return false;
    g.console_waiter = true;
    irqflags flags;
    local_irq_save(flags);
    core& c = core::current();
    while (g.console_waiter)
        c.wait_for(state_changed()); // IRQs off: counted as such
    // The owner handed console_lock over.
    g.console_lock_owner = me;
    g.console_may_schedule = false;
    local_irq_restore(flags);
    return true;
}

namespace {

// console_lock_spinning_enable: a printk on another CPU may spin for this record and take console_lock
// over at its end.
void console_lock_spinning_enable() {
    now();
    pk().console_owner = static_cast<int>(this_cpu());
}

// console_lock_spinning_disable_and_check: true if a waiter spun meanwhile; it owns console_lock now.
bool console_lock_spinning_disable_and_check() {
    printk_globals& g = pk();
    now();
    g.console_owner = -1;
    if (!g.console_waiter) return false;
    g.console_waiter = false;
    g.console_lock_owner = -1;
    notify_state();
    return true;
}

// Returns whether a record was there; *handover when the lock went to a spinning waiter.
bool console_emit_next_record(console& con, bool* handover) {
    printk_globals& g = pk();
    *handover = false;
    printk_info& r = g.pbuf_record;
    std::uint64_t dropped = 0;
    bool suppressed = false;
    now();
    if (!printk_get_next_message(con, con.seq, r, dropped, suppressed)) return false;
    con.dropped += dropped;
    if (suppressed) {
        con.seq = r.seq + 1;
        return true;
    }
    std::string& text = g.pbuf_text;
    text.clear();
    if (con.dropped) {
        text = dropped_marker(con.dropped);
        con.dropped = 0;
    }
    text += record_print_text(r, g.cfg.time);
    irqflags flags;
    local_irq_save(flags); // printk_safe_enter_irqsave
    console_lock_spinning_enable();
    con.write(con, text);
    con.seq = r.seq + 1;
    record_printed(con, r, text, false, dropped);
    *handover = console_lock_spinning_disable_and_check();
    local_irq_restore(flags);
    return true;
}

// An nbcon console printed by the legacy loop (a boot console is present): write_atomic with IRQs off
// from printk, with spinning enabled as for a legacy record (a printk on another CPU may take
// console_lock over at its end: *handover); write_thread under the device lock from a sleepable
// console_lock holder.
bool nbcon_legacy_emit_next_record(console& con, bool* handover, bool use_atomic) {
    *handover = false;
    nbcon_write_context wctxt;
    wctxt.ctxt.con = &con;
    wctxt.ctxt.prio = nbcon_get_default_prio();
    irqflags flags;
    if (use_atomic) {
        local_irq_save(flags);
        console_lock_spinning_enable();
    } else {
        con.device_lock(con, flags);
    }
    bool progress = false;
    if (nbcon_context_try_acquire(wctxt.ctxt)) {
        const bool ok = nbcon_emit_next_record(wctxt, use_atomic);
        progress = wctxt.ctxt.backlog;
        if (ok) nbcon_context_release(wctxt.ctxt);
    }
    if (use_atomic) {
        *handover = console_lock_spinning_disable_and_check();
        local_irq_restore(flags);
    } else {
        con.device_unlock(con, flags);
    }
    return progress;
}

void console_flush_all(bool do_cond_resched, bool* handover) {
    printk_globals& g = pk();
    *handover = false;
    bool any_progress;
    do {
        any_progress = false;
        const console_flush_type ft = printk_get_console_flush_type();
        // By index (for_each_console_srcu), not over a copy: nothing allocated on the printing task's
        // stack while a console writes.
        for (std::size_t i = 0; i < g.consoles.size(); ++i) {
            console* con = g.consoles[i];
            if (!console_is_usable(*con)) continue;
            bool progress;
            if (is_nbcon(*con)) {
                if (ft.nbcon_atomic || ft.nbcon_offload) continue; // printed by their own path
                progress = nbcon_legacy_emit_next_record(*con, handover, !do_cond_resched);
            } else {
                progress = console_emit_next_record(*con, handover);
            }
            if (*handover) return;
            if (!progress) continue;
            any_progress = true;
            if (do_cond_resched) cond_resched(); // after each console's record, as the kernel does
        }
    } while (any_progress);
}

bool legacy_pending() {
    printk_globals& g = pk();
    const console_flush_type ft = printk_get_console_flush_type();
    for (const console* con : g.consoles) {
        if (!console_is_usable(*con)) continue;
        if (is_nbcon(*con) && (ft.nbcon_atomic || ft.nbcon_offload)) continue;
        if (g.rb.read_valid(is_nbcon(*con) ? con->nbcon_seq : con->seq)) return true;
    }
    return false;
}

} // namespace

void console_unlock() {
    printk_globals& g = pk();
    do {
        bool handover = false;
        console_flush_all(g.console_may_schedule, &handover);
        if (handover) return; // the waiter owns the lock and the rest of the backlog
        __console_unlock();
        now();
        if (!legacy_pending()) break;
    } while (console_trylock());
}

// ---- vprintk_emit

namespace {

void vprintk_store(int level, std::string_view text) {
    printk_globals& g = pk();
    irqflags flags;
    local_irq_save(flags);
    core& c = now();
    printk_info info;
    info.ts_nsec =
        static_cast<std::uint64_t>(c.local_time().value() / sc_core::sc_time(1, sc_core::SC_NS).value());
    info.level = level == LOGLEVEL_DEFAULT ? LOGLEVEL_WARNING : level;
    info.cpu = c.id();
    info.text = std::string(text);
    while (!info.text.empty() && info.text.back() == '\n')
        info.text.pop_back();
    // After the timestamp: the text's length (a first formatting), prb_reserve, the text formatted into
    // the record, prb_final_commit; the store's cost split evenly around the reservation (assumed). In
    // between, the record has its sequence number (a flush's stop_seq counts it) but cannot be read.
    const unsigned long before = g.cfg.store_ns / 2;
    if (before) {
        ndelay(before);
        now();
    }
    const std::uint64_t seq = g.rb.reserve(info);
    if (g.cfg.store_ns > before) {
        ndelay(g.cfg.store_ns - before);
        now();
    }
    g.rb.commit(seq);
    local_irq_restore(flags);
    if (g.on_store) {
        printk_info stored;
        g.rb.read_valid(seq, &stored);
        g.on_store(stored);
    }
}

void defer_console_output() {
    printk_globals& g = pk();
    cpu::irq_work& w = g.deferred_work[this_cpu()];
    w.lazy = true;
    w.func = [](cpu::irq_work*) {
        if (console_trylock()) console_unlock();
    };
    irq_work_queue(&w);
}

} // namespace

int vprintk_emit(int /*facility*/, int level, std::string_view text) {
    printk_globals& g = pk();
    const unsigned cpu = this_cpu();
    const bool sched = level == LOGLEVEL_SCHED;
    if (sched) {
        level = LOGLEVEL_DEFAULT;
        ++g.deferred[cpu];
    }
    const console_flush_type ft = printk_get_console_flush_type(); // before the store
    vprintk_store(level, text);
    if (sched) --g.deferred[cpu];
    if (ft.nbcon_atomic) nbcon_atomic_flush_pending();
    if (ft.nbcon_offload) nbcon_kthreads_wake();
    if (ft.legacy_direct) {
        const bool in_irq = core::current().in_interrupt();
        if (!in_irq) preempt_disable();
        if (console_trylock_spinning()) console_unlock();
        if (!in_irq) preempt_enable();
    }
    if (ft.legacy_offload) defer_console_output();
    return static_cast<int>(text.size());
}

int printk(int level, std::string_view text) {
    return vprintk_emit(0, level, text);
}
int printk_deferred(int level, std::string_view text) {
    (void)level;
    return vprintk_emit(0, LOGLEVEL_SCHED, text);
}

// ---- register_console

void register_console(console& newcon) {
    printk_globals& g = pk();
    now();
    if (newcon.registered) {
        pr_err("console '" + newcon.full_name() + "' already registered");
        return;
    }
    bool bootcon_registered = false, realcon_registered = false;
    for (const console* c : g.consoles)
        ((c->flags & CON_BOOT) ? bootcon_registered : realcon_registered) = true;
    if ((newcon.flags & CON_BOOT) && realcon_registered) {
        pr_info("Too late to register bootconsole " + newcon.full_name());
        return;
    }
    // nbcon_alloc: nothing to print yet; the merged fix makes the kthread here.
    if (is_nbcon(newcon)) {
        newcon.nbcon_seq = ~0ull;
        newcon.state = nbcon_state{};
        if (g.cfg.variant == printk_variant::merged && g.kthreads_ready && !g.have_boot_console) {
            newcon.flags |= CON_ENABLED; // usable for the kthread's checks once registered
            nbcon_kthread_create(newcon);
            g.kthreads_running = true;
        }
        if (g.cfg.variant == printk_variant::pending_start && !g.kthreads_running) g.pending_start = true;
    }
    // Match against console= / SPCR (try_enable_preferred_console), else the default.
    bool enable = false;
    if (newcon.flags & CON_BOOT)
        enable = true;
    else if (!g.cfg.preferred.empty())
        enable = newcon.full_name() == g.cfg.preferred;
    else
        enable = !realcon_registered;
    if (enable && newcon.setup) {
        console_lock();
        enable = newcon.setup(newcon) == 0;
        console_unlock();
    }
    if (!enable) {
        newcon.flags &= ~CON_ENABLED;
        if (!g.have_nbcon_console) g.kthreads_running = false;
        if (newcon.kthread) {
            kthread_stop(newcon.kthread);
            newcon.kthread = nullptr;
        }
        return;
    }
    newcon.flags |= CON_ENABLED;
    if (!(newcon.flags & CON_BOOT)) newcon.flags |= CON_CONSDEV;
    // A real console after a boot console: the boot console printed the log already.
    if (bootcon_registered && (newcon.flags & CON_CONSDEV) && !(newcon.flags & CON_BOOT))
        newcon.flags &= ~CON_PRINTBUFFER;
    // get_init_console_seq
    std::uint64_t init_seq;
    if (newcon.flags & (CON_PRINTBUFFER | CON_BOOT)) {
        init_seq = g.syslog_seq;
    } else {
        init_seq = g.rb.next_seq();
        if (bootcon_registered) {
            console_lock(); // flushes the boot consoles that are about to go
            for (const console* c : g.consoles)
                if (c->flags & CON_BOOT) init_seq = std::min(init_seq, is_nbcon(*c) ? c->nbcon_seq : c->seq);
            console_unlock();
            init_seq = std::max(init_seq, g.rb.first_seq());
        }
    }
    now();
    newcon.init_seq = init_seq;
    if (is_nbcon(newcon)) {
        g.have_nbcon_console = true;
        newcon.nbcon_seq = init_seq;
    } else {
        g.have_legacy_console = true;
        newcon.seq = init_seq;
    }
    if (newcon.flags & CON_BOOT) g.have_boot_console = true;
    if (g.cfg.variant == printk_variant::kthread_first) printk_kthreads_check_locked(&newcon);
    // Into console_list (the console device first).
    newcon.registered = true;
    if (newcon.flags & CON_CONSDEV)
        g.consoles.insert(g.consoles.begin(), &newcon);
    else
        g.consoles.push_back(&newcon);
    // The replay happens inside this printk, by whatever the flush type says now.
    con_printk(LOGLEVEL_INFO, newcon, "enabled");
    if (bootcon_registered && (newcon.flags & (CON_CONSDEV | CON_BOOT)) == CON_CONSDEV && !g.cfg.keep_bootcon)
        for (console* c : std::vector<console*>(g.consoles))
            if (c->flags & CON_BOOT) unregister_console(*c);
    if (g.cfg.variant != printk_variant::kthread_first) printk_kthreads_check_locked();
}

int unregister_console(console& con) {
    printk_globals& g = pk();
    const auto it = std::find(g.consoles.begin(), g.consoles.end(), &con);
    if (it == g.consoles.end()) return -19; // -ENODEV
    con_printk(LOGLEVEL_INFO, con, "disabled");
    now();
    g.consoles.erase(std::find(g.consoles.begin(), g.consoles.end(), &con));
    con.registered = false;
    con.flags &= ~CON_ENABLED;
    if (con.kthread) {
        kthread_stop(con.kthread);
        con.kthread = nullptr;
    }
    g.have_boot_console = g.have_legacy_console = g.have_nbcon_console = false;
    for (const console* c : g.consoles) {
        if (c->flags & CON_BOOT) g.have_boot_console = true;
        (is_nbcon(*c) ? g.have_nbcon_console : g.have_legacy_console) = true;
    }
    printk_kthreads_check_locked();
    return 0;
}

bool printk_all_printed() {
    printk_globals& g = pk();
    if (g.console_locked) return false;
    for (const console* con : g.consoles) {
        if (!console_is_usable(*con)) continue;
        if (is_nbcon(*con) && con->state.prio != nbcon_prio::none) return false;
        if (g.rb.read_valid(is_nbcon(*con) ? con->nbcon_seq : con->seq)) return false;
    }
    return true;
}

} // namespace uartvp::sw
