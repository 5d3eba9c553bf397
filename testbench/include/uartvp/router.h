#pragma once
// A memory-mapped bus: routes each transaction to the target whose address range holds it, with the
// address made relative to that range. An address no range holds gets TLM_ADDRESS_ERROR_RESPONSE.
// Any number of initiators (cores, a DMA engine) bind to `target`; the order of their accesses to one
// device at the same time is the device's business (uartvp's UARTs go by <uartvp/initiator_id.h>).
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

namespace uartvp {

class router : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<router, 32> target;
    tlm_utils::multi_passthrough_initiator_socket<router, 32> initiator;

    explicit router(const sc_core::sc_module_name& name);
    const char* kind() const override { return "uartvp::router"; }

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

} // namespace uartvp
