// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the tests of the kernel model without a UART share (test_kernel.cpp, test_printk.cpp): a 1 GHz
// core, times in us and ms, the core's local time, and a bus that refuses every access.
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <uartvp/cpu/core.h>
#include <uartvp/cpu/timing.h>

namespace uartvp::test::kernel_bench {

inline cpu::timing_profile timing() {
    cpu::timing_profile t;
    t.cpu_hz = 1'000'000'000;
    return t;
}

inline sc_core::sc_time us(double v) {
    return sc_core::sc_time(v, sc_core::SC_US);
}
inline sc_core::sc_time ms(double v) {
    return sc_core::sc_time(v, sc_core::SC_MS);
}

// The core's time once SystemC time caught up with it (interrupts taken on the way shift it).
inline sc_core::sc_time now_local() {
    cpu::core::current().sync();
    return cpu::core::current().local_time();
}

// Nothing on the bus: these tests make no accesses.
struct no_bus : sc_core::sc_module {
    tlm_utils::multi_passthrough_target_socket<no_bus, 32> target{"target"};
    explicit no_bus(const sc_core::sc_module_name& n)
        : sc_module(n) {
        target.register_b_transport(this, &no_bus::b_transport);
    }
    void b_transport(int, tlm::tlm_generic_payload& tx, sc_core::sc_time&) {
        tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    }
};

} // namespace uartvp::test::kernel_bench
