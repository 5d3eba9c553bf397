// SPDX-License-Identifier: Apache-2.0
// The kernel-like API's locks (cpu-stub/src/kernel.cpp): contended spinlocks.
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

// ---- spinlocks

TEST(KernelSpinlock, ContendedLockCostsSpinningAndSpinningWithIrqsOffCountsAsIrqsOff) {
    UARTVP_SIM_TEST();
    bench b(2);
    spinlock lock;
    sc_time got;
    b.m.cpu(0).create_task("holder", [&] {
        spin_lock(lock);
        udelay(500);
        spin_unlock(lock);
    });
    b.m.cpu(1).create_task("spinner", [&] {
        udelay(100);
        irqflags f;
        spin_lock_irqsave(lock, f);
        got = now_local();
        udelay(50);
        spin_unlock_irqrestore(lock, f);
    });
    sc_start(ms(5));
    EXPECT_EQ(got, us(500));
    EXPECT_EQ(b.m.cpu(1).stats().irq_off_max, us(450));
}
