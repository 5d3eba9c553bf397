// SPDX-License-Identifier: Apache-2.0
#include "drivers/tty/hvc/hvc_console.h"

#include <algorithm>
#include <cstring>

#include <uartvp/cpu/core.h>

namespace uartvp::sw {

using namespace kapi;

hvc_globals& hvc_state() {
    static hvc_globals g; // one simulation per process
    return g;
}

namespace {

// set_current_state(TASK_INTERRUPTIBLE): from here a wake-up ends the next sleep at once; one that came
// before does not (the task was running: it found its reason to go on by itself, hvc_kicked).
void set_current_state_interruptible() {
    if (task_struct* t = current_task()) t->woken = false;
}

bool in_khvcd() {
    return !in_interrupt() && current_task() && current_task() == hvc_state().hvc_task;
}

// hp->lock, irqsave; khvcd's holds are measured (IRQs off from the save to the restore).
struct hvc_lock {
    hvc_struct& hp;
    irqflags flags = false;
    bool measured = in_khvcd();
    sc_core::sc_time since;
    explicit hvc_lock(hvc_struct& h)
        : hp(h) {}
    void lock() {
        if (measured) {
            cpu::core::current().sync();
            since = cpu::core::current().local_time();
        }
        spin_lock_irqsave(hp.lock, flags);
    }
    void unlock() {
        spin_unlock_irqrestore(hp.lock, flags);
        if (measured) {
            cpu::core::current().sync();
            hvc_globals& g = hvc_state();
            g.khvcd_irq_off_max = std::max(g.khvcd_irq_off_max, cpu::core::current().local_time() - since);
        }
    }
};

// The code between dropping hp->lock and taking it again (cond_resched and the lock's own path) takes
// a little time (0.1 us, assumed): a core spinning on the lock takes it in between, as on hardware;
// at no time at all the same core would take it back first every time.
void relock_gap() {
    ndelay(100);
}

// The bytes get_chars returned go into the flip buffer (no sysrq: the console's ^O prefix is not
// modelled).
void insert(hvc_struct& hp, const char* buf, int n) {
    for (int i = 0; i < n; ++i)
        tty_insert_flip_char(hp.port, static_cast<unsigned char>(buf[i]), TTY_NORMAL);
}

// The output half every version shares: push pending writes, reschedule if some remain.
void push_pending(hvc_struct& hp, int& poll_mask) {
    int written_total = 0;
    if (hp.n_outbuf > 0) written_total = hvc_push(hp);
    if (hp.n_outbuf > 0) {
        poll_mask |= HVC_POLL_WRITE;
        hvc_state().timeout = written_total ? 0 : MIN_TIMEOUT; // could not write: sleep a few ms
    }
}

void finish(hvc_struct& hp, hvc_poll_record& rec, int read_total, int poll_mask) {
    if (read_total) {
        hvc_state().timeout = MIN_TIMEOUT; // activity: reset the polling backoff
        tty_flip_buffer_push(hp.port);
    }
    rec.bytes = static_cast<unsigned>(read_total);
    rec.mask = poll_mask;
    if (hvc_state().on_poll) hvc_state().on_poll(rec);
}

// Up to v4.16 (hvc_poll, as in Linux 3.6): read until get_chars returns nothing or the flip buffer is
// full, the lock held with IRQs off throughout; khvcd calls the same function.
int poll_loop(hvc_struct& hp, hvc_poll_record& rec) {
    char buf[N_INBUF];
    int poll_mask = 0, read_total = 0;
    hvc_lock l(hp);
    l.lock();
    push_pending(hp, poll_mask);
    tty_struct* tty = hp.tty;
    if (tty) {
        if (tty_throttled(*tty)) {
            ++hvc_state().throttled_polls;
        } else {
            if (!hp.irq_requested) poll_mask |= HVC_POLL_READ;
            for (;;) {
                const int count = static_cast<int>(tty_buffer_request_room(hp.port, N_INBUF));
                if (count == 0) { // flip full: reschedule a later read
                    poll_mask |= HVC_POLL_READ;
                    break;
                }
                const int n = hp.ops->get_chars(hp.vtermno, buf, count);
                if (n <= 0) {
                    if (n == -EAGAIN) poll_mask |= HVC_POLL_READ;
                    break; // -EPIPE would hang the tty up: no backend here returns it
                }
                insert(hp, buf, n);
                ++rec.reads;
                read_total += n;
            }
        }
        if (hp.do_wakeup) {
            hp.do_wakeup = false;
            tty_wakeup(*tty);
        }
    }
    l.unlock();
    finish(hp, rec, read_total, poll_mask);
    return poll_mask;
}

// ec97eaad1383 (one get_chars per call) and the batching fix: `batching` selects the read_again loop.
int poll_current(hvc_struct& hp, bool may_sleep, bool batching, hvc_poll_record& rec) {
    char buf[N_INBUF];
    int poll_mask = 0, read_total = 0;
    hvc_lock l(hp);
    l.lock();
    push_pending(hp, poll_mask);
    if (may_sleep) {
        l.unlock();
        relock_gap();
        cond_resched();
        l.lock();
    }
    tty_struct* tty = hp.tty;
    if (!tty) { // no tty attached, just skip
        l.unlock();
        finish(hp, rec, 0, poll_mask);
        return poll_mask;
    }
    if (tty_throttled(*tty)) {
        ++hvc_state().throttled_polls;
    } else {
        if (!hp.irq_requested) poll_mask |= HVC_POLL_READ;
        for (;;) { // read_again
            const int count = static_cast<int>(tty_buffer_request_room(hp.port, N_INBUF));
            if (count == 0) { // flip full: reschedule a later read
                poll_mask |= HVC_POLL_READ;
                break;
            }
            const int n = hp.ops->get_chars(hp.vtermno, buf, count);
            if (n <= 0) {
                if (n == -EAGAIN) poll_mask |= HVC_POLL_READ; // the tty must make room first
                break;
            }
            insert(hp, buf, n);
            ++rec.reads;
            read_total += n;
            if (batching && may_sleep) { // keep going until the flip is full
                l.unlock();
                relock_gap();
                cond_resched();
                l.lock();
                continue;
            }
            if (batching && read_total < HVC_ATOMIC_READ_MAX) continue;
            poll_mask |= HVC_POLL_READ; // latency break: schedule another poll immediately
            break;
        }
    }
    if (hp.do_wakeup) {
        hp.do_wakeup = false;
        tty_wakeup(*tty);
    }
    l.unlock();
    finish(hp, rec, read_total, poll_mask);
    return poll_mask;
}

} // namespace

void hvc_init(hvc_read_loop version, unsigned cpu) {
    hvc_globals& g = hvc_state();
    g.version = version;
    g.hvc_task = kthread_run_on_cpu(khvcd, nullptr, cpu, "khvcd");
}

void hvc_alloc(hvc_struct& hp, std::uint32_t vtermno, const hv_ops& ops, int irq) {
    hp.vtermno = vtermno;
    hp.ops = &ops;
    hp.data = irq;
    // The flip buffer's limit: 64 KiB in the read loop's era, TTYB_DEFAULT_MEM_LIMIT now.
    hp.port.mem_limit = hvc_state().version == hvc_read_loop::loop ? 65536 : TTYB_DEFAULT_MEM_LIMIT;
    hvc_state().hvc_structs.push_back(&hp);
}

int hvc_open(hvc_struct& hp, tty_struct& tty) {
    tty.driver_data = &hp;
    tty.ops = &hvc_ops;
    tty_port_link(hp.port, tty);
    hp.tty = &tty;
    int rc = 0;
    if (hp.ops->notifier_add) {
        rc = hp.ops->notifier_add(hp, hp.data);
        if (rc == 0) hp.irq_requested = true; // notifier_add_irq
    }
    hvc_kick(); // force wakeup of the polling thread
    return rc;
}

irqreturn_t hvc_handle_interrupt(int, void* dev_id) {
    if (hvc_poll(*static_cast<hvc_struct*>(dev_id))) hvc_kick();
    return IRQ_HANDLED; // always: shared with other users of the line
}

void hvc_kick() {
    hvc_globals& g = hvc_state();
    g.hvc_kicked = true;
    if (g.hvc_task) wake_up_process(g.hvc_task);
}

int hvc_poll(hvc_struct& hp) {
    return __hvc_poll(hp, false);
}

int __hvc_poll(hvc_struct& hp, bool may_sleep) {
    hvc_poll_record rec;
    rec.may_sleep = may_sleep;
    switch (hvc_state().version) {
    case hvc_read_loop::loop:
        return poll_loop(hp, rec);
    case hvc_read_loop::latency_break:
        return poll_current(hp, may_sleep, false, rec);
    case hvc_read_loop::batching:
        break;
    }
    return poll_current(hp, may_sleep, true, rec);
}

// Called with hp->lock held: hands outbuf to the backend; 0 or -EAGAIN keeps it for later.
int hvc_push(hvc_struct& hp) {
    const int n = hp.ops->put_chars(hp.vtermno, hp.outbuf.data(), hp.n_outbuf);
    if (n <= 0) {
        if (n == 0 || n == -EAGAIN) {
            ++hvc_state().push_eagain;
            hp.do_wakeup = true;
            return 0;
        }
        hp.n_outbuf = 0; // an error: throw the output away (no session on the vterm)
    } else {
        hp.n_outbuf -= n;
    }
    if (hp.n_outbuf > 0)
        std::memmove(hp.outbuf.data(), hp.outbuf.data() + n, static_cast<std::size_t>(hp.n_outbuf));
    else
        hp.do_wakeup = true;
    return n;
}

std::size_t hvc_write(tty_struct& tty, const unsigned char* buf, std::size_t count) {
    hvc_struct& hp = *static_cast<hvc_struct*>(tty.driver_data);
    std::size_t written = 0;
    while (count > 0) {
        int ret = 0;
        irqflags flags;
        spin_lock_irqsave(hp.lock, flags);
        std::size_t rsize = static_cast<std::size_t>(hp.outbuf_size - hp.n_outbuf);
        if (rsize) {
            rsize = std::min(rsize, count);
            std::memcpy(hp.outbuf.data() + hp.n_outbuf, buf, rsize);
            count -= rsize;
            buf += rsize;
            hp.n_outbuf += static_cast<int>(rsize);
            written += rsize;
        }
        if (hp.n_outbuf > 0) ret = hvc_push(hp);
        spin_unlock_irqrestore(hp.lock, flags);
        if (!ret) break;
        if (count) cond_resched(); // hvc_flush (the backend's waiting flush) is not modelled
    }
    if (hp.n_outbuf) hvc_kick(); // khvcd pushes the rest
    return written;
}

void hvc_unthrottle(tty_struct&) {
    hvc_kick();
}

const tty_operations hvc_ops{hvc_write, hvc_unthrottle};

int khvcd(void*) {
    hvc_globals& g = hvc_state();
    if (g.on_khvcd) g.on_khvcd(true);
    do {
        int poll_mask = 0;
        g.hvc_kicked = false;
        ++g.khvcd_passes;
        for (hvc_struct* hp : g.hvc_structs) {
            poll_mask |= __hvc_poll(*hp, true);
            cond_resched();
        }
        if (g.hvc_kicked) continue;
        set_current_state_interruptible();
        if (!g.hvc_kicked) {
            if (g.on_khvcd) g.on_khvcd(false);
            if (poll_mask == 0) {
                schedule_timeout(-1); // schedule(): until a kick
            } else {
                if (g.timeout < MAX_TIMEOUT) g.timeout += (g.timeout >> 6) + 1;
                // Not msleep_interruptible: a kick must wake it.
                ++g.khvcd_timed_sleeps;
                schedule_timeout(static_cast<long>(msecs_to_jiffies(g.timeout)) + 1);
            }
            ++g.khvcd_wakeups;
            if (g.on_khvcd) g.on_khvcd(true);
        }
    } while (!kthread_should_stop());
    return 0;
}

} // namespace uartvp::sw
