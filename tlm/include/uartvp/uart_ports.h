// SPDX-License-Identifier: Apache-2.0
#pragma once
// The ports both UART models have (uartvp::pl011, uartvp::uart16550), declared once: the register
// window, the interrupt and the serial lines, which must be bound, and the optional ports (resets, the
// clock's frequency, the modem lines), which SystemC accepts unbound (SC_ZERO_OR_MORE_BOUND) and which
// then read as their inactive level or drive nothing. Each model names the chip's pins behind them.
#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace uartvp {

// A port that may stay unbound; it then reads as its inactive level (inputs) or drives nothing (outputs).
using optional_in = sc_core::sc_port<sc_core::sc_signal_in_if<bool>, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
using optional_out = sc_core::sc_port<sc_core::sc_signal_inout_if<bool>, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
// A clock frequency carried on a signal, in Hz (as VCML's clock ports carry it); may stay unbound.
using optional_hz_in =
    sc_core::sc_port<sc_core::sc_signal_in_if<std::uint64_t>, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

// The ports of a UART model `uart` (an sc_module that derives from this after sc_module, so that the
// ports are its own: `uart.bus`, named "uart.bus").
template <class uart> class uart_ports {
public:
    // The register window on a 32-bit bus (`bus`) or a 64-bit one (`bus64`, VCML's default width): bind
    // one of them, or both (several initiators); each serves the same registers in the same way.
    tlm_utils::simple_target_socket_optional<uart, 32> bus;
    tlm_utils::simple_target_socket_optional<uart, 64> bus64;
    sc_core::sc_out<bool> irq; // active high
    sc_core::sc_out<bool> txd;
    sc_core::sc_in<bool> rxd;

    optional_in nreset; // active low; held high when unbound
    optional_in rst;    // active high, beside nreset (either holds the UART in reset); low when unbound
    // The reference clock's frequency from the SoC's clock tree: when bound, its value at the start of
    // the simulation and every change of it go to the model's set_clock_hz() (0 Hz, a stopped clock,
    // is an error).
    optional_hz_in clk_hz;
    optional_in ncts, ndsr, ndcd, nri;     // modem inputs, active low; inactive (high) when unbound
    optional_out nrts, ndtr, nout1, nout2; // modem outputs, active low

protected:
    uart_ports()
        : bus("bus")
        , bus64("bus64")
        , irq("irq")
        , txd("txd")
        , rxd("rxd")
        , nreset("nreset")
        , rst("rst")
        , clk_hz("clk_hz")
        , ncts("ncts")
        , ndsr("ndsr")
        , ndcd("ndcd")
        , nri("nri")
        , nrts("nrts")
        , ndtr("ndtr")
        , nout1("nout1")
        , nout2("nout2") {}
    ~uart_ports() = default;
    uart_ports(const uart_ports&) = delete;
    uart_ports& operator=(const uart_ports&) = delete;

    // Both sockets serve the same registers: the model's blocking, debug and DMI calls on each.
    template <class b_fn, class dbg_fn, class dmi_fn>
    void register_transport(uart* self, b_fn b_transport, dbg_fn transport_dbg, dmi_fn get_direct_mem_ptr) {
        bus.register_b_transport(self, b_transport);
        bus.register_transport_dbg(self, transport_dbg);
        bus.register_get_direct_mem_ptr(self, get_direct_mem_ptr);
        bus64.register_b_transport(self, b_transport);
        bus64.register_transport_dbg(self, transport_dbg);
        bus64.register_get_direct_mem_ptr(self, get_direct_mem_ptr);
    }
};

} // namespace uartvp
