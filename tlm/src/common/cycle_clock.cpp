// SPDX-License-Identifier: Apache-2.0
#include <uartvp/cycle_clock.h>

#include <numeric>
#include <stdexcept>
#include <string>

namespace uartvp {

namespace {
using u128 = unsigned __int128;
}

cycle_clock::cycle_clock(std::uint64_t hz)
    : m_units_per_s(sc_core::sc_time(1, sc_core::SC_SEC).value())
    , m_unit(sc_core::sc_time::from_value(1))
    , m_seg(make(hz)) {}

cycle_clock::segment cycle_clock::make(std::uint64_t hz) const {
    if (hz == 0) throw std::invalid_argument("clock frequency must not be 0");
    // Edges closer together than one time-resolution unit would fall on the same instant.
    if (hz > m_units_per_s)
        throw std::invalid_argument("a clock of " + std::to_string(hz) +
                                    " Hz has a period shorter than the SystemC "
                                    "time resolution (" +
                                    sc_core::sc_get_time_resolution().to_string() + ")");
    segment s;
    s.hz = hz;
    // units/s over Hz in lowest terms (1e12 / 24e6 = 125000 / 3), so that most products fit 64 bits.
    const std::uint64_t g = std::gcd(m_units_per_s, hz);
    s.num = m_units_per_s / g;
    s.den = hz / g;
    if (s.den < (std::uint64_t(1) << 62)) s.n_limit = (std::uint64_t(1) << 62) / s.num;
    if (s.num < (std::uint64_t(1) << 61)) s.u_limit = (std::uint64_t(1) << 61) / s.den;
    return s;
}

void cycle_clock::set_hz(std::uint64_t from, std::uint64_t hz) {
    if (from < m_seg.n0) throw std::invalid_argument("clock change before the edge of an earlier change");
    segment s = make(hz);
    s.n0 = from;
    s.u0 = time_of(from).value();
    if (from == m_seg.n0) {
        m_seg = s; // the segment in force had no edge of its own yet
    } else {
        m_past.push_back(m_seg);
        m_seg = s;
    }
}

sc_core::sc_time cycle_clock::period() const {
    return units(m_seg.units_of(1));
}

const cycle_clock::segment& cycle_clock::segment_of_edge(std::uint64_t n) const {
    if (n >= m_seg.n0) return m_seg;
    for (auto it = m_past.rbegin(); it != m_past.rend(); ++it)
        if (n >= it->n0) return *it;
    return m_past.front();
}

const cycle_clock::segment& cycle_clock::segment_of_units(std::uint64_t u) const {
    if (u >= m_seg.u0) return m_seg;
    for (auto it = m_past.rbegin(); it != m_past.rend(); ++it)
        if (u >= it->u0) return *it;
    return m_past.front();
}

// round(k * num / den), exact: 64-bit arithmetic while it cannot overflow, 128-bit beyond.
std::uint64_t cycle_clock::segment::units_of(std::uint64_t k) const {
    if (k < n_limit) return (k * num * 2 + den) / (den * 2);
    return static_cast<std::uint64_t>((u128(k) * num * 2 + den) / (u128(den) * 2));
}

// Edge k is at units_of(k) = floor((2 k num + den) / (2 den)), so with x = 2 k num + den:
// units_of(k) >= u  <=>  x >= 2 den u  <=>  k >= (2 den u - den) / (2 num), and
// units_of(k) <= u  <=>  x < 2 den (u + 1)  <=>  k < (2 den u + den) / (2 num): one division each.
std::uint64_t cycle_clock::segment::after(std::uint64_t u) const {
    if (u == 0) return 0;
    if (u < u_limit) return (2 * den * u - den + 2 * num - 1) / (2 * num);
    return static_cast<std::uint64_t>((u128(2) * den * u - den + u128(2) * num - 1) / (u128(2) * num));
}

std::uint64_t cycle_clock::segment::before(std::uint64_t u) const {
    if (u < u_limit) return (2 * den * u + den - 1) / (2 * num);
    return static_cast<std::uint64_t>((u128(2) * den * u + den - 1) / (u128(2) * num));
}

sc_core::sc_time cycle_clock::time_of_any(std::uint64_t n) const {
    const segment& s = segment_of_edge(n);
    return units(s.u0 + s.units_of(n - s.n0));
}

std::uint64_t cycle_clock::edge_at_or_after(const sc_core::sc_time& t) const {
    const segment& s = segment_of_units(t.value());
    return s.n0 + s.after(t.value() - s.u0);
}

std::uint64_t cycle_clock::edge_at_or_before(const sc_core::sc_time& t) const {
    const segment& s = segment_of_units(t.value());
    return s.n0 + s.before(t.value() - s.u0);
}

} // namespace uartvp
