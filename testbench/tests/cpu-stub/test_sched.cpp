// SPDX-License-Identifier: Apache-2.0
// The scheduler (cpu-stub/src/sched.cpp): priority, first come first served, yielding, wake-ups across
// cores, kthread_stop.
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

TEST(KernelSched, ScheduleYieldsWithinALevelCondReschedOnlyToABetterTask) {
    UARTVP_SIM_TEST();
    bench b(1);
    std::vector<std::string> order;
    b.m.cpu(0).create_task("a", [&] {
        order.push_back("a1");
        cond_resched(); // b has the same nice: no switch
        order.push_back("a2");
        schedule(); // yields to b
        order.push_back("a3");
    });
    b.m.cpu(0).create_task("b", [&] {
        order.push_back("b1");
        kthread_run_on_cpu(
            [&](void*) {
                order.push_back("hi");
                return 0;
            },
            nullptr, 0, "hi")
            ->nice = -10;
        cond_resched(); // a better task is runnable: it runs now
        order.push_back("b2");
    });
    sc_start(ms(1));
    EXPECT_EQ(order, (std::vector<std::string>{"a1", "a2", "b1", "hi", "b2", "a3"}));
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
