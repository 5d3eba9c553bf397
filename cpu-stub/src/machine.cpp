// SPDX-License-Identifier: Apache-2.0
// The machine: its cores, one per-CPU state each, the tick and hrtimer processes; the kernel model's
// mechanisms are in irq.cpp, timer.cpp and smp.cpp.
#include "machine_state.h"

#include <stdexcept>

namespace uartvp::cpu {

using namespace sc_core;

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
    if (ncores < 1 || ncores > 128) throw std::invalid_argument("a machine has 1 to 128 cores");
    if (params.hz == 0) throw std::invalid_argument("hz must not be 0");
    for (unsigned i = 0; i < ncores; ++i) {
        cores.push_back(std::make_unique<core>(("cpu" + std::to_string(i)).c_str(), i, timing));
        cores.back()->irq_entry_cost = params.irq_entry;
        cores.back()->irq_exit_cost = params.irq_exit;
        cores.back()->set_interrupt_source(this);
        cores.back()->set_sched_params(ncores, params.hz);
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

} // namespace uartvp::cpu
