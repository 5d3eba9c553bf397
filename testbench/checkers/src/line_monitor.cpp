// SPDX-License-Identifier: Apache-2.0
#include <uartvp/line_monitor.h>

#include <algorithm>
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
    SC_METHOD(run);
    SC_METHOD(record);
    sensitive << line;
    dont_initialize();
    SC_METHOD(run_feed);
}

void line_monitor::record() {
    if (m_feed_mode) return;
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

// A method, woken by the line's changes while it waits for a frame and at the two samples it takes
// itself in a frame (a next_trigger costs well under half a thread's wait).
void line_monitor::run() {
    if (m_feed_mode) return; // not woken again
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    switch (m_state) {
    case state::wait_high: // at start-up or after a frame: a line that is low is not idle yet
        if (!line.read()) {
            next_trigger(line.value_changed_event());
            return;
        }
        m_state = state::idle;
        next_trigger(line.value_changed_event());
        return;
    case state::idle: // only a falling edge starts a frame
        if (line.read()) {
            next_trigger(line.value_changed_event());
            return;
        }
        start_frame(now);
        m_state = state::start_bit;
        next_trigger(m_frame_start + m_offsets[0] - now);
        return;
    case state::start_bit:
        if (line.read()) { // start bit high at its middle: a glitch, not a frame
            ++m_false_starts;
            m_busy = false;
            m_state = state::idle; // the line is high
            next_trigger(line.value_changed_event());
            return;
        }
        m_state = state::last_bit;
        next_trigger(m_frame_start + m_offsets[m_frame_fmt.bits_per_frame() - 1] - now);
        return;
    case state::last_bit:
        end_frame();
        // After a break, the next frame cannot start before the line has gone high again.
        m_state = line.read() ? state::idle : state::wait_high;
        next_trigger(line.value_changed_event());
        return;
    }
}

void line_monitor::start_frame(const sc_core::sc_time& start) {
    // The format is latched per frame, so set_format() between frames is safe.
    m_frame_fmt = m_fmt;
    const unsigned bits = m_fmt.bits_per_frame();
    if (m_baud != m_offsets_baud || bits != m_offsets_bits) {
        m_offsets.clear();
        for (unsigned k = 0; k < bits; ++k)
            m_offsets.push_back(ps_time(bit_offset_ps(m_baud, 2 * k + 1)));
        m_offsets.push_back(ps_time(bit_offset_ps(m_baud, 2 * bits)));
        m_offsets_baud = m_baud;
        m_offsets_bits = bits;
    }
    m_busy = true;
    m_edges.clear();
    m_frame_start = start;
}

// At the middle of the frame's last bit: sample k is at the middle of bit k; the method woke only for
// the first (the start bit's glitch check) and the last, the samples between come from the recorded
// edges.
void line_monitor::end_frame() {
    const serial_format& fmt = m_frame_fmt;
    const unsigned last = fmt.bits_per_frame() - 1;
    unsigned bit = 1;
    auto sample = [&]() {
        const unsigned k = bit++;
        if (m_feed_mode) {
            const sc_core::sc_time t = m_frame_start + m_offsets[k];
            return k == last ? feed_before(t) : feed_at(t);
        }
        return k == last ? line.read() : level_at(m_frame_start + m_offsets[k]);
    };
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
    c.start = m_frame_start;
    c.end = m_frame_start + m_offsets[last + 1];
    c.framing_error = framing_error;
    // Every sample low, stop bits included: a break. Its parity means nothing.
    c.is_break = !any_high && all_stops_low;
    c.parity_error = !c.is_break && parity_error;
    m_busy = false;
    emit(c);
}

// ---- from characters

void line_monitor::line_char(const serial_char& c) {
    for (unsigned k = 0; k < c.bits; ++k)
        feed(c.edge[k], c.level(k));
}

void line_monitor::line_level(const sc_core::sc_time& t, bool level) {
    // A level inside a character reported before cuts it: its bits from t on never reach the line.
    while (!m_feed.empty() && m_feed.back().first >= t)
        m_feed.pop_back();
    // A decision taken on a change at or after t, ahead of its time, is taken again on the line as it
    // is now (a break or a reset before a start bit reported ahead).
    if (m_ahead && sc_core::sc_time_stamp() <= m_ahead_last && t <= m_ahead_last) {
        m_state = m_ahead_state;
        m_cursor = m_ahead_cursor;
        m_busy = m_state == state::start_bit; // within the frame, before its start bit's decision
        m_ahead = false;
        m_recheck.notify(sc_core::SC_ZERO_TIME);
    }
    feed(t, level);
}

void line_monitor::feed(const sc_core::sc_time& t, bool level) {
    const bool before = m_feed.empty() ? m_feed_base : m_feed.back().second;
    if (level == before) return; // the pin shows changes only
    m_feed.emplace_back(t, level);
    if (m_feed_waiting) m_feed_event.notify(sc_core::SC_ZERO_TIME);
}

bool line_monitor::feed_before(const sc_core::sc_time& t) const {
    bool v = m_feed_base;
    for (const auto& [when, level] : m_feed) {
        if (when >= t) break;
        v = level;
    }
    return v;
}

bool line_monitor::feed_at(const sc_core::sc_time& t) const {
    bool v = m_feed_base;
    for (const auto& [when, level] : m_feed) {
        if (when > t) break;
        v = level;
    }
    return v;
}

// The decisions run() takes, at the same times, on the reported line: a sample read at its time sees
// the changes before it (the pin's value in the sample's first delta cycle), a frame starts at the
// first falling edge at or after the time the monitor starts looking, the samples between the first
// and the last come from the edges up to them, as level_at() has them.
void line_monitor::run_feed() {
    if (!m_feed_mode) return; // not woken again
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    m_feed_waiting = false;
    for (;;) {
        switch (m_state) {
        case state::wait_high:
        case state::idle: {
            // The first change at or after the cursor that this state looks for: a rise to leave
            // wait_high (the line read high), a fall to start a frame.
            const bool want = m_state == state::wait_high;
            if (m_state == state::wait_high && feed_before(m_cursor)) {
                m_state = state::idle; // read high as it started looking
                continue;
            }
            // Changes before the cursor are history: keep the level they leave.
            while (!m_feed.empty() && m_feed.front().first < m_cursor) {
                m_feed_base = m_feed.front().second;
                m_feed.pop_front();
            }
            const std::pair<sc_core::sc_time, bool>* hit = nullptr;
            for (const auto& e : m_feed)
                if (e.second == want) {
                    hit = &e;
                    break;
                }
            if (!hit) {
                m_feed_waiting = true;
                next_trigger(m_feed_event);
                return;
            }
            const sc_core::sc_time t = hit->first;
            if (t > now) { // ahead of its time: a later report may still change the line before t
                if (!m_ahead || now > m_ahead_last) {
                    m_ahead = true;
                    m_ahead_state = m_state;
                    m_ahead_cursor = m_cursor;
                }
                m_ahead_last = t;
            }
            if (want) {
                m_state = state::idle;
                m_cursor = t;
                continue;
            }
            start_frame(t);
            m_cursor = t;
            m_state = state::start_bit;
            continue;
        }
        case state::start_bit: {
            const sc_core::sc_time at = m_frame_start + m_offsets[0];
            const bool high = feed_before(at);
            if (at > now) {
                if (high) { // a glitch so far: decided at its time (a frame may start right after)
                    next_trigger(at - now, m_recheck);
                    return;
                }
                // Low at its middle as reported: taken now, without a wake of its own. Only a report
                // that changes the line before then can undo it, and such a report takes the decision
                // again (line_level()).
                if (!m_ahead || now > m_ahead_last) {
                    m_ahead = true;
                    m_ahead_state = m_state;
                    m_ahead_cursor = m_cursor;
                }
                m_ahead_last = std::max(m_ahead_last, at);
                m_state = state::last_bit;
                continue;
            }
            if (high) { // start bit high at its middle: a glitch, not a frame
                ++m_false_starts;
                m_busy = false;
                m_state = state::idle;
                m_cursor = at;
                continue;
            }
            m_state = state::last_bit;
            continue;
        }
        case state::last_bit: {
            const sc_core::sc_time at = m_frame_start + m_offsets[m_frame_fmt.bits_per_frame() - 1];
            if (at > now) {
                next_trigger(at - now, m_recheck);
                return;
            }
            end_frame();
            m_state = feed_before(at) ? state::idle : state::wait_high;
            m_cursor = at;
            continue;
        }
        }
    }
}

} // namespace uartvp
