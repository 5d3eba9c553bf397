#include "uartvp/line_monitor.h"

#include <stdexcept>
#include <string>

namespace uartvp {

namespace {
sc_core::sc_time ps_time(std::uint64_t ps) {
    return sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS);
}

void check(double baud, const serial_format& fmt) {
    if (!(baud > 0)) throw std::invalid_argument("line_monitor: baud rate must be positive");
    if (!fmt.valid()) throw std::invalid_argument("line_monitor: invalid serial format");
}
} // namespace

line_monitor::line_monitor(sc_core::sc_module_name name, double baud, serial_format fmt)
    : sc_core::sc_module(name)
    , line("line")
    , m_baud(baud)
    , m_fmt(fmt) {
    check(baud, fmt);
    SC_HAS_PROCESS(line_monitor);
    SC_THREAD(run);
    SC_METHOD(record);
    sensitive << line;
    dont_initialize();
}

void line_monitor::record() {
    if (m_busy) m_edges.emplace_back(sc_core::sc_time_stamp(), line.read());
}

// The line at time t within the current frame: low from its start edge, then as the edges say.
bool line_monitor::level_at(const sc_core::sc_time& t) const {
    bool v = false;
    for (const auto& [when, level] : m_edges) {
        if (when > t) break;
        if (when > m_frame_start) v = level;
    }
    return v;
}

void line_monitor::set_format(double baud, serial_format fmt) {
    check(baud, fmt);
    m_baud = baud;
    m_fmt = fmt;
}

void line_monitor::emit(const decoded_char& c) {
    if (c.is_break) {
        ++m_breaks;
    } else {
        ++m_chars;
        if (c.framing_error) ++m_framing_errors;
        if (c.parity_error) ++m_parity_errors;
        if (m_keep_text) m_text += static_cast<char>(c.data);
    }
    for (auto& cb : m_callbacks)
        cb(c);
}

void line_monitor::run() {
    using sc_core::wait;
    for (;;) {
        // A line that is low (at start-up or after a break) is not idle: wait for it to go high first.
        while (!line.read())
            wait(line.value_changed_event());
        // Idle: sleep until the line changes; only a falling edge starts a frame.
        do
            wait(line.value_changed_event());
        while (line.read());

        // The format is latched per frame, so set_format() between frames is safe.
        const double baud = m_baud;
        const serial_format fmt = m_fmt;
        const sc_core::sc_time start = sc_core::sc_time_stamp();
        m_busy = true;
        m_edges.clear();
        m_frame_start = start;
        unsigned bit = 0;
        // Sample k is at the middle of bit k. The thread waits only for the first (the start bit's
        // glitch check) and the last; the samples between come from the recorded edges.
        const unsigned last = fmt.bits_per_frame() - 1;
        if (baud != m_offsets_baud || fmt.bits_per_frame() != m_offsets_bits) {
            m_offsets.clear();
            for (unsigned k = 0; k <= last; ++k)
                m_offsets.push_back(ps_time(bit_offset_ps(baud, 2 * k + 1)));
            m_offsets.push_back(ps_time(bit_offset_ps(baud, 2 * fmt.bits_per_frame())));
            m_offsets_baud = baud;
            m_offsets_bits = fmt.bits_per_frame();
        }
        auto mid = [&](unsigned k) { return start + m_offsets[k]; };
        const sc_core::sc_time last_mid = mid(last);
        auto sample = [&]() {
            const sc_core::sc_time t = mid(bit);
            const unsigned k = bit++;
            if (k == 0 || k == last) {
                if (t > sc_core::sc_time_stamp()) wait(t - sc_core::sc_time_stamp());
                return line.read();
            }
            if (last_mid > sc_core::sc_time_stamp()) wait(last_mid - sc_core::sc_time_stamp());
            return level_at(t);
        };

        if (sample()) { // start bit high at its middle: a glitch, not a frame
            ++m_false_starts;
            m_busy = false;
            continue;
        }
        bool any_high = false;
        unsigned data = 0;
        for (unsigned i = 0; i < fmt.data_bits; ++i) {
            const bool b = sample();
            data |= (b ? 1u : 0u) << i; // LSB first
            any_high |= b;
        }
        bool parity_error = false;
        if (fmt.has_parity()) {
            const bool p = sample();
            any_high |= p;
            parity_error = p != (fmt.parity_bit(static_cast<std::uint8_t>(data)) != 0);
        }
        bool framing_error = false, all_stops_low = true;
        for (unsigned i = 0; i < fmt.stop_bits; ++i) {
            const bool s = sample();
            framing_error |= !s;
            all_stops_low &= !s;
        }
        decoded_char c;
        c.data = static_cast<std::uint8_t>(data);
        c.start = start;
        c.end = start + m_offsets[last + 1];
        c.framing_error = framing_error;
        // Every sample low, stop bits included: a break. Its parity means nothing.
        c.is_break = !any_high && all_stops_low;
        c.parity_error = !c.is_break && parity_error;
        m_busy = false;
        emit(c);
        // After a break, the next frame cannot start before the line has gone high again: the loop's
        // first wait handles it.
    }
}

} // namespace uartvp
