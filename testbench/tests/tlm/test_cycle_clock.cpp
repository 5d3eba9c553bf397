// SPDX-License-Identifier: Apache-2.0
// uartvp::cycle_clock: the edge at or before / at or after a time, computed in closed form, against
// their definitions through time_of() (edge n at n / f seconds, rounded once to the resolution), for
// clocks whose periods are and are not whole numbers of picoseconds, at times up to sc_max_time().
#include <cstdint>
#include <random>
#include <stdexcept>

#include <gtest/gtest.h>
#include <systemc>
#include <uartvp/cycle_clock.h>

using sc_core::sc_time;
using uartvp::cycle_clock;

namespace {

void check_at(const cycle_clock& c, std::uint64_t u) {
    const sc_time t = sc_time::from_value(u);
    const std::uint64_t after = c.edge_at_or_after(t), before = c.edge_at_or_before(t);
    ASSERT_GE(c.time_of(after).value(), u) << c.hz() << " Hz at " << u;
    if (after > 0) ASSERT_LT(c.time_of(after - 1).value(), u) << c.hz() << " Hz at " << u;
    ASSERT_LE(c.time_of(before).value(), u) << c.hz() << " Hz at " << u;
    ASSERT_GT(c.time_of(before + 1).value(), u) << c.hz() << " Hz at " << u;
}

} // namespace

TEST(CycleClock, EdgesAroundTimesMatchTheirDefinition) {
    std::mt19937_64 rng(16);
    const std::uint64_t max = sc_core::sc_max_time().value();
    for (std::uint64_t hz : {24'000'000ull, 25'000'000ull, 640'000'000ull, 1'843'200ull, 7ull, 999'999'937ull,
                             1'000'000'000'000ull, 300'000'000'000ull}) {
        const cycle_clock c(hz);
        // Around edges (on them, one unit either side) and at random times, small and huge.
        for (int i = 0; i < 20000; ++i) {
            const std::uint64_t n =
                i < 10000 ? rng() % 2'000'000'000ull : rng() % (max / 1'000'000'000'000ull * hz / 2);
            const std::uint64_t u = c.time_of(n).value();
            for (std::uint64_t d : {0ull, 1ull, 2ull})
                if (u >= d) check_at(c, u - d);
            check_at(c, u + 1);
            check_at(c, rng() % (i % 2 ? 1'000'000'000'000ull : max / 2));
        }
        check_at(c, 0);
        check_at(c, 1);
    }
}

// set_hz: edges up to the change keep their times, edge from + k lies at time_of(from) + k / f' (rounded
// once), and the closed forms still match their definitions on both sides of each change.
TEST(CycleClock, FrequencyChangesKeepEarlierEdgesAndSpaceLaterOnesAtTheNewPeriod) {
    std::mt19937_64 rng(23);
    cycle_clock c(24'000'000);
    const cycle_clock before(24'000'000);
    c.set_hz(1000, 48'000'000);
    c.set_hz(5000, 1'843'200);
    c.set_hz(5000, 7'372'800); // a second change at the same edge replaces the first
    c.set_hz(90'000, 24'000'000);
    EXPECT_EQ(c.hz(), 24'000'000u);
    for (std::uint64_t n = 0; n <= 1000; ++n)
        ASSERT_EQ(c.time_of(n), before.time_of(n)) << n;
    const cycle_clock at48(48'000'000), at7(7'372'800), at24(24'000'000);
    const std::uint64_t u1000 = c.time_of(1000).value(), u5000 = c.time_of(5000).value(),
                        u90000 = c.time_of(90'000).value();
    EXPECT_EQ(u5000, u1000 + at48.time_of(4000).value());
    EXPECT_EQ(u90000, u5000 + at7.time_of(85'000).value());
    EXPECT_EQ(c.time_of(90'123).value(), u90000 + at24.time_of(123).value());
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t n = rng() % 200'000;
        const std::uint64_t u = c.time_of(n).value();
        ASSERT_LT(u, c.time_of(n + 1).value()) << n;
        for (std::uint64_t d : {0ull, 1ull, 2ull})
            if (u >= d) check_at(c, u - d);
        check_at(c, u + 1);
    }
    EXPECT_THROW(c.set_hz(100, 1'000'000), std::invalid_argument); // before the last change
    EXPECT_THROW(c.set_hz(100'000, 0), std::invalid_argument);
    EXPECT_EQ(c.period(), at24.time_of(1));
}
