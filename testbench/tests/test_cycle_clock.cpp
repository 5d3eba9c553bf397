// uartvp::cycle_clock: the edge at or before / at or after a time, computed in closed form, against
// their definitions through time_of() (edge n at n / f seconds, rounded once to the resolution), for
// clocks whose periods are and are not whole numbers of picoseconds, at times up to sc_max_time().
#include <cstdint>
#include <random>

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
