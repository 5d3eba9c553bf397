// SPDX-License-Identifier: Apache-2.0
// The scheduler (cpu-stub/src/core.cpp, sched.cpp): EEVDF's picks, weights and preemption, yielding,
// wake-ups across cores, kthread_stop.
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

// ---- the scheduler

TEST(KernelSched, LowerNiceFirstThenFirstComeFirstServed) {
    UARTVP_SIM_TEST();
    bench b(1);
    std::vector<std::string> order;
    b.m.cpu(0).create_task(
        "a", [&] { order.push_back("a"); }, 0);
    b.m.cpu(0).create_task(
        "b", [&] { order.push_back("b"); }, -5);
    b.m.cpu(0).create_task(
        "c", [&] { order.push_back("c"); }, 0);
    b.m.cpu(0).create_task(
        "d", [&] { order.push_back("d"); }, 5);
    sc_start(ms(1));
    EXPECT_EQ(order, (std::vector<std::string>{"b", "a", "c", "d"}));
}

TEST(KernelSched, YieldGivesWayCondReschedOnlyWhenAWakeUpOrTheTickAskedForIt) {
    UARTVP_SIM_TEST();
    bench b(1);
    std::vector<std::string> order;
    b.m.cpu(0).create_task("a", [&] {
        order.push_back("a1");
        cond_resched(); // b has the same nice and no earlier deadline: no need_resched
        order.push_back("a2");
        schedule(); // a is still the task to pick
        order.push_back("a3");
        yield(); // its deadline a slice later: b's is earlier now
        order.push_back("a4");
    });
    b.m.cpu(0).create_task("b", [&] {
        order.push_back("b1");
        task_struct* hi = kthread_run_on_cpu(
            [&](void*) {
                order.push_back("hi");
                return 0;
            },
            nullptr, 0, "hi");
        cond_resched(); // hi, placed with half a slice, is not ahead of b
        order.push_back("b2");
        sched_set_normal(hi, -10); // reweighted: its deadline comes well before b's
        cond_resched();
        order.push_back("b3");
    });
    sc_start(ms(1));
    EXPECT_EQ(order, (std::vector<std::string>{"a1", "a2", "a3", "b1", "b2", "hi", "b3", "a4"}));
}

// Two CPU-bound tasks (work in 20 us steps, cond_resched() after each) on one core for ten seconds.
// The nice-0 task runs in turns of one tick (a slice of 0.75 ms ends at the next tick), about one per
// 87 ms: over one second its share can be off by a whole turn (9 %), over ten by about 1 %.
TEST(KernelSched, CpuBoundTasksShareACoreInTheRatioOfTheirWeights) {
    UARTVP_SIM_TEST();
    cpu::kernel_params kp;
    kp.hz = 1000; // the tick that ends a slice: the nice-0 task's turns last 1 ms, not 4 (HZ 250)
    bench b(1, kp);
    sc_time ran[2];
    const int nice[2] = {0, -20};
    for (int i = 0; i < 2; ++i)
        b.m.cpu(0).create_task(
            "hog" + std::to_string(i),
            [&, i] {
                while (now_local() < ms(10000)) {
                    udelay(20);
                    ran[i] += us(20);
                    cond_resched();
                }
            },
            nice[i]);
    sc_start(ms(10100));
    const double ratio = ran[0] / ran[1], weights = 1024.0 / 88761.0;
    EXPECT_NEAR(ratio / weights, 1.0, 0.02) << "nice 0 ran " << ran[0] << ", nice -20 " << ran[1];
    // Strict priority would give the nice-0 task nothing; sharing by turns, half.
    EXPECT_GT(ran[0], ms(50));
    const auto& t = b.m.cpu(0).tasks();
    EXPECT_GT(t[0].switches, 50u);
    EXPECT_GT(t[0].wait_time, ms(9000)) << "runnable, not running, most of the time";
}

// A task that sleeps and wakes beside a CPU-bound one of equal nice gets the core once the running
// task's slice is used up and a tick noticed it (voluntary preemption): within one slice here.
TEST(KernelSched, ATaskWokenBesideARunningOneOfEqualNiceRunsWithinOneSlice) {
    UARTVP_SIM_TEST();
    cpu::kernel_params kp;
    kp.hz = 1000;
    bench b(8, kp);
    const sc_time slice = b.m.cpu(0).base_slice();
    EXPECT_EQ(slice, us(3000)); // 0.75 ms x (1 + ilog2(8))
    bool done = false;
    std::vector<sc_time> latency;
    b.m.cpu(0).create_task("hog", [&] {
        while (!done) {
            udelay(7);
            cond_resched();
        }
    });
    b.m.cpu(0).create_task("sleeper", [&] {
        for (int i = 0; i < 30; ++i) {
            ktime_t expires = 2'500'000 + 370'000 * i; // relative, ns
            const sc_time due = now_local() + sc_time(static_cast<double>(expires), SC_NS);
            schedule_hrtimeout(&expires, HRTIMER_MODE_REL);
            latency.push_back(now_local() - due);
            udelay(50);
        }
        done = true;
    });
    sc_start(ms(400));
    ASSERT_EQ(latency.size(), 30u);
    sc_time worst;
    for (const sc_time& l : latency)
        worst = std::max(worst, l);
    EXPECT_LE(worst, slice);
    EXPECT_GT(worst, us(100)) << "the hog's slice is not cut short at every wake-up";
}

TEST(KernelSched, WakeUpFromAnotherCoreResumesTheWaiterAtTheWakersTime) {
    UARTVP_SIM_TEST();
    bench b(2);
    wait_queue_head wq;
    bool ready = false;
    sc_time resumed;
    b.m.cpu(1).create_task("waiter", [&] {
        wait_event(wq, [&] { return ready; });
        resumed = now_local();
    });
    b.m.cpu(0).create_task("waker", [&] {
        udelay(250);
        ready = true;
        wake_up(wq);
    });
    sc_start(ms(1));
    EXPECT_EQ(resumed, us(250));
    EXPECT_TRUE(b.m.cpu(1).idle());
}

TEST(KernelSched, KthreadStopEndsAThreadThatChecksShouldStop) {
    UARTVP_SIM_TEST();
    bench b(2);
    int loops = 0;
    sc_time stopped;
    b.m.cpu(0).create_task("boot", [&] {
        task_struct* t = kthread_run_on_cpu(
            [&](void*) {
                while (!kthread_should_stop()) {
                    ++loops;
                    msleep(1);
                }
                return 0;
            },
            nullptr, 1, "looper");
        msleep(20);
        kthread_stop(t);
        stopped = now_local();
    });
    sc_start(ms(100));
    EXPECT_GE(loops, 3); // msleep(1) at HZ 250 sleeps 2 jiffies: 8 ms
    EXPECT_GT(stopped, ms(20));
    EXPECT_LT(stopped, ms(40));
}
