// SPDX-License-Identifier: Apache-2.0
#pragma once
// One register access as a TLM-2.0 generic payload, for tests: command, address, data of 1-4 bytes
// (1-8 from a 64-bit word) in the access's own lanes, and optional byte enables.
#include <cstdint>
#include <type_traits>
#include <vector>

#include <tlm>

namespace uartvp::test {

template <class word_t>
void set_access(tlm::tlm_generic_payload& tx, bool write, std::uint64_t addr, word_t& data, unsigned size,
                const std::vector<unsigned char>* be = nullptr) {
    static_assert(std::is_same_v<word_t, std::uint32_t> || std::is_same_v<word_t, std::uint64_t>);
    tx.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    tx.set_address(addr);
    tx.set_data_ptr(reinterpret_cast<unsigned char*>(&data));
    tx.set_data_length(size);
    tx.set_streaming_width(size);
    if (be) {
        tx.set_byte_enable_ptr(const_cast<unsigned char*>(be->data()));
        tx.set_byte_enable_length(static_cast<unsigned>(be->size()));
    }
}

} // namespace uartvp::test
