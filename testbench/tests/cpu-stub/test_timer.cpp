// SPDX-License-Identifier: Apache-2.0
// Time (cpu-stub/src/timer.cpp): msleep and timers against jiffies at each HZ, wait_event_timeout, the
// tick's cost, hrtimeouts.
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

// ---- time

// msleep(ms) sleeps msecs_to_jiffies(ms) + 1 jiffies and wakes at that jiffy's tick.
void msleep_at(unsigned h) {
    cpu::kernel_params p;
    p.hz = h;
    bench b(1, p);
    sc_time woke;
    unsigned long j0 = 0, j1 = 0;
    b.m.cpu(0).create_task("sleeper", [&] {
        udelay(1500);
        j0 = jiffies();
        msleep(10);
        woke = now_local();
        j1 = jiffies();
    });
    sc_start(ms(100));
    const unsigned long want = j0 + msecs_to_jiffies(10) + 1;
    EXPECT_EQ(msecs_to_jiffies(10), (10ul * h + 999) / 1000);
    EXPECT_EQ(j1, want);
    EXPECT_EQ(woke, b.m.time_of_jiffy(want)) << "hz " << h;
    EXPECT_EQ(j0, static_cast<unsigned long>(1.5e-3 * h));
}

TEST(KernelTime, MsleepWakesAtTheTickOfItsJiffyAt100Hz) {
    UARTVP_SIM_TEST();
    msleep_at(100);
}
TEST(KernelTime, MsleepWakesAtTheTickOfItsJiffyAt250Hz) {
    UARTVP_SIM_TEST();
    msleep_at(250);
}
TEST(KernelTime, MsleepWakesAtTheTickOfItsJiffyAt300Hz) {
    UARTVP_SIM_TEST();
    msleep_at(300);
}
TEST(KernelTime, MsleepWakesAtTheTickOfItsJiffyAt1000Hz) {
    UARTVP_SIM_TEST();
    msleep_at(1000);
}

TEST(KernelTime, WaitEventTimeoutReturnsZeroWhenTheTimeRunsOut) {
    UARTVP_SIM_TEST();
    bench b(1);
    wait_queue_head wq;
    long left = -1;
    b.m.cpu(0).create_task("t", [&] {
        left = wait_event_timeout(
            wq, [] { return false; }, 5);
    });
    sc_start(ms(100));
    EXPECT_EQ(left, 0);
}

TEST(KernelTime, TheTickCostsItsTimeOnEveryCore) {
    UARTVP_SIM_TEST();
    cpu::kernel_params p;
    p.hz = 1000;
    p.tick_cost = us(2);
    bench b(2, p);
    sc_time end0;
    b.m.cpu(0).create_task("busy", [&] {
        udelay(10'000); // 10 ms of work: 10 ticks of 2 us come on top (the first at 1 ms)
        end0 = now_local();
    });
    sc_start(ms(50));
    EXPECT_EQ(end0, us(10'000 + 2 * 10));
    EXPECT_GE(b.m.cpu(1).stats().interrupts, 40u) << "the idle core ticks too";
}

// An hrtimer sleep ends at its own time, not at a jiffy's tick (HZ 250 here: ticks every 4 ms).
TEST(KernelTime, HrtimeoutWakesAtItsOwnTimeAbsoluteOrRelative) {
    UARTVP_SIM_TEST();
    bench b(1);
    sc_time woke_abs, woke_rel;
    int r_abs = -1, r_rel = -1;
    ktime_t before = -1;
    b.m.cpu(0).create_task("sleeper", [&] {
        udelay(3);
        before = ktime_get();
        ktime_t t = 1'234'567;
        r_abs = schedule_hrtimeout(&t, HRTIMER_MODE_ABS);
        woke_abs = now_local();
        t = 10'000;
        r_rel = schedule_hrtimeout(&t, HRTIMER_MODE_REL);
        woke_rel = now_local();
    });
    sc_start(ms(20));
    EXPECT_EQ(before, 3000);
    EXPECT_EQ(r_abs, 0);
    EXPECT_EQ(woke_abs, sc_time(1'234'567, SC_NS));
    EXPECT_EQ(r_rel, 0);
    EXPECT_EQ(woke_rel, sc_time(1'244'567, SC_NS));
}

// The timer's interrupt waits for IRQs on at its core (the sleeper runs once the task holding the core
// gives it up); a wake-up before the time ends the sleep with -EINTR.
TEST(KernelTime, HrtimeoutWaitsForIrqsOnAndAnEarlyWakeUpReturnsEintr) {
    UARTVP_SIM_TEST();
    bench b(2);
    sc_time woke0, woke1;
    int r1 = 0;
    task_struct* sleeper1 = nullptr;
    b.m.cpu(0).create_task("sleeper", [&] {
        ktime_t t = 100'000;
        schedule_hrtimeout(&t, HRTIMER_MODE_ABS);
        woke0 = now_local();
    });
    b.m.cpu(0).create_task("holder", [&] {
        irqflags f;
        local_irq_save(f);
        udelay(500); // the timer is due at 100 us, in here
        local_irq_restore(f);
        udelay(50); // then the holder still has the core
    });
    sleeper1 = &b.m.cpu(1).create_task("sleeper1", [&] {
        ktime_t t = 1'000'000;
        r1 = schedule_hrtimeout(&t, HRTIMER_MODE_ABS);
        woke1 = now_local();
    });
    b.m.cpu(0).create_task(
        "waker", [&] { wake_up_process(sleeper1); }, 5); // after the holder
    sc_start(ms(5));
    EXPECT_EQ(woke0, us(550));
    EXPECT_EQ(r1, -4);
    EXPECT_EQ(woke1, us(550));
}
