// SPDX-License-Identifier: Apache-2.0
#pragma once
// Decoding a TLM-2.0 generic payload into one register access on a 32-bit bus: which word, which byte
// lanes, and the data in lane order. Shared by the UART targets.
#include <cstdint>
#include <tlm>

namespace uartvp::detail {

struct word_access {
    bool write = false;
    std::uint64_t word = 0; // byte address >> 2
    unsigned lane = 0;      // first byte lane
    unsigned length = 0;    // 1, 2 or 4 bytes
    std::uint8_t strb = 0;  // enabled byte lanes
};

// Returns TLM_OK_RESPONSE and fills `a`, or the error response the payload deserves: lengths other
// than 1, 2 and 4, bursts and accesses that are not naturally aligned cannot be served.
inline tlm::tlm_response_status decode_word_access(const tlm::tlm_generic_payload& tx, std::uint64_t map_size,
                                                   word_access& a) {
    const std::uint64_t addr = tx.get_address();
    const unsigned len = tx.get_data_length();
    if (len != 1 && len != 2 && len != 4) return tlm::TLM_BURST_ERROR_RESPONSE;
    if (tx.get_streaming_width() < len) return tlm::TLM_BURST_ERROR_RESPONSE;
    if (addr >= map_size || addr % len != 0) return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    if (tx.get_byte_enable_ptr() && tx.get_byte_enable_length() == 0)
        return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
    a.write = tx.is_write();
    a.word = addr >> 2;
    a.lane = static_cast<unsigned>(addr & 3);
    a.length = len;
    a.strb = 0;
    const unsigned char* be = tx.get_byte_enable_ptr();
    for (unsigned i = 0; i < len; ++i)
        if (!be || be[i % tx.get_byte_enable_length()] == TLM_BYTE_ENABLED) a.strb |= 1u << (a.lane + i);
    return tlm::TLM_OK_RESPONSE;
}

// Host byte order is little-endian on every machine uartvp supports, as is the PL011's bus.
inline std::uint32_t lanes_from_payload(const tlm::tlm_generic_payload& tx, const word_access& a) {
    std::uint32_t v = 0;
    for (unsigned i = 0; i < a.length; ++i)
        v |= std::uint32_t(tx.get_data_ptr()[i]) << (8 * (a.lane + i));
    return v;
}

inline void lanes_to_payload(tlm::tlm_generic_payload& tx, const word_access& a, std::uint32_t v) {
    for (unsigned i = 0; i < a.length; ++i)
        if (a.strb & (1u << (a.lane + i)))
            tx.get_data_ptr()[i] = static_cast<unsigned char>(v >> (8 * (a.lane + i)));
}

} // namespace uartvp::detail
