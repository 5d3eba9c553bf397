// SPDX-License-Identifier: Apache-2.0
#pragma once
// Types or pastes text into a serial line (idle high) at a given baud rate and frame format.
//
// Queued items go out in order. Character j of an item starts at
// item_start + round(j * bits_per_frame * 1e12 / baud) ps + j * gap, and its bit k's edge is at
// char_start + round(k * 1e12 / baud) ps: every time is computed from a start, so a long paste does not
// drift. An item starts at its `at` time (absolute simulation time) or when the line is free, whichever
// is later. A frame with a bad stop bit and a break are followed by one bit period of mark, so that the
// next start bit has a falling edge. Only the injector's thread writes `line`.
//
// Or as characters (report_to(): a receiver's serial_line_if, such as pl011::rx_line(), or several): each
// character is reported at its start bit's time with every bit boundary's time (<uartvp/serial_line.h>),
// a break as the line's level at its start and at its end; `line` is then not driven (it stays high, and
// must still be bound) and the injector wakes once per character, not once per edge. The times are
// those the pin would show; a frame with a bad stop bit is reported with its stop bits low, and the
// line's rise at its end once more as a level at that time, so that a reader that takes a frame's stop
// bits as the level it leaves (a waveform writer) sees the rise the pin shows.
#include <uartvp/serial_format.h>
#include <uartvp/serial_line.h>

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <systemc>
#include <vector>

namespace uartvp {

class rx_injector : public sc_core::sc_module {
public:
    sc_core::sc_out<bool> line;

    struct options {
        sc_core::sc_time gap = sc_core::SC_ZERO_TIME; // idle time between characters (0: back to back)
        bool bad_stop = false; // stop bit(s) low: framing error (then one bit of mark before the next frame)
        bool bad_parity = false; // invert the parity bit (no effect without parity)
    };

    rx_injector(sc_core::sc_module_name name, double baud, serial_format fmt);

    // Queue text, starting no earlier than `at`, with the current default options.
    void send(std::string_view text, sc_core::sc_time at = sc_core::SC_ZERO_TIME);
    void send(std::string_view text, sc_core::sc_time at, const options& opt);
    // Queue a break: the line held low for `duration`, then high for at least one bit period (mark after
    // break) so that a receiver sees the end of the break before the next start bit.
    void send_break(sc_core::sc_time duration, sc_core::sc_time at = sc_core::SC_ZERO_TIME);

    // Defaults for items queued afterwards by send(text, at).
    void set_options(const options& opt) { m_defaults = opt; }
    void set_gap(sc_core::sc_time gap) { m_defaults.gap = gap; }
    void set_bad_stop(bool bad) { m_defaults.bad_stop = bad; }
    void set_bad_parity(bool bad) { m_defaults.bad_parity = bad; }
    // Baud rate and format for items queued afterwards (an item keeps those it was queued with).
    void set_format(double baud, serial_format fmt);
    double baud() const { return m_baud; }
    const serial_format& format() const { return m_fmt; }

    // Nothing queued and the line back to idle after the last stop bit.
    bool idle() const { return m_queue.empty() && !m_busy; }
    // Notified when the queue has drained (the last frame's stop bits have ended).
    sc_core::sc_event& done_event() { return m_done; }
    std::uint64_t chars_sent() const { return m_chars_sent; }

    // Report the line to `receiver` as characters instead of driving `line` (call before the
    // simulation starts; `receiver` must outlive it). Each call adds a receiver: all get the same
    // reports, in the order they were added.
    void report_to(serial_line_if& receiver) { m_receivers.push_back(&receiver); }

private:
    struct item {
        std::string text;
        bool is_break = false;
        sc_core::sc_time duration; // breaks only
        sc_core::sc_time at;
        options opt;
        double baud = 0;
        serial_format fmt;
    };

    void run();
    void send_item(const item& it);
    void drive_at(const sc_core::sc_time& t, bool v);

    double m_baud;
    serial_format m_fmt;
    options m_defaults;
    std::deque<item> m_queue;
    item m_sending; // the one being sent
    sc_core::sc_event m_queued;
    sc_core::sc_event m_done;
    bool m_busy = false;
    bool m_level = true;          // value last written to line
    sc_core::sc_time m_line_free; // end of the last frame sent (or of the mark after a break)
    // The offsets of a frame's bit boundaries from its start (bits_per_frame + 1 of them), computed
    // once per baud rate and frame length rather than per character.
    const std::vector<sc_core::sc_time>& edge_offsets(double baud, unsigned bits);
    std::vector<sc_core::sc_time> m_offsets;
    double m_offsets_baud = 0;
    unsigned m_offsets_bits = 0;
    std::uint64_t m_chars_sent = 0;
    std::vector<serial_line_if*> m_receivers;
    void wait_until(const sc_core::sc_time& t);
};

} // namespace uartvp
