// SPDX-License-Identifier: Apache-2.0
// Sends "ok\n" through an installed uartvp::pl011 and clocks its own verilated counter alongside.
// Verilator's headers come first: included after <systemc>, verilated_funcs.h expects sc_time_stamp
// in the global namespace (a Verilator/SystemC matter, not uartvp's).
#include "Vcounter.h"
#include "verilated.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include <tlm_utils/simple_initiator_socket.h>
#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>

struct cpu : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<cpu, 32> socket{"socket"};
    SC_HAS_PROCESS(cpu);
    explicit cpu(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
    void write(std::uint64_t off, std::uint32_t v, unsigned len) {
        tlm::tlm_generic_payload tx;
        tx.set_command(tlm::TLM_WRITE_COMMAND);
        tx.set_address(off);
        tx.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
        tx.set_data_length(len);
        tx.set_streaming_width(len);
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        socket->b_transport(tx, d);
        if (!tx.is_response_ok()) std::exit(10);
        wait(d);
    }
    void run() {
        write(0x24, 13, 4); // IBRD, FBRD: 115200 at 24 MHz
        write(0x28, 1, 4);
        write(0x2C, 0x70, 4); // 8N1, FIFO on
        write(0x30, 0x301, 4);
        for (char c : std::string("ok\n")) write(0x00, static_cast<unsigned char>(c), 1);
    }
};

struct txd_counter : sc_core::sc_module {
    sc_core::sc_in<bool> line{"line"};
    unsigned edges = 0;
    SC_HAS_PROCESS(txd_counter);
    explicit txd_counter(sc_core::sc_module_name n) : sc_module(n) {
        SC_METHOD(edge);
        sensitive << line;
        dont_initialize();
    }
    void edge() { ++edges; }
};

int sc_main(int, char**) {
    sc_core::sc_signal<bool> txd{"txd", true}, irq{"irq"}, rxd{"rxd", true};
    uartvp::pl011 uart("uart");
    cpu c("cpu");
    txd_counter mon("mon");
    uartvp::line_monitor console("console", 115200, *uartvp::serial_format::parse("8N1"));
    console.keep_text(true);
    console.line(txd);
    c.socket.bind(uart.bus);
    uart.txd(txd);
    uart.irq(irq);
    uart.rxd(rxd);
    mon.line(txd);

    VerilatedContext ctx;
    Vcounter counter(&ctx);
    counter.rst_n = 0;
    counter.clk = 0;
    counter.eval();
    counter.clk = 1;
    counter.eval();
    counter.rst_n = 1;
    for (int i = 0; i < 10; ++i) {
        counter.clk = 0;
        counter.eval();
        counter.clk = 1;
        counter.eval();
    }

    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_MS));
    std::printf("counter=%u txd_edges=%u text=%s", unsigned(counter.count), mon.edges, console.text().c_str());
    // "ok\n" = 0x6F 0x6B 0x0A in 8N1 has 6 + 8 + 6 TXD edges.
    return counter.count == 10 && mon.edges == 20 && console.text() == "ok\n" ? 0 : 1;
}
