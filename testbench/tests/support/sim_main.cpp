// SPDX-License-Identifier: Apache-2.0
// GoogleTest main for tests that simulate. SystemC elaborates and simulates once per process, so
// CTest runs each test in its own process; run by hand, a binary refuses to run a second simulating
// test instead of giving wrong results (use --gtest_filter to pick one).
#include "sim_main.h"

#include <cstdlib>
#include <gtest/gtest.h>

namespace uartvp::test {

namespace {
bool g_simulated = false;
}

bool claim_simulation() {
    if (g_simulated) return false;
    g_simulated = true;
    return true;
}

} // namespace uartvp::test

int main(int argc, char** argv) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

// libsystemc's own main() refers to sc_main; this binary has its own main, so this is never called.
extern "C" int sc_main(int, char**) {
    return 3;
}
