// SPDX-License-Identifier: Apache-2.0
// IPIs and the CSD lock (cpu-stub/src/smp.cpp): the caller spins until the target runs the function;
// csdlock_debug's reports at their times.
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

// ---- IPIs and the CSD lock

// CPU1 holds IRQs off from 0 to `hold`; CPU0 calls a function on CPU1 at 1 ms and waits for it.
struct ipi_run {
    sc_time called_at, returned_at, ran_at;
    std::vector<cpu::csd_report> reports;
};
ipi_run ipi_with_irqs_off(const sc_time& hold, bool debug, unsigned cores = 2) {
    cpu::kernel_params p;
    p.csdlock_debug = debug;
    p.csd_lock_timeout_ms = 5;
    bench b(cores, p);
    ipi_run r;
    b.m.cpu(1).create_task("replay", [&] {
        irqflags f;
        local_irq_save(f);
        udelay(static_cast<unsigned long>(hold.to_seconds() * 1e6));
        local_irq_restore(f);
    });
    b.m.cpu(0).create_task("kworker", [&] {
        udelay(1000);
        r.called_at = now_local();
        smp_call_function_single(
            1, [&](void*) { r.ran_at = now_local(); }, nullptr, 1);
        r.returned_at = now_local();
    });
    sc_start(ms(200));
    r.reports = b.m.csd_reports();
    return r;
}

TEST(KernelSmp, CallerSpinsUntilTheTargetEnablesIrqsAndRunsTheFunction) {
    UARTVP_SIM_TEST();
    const ipi_run r = ipi_with_irqs_off(ms(10), false);
    EXPECT_EQ(r.called_at, ms(1));
    EXPECT_EQ(r.ran_at, ms(10));
    EXPECT_EQ(r.returned_at, ms(10));
    EXPECT_TRUE(r.reports.empty()) << "no reports without csdlock_debug";
}

TEST(KernelSmp, CsdDebugReportsDetectedAfterTheTimeoutThenUnstuck) {
    UARTVP_SIM_TEST();
    const ipi_run r = ipi_with_irqs_off(ms(10), true);
    ASSERT_EQ(r.reports.size(), 2u);
    EXPECT_EQ(r.reports[0].kind, cpu::csd_report::detected);
    EXPECT_EQ(r.reports[0].time, ms(6));
    EXPECT_EQ(r.reports[0].wait, ms(5));
    EXPECT_EQ(r.reports[0].cpu, 0u);
    EXPECT_EQ(r.reports[0].target_cpu, 1u);
    EXPECT_NE(r.reports[0].text.find("Detected non-responsive CSD lock"), std::string::npos);
    EXPECT_EQ(r.reports[1].kind, cpu::csd_report::unstuck);
    EXPECT_EQ(r.reports[1].time, ms(10));
    EXPECT_NE(r.reports[1].text.find("got unstuck"), std::string::npos);
}

