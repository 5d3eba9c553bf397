// SPDX-License-Identifier: Apache-2.0
#pragma once
// What both UART models do with their optional ports and their clk_hz input.
#include <cstdint>
#include <stdexcept>
#include <string>

#include <systemc>

#include <uartvp/uart_ports.h>

namespace uartvp::detail {

inline bool read_or(const optional_in& p, bool inactive) {
    return p.size() ? p->read() : inactive;
}

inline void write_if_bound(optional_out& p, bool v) {
    if (p.size()) p->write(v);
}

// A frequency from clk_hz: an error report (not an exception out of a process) for what cannot be.
template <class uart> void apply_clk_hz(uart& u, std::uint64_t hz) {
    if (hz == 0) {
        SC_REPORT_ERROR(
            u.kind(), (std::string(u.name()) + ": clk_hz is 0 Hz (a stopped clock is not modelled)").c_str());
    } else if (hz != u.clock().hz()) {
        try {
            u.set_clock_hz(hz);
        } catch (const std::invalid_argument& e) {
            SC_REPORT_ERROR(u.kind(), (std::string(u.name()) + ": clk_hz: " + e.what()).c_str());
        }
    }
}

// The body of a model's clk_hz method: each change of the frequency on the signal is a set_clock_hz()
// at that time (its value at the start was taken by start_of_simulation(); `watching` is false until
// the method has run once, at initialisation).
template <class uart> void follow_clk_hz(uart& u, const optional_hz_in& clk_hz, bool& watching) {
    if (!clk_hz.size()) return; // never triggered again
    if (watching) apply_clk_hz(u, clk_hz->read());
    watching = true;
    sc_core::next_trigger(clk_hz->value_changed_event());
}

} // namespace uartvp::detail
