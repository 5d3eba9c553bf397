// SPDX-License-Identifier: Apache-2.0
#include <uartvp/router.h>

#include <stdexcept>

namespace uartvp {

template <unsigned W>
basic_router<W>::basic_router(const sc_core::sc_module_name& name)
    : sc_module(name)
    , target("target")
    , initiator("initiator") {
    target.register_b_transport(this, &basic_router::b_transport);
    target.register_transport_dbg(this, &basic_router::transport_dbg);
}

template <unsigned W> void basic_router<W>::add(std::uint64_t base, std::uint64_t size, std::string name) {
    for (const range& r : m_ranges)
        if (base < r.base + r.size && r.base < base + size)
            throw std::invalid_argument("router: " + name + " overlaps " + r.name);
    m_ranges.push_back({base, size, std::move(name), static_cast<unsigned>(m_ranges.size())});
}

template <unsigned W> typename basic_router<W>::range* basic_router<W>::find(std::uint64_t addr) {
    for (range& r : m_ranges)
        if (addr >= r.base && addr - r.base < r.size) return &r;
    return nullptr;
}

template <unsigned W>
void basic_router<W>::b_transport(int, tlm::tlm_generic_payload& tx, sc_core::sc_time& delay) {
    const std::uint64_t addr = tx.get_address();
    range* r = find(addr);
    if (!r || addr - r->base + tx.get_data_length() > r->size) {
        tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    tx.set_address(addr - r->base);
    initiator[r->index]->b_transport(tx, delay);
    tx.set_address(addr);
}

template <unsigned W> unsigned basic_router<W>::transport_dbg(int, tlm::tlm_generic_payload& tx) {
    const std::uint64_t addr = tx.get_address();
    range* r = find(addr);
    if (!r) return 0;
    tx.set_address(addr - r->base);
    const unsigned n = initiator[r->index]->transport_dbg(tx);
    tx.set_address(addr);
    return n;
}

template class basic_router<32>;
template class basic_router<64>;

} // namespace uartvp
