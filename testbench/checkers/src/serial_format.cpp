// SPDX-License-Identifier: Apache-2.0
#include <uartvp/serial_format.h>

#include <cctype>
#include <cmath>
#include <stdexcept>

namespace uartvp {

std::optional<serial_format> serial_format::parse(std::string_view s) {
    if (s.size() != 3) return std::nullopt;
    serial_format f;
    if (s[0] < '5' || s[0] > '8') return std::nullopt;
    f.data_bits = static_cast<unsigned>(s[0] - '0');
    switch (std::toupper(static_cast<unsigned char>(s[1]))) {
    case 'N':
        f.parity = parity_mode::none;
        break;
    case 'E':
        f.parity = parity_mode::even;
        break;
    case 'O':
        f.parity = parity_mode::odd;
        break;
    case 'M':
        f.parity = parity_mode::mark;
        break;
    case 'S':
        f.parity = parity_mode::space;
        break;
    default:
        return std::nullopt;
    }
    if (s[2] != '1' && s[2] != '2') return std::nullopt;
    f.stop_bits = static_cast<unsigned>(s[2] - '0');
    return f;
}

std::string serial_format::name() const {
    static const char letters[] = {'N', 'E', 'O', 'M', 'S'};
    std::string n;
    n += static_cast<char>('0' + data_bits);
    n += letters[static_cast<int>(parity)];
    n += static_cast<char>('0' + stop_bits);
    return n;
}

unsigned serial_format::bits_per_frame() const {
    return 1 + data_bits + (has_parity() ? 1 : 0) + stop_bits;
}

bool serial_format::valid() const {
    return data_bits >= 5 && data_bits <= 8 && stop_bits >= 1 && stop_bits <= 2 &&
           static_cast<int>(parity) >= 0 && static_cast<int>(parity) <= static_cast<int>(parity_mode::space);
}

std::uint8_t serial_format::parity_bit(std::uint8_t data) const {
    unsigned ones = 0;
    for (unsigned v = data & data_mask(); v != 0; v &= v - 1)
        ++ones;
    switch (parity) {
    case parity_mode::even:
        return static_cast<std::uint8_t>(ones & 1u); // makes the count of ones even
    case parity_mode::odd:
        return static_cast<std::uint8_t>(~ones & 1u);
    case parity_mode::mark:
        return 1;
    case parity_mode::space:
    case parity_mode::none:
        break;
    }
    return 0;
}

std::uint64_t bit_offset_ps(double baud, std::uint64_t half_bits) {
    if (!(baud > 0)) throw std::invalid_argument("uartvp: baud rate must be positive");
    constexpr unsigned __int128 ps_per_s = 1000000000000ull;
    if (baud == std::floor(baud) && baud < 1e15) {
        // round(half_bits * 1e12 / (2 * baud)) in exact integers
        const auto den = static_cast<unsigned __int128>(2) * static_cast<std::uint64_t>(baud);
        const unsigned __int128 num = static_cast<unsigned __int128>(half_bits) * ps_per_s;
        return static_cast<std::uint64_t>((2 * num + den) / (2 * den));
    }
    const long double t =
        static_cast<long double>(half_bits) * 1e12L / (2.0L * static_cast<long double>(baud));
    return static_cast<std::uint64_t>(std::llroundl(t));
}

} // namespace uartvp
