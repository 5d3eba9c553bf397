// SPDX-License-Identifier: Apache-2.0
#pragma once
// Serial frame format ("8N1", "7E1", ...) and the bit timing shared by the line monitor and RX injector.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace uartvp {

enum class parity_mode {
    none,
    even,
    odd,
    mark,  // stick parity: always 1
    space, // stick parity: always 0
};

struct serial_format {
    unsigned data_bits = 8; // 5..8
    parity_mode parity = parity_mode::none;
    unsigned stop_bits = 1; // 1..2

    // "8N1", "7e1", "5O2": data bits 5..8, parity N/E/O/M/S (any case), stop bits 1..2; else nullopt.
    static std::optional<serial_format> parse(std::string_view s);
    // Canonical name, e.g. "8N1".
    std::string name() const;
    // Start + data + parity + stop bits.
    unsigned bits_per_frame() const;
    bool has_parity() const { return parity != parity_mode::none; }
    // The low data_bits of data.
    std::uint8_t data_mask() const { return static_cast<std::uint8_t>((1u << data_bits) - 1u); }
    // Value of the parity bit sent with data (its low data_bits only); 0 when there is no parity bit.
    std::uint8_t parity_bit(std::uint8_t data) const;
    bool valid() const;

    friend bool operator==(const serial_format& a, const serial_format& b) {
        return a.data_bits == b.data_bits && a.parity == b.parity && a.stop_bits == b.stop_bits;
    }
    friend bool operator!=(const serial_format& a, const serial_format& b) { return !(a == b); }
};

// Offset of half_bits / 2 bit periods at baud, in picoseconds, rounded once to the nearest ps.
// Callers compute every edge or sample time from a frame's start with this, never by summing rounded
// periods (115200 baud is 8680555.56 ps per bit). Exact integer arithmetic when baud is a whole number.
std::uint64_t bit_offset_ps(double baud, std::uint64_t half_bits);

} // namespace uartvp
