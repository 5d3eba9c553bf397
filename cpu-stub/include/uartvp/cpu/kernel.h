// SPDX-License-Identifier: Apache-2.0
#pragma once
// The kernel-like API that sw-tasks are written against, so that a driver routine reads like the
// kernel routine it models. Every call acts on the core running the task and costs time from its
// timing profile; register accessors are TLM transactions.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <uartvp/cpu/machine.h>

namespace uartvp::kapi {

using iomem = std::uint64_t; // a bus address (Linux: void __iomem *)

std::uint8_t readb(iomem addr);
std::uint16_t readw(iomem addr);
std::uint32_t readl(iomem addr);
void writeb(std::uint8_t v, iomem addr);
void writew(std::uint16_t v, iomem addr);
void writel(std::uint32_t v, iomem addr);

// x86 port I/O: the core's I/O space sits on the bus at the timing profile's `io_base`.
std::uint8_t inb(std::uint16_t port);
void outb(std::uint8_t v, std::uint16_t port);

// A spin hint: a few CPU cycles; it does not sleep and does not give the CPU away.
void cpu_relax();
// A polling loop as one operation: `spin_while(readl, addr, keep)` is
//     while (keep(v = readl(addr))) cpu_relax();  return v;
// with the same reads, values and end time; in fast mode, the reads a target promises will return
// the same value are counted without a transaction each.
// `bits` names the bits of the value that `keep` tests, `spin_while(readl, FR, busy_set, UART01x_FR_BUSY)`
// (0, the default: it may test any): the target may then promise those bits for longer than the whole
// value (BUSY set until the character in the shifter ends). `keep` must not look at other bits.
std::uint32_t spin_while(std::uint32_t (*readl)(iomem), iomem addr,
                         const std::function<bool(std::uint32_t)>& keep, std::uint32_t bits = 0);
std::uint16_t spin_while(std::uint16_t (*readw)(iomem), iomem addr,
                         const std::function<bool(std::uint32_t)>& keep, std::uint32_t bits = 0);
std::uint8_t spin_while(std::uint8_t (*readb)(iomem), iomem addr,
                        const std::function<bool(std::uint32_t)>& keep, std::uint32_t bits = 0);
std::uint8_t spin_while(std::uint8_t (*inb)(std::uint16_t), std::uint16_t port,
                        const std::function<bool(std::uint32_t)>& keep, std::uint32_t bits = 0);

// A bounded polling loop with a delay, as one operation, like the 8250's wait_for_lsr:
//     for (n = 1;; ++n) { v = read(addr); if (!keep(v)) break; if (n == max_reads) break; udelay(us); }
// `timed_out` tells which way it ended. (us = 0 means cpu_relax() between reads, not udelay(0).)
// `bits`: as for spin_while.
struct poll_result {
    std::uint32_t value;
    unsigned long reads;
    bool timed_out;
};
poll_result poll_udelay(std::uint8_t (*readb)(iomem), iomem addr,
                        const std::function<bool(std::uint32_t)>& keep, unsigned long max_reads,
                        unsigned long us, std::uint32_t bits = 0);
poll_result poll_udelay(std::uint32_t (*readl)(iomem), iomem addr,
                        const std::function<bool(std::uint32_t)>& keep, unsigned long max_reads,
                        unsigned long us, std::uint32_t bits = 0);
poll_result poll_udelay(std::uint8_t (*inb)(std::uint16_t), std::uint16_t port,
                        const std::function<bool(std::uint32_t)>& keep, unsigned long max_reads,
                        unsigned long us, std::uint32_t bits = 0);

// Busy-wait in simulated time.
void udelay(unsigned long us);
void ndelay(unsigned long ns);

// IRQ masking on the current core; flags hold the previous state.
using irqflags = bool;
void local_irq_save(irqflags& flags);
void local_irq_restore(irqflags flags);

// A spinlock shared by the cores: a contended lock costs spinning time (with IRQs as they are: spinning
// with IRQs off counts as IRQs off); taking a lock its own core holds is a deadlock (an error).
struct spinlock {
    bool locked = false;
    int owner = -1; // the core holding it
};
void spin_lock(spinlock& lock);
void spin_unlock(spinlock& lock);
void spin_lock_irqsave(spinlock& lock, irqflags& flags);
void spin_unlock_irqrestore(spinlock& lock, irqflags flags);

// ---- The kernel model (<uartvp/cpu/machine.h> must exist for these): tasks, time, interrupts, IPIs.
using task_struct = cpu::task;

unsigned smp_processor_id();
unsigned num_online_cpus();
task_struct* current_task();
// A kthread bound to `cpu`, runnable at once (Linux: kthread_run_on_cpu(fn, data, cpu, namefmt)).
task_struct* kthread_run_on_cpu(std::function<int(void*)> threadfn, void* data, unsigned cpu,
                                const std::string& name);
bool kthread_should_stop();
int kthread_stop(task_struct* t); // asks it to stop, wakes it and sleeps until it has ended
// The scheduler is EEVDF with voluntary preemption (<uartvp/cpu/core.h>).
void sched_set_normal(task_struct* t, int nice); // SCHED_NORMAL at `nice` (-20..19)
void sched_set_fifo(task_struct* t);             // SCHED_FIFO at priority 50
bool wake_up_process(task_struct* t);
void schedule();     // gives the core to the task the scheduler picks (this one, if it is still the best)
void yield();        // its deadline a slice later, then schedule()
void cond_resched(); // schedule(), if need_resched is set and preemption is enabled
void preempt_disable();
void preempt_enable();

// Time: jiffies at HZ (the machine's hz), timers, sleeping.
unsigned hz();
unsigned long jiffies();
unsigned long msecs_to_jiffies(unsigned int ms);
long schedule_timeout(long timeout); // sleeps until woken or `timeout` jiffies passed; the jiffies left
void msleep(unsigned int ms);

// High-resolution time: nanoseconds of simulated time, and sleeping to a time of one's own (an hrtimer
// wakes the task, its interrupt taken on the task's core when that core has IRQs on).
using ktime_t = std::int64_t;
enum hrtimer_mode { HRTIMER_MODE_ABS, HRTIMER_MODE_REL };
ktime_t ktime_get();
// Sleeps until *expires (absolute, or from now); 0 once that time came, -EINTR if woken before.
int schedule_hrtimeout(ktime_t* expires, hrtimer_mode mode);

// Wait queues: wait_event(wq, cond) sleeps until cond() holds, rechecked after every wake_up(wq).
struct wait_queue_head {
    std::vector<task_struct*> waiters;
};
void wake_up(wait_queue_head& wq);
void prepare_to_wait(wait_queue_head& wq);
void finish_wait(wait_queue_head& wq);
template <class cond_t> void wait_event(wait_queue_head& wq, cond_t cond) {
    for (;;) {
        prepare_to_wait(wq);
        if (cond()) break;
        schedule_timeout(-1);
    }
    finish_wait(wq);
}
// Returns 0 if the time ran out with cond() false, else the jiffies left (at least 1).
template <class cond_t> long wait_event_timeout(wait_queue_head& wq, cond_t cond, long timeout) {
    long left = timeout;
    for (;;) {
        prepare_to_wait(wq);
        if (cond()) break;
        left = schedule_timeout(left);
        if (left == 0) {
            finish_wait(wq);
            return cond() ? 1 : 0;
        }
    }
    finish_wait(wq);
    return left > 0 ? left : 1;
}

// Workqueues: one kworker per core runs the items queued on it, in order.
struct work_struct {
    std::function<void(work_struct*)> func;
    bool pending = false;
};
bool queue_work_on(unsigned cpu, work_struct& work);
bool queue_work(work_struct& work); // on the current CPU

// Interrupts (the line numbers are the machine's add_irq_line()s).
using cpu::IRQ_HANDLED;
using cpu::IRQ_NONE;
using cpu::irqreturn_t;
int request_irq(int irq, std::function<irqreturn_t(int, void*)> handler, unsigned long flags,
                const std::string& name, void* dev_id);
void free_irq(int irq, void* dev_id);
void disable_irq(int irq);
void enable_irq(int irq);
bool in_interrupt();
using cpu::irq_work;
bool irq_work_queue(irq_work* work);

// SMP calls: the function runs on the target CPU in hard-IRQ context; with wait, the caller spins on
// the CSD lock with IRQs on until it ran (kernel/smp.c). Preemption must be off or is made off.
int smp_call_function_single(int cpu, std::function<void(void*)> func, void* info, int wait);
void smp_call_function_many(const std::vector<unsigned>& mask, std::function<void(void*)> func, void* info,
                            bool wait);
void smp_call_function(std::function<void(void*)> func, void* info, int wait); // all other CPUs
void kick_all_cpus_sync(); // smp_call_function(do_nothing, NULL, 1), as arm64's jump-label patching does

} // namespace uartvp::kapi
