#include <uartvp/cycle_clock.h>

#include <numeric>
#include <stdexcept>
#include <string>

namespace uartvp {

namespace {
using u128 = unsigned __int128;
}

cycle_clock::cycle_clock(std::uint64_t hz)
    : m_hz(hz)
    , m_units_per_s(sc_core::sc_time(1, sc_core::SC_SEC).value()) {
    if (hz == 0) throw std::invalid_argument("clock frequency must not be 0");
    // Edges closer together than one time-resolution unit would fall on the same instant.
    if (hz > m_units_per_s)
        throw std::invalid_argument("a clock of " + std::to_string(hz) +
                                    " Hz has a period shorter than the SystemC "
                                    "time resolution (" +
                                    sc_core::sc_get_time_resolution().to_string() + ")");
    // units/s over Hz in lowest terms (1e12 / 24e6 = 125000 / 3), so that most products fit 64 bits.
    const std::uint64_t g = std::gcd(m_units_per_s, m_hz);
    m_num = m_units_per_s / g;
    m_den = m_hz / g;
    if (m_den < (std::uint64_t(1) << 62)) m_n_limit = (std::uint64_t(1) << 62) / m_num;
    if (m_num < (std::uint64_t(1) << 61)) m_u_limit = (std::uint64_t(1) << 61) / m_den;
}

// round(n * num / den), exact: 64-bit arithmetic while it cannot overflow, 128-bit beyond.
std::uint64_t cycle_clock::units_of(std::uint64_t n) const {
    if (n < m_n_limit) return (n * m_num * 2 + m_den) / (m_den * 2);
    return static_cast<std::uint64_t>((u128(n) * m_num * 2 + m_den) / (u128(m_den) * 2));
}

sc_core::sc_time cycle_clock::time_of(std::uint64_t n) const {
    return sc_core::sc_time::from_value(units_of(n));
}

// Edge n is at units_of(n) = floor((2 n num + den) / (2 den)), so with x = 2 n num + den:
// units_of(n) >= u  <=>  x >= 2 den u  <=>  n >= (2 den u - den) / (2 num), and
// units_of(n) <= u  <=>  x < 2 den (u + 1)  <=>  n < (2 den u + den) / (2 num): one division each.
std::uint64_t cycle_clock::edge_at_or_after(const sc_core::sc_time& t) const {
    const std::uint64_t u = t.value();
    if (u == 0) return 0;
    if (u < m_u_limit) return (2 * m_den * u - m_den + 2 * m_num - 1) / (2 * m_num);
    return static_cast<std::uint64_t>((u128(2) * m_den * u - m_den + u128(2) * m_num - 1) /
                                      (u128(2) * m_num));
}

std::uint64_t cycle_clock::edge_at_or_before(const sc_core::sc_time& t) const {
    const std::uint64_t u = t.value();
    if (u < m_u_limit) return (2 * m_den * u + m_den - 1) / (2 * m_num);
    return static_cast<std::uint64_t>((u128(2) * m_den * u + m_den - 1) / (u128(2) * m_num));
}

} // namespace uartvp
