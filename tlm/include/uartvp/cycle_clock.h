// SPDX-License-Identifier: Apache-2.0
#pragma once
// Exact times of clock edges. Edge n of a clock of f Hz is at n / f seconds, rounded once to the
// SystemC time resolution: times are computed from the cycle count, never by summing rounded periods,
// so a 24 MHz clock (41666.67 ps) does not drift over a long run. Works with any time resolution;
// uartvp's own programs use SystemC's default, 1 ps (the error per edge is below 0.5 ps).
//
// The frequency may change (set_hz): from a given edge on, which keeps its time, edges follow at the
// new period, edge from + k at time_of(from) + k / f', again rounded once.
#include <cstdint>
#include <systemc>
#include <vector>

namespace uartvp {

class cycle_clock {
public:
    explicit cycle_clock(std::uint64_t hz);

    // The frequency in force from the last change on.
    std::uint64_t hz() const { return m_seg.hz; }
    // Time of edge n (edge 0 is at time 0). Inline for an edge of the frequency in force whose
    // product fits 64 bits (asked for several times per character); else time_of_any().
    sc_core::sc_time time_of(std::uint64_t n) const {
        if (n >= m_seg.n0 && n - m_seg.n0 < m_seg.n_limit)
            return units(m_seg.u0 + ((n - m_seg.n0) * m_seg.num * 2 + m_seg.den) / (m_seg.den * 2));
        return time_of_any(n);
    }
    // First edge at or after t.
    std::uint64_t edge_at_or_after(const sc_core::sc_time& t) const;
    // Last edge at or before t.
    std::uint64_t edge_at_or_before(const sc_core::sc_time& t) const;
    // From edge `from` on (it keeps its time), edges are 1 / hz apart. `from` must not lie before the
    // edge of an earlier change. Throws std::invalid_argument for 0 Hz or a period shorter than the
    // time resolution.
    void set_hz(std::uint64_t from, std::uint64_t hz);
    // One period at the frequency in force, rounded to the time resolution (edges may lie one unit
    // closer or further apart).
    sc_core::sc_time period() const;

private:
    // Edges from edge `n0` (at `u0` resolution units) on, at `hz`.
    struct segment {
        std::uint64_t hz = 0;
        std::uint64_t n0 = 0, u0 = 0;
        std::uint64_t num = 0, den = 0; // units per second over Hz in lowest terms
        // Below these, 64-bit arithmetic cannot overflow (computed once: a division saved per call).
        std::uint64_t n_limit = 0, u_limit = 0;
        std::uint64_t units_of(std::uint64_t k) const; // k edges after n0, relative to u0
        std::uint64_t after(std::uint64_t u) const;    // first edge (relative) at or after u (relative)
        std::uint64_t before(std::uint64_t u) const;   // last edge (relative) at or before u (relative)
    };
    segment make(std::uint64_t hz) const;
    sc_core::sc_time time_of_any(std::uint64_t n) const;
    const segment& segment_of_edge(std::uint64_t n) const;
    const segment& segment_of_units(std::uint64_t u) const;

    // An sc_time of `u` resolution units. Below 2^52 units it is built inline from a double, which
    // holds such a count exactly (as does 1.0 * u + 0.5, truncated back): sc_time::from_value() is a call
    // into the kernel's library per edge time asked for.
    sc_core::sc_time units(std::uint64_t u) const {
        if (u >= (std::uint64_t(1) << 52)) return sc_core::sc_time::from_value(u);
        sc_core::sc_time t = m_unit;
        t *= static_cast<double>(static_cast<std::int64_t>(u)); // one instruction from a signed count
        return t;
    }

    std::uint64_t m_units_per_s; // time-resolution units per second
    sc_core::sc_time m_unit;     // one resolution unit
    segment m_seg;               // in force
    std::vector<segment> m_past; // earlier segments, oldest first (empty while the clock never changed)
};

} // namespace uartvp
