// SPDX-License-Identifier: Apache-2.0
// Workqueues (cpu-stub/src/workqueue.cpp): a kworker per core runs its work in order.
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

TEST(KernelSched, KworkerRunsQueuedWorkInOrderOnItsCore) {
    UARTVP_SIM_TEST();
    bench b(2);
    std::vector<std::pair<int, unsigned>> ran;
    work_struct w1, w2;
    w1.func = [&](work_struct*) { ran.emplace_back(1, smp_processor_id()); };
    w2.func = [&](work_struct*) { ran.emplace_back(2, smp_processor_id()); };
    bool twice = true;
    b.m.cpu(0).create_task("boot", [&] {
        EXPECT_TRUE(queue_work_on(1, w1));
        EXPECT_TRUE(queue_work_on(1, w2));
        twice = queue_work_on(1, w2); // already pending
    });
    sc_start(ms(1));
    EXPECT_FALSE(twice);
    EXPECT_EQ(ran, (std::vector<std::pair<int, unsigned>>{{1, 1}, {2, 1}}));
}
