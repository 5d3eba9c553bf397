// SPDX-License-Identifier: Apache-2.0
// Workqueues: a kworker per core (kworker/N:0, made at its first queue_work_on), running its work in order.
#include "machine_state.h"

#include <deque>
#include <map>

namespace uartvp::kapi {

using cpu::core;
using cpu::machine;
using cpu::task;
using namespace sc_core;

namespace {
struct kworker {
    std::deque<work_struct*> queue;
    task* thread = nullptr;
};
std::map<unsigned, kworker>& kworkers() {
    static std::map<unsigned, kworker> k; // built at first use, during the simulation
    return k;
}
} // namespace

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

} // namespace uartvp::kapi
