// SPDX-License-Identifier: Apache-2.0
#pragma once
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn in the bench
// What the kernel model's tests share (test_sched, test_workqueue, test_timer, test_irq, test_smp,
// test_kernel): a machine with two interrupt lines driven by the test, on a bus that answers nothing.
#include <systemc>

#include <uartvp/cpu/kernel.h>
#include <uartvp/cpu/machine.h>

#include "kernel_bench.h"

namespace uartvp::test::machine_rig {

using namespace sc_core;
using namespace uartvp::test::kernel_bench;

// A machine with an interrupt line driven by the test.
struct bench : sc_module {
    // Raised by the test's thread, cleared by the handlers (another process).
    sc_signal<bool, SC_MANY_WRITERS> line{"line", false}, line2{"line2", false};
    cpu::machine m;
    no_bus bus{"bus"};
    int irq = -1, irq2 = -1;
    bench(unsigned cores, cpu::kernel_params p = {}, unsigned line_cpu = 0)
        : sc_module("bench")
        , m("machine", cores, timing(), p) {
        for (auto& c : m.cores)
            c->bus.bind(bus.target);
        irq = m.add_irq_line(line, "dev", line_cpu);
        irq2 = m.add_irq_line(line2, "dev2", cores > 1 ? 1 : 0);
    }
    // Raises the line at `at` and drops it when the handler says so (level: the handler clears it).
    void raise_at(sc_signal<bool, SC_MANY_WRITERS>& l, const sc_time& at) {
        sc_spawn([&l, at] {
            sc_core::wait(at);
            l.write(true);
        });
    }
};

} // namespace uartvp::test::machine_rig
