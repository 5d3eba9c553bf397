#include <uartvp/cycle_clock.h>

#include <stdexcept>

namespace uartvp {

cycle_clock::cycle_clock(std::uint64_t hz)
    : m_hz(hz)
    , m_units_per_s(sc_core::sc_time(1, sc_core::SC_SEC).value()) {
    if (hz == 0) throw std::invalid_argument("clock frequency must not be 0");
}

std::uint64_t cycle_clock::units_of(std::uint64_t n) const {
    using u128 = unsigned __int128;
    return static_cast<std::uint64_t>((u128(n) * m_units_per_s * 2 + m_hz) / (u128(m_hz) * 2));
}

sc_core::sc_time cycle_clock::time_of(std::uint64_t n) const {
    return sc_core::sc_time::from_value(units_of(n));
}

std::uint64_t cycle_clock::edge_at_or_after(const sc_core::sc_time& t) const {
    using u128 = unsigned __int128;
    const std::uint64_t u = t.value();
    auto n = static_cast<std::uint64_t>(u128(u) * m_hz / m_units_per_s);
    while (units_of(n) < u)
        ++n;
    while (n > 0 && units_of(n - 1) >= u)
        --n;
    return n;
}

std::uint64_t cycle_clock::edge_at_or_before(const sc_core::sc_time& t) const {
    const std::uint64_t n = edge_at_or_after(t);
    return units_of(n) == t.value() ? n : n - 1;
}

} // namespace uartvp
