// The kernel API's tasks, time, wait queues, workqueues, interrupts and SMP calls, on the machine.
#include <uartvp/cpu/kernel.h>

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>

namespace uartvp::kapi {

using cpu::core;
using cpu::machine;
using cpu::task;
using namespace sc_core;

namespace {
task& running() {
    task* t = core::current().current_task();
    if (!t) throw std::logic_error("a task's call outside a task (in an idle core's interrupt)");
    return *t;
}

// The timer schedule_timeout() arms: wakes the task at its jiffy.
struct sleep_timer : cpu::timer_list {
    task* who = nullptr;
};

struct kworker {
    std::deque<work_struct*> queue;
    task* thread = nullptr;
};
std::map<unsigned, kworker>& kworkers() {
    static std::map<unsigned, kworker> k; // built at first use, during the simulation
    return k;
}
std::map<const task*, wait_queue_head>& exit_queues() {
    static std::map<const task*, wait_queue_head> q;
    return q;
}
} // namespace

unsigned smp_processor_id() {
    return core::current().id();
}

unsigned num_online_cpus() {
    return static_cast<unsigned>(machine::get().cores.size());
}

task_struct* current_task() {
    return core::current().current_task();
}

task_struct* kthread_run_on_cpu(std::function<int(void*)> threadfn, void* data, unsigned cpu,
                                const std::string& name) {
    machine& m = machine::get();
    if (cpu >= m.cores.size())
        throw std::invalid_argument("kthread_run_on_cpu: no cpu " + std::to_string(cpu));
    if (sc_is_running()) core::current().sync();
    return &m.cpu(cpu).create_task(name, [threadfn, data] {
        task* self = core::current().current_task();
        threadfn(data);
        wake_up(exit_queues()[self]);
    });
}

bool kthread_should_stop() {
    return running().should_stop;
}

int kthread_stop(task_struct* t) {
    t->should_stop = true;
    wake_up_process(t);
    wait_event(exit_queues()[t], [t] { return t->st == task::state::dead; });
    return 0;
}

void sched_set_normal(task_struct* t, int nice) {
    t->nice = std::clamp(nice, -20, 19);
}

bool wake_up_process(task_struct* t) {
    core& c = core::current();
    c.sync(); // the wake-up happens at this core's time
    const bool was_blocked = t->st == task::state::blocked;
    c.make_runnable(*t);
    return was_blocked;
}

void schedule() {
    core::current().schedule(false);
}

void cond_resched() {
    core& c = core::current();
    c.sync();
    if (running().preempt_count == 0 && c.better_task_runnable()) c.schedule(false, true);
}

void preempt_disable() {
    ++running().preempt_count;
}

void preempt_enable() {
    task& t = running();
    if (t.preempt_count > 0) --t.preempt_count;
}

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

void prepare_to_wait(wait_queue_head& wq) {
    core::current().sync();
    task* me = &running();
    if (std::find(wq.waiters.begin(), wq.waiters.end(), me) == wq.waiters.end()) wq.waiters.push_back(me);
}

void finish_wait(wait_queue_head& wq) {
    task* me = &running();
    wq.waiters.erase(std::remove(wq.waiters.begin(), wq.waiters.end(), me), wq.waiters.end());
}

void wake_up(wait_queue_head& wq) {
    core& c = core::current();
    c.sync();
    for (task* t : wq.waiters)
        c.make_runnable(*t);
}

bool queue_work_on(unsigned cpu, work_struct& work) {
    machine& m = machine::get();
    if (cpu >= m.cores.size()) throw std::invalid_argument("queue_work_on: no cpu " + std::to_string(cpu));
    core::current().sync();
    if (work.pending) return false;
    work.pending = true;
    kworker& k = kworkers()[cpu];
    k.queue.push_back(&work);
    if (!k.thread) {
        kworker* kp = &k;
        k.thread = &m.cpu(cpu).create_task("kworker/" + std::to_string(cpu) + ":0", [kp] {
            for (;;) {
                while (kp->queue.empty())
                    core::current().schedule(true);
                work_struct* w = kp->queue.front();
                kp->queue.pop_front();
                w->pending = false;
                w->func(w);
            }
        });
    } else {
        core::current().make_runnable(*k.thread);
    }
    return true;
}

bool queue_work(work_struct& work) {
    return queue_work_on(smp_processor_id(), work);
}

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
