// SPDX-License-Identifier: Apache-2.0
// Interrupts (cpu-stub/src/irq.cpp): taken at their time, masked until IRQs are enabled again, routed to
// one core, their latency, irq_work.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "machine_rig.h"
#include "sim_main.h"

using namespace uartvp;
using namespace uartvp::kapi;
using namespace sc_core;
using namespace uartvp::test::kernel_bench;
using uartvp::test::machine_rig::bench;

// ---- interrupts

TEST(KernelIrq, HandlerRunsAtTheAssertionTimeAndTheTaskResumesAfterIt) {
    UARTVP_SIM_TEST();
    cpu::kernel_params p;
    p.irq_entry = sc_time(300, SC_NS);
    p.irq_exit = sc_time(200, SC_NS);
    bench b(1, p);
    sc_time entered, task_end;
    b.m.cpu(0).create_task("boot", [&] {
        request_irq(
            b.irq,
            [&](int, void*) {
                entered = now_local();
                udelay(5);
                b.line.write(false); // the handler clears the source
                return IRQ_HANDLED;
            },
            0, "dev", nullptr);
        udelay(100); // the interrupt comes in the middle
        task_end = now_local();
    });
    b.raise_at(b.line, us(40));
    sc_start(ms(1));
    EXPECT_EQ(entered, us(40) + sc_time(300, SC_NS));
    EXPECT_EQ(task_end, us(105) + sc_time(500, SC_NS)) << "the task's work resumes after the handler";
    const auto& s = b.m.irq_lines()[static_cast<std::size_t>(b.irq)];
    EXPECT_EQ(s.count, 1u);
    EXPECT_EQ(s.latency_max, sc_time(300, SC_NS));
    EXPECT_EQ(b.m.cpu(0).stats().hardirq, us(5) + sc_time(500, SC_NS));
}

TEST(KernelIrq, MaskedInterruptIsTakenWhenIrqsAreEnabledAgain) {
    UARTVP_SIM_TEST();
    bench b(1);
    sc_time entered;
    b.m.cpu(0).create_task("boot", [&] {
        request_irq(
            b.irq,
            [&](int, void*) {
                entered = now_local();
                b.line.write(false);
                return IRQ_HANDLED;
            },
            0, "dev", nullptr);
        udelay(10);
        irqflags f;
        local_irq_save(f);
        udelay(90); // the line rises at 40 us, in here
        local_irq_restore(f);
        udelay(10);
    });
    b.raise_at(b.line, us(40));
    sc_start(ms(1));
    EXPECT_EQ(entered, us(100));
    EXPECT_EQ(b.m.irq_lines()[static_cast<std::size_t>(b.irq)].latency_max, us(60));
    EXPECT_EQ(b.m.cpu(0).stats().irq_off_max, us(90));
}

TEST(KernelIrq, LineRoutedToAnotherCoreLeavesThisOneAlone) {
    UARTVP_SIM_TEST();
    bench b(2);
    sc_time task_end;
    unsigned handled_on = 99;
    b.m.cpu(0).create_task("boot", [&] {
        request_irq(
            b.irq2,
            [&](int, void*) {
                handled_on = smp_processor_id();
                b.line2.write(false);
                return IRQ_HANDLED;
            },
            0, "dev2", nullptr);
        udelay(100);
        task_end = now_local();
    });
    b.raise_at(b.line2, us(40));
    sc_start(ms(1));
    EXPECT_EQ(handled_on, 1u);
    EXPECT_EQ(task_end, us(100));
    EXPECT_EQ(b.m.cpu(0).stats().interrupts, 0u);
}

// The worst phase of an IRQs-off window: a task woken by the line's rise ahead of its interrupt
// (make_runnable_first) takes the idle core and disables IRQs at that very instant, so the handler
// waits for the whole window. Woken the plain way, the handler runs first.
sc_time handler_entry_with_window_at_the_rise(bool first) {
    cpu::kernel_params p;
    p.irq_entry = sc_time(300, SC_NS);
    bench b(1, p);
    sc_time entered, window_at;
    task_struct* hog = nullptr;
    b.m.cpu(0).create_task("boot", [&] {
        request_irq(
            b.irq,
            [&](int, void*) {
                entered = now_local();
                b.line.write(false);
                return IRQ_HANDLED;
            },
            0, "dev", nullptr);
    });
    hog = &b.m.cpu(0).create_task("hog", [&] {
        schedule_timeout(-1); // until the line rises
        irqflags f;
        local_irq_save(f);
        window_at = now_local();
        udelay(50);
        local_irq_restore(f);
    });
    b.m.on_irq_raised(b.irq, [&] {
        if (first)
            hog->cpu->make_runnable_first(*hog);
        else
            hog->cpu->make_runnable(*hog);
    });
    b.raise_at(b.line, us(40));
    sc_start(ms(1));
    EXPECT_EQ(window_at, first ? us(40) : us(40) + sc_time(300, SC_NS));
    EXPECT_EQ(b.m.cpu(0).stats().irq_off_max, us(50));
    return entered;
}

