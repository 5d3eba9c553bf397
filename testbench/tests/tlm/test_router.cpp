// SPDX-License-Identifier: Apache-2.0
// The platform bus: address decoding relative to each range, errors for unmapped addresses and
// overlapping ranges, debug transport forwarded.
#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <uartvp/pl011.h>
#include <uartvp/router.h>

#include "sim_main.h"

using namespace uartvp;

namespace {
struct initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<initiator, 32> socket{"socket"};
    explicit initiator(sc_core::sc_module_name n)
        : sc_module(n) {}
};
void make(tlm::tlm_generic_payload& tx, std::uint64_t addr, std::uint32_t* v) {
    tx.set_command(tlm::TLM_READ_COMMAND);
    tx.set_address(addr);
    tx.set_data_ptr(reinterpret_cast<unsigned char*>(v));
    tx.set_data_length(4);
    tx.set_streaming_width(4);
}
} // namespace

TEST(Router, DecodesRangesAndAnswersUnmappedAddressesWithAnError) {
    UARTVP_SIM_TEST();
    initiator cpu("cpu");
    router bus("bus");
    pl011 a("a"), b("b", pl011_config{24'000'000, 16, false});
    sc_core::sc_signal<bool> txa("txa", true), txb("txb", true), irqa("irqa"), irqb("irqb"), rx("rx", true);
    a.txd(txa), a.irq(irqa), a.rxd(rx), b.txd(txb), b.irq(irqb), b.rxd(rx);
    cpu.socket.bind(bus.target);
    bus.map(a.bus, 0x1000, 0x1000, "a");
    bus.map(b.bus, 0x3000, 0x1000, "b");
    EXPECT_THROW(bus.map(b.bus, 0x3800, 0x1000, "overlap"), std::invalid_argument);
    sc_core::sc_start(sc_core::SC_ZERO_TIME); // elaborate: multi-socket bindings are complete after it
    // (Calls below come from outside any process: debug transport and errors the router answers itself.)
    std::uint32_t v = 0;
    tlm::tlm_generic_payload tx;
    make(tx, 0x1FE8, &v); // a's PeriphID2
    EXPECT_EQ(cpu.socket->transport_dbg(tx), 4u);
    EXPECT_EQ(v, 0x34u);
    EXPECT_EQ(tx.get_address(), 0x1FE8u) << "the address is restored";
    make(tx, 0x3FE8, &v); // b's: 16-entry FIFOs
    EXPECT_EQ(cpu.socket->transport_dbg(tx), 4u);
    EXPECT_EQ(v, 0x14u);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    make(tx, 0x2000, &v);
    cpu.socket->b_transport(tx, d);
    EXPECT_EQ(tx.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    make(tx, 0x1FFE, &v); // straddles the end of a's range
    cpu.socket->b_transport(tx, d);
    EXPECT_EQ(tx.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
}
