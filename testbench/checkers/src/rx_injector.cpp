// SPDX-License-Identifier: Apache-2.0
#include <uartvp/rx_injector.h>

#include <stdexcept>

namespace uartvp {

namespace {
sc_core::sc_time ps_time(std::uint64_t ps) {
    return sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS);
}

void check(double baud, const serial_format& fmt) {
    if (!(baud > 0)) throw std::invalid_argument("rx_injector: baud rate must be positive");
    if (!fmt.valid()) throw std::invalid_argument("rx_injector: invalid serial format");
}
} // namespace

rx_injector::rx_injector(sc_core::sc_module_name name, double baud, serial_format fmt)
    : sc_core::sc_module(name)
    , line("line")
    , m_baud(baud)
    , m_fmt(fmt) {
    check(baud, fmt);
    line.initialize(true); // idle high from time 0, without an edge
    SC_HAS_PROCESS(rx_injector);
    SC_THREAD(run);
}

void rx_injector::set_format(double baud, serial_format fmt) {
    check(baud, fmt);
    m_baud = baud;
    m_fmt = fmt;
}

void rx_injector::send(std::string_view text, sc_core::sc_time at) {
    send(text, at, m_defaults);
}

void rx_injector::send(std::string_view text, sc_core::sc_time at, const options& opt) {
    if (text.empty()) return;
    m_queue.push_back(item{std::string(text), false, sc_core::SC_ZERO_TIME, at, opt, m_baud, m_fmt});
    m_queued.notify(sc_core::SC_ZERO_TIME);
}

void rx_injector::send_break(sc_core::sc_time duration, sc_core::sc_time at) {
    m_queue.push_back(item{std::string(), true, duration, at, m_defaults, m_baud, m_fmt});
    m_queued.notify(sc_core::SC_ZERO_TIME);
}

void rx_injector::wait_until(const sc_core::sc_time& t) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (t > now) sc_core::wait(t - now);
}

void rx_injector::drive_at(const sc_core::sc_time& t, bool v) {
    wait_until(t);
    if (!m_receivers.empty()) {
        for (serial_line_if* r : m_receivers)
            r->line_level(t, v);
        m_level = v;
        return;
    }
    line.write(v);
    m_level = v; // the signal shows it only after the update phase
}

const std::vector<sc_core::sc_time>& rx_injector::edge_offsets(double baud, unsigned bits) {
    if (baud != m_offsets_baud || bits != m_offsets_bits || m_offsets.empty()) {
        m_offsets.clear();
        for (unsigned k = 0; k <= bits; ++k)
            m_offsets.push_back(ps_time(bit_offset_ps(baud, 2ull * k)));
        m_offsets_baud = baud;
        m_offsets_bits = bits;
    }
    return m_offsets;
}

void rx_injector::send_item(const item& it) {
    const double baud = it.baud;
    const serial_format& fmt = it.fmt;
    sc_core::sc_time item_start = sc_core::sc_time_stamp();
    if (m_line_free > item_start) item_start = m_line_free;
    if (it.at > item_start) item_start = it.at;

    if (it.is_break) {
        drive_at(item_start, false);
        drive_at(item_start + it.duration, true);
        // Mark after break: one bit period high before the next start bit, or a receiver sees no edge.
        m_line_free = item_start + it.duration + ps_time(bit_offset_ps(baud, 2));
        return;
    }

    const unsigned n = fmt.bits_per_frame();
    // After a low stop bit the line must rise before the next start bit, or a receiver sees no edge:
    // such frames are followed by one bit period of mark.
    const unsigned spacing = n + (it.opt.bad_stop ? 1 : 0);
    // Bit values of one frame, index = bit number from the start bit.
    bool bits[16];
    for (std::size_t j = 0; j < it.text.size(); ++j) {
        const auto data = static_cast<std::uint8_t>(it.text[j]);
        unsigned k = 0;
        bits[k++] = false; // start
        for (unsigned i = 0; i < fmt.data_bits; ++i)
            bits[k++] = ((data >> i) & 1u) != 0;
        if (fmt.has_parity()) bits[k++] = (fmt.parity_bit(data) != 0) != it.opt.bad_parity;
        for (unsigned i = 0; i < fmt.stop_bits; ++i)
            bits[k++] = !it.opt.bad_stop;

        const sc_core::sc_time char_start = item_start + ps_time(bit_offset_ps(baud, 2ull * j * spacing)) +
                                            it.opt.gap * static_cast<double>(j);
        if (!m_receivers.empty()) { // the whole frame at its start, with the times the pin would show
            serial_char c;
            c.bits = n;
            c.data_bits = fmt.data_bits;
            c.parity = fmt.has_parity();
            c.stop_bits = fmt.stop_bits;
            c.data = static_cast<std::uint8_t>(data & ((1u << fmt.data_bits) - 1));
            const std::vector<sc_core::sc_time>& offsets = edge_offsets(baud, n);
            for (k = 0; k <= n; ++k) {
                c.edge[k] = char_start + offsets[k];
                if (k < n && bits[k]) c.levels = static_cast<std::uint16_t>(c.levels | (1u << k));
            }
            wait_until(char_start);
            for (serial_line_if* r : m_receivers)
                r->line_char(c);
            const sc_core::sc_time char_end = c.end();
            // A low stop bit: the rise at the frame's end, reported at its time as a break's end is.
            if (it.opt.bad_stop) drive_at(char_end, true);
            m_line_free = it.opt.bad_stop ? char_end + ps_time(bit_offset_ps(baud, 2)) : char_end;
            ++m_chars_sent;
            continue;
        }
        // Wake only where the line changes value.
        for (k = 0; k < n; ++k)
            if (bits[k] != m_level) drive_at(char_start + ps_time(bit_offset_ps(baud, 2ull * k)), bits[k]);
        // The frame ends at char_end; the line is back to idle then (it is low only after a bad stop bit).
        const sc_core::sc_time char_end = char_start + ps_time(bit_offset_ps(baud, 2ull * n));
        if (!m_level) drive_at(char_end, true);
        m_line_free = it.opt.bad_stop ? char_end + ps_time(bit_offset_ps(baud, 2)) : char_end;
        ++m_chars_sent;
    }
}

void rx_injector::run() {
    for (;;) {
        while (m_queue.empty()) {
            if (m_busy) {
                // Done only once the last frame (or the mark after a break) has ended.
                const sc_core::sc_time now = sc_core::sc_time_stamp();
                if (m_line_free > now) {
                    sc_core::wait(m_line_free - now, m_queued);
                    continue;
                }
                m_busy = false;
                m_done.notify(sc_core::SC_ZERO_TIME);
            }
            sc_core::wait(m_queued);
        }
        m_busy = true;
        // The item in flight is a member, not a local: SystemC never unwinds a thread still suspended
        // when the simulation stops, and a local's text would then never be freed.
        m_sending = std::move(m_queue.front());
        m_queue.pop_front();
        send_item(m_sending);
    }
}

} // namespace uartvp
