// SPDX-License-Identifier: Apache-2.0
#pragma once
// Decodes a serial line like a real terminal, knowing nothing of the device that drives it.
//
// Idle is high. A falling edge starts a frame; the start bit is checked at its middle (a low glitch
// shorter than half a bit is ignored), then every data, parity and stop bit is sampled at its middle:
// bit k is sampled at start + round((k + 0.5) * 1e12 / baud) ps, each time computed from the start edge.
// Sampling at bit middles tolerates a sender a few percent off the nominal baud rate. After the last
// stop-bit sample the monitor hunts for the next falling edge at once (a fast sender's next start bit
// may come before the nominal end of the frame). A frame whose every sample is low is a break: it is
// reported once, then the monitor waits for the line to go high again.
//
// Event-driven: while the line is idle the monitor sleeps on its value-change event; it wakes once per
// sample only inside a frame. Memory stays bounded: characters go to the on_char callback and into
// counters; the decoded text is kept only after keep_text(true).
//
// Or from characters: fed by a sender's reports (serial_line_if, <uartvp/serial_line.h>; a UART's
// report_line()) instead of the pin, it rebuilds the edges the pin would show and takes the same
// decisions at the same times, waking only at the two samples of a frame. `line` must still be bound
// (it is then not read).
#include <uartvp/serial_format.h>
#include <uartvp/serial_line.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

namespace uartvp {

struct decoded_char {
    std::uint8_t data = 0;      // the data bits only (a break gives 0)
    sc_core::sc_time start;     // falling edge of the start bit
    sc_core::sc_time end;       // nominal end of the last stop bit: start + bits_per_frame bit periods
    bool framing_error = false; // a stop bit sampled low (also set on a break)
    bool parity_error = false;  // parity bit wrong (never set on a break)
    bool is_break = false;      // line low for the whole frame, stop bit(s) included
};

class line_monitor : public sc_core::sc_module, public serial_line_if {
public:
    sc_core::sc_in<bool> line;

    line_monitor(sc_core::sc_module_name name, double baud, serial_format fmt);

    // Takes effect at the next start bit (a frame in progress keeps the format it started with).
    void set_format(double baud, serial_format fmt);
    double baud() const { return m_baud; }
    const serial_format& format() const { return m_fmt; }

    // Called for every decoded character (and break), at the middle of its last stop bit, from the
    // monitor's process, a method: a callback must not wait.
    void on_char(std::function<void(const decoded_char&)> cb) { m_callbacks.push_back(std::move(cb)); }

    // Keep the decoded data bytes (breaks excluded) in text(); off by default so long runs stay bounded.
    void keep_text(bool keep) { m_keep_text = keep; }
    std::string text() const { return m_text; }
    void clear_text() { m_text.clear(); }

    std::uint64_t chars() const { return m_chars; } // characters decoded, breaks excluded
    std::uint64_t framing_errors() const { return m_framing_errors; }
    std::uint64_t parity_errors() const { return m_parity_errors; }
    std::uint64_t breaks() const { return m_breaks; }
    std::uint64_t false_starts() const { return m_false_starts; } // start bit high at its middle
    // True between a start edge and the end of the frame's last sample (from characters: from the
    // report of the frame's start).
    bool busy() const { return m_busy; }

    // Decode the reported characters instead of the pin. Call before the simulation starts.
    void take_characters(bool on) { m_feed_mode = on; }
    bool takes_characters() const { return m_feed_mode; }
    void line_char(const serial_char& c) override;
    void line_level(const sc_core::sc_time& t, bool level) override;

private:
    void run();
    void start_frame(const sc_core::sc_time& start);
    void end_frame();
    void record();
    bool level_at(const sc_core::sc_time& t) const;
    void emit(const decoded_char& c);

    // Edges of the current frame, recorded by a method, so that the frame's thread wakes only twice:
    // at the middle of the start bit and at the middle of the last stop bit.
    std::deque<std::pair<sc_core::sc_time, bool>> m_edges;
    sc_core::sc_time m_frame_start;
    double m_baud;
    serial_format m_fmt;
    // Offsets from a frame's start edge of its bit middles and of its end, for m_offsets_baud and
    // m_offsets_bits bits (computed once per format, not per frame: the exact rounding is dear).
    std::vector<sc_core::sc_time> m_offsets;
    serial_format m_frame_fmt; // the format the frame in progress started with
    enum class state { wait_high, idle, start_bit, last_bit } m_state = state::wait_high;
    double m_offsets_baud = 0;
    unsigned m_offsets_bits = 0;
    std::vector<std::function<void(const decoded_char&)>> m_callbacks;
    bool m_keep_text = false;
    std::string m_text;
    std::uint64_t m_chars = 0, m_framing_errors = 0, m_parity_errors = 0, m_breaks = 0, m_false_starts = 0;
    bool m_busy = false;

    // From characters: the line's changes as reported, in time order, from m_feed_base (the level
    // before the first); m_cursor: the time from which the state machine looks for its next edge.
    void run_feed();
    void feed(const sc_core::sc_time& t, bool level);
    bool feed_before(const sc_core::sc_time& t) const; // the level just before t
    bool feed_at(const sc_core::sc_time& t) const;     // the level at t, a change at t included
    bool m_feed_mode = false;
    std::deque<std::pair<sc_core::sc_time, bool>> m_feed;
    bool m_feed_base = true;
    sc_core::sc_time m_cursor;
    sc_core::sc_event m_feed_event;
    bool m_feed_waiting = false; // waiting for an edge (not for a sample time)
    // A frame's start (or the end of a break) taken from a change reported ahead of its time: the
    // state and cursor before it, and the latest change such decisions rest on. A report that changes
    // the line at or before that, while it is still ahead, has them taken again (m_recheck).
    bool m_ahead = false;
    state m_ahead_state = state::idle;
    sc_core::sc_time m_ahead_cursor, m_ahead_last;
    sc_core::sc_event m_recheck;
};

} // namespace uartvp
