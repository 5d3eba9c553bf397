// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the access-by-access driver tests share (test_sw_routines.cpp, test_tty_paths.cpp): a tap
// between the cores and the bus that logs every transaction, and the cost of the UART's accesses.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <uartvp/cpu/timing.h>

namespace uartvp::test {

// Passes every transaction on unchanged (read promises and debug accesses included) and logs it once
// it has completed, with its offset from the UART's base.
struct access_tap : sc_core::sc_module {
    tlm_utils::simple_target_socket<access_tap, 32> target{"target"};
    tlm_utils::simple_initiator_socket<access_tap, 32> initiator{"initiator"};
    struct access {
        std::uint64_t offset;
        unsigned size;
        bool write;
        std::uint32_t value;
        sc_core::sc_time at;
    };
    std::vector<access> log;
    access_tap(const sc_core::sc_module_name& n, std::uint64_t base)
        : sc_module(n)
        , m_base(base) {
        target.register_b_transport(this, &access_tap::b_transport);
        target.register_transport_dbg(this, &access_tap::transport_dbg);
    }
    void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay) {
        const sc_core::sc_time issued = sc_core::sc_time_stamp() + delay;
        initiator->b_transport(tx, delay);
        std::uint32_t v = 0;
        std::memcpy(&v, tx.get_data_ptr(), std::min(4u, tx.get_data_length()));
        log.push_back({tx.get_address() - m_base, tx.get_data_length(), tx.is_write(), v, issued});
    }
    unsigned transport_dbg(tlm::tlm_generic_payload& tx) { return initiator->transport_dbg(tx); }

    std::vector<access> at_offset(std::uint64_t off) const {
        std::vector<access> r;
        for (const access& a : log)
            if (a.offset == off) r.push_back(a);
        return r;
    }

private:
    std::uint64_t m_base;
};

// The UART's 4 KB at `base`: 120 ns a read, 60 ns a write.
inline cpu::timing_profile uart_timing(std::uint64_t base) {
    cpu::timing_profile t;
    t.regions.push_back(
        {"uart", base, 0x1000, sc_core::sc_time(120, sc_core::SC_NS), sc_core::sc_time(60, sc_core::SC_NS)});
    return t;
}

} // namespace uartvp::test
