// SPDX-License-Identifier: Apache-2.0
#include <uartvp/bus_monitor.h>

#include <algorithm>
#include <cstring>

namespace uartvp {

bus_monitor::bus_monitor(const sc_core::sc_module_name& name, std::function<void(const access&)> sink)
    : sc_module(name)
    , target("target")
    , initiator("initiator")
    , m_sink(std::move(sink)) {
    target.register_b_transport(this, &bus_monitor::b_transport);
    target.register_transport_dbg(this, &bus_monitor::transport_dbg);
}

void bus_monitor::b_transport(int, tlm::tlm_generic_payload& tx, sc_core::sc_time& delay) {
    access a;
    a.issued = sc_core::sc_time_stamp() + delay;
    a.write = tx.is_write();
    a.addr = tx.get_address(); // the bus makes it relative to the target: keep the initiator's
    a.size = tx.get_data_length();
    if (a.write) std::memcpy(&a.value, tx.get_data_ptr(), std::min<unsigned>(a.size, 8));
    initiator->b_transport(tx, delay);
    tx.set_address(a.addr);
    if (!a.write) std::memcpy(&a.value, tx.get_data_ptr(), std::min<unsigned>(a.size, 8));
    a.status = tx.get_response_status();
    m_sink(a);
}

unsigned bus_monitor::transport_dbg(int, tlm::tlm_generic_payload& tx) {
    const std::uint64_t addr = tx.get_address();
    const unsigned n = initiator->transport_dbg(tx);
    tx.set_address(addr);
    return n;
}

} // namespace uartvp