// The waves' IPI signal of the target: high from the call until its handler ran the queue (IRQs off on
// the target until 10 ms); the observers see the IPI's hard-IRQ span and the target's IRQs-off window.
TEST(KernelSmp, IpiSignalAndSpansShowTheCallPendingThenHandled) {
    UARTVP_SIM_TEST();
    bench b(2);
    struct spans : cpu::core_observer {
        std::vector<std::string> seen;
        void irqs_off_span(const cpu::core& c, const sc_time& s, const sc_time& e) override {
            seen.push_back("cpu" + std::to_string(c.id()) + " irqs off " + s.to_string() + " " +
                           e.to_string());
        }
        void hardirq_span(const cpu::core& c, const std::string& what, const sc_time& s,
                          const sc_time& e) override {
            seen.push_back("cpu" + std::to_string(c.id()) + " " + what + " " + s.to_string() + " " +
                           e.to_string());
        }
    } obs;
    b.m.cpu(1).add_observer(obs);
    std::vector<std::pair<sc_time, bool>> ipi;
    sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(&b.m.ipi[1]->value_changed_event());
    sc_spawn([&] { ipi.emplace_back(sc_time_stamp(), b.m.ipi[1]->read()); }, "ipi_watch", &o);
    b.m.cpu(1).create_task("replay", [&] {
        irqflags f;
        local_irq_save(f);
        udelay(10000);
        local_irq_restore(f);
    });
    b.m.cpu(0).create_task("caller", [&] {
        udelay(1000);
        smp_call_function_single(
            1, [&](void*) { udelay(5); }, nullptr, 1);
    });
    sc_start(ms(20));
    ASSERT_EQ(ipi.size(), 2u);
    EXPECT_EQ(ipi[0], std::make_pair(ms(1), true));
    EXPECT_EQ(ipi[1], std::make_pair(ms(10) + us(5), false));
    ASSERT_EQ(obs.seen.size(), 2u);
    EXPECT_EQ(obs.seen[0], "cpu1 irqs off 0 s " + ms(10).to_string());
    EXPECT_EQ(obs.seen[1], "cpu1 IPI " + ms(10).to_string() + " " + (ms(10) + us(5)).to_string());
}

// Re-reports come when the time since the previous one exceeds timeout x (n+1) x (ilog2(cpus)/2 + 1):
// with 4 CPUs and a 5 ms timeout: detected at +5 ms, continued 20 ms later, then 30 ms after that.
TEST(KernelSmp, CsdDebugReReportsAtGrowingIntervals) {
    UARTVP_SIM_TEST();
    const ipi_run r = ipi_with_irqs_off(ms(70), true, 4);
    ASSERT_EQ(r.reports.size(), 4u);
    EXPECT_EQ(r.reports[0].time, ms(6));
    EXPECT_EQ(r.reports[1].kind, cpu::csd_report::continued);
    EXPECT_EQ(r.reports[1].time, ms(26));
    EXPECT_EQ(r.reports[2].time, ms(56));
    EXPECT_EQ(r.reports[3].kind, cpu::csd_report::unstuck);
    EXPECT_EQ(r.reports[3].time, ms(70));
}

TEST(KernelSmp, KickAllCpusSyncWaitsForEveryOtherCpu) {
    UARTVP_SIM_TEST();
    bench b(3);
    sc_time returned;
    for (unsigned c = 1; c < 3; ++c)
        b.m.cpu(c).create_task("hold", [c] {
            irqflags f;
            local_irq_save(f);
            udelay(c * 100);
            local_irq_restore(f);
        });
    b.m.cpu(0).create_task("kick", [&] {
        udelay(10);
        kick_all_cpus_sync();
        returned = now_local();
    });
    sc_start(ms(5));
    EXPECT_EQ(returned, us(200));
}

// __flush_smp_call_function_queue (kernel/smp.c): the entries queued when the IPI is handled run
// synchronous ones first (call, then release), then the asynchronous ones (release, then call),
// whatever their arrival order. CPU2 holds IRQs off to 5 ms; CPU0 queues an asynchronous call to it at
// 1 ms, CPU1 a synchronous one at 2 ms.
TEST(KernelSmp, FlushRunsSynchronousCallsBeforeAsynchronousOnes) {
    UARTVP_SIM_TEST();
    bench b(3);
    std::vector<std::string> order;
    b.m.cpu(2).create_task("replay", [&] {
        irqflags f;
        local_irq_save(f);
        udelay(5000);
        local_irq_restore(f);
    });
    b.m.cpu(0).create_task("async caller", [&] {
        udelay(1000);
        smp_call_function_single(
            2, [&](void*) { order.push_back("async"); }, nullptr, 0);
    });
    b.m.cpu(1).create_task("sync caller", [&] {
        udelay(2000);
        smp_call_function_single(
            2, [&](void*) { order.push_back("sync"); }, nullptr, 1);
    });
    sc_start(ms(50));
    EXPECT_EQ(order, (std::vector<std::string>{"sync", "async"}));
}
