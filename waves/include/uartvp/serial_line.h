// SPDX-License-Identifier: Apache-2.0
#pragma once
// The serial line as characters: a protocol between a UART that sends and whoever reads its line (a
// line monitor, a waveform writer). The sender reports each character as it starts, with the time of
// every bit boundary, and the line's level between characters (idle high, a break low); a reader
// rebuilds from them exactly the edges the TXD pin shows, without a process activation per edge.
// The other way too: a sender such as rx_injector (report_to) reports what it puts on a UART's receive
// line to that UART (pl011::rx_line()), which applies the edges as its RXD pin's.
#include <array>
#include <cstdint>
#include <systemc>

namespace uartvp {

// One character as its sender puts it on the line.
struct serial_char {
    // Start, data, optional parity and stop bits (7 to 12).
    unsigned bits = 0;
    // The level of bit k in bit k, LSB first: bit 0, the start bit, is 0; the stop bits are 1 (0 from
    // a sender that makes a framing error on purpose). After edge[bits] the line is back at the level
    // between characters.
    std::uint16_t levels = 0;
    // Bit k spans [edge[k], edge[k + 1]); edge[0] is the start bit's falling edge and edge[bits] the
    // end of the last stop bit. Exact times, as the sender's clock makes them.
    std::array<sc_core::sc_time, 13> edge{};
    // The frame format it was sent in.
    unsigned data_bits = 8;
    bool parity = false;
    unsigned stop_bits = 1;
    std::uint8_t data = 0; // the data bits alone
    // 1.5 stop bits (a 16550's 5-bit words with LCR.STB): stop_bits is 2 and the last lasts half a bit,
    // as edge[bits] says.
    bool short_stop = false;

    const sc_core::sc_time& start() const { return edge[0]; }
    const sc_core::sc_time& end() const { return edge[bits]; }
    bool level(unsigned k) const { return (levels >> k) & 1u; }
};

// What a reader of the line implements. Reports come in time order, each at or before the time it
// describes (a character may be reported before its start: up to one clock period of its sender for
// the PL011, up to a bit time after the write that sent it for the 16550, and a loosely timed sender
// reports from an access's local time, up to a quantum ahead). What a reader decides ahead of time on
// a reported change (a frame starts there) it must decide again if a later report changes the line at
// or before that change.
class serial_line_if {
public:
    virtual ~serial_line_if() = default;
    // A character, as it starts.
    virtual void line_char(const serial_char& c) = 0;
    // The line is at `level` from time `t` on, outside any character: idle (high) or a break (low).
    // A report inside a character reported before cuts it there (the sender was reset, or a break or
    // loopback took the line): none of its bits from `t` on reach the line; in general a report
    // replaces whatever was reported for `t` and after. A sender may also give the line level by level,
    // ahead of time, where no whole character starts (the rest of a character that a break or loopback
    // let go of before its end, a character whose clock changed under way).
    virtual void line_level(const sc_core::sc_time& t, bool level) = 0;
};

} // namespace uartvp
