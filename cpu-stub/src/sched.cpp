// SPDX-License-Identifier: Apache-2.0
// The kernel API's tasks (kthreads, scheduling, preemption) and wait queues, on the machine's cores.
#include "machine_state.h"

#include <map>

namespace uartvp::kapi {

using cpu::core;
using cpu::machine;
using cpu::task;
using namespace sc_core;

namespace {
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
    t->rt_priority = 0;
    t->cpu->set_nice(*t, nice);
}

void sched_set_fifo(task_struct* t) {
    t->cpu->set_fifo(*t, 50); // MAX_RT_PRIO / 2, as the kernel's sched_set_fifo()
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

void yield() {
    core::current().yield();
}

void cond_resched() {
    core& c = core::current();
    c.sync();
    if (running().preempt_count == 0 && c.need_resched()) c.schedule(false);
}

void preempt_disable() {
    ++running().preempt_count;
}

void preempt_enable() {
    task& t = running();
    if (t.preempt_count > 0) --t.preempt_count;
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

} // namespace uartvp::kapi