TEST(KernelIrq, TaskWokenFirstAtTheRiseHoldsTheInterruptForItsWholeWindow) {
    UARTVP_SIM_TEST();
    EXPECT_EQ(handler_entry_with_window_at_the_rise(true), us(90) + sc_time(300, SC_NS));
}

TEST(KernelIrq, TaskWokenPlainlyAtTheRiseRunsAfterTheInterrupt) {
    UARTVP_SIM_TEST();
    EXPECT_EQ(handler_entry_with_window_at_the_rise(false), us(40) + sc_time(300, SC_NS));
}

// On a busy core the interrupt interrupts the running task at its time; the task woken first runs when
// the core is given up.
TEST(KernelIrq, TaskWokenFirstOnABusyCoreWaitsForTheCore) {
    UARTVP_SIM_TEST();
    bench b(1);
    sc_time entered, hog_ran;
    task_struct* hog = nullptr;
    hog = &b.m.cpu(0).create_task("hog", [&] {
        schedule_timeout(-1);
        hog_ran = now_local();
    });
    b.m.cpu(0).create_task("busy", [&] {
        request_irq(
            b.irq,
            [&](int, void*) {
                entered = now_local();
                b.line.write(false);
                return IRQ_HANDLED;
            },
            0, "dev", nullptr);
        udelay(200);
    });
    b.m.on_irq_raised(b.irq, [&] { hog->cpu->make_runnable_first(*hog); });
    b.raise_at(b.line, us(40));
    sc_start(ms(1));
    EXPECT_EQ(entered, us(40));
    EXPECT_EQ(hog_ran, us(200));
}

// A handler's accesses count for the task it interrupted; on an idle core, for the core's idle stats.
TEST(KernelIrq, HandlerAccessesCountForTheInterruptedTaskOrTheIdleCore) {
    UARTVP_SIM_TEST();
    struct ram : sc_module {
        tlm_utils::multi_passthrough_target_socket<ram, 32> target{"target"};
        explicit ram(const sc_module_name& n)
            : sc_module(n) {
            target.register_b_transport(this, &ram::b_transport);
        }
        void b_transport(int, tlm::tlm_generic_payload& tx, sc_time&) {
            std::memset(tx.get_data_ptr(), 0, tx.get_data_length());
            tx.set_response_status(tlm::TLM_OK_RESPONSE);
        }
    };
    sc_signal<bool, SC_MANY_WRITERS> line{"line", false};
    cpu::machine m("machine", 1, timing());
    ram mem("mem");
    m.cpu(0).bus.bind(mem.target);
    const int irq = m.add_irq_line(line, "dev", 0);
    m.cpu(0).create_task("boot", [&] {
        request_irq(
            irq,
            [&](int, void*) {
                (void)readl(0x1000);
                line.write(false);
                return IRQ_HANDLED;
            },
            0, "dev", nullptr);
        udelay(100); // the first interrupt comes in here
    });
    sc_spawn([&] {
        sc_core::wait(us(50));
        line.write(true);
        sc_core::wait(us(150)); // the core is idle by then
        line.write(true);
    });
    sc_start(ms(1));
    EXPECT_EQ(m.cpu(0).tasks()[0].mmio_reads, 1u);
    EXPECT_EQ(m.cpu(0).idle_stats().mmio_reads, 1u);
    EXPECT_EQ(m.irq_lines()[0].count, 2u);
}

TEST(KernelIrq, IrqWorkRunsAtTheNextIrqsOnPointLazyAtTheNextTick) {
    UARTVP_SIM_TEST();
    bench b(1); // HZ 250: ticks every 4 ms
    sc_time ran, ran_lazy;
    irq_work w, lazy;
    w.func = [&](irq_work*) { ran = now_local(); };
    lazy.func = [&](irq_work*) { ran_lazy = now_local(); };
    lazy.lazy = true;
    b.m.cpu(0).create_task("boot", [&] {
        irqflags f;
        local_irq_save(f);
        udelay(10);
        irq_work_queue(&w);
        irq_work_queue(&lazy);
        udelay(20);
        local_irq_restore(f);
        udelay(10);
    });
    sc_start(ms(20));
    EXPECT_EQ(ran, us(30));
    EXPECT_EQ(ran_lazy, ms(4));
}
