// SPDX-License-Identifier: Apache-2.0
#pragma once
// A bus monitor: a TLM-2.0 pass-through between the initiators (cores) and the bus that tells each
// transaction as it completes: when it was issued, read or write, address, size, the value and the
// response. For access traces (uartvp run --bus-log): two runs of one routine, by the instruction stub
// and by compiled code, compared access by access.
#include <cstdint>
#include <functional>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

namespace uartvp {

class bus_monitor : public sc_core::sc_module {
public:
    struct access {
        sc_core::sc_time issued; // SystemC time plus the annotated delay, as the target applies it
        bool write = false;
        std::uint64_t addr = 0;
        unsigned size = 0;
        std::uint64_t value = 0; // little-endian, the first 8 bytes
        tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
    };

    // Bind the initiators to `target` and `initiator` to the bus.
    tlm_utils::multi_passthrough_target_socket<bus_monitor, 32> target;
    tlm_utils::simple_initiator_socket<bus_monitor, 32> initiator;

    bus_monitor(const sc_core::sc_module_name& name, std::function<void(const access&)> sink);
    const char* kind() const override { return "uartvp::bus_monitor"; }

private:
    void b_transport(int from, tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
    unsigned transport_dbg(int from, tlm::tlm_generic_payload& tx);
    std::function<void(const access&)> m_sink;
};

} // namespace uartvp
