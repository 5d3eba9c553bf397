#pragma once
// Exact times of clock edges. Edge n of a clock of f Hz is at n / f seconds, rounded once to the
// SystemC time resolution: times are computed from the cycle count, never by summing rounded periods,
// so a 24 MHz clock (41666.67 ps) does not drift over a long run. Works with any time resolution;
// uartvp's own programs use SystemC's default, 1 ps (the error per edge is below 0.5 ps).
#include <cstdint>
#include <systemc>

namespace uartvp {

class cycle_clock {
public:
    explicit cycle_clock(std::uint64_t hz);

    std::uint64_t hz() const { return m_hz; }
    // Time of edge n (edge 0 is at time 0).
    sc_core::sc_time time_of(std::uint64_t n) const;
    // First edge at or after t.
    std::uint64_t edge_at_or_after(const sc_core::sc_time& t) const;
    // Last edge at or before t.
    std::uint64_t edge_at_or_before(const sc_core::sc_time& t) const;

private:
    std::uint64_t units_of(std::uint64_t n) const;
    std::uint64_t m_hz;
    std::uint64_t m_units_per_s; // time-resolution units per second
    std::uint64_t m_num, m_den;  // m_units_per_s / m_hz in lowest terms
    // Below these, 64-bit arithmetic cannot overflow (computed once: a division saved per call).
    std::uint64_t m_n_limit = 0, m_u_limit = 0;
};

} // namespace uartvp
