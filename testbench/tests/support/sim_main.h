// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <gtest/gtest.h>

namespace uartvp::test {
// True for the first simulating test of this process, false after that.
bool claim_simulation();
} // namespace uartvp::test

// First statement of every test that elaborates or simulates SystemC modules.
#define UARTVP_SIM_TEST()                                                                                    \
    do {                                                                                                     \
        if (!::uartvp::test::claim_simulation())                                                             \
            GTEST_FAIL() << "SystemC simulates once per process: run this test alone (ctest does), e.g. "    \
                            "--gtest_filter="                                                                \
                         << ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name()       \
                         << "." << ::testing::UnitTest::GetInstance()->current_test_info()->name();          \
    } while (0)
