// SPDX-License-Identifier: Apache-2.0
#pragma once
// Times on a serial line computed by the tests themselves, independently of the library (the line
// monitor's and the RX injector's tests).
#include <cmath>

#include <systemc>

namespace uartvp::test {

inline sc_core::sc_time ps(long double v) {
    return sc_core::sc_time(static_cast<double>(std::llround(v)), sc_core::SC_PS);
}

// Offset of `bits` bit periods (may be fractional), rounded to the ps.
inline sc_core::sc_time bit_time(double baud, long double bits) {
    return ps(bits * 1e12L / baud);
}

} // namespace uartvp::test
