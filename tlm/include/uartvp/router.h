// SPDX-License-Identifier: Apache-2.0
#pragma once
// A memory-mapped bus: routes each transaction to the target whose address range holds it, with the
// address made relative to that range. An address no range holds gets TLM_ADDRESS_ERROR_RESPONSE.
// Any number of initiators (cores, a DMA engine) bind to `target`; the order of their accesses to one
// device at the same time is the device's business (uartvp's UARTs go by <uartvp/initiator_id.h>).
// uartvp::router has 32-bit sockets (bind the UARTs' `bus`), uartvp::router64 64-bit ones (bind their
// `bus64`); both are basic_router, the same code at another bus width.
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

namespace uartvp {

template <unsigned BUSWIDTH> class basic_router : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<basic_router, BUSWIDTH> target;
    tlm_utils::multi_passthrough_initiator_socket<basic_router, BUSWIDTH> initiator;

    explicit basic_router(const sc_core::sc_module_name& name);
    const char* kind() const override { return BUSWIDTH == 32 ? "uartvp::router" : "uartvp::router64"; }

    // Bind a target socket at [base, base + size) (during elaboration).
    template <class socket_t>
    void map(socket_t& dev, std::uint64_t base, std::uint64_t size, std::string name) {
        add(base, size, std::move(name));
        initiator.bind(dev);
    }

private:
    struct range {
        std::uint64_t base, size;
        std::string name;
        unsigned index; // into `initiator`, in binding order
    };
    void add(std::uint64_t base, std::uint64_t size, std::string name);
    range* find(std::uint64_t addr);
    void b_transport(int from, tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
    unsigned transport_dbg(int from, tlm::tlm_generic_payload& tx);
    std::vector<range> m_ranges;
};

using router = basic_router<32>;
using router64 = basic_router<64>;
extern template class basic_router<32>; // built in the library
extern template class basic_router<64>;

} // namespace uartvp
