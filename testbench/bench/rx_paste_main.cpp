// SPDX-License-Identifier: Apache-2.0
// A paste into a PL011, for the benchmark: the RX injector sends BYTES characters back to back at 115200
// 8N1 into a PL011 (24 MHz UARTCLK, FIFOs on), and an interrupt-driven reader (RX and RT interrupts)
// empties the RX FIFO over TLM on each interrupt, as a tty driver's handler would. Prints JSON: what
// arrived, the simulated and wall time, and the host counts (the PL011's process activations, RTL
// eval() calls, SystemC time steps and delta cycles). The paste goes to the PL011's receive line as
// characters (`pins`, or reference: onto the RXD pin, as the program's --set line_model=pins).
//   uartvp-rx-paste BYTES [reference|pins]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>
#include <tlm_utils/simple_initiator_socket.h>
#include <uartvp/pl011.h>
#include <uartvp/rx_injector.h>

using namespace sc_core;

namespace {

// PL011 registers and bits (TRM DDI0183).
constexpr std::uint64_t DR = 0x000, FR = 0x018, IBRD = 0x024, FBRD = 0x028, LCR_H = 0x02C, CR = 0x030,
                        IMSC = 0x038, MIS = 0x040, ICR = 0x044;
constexpr std::uint32_t FR_RXFE = 1u << 4, IM_RX = 1u << 4, IM_RT = 1u << 6;

struct reader : sc_module {
    tlm_utils::simple_initiator_socket<reader, 32> socket{"socket"};
    sc_in<bool> irq{"irq"};
    std::string got;
    std::size_t want;
    std::uint64_t accesses = 0;
    const sc_time read_cost = sc_time(120, SC_NS), write_cost = sc_time(60, SC_NS); // APB, as on `hw`

    reader(sc_module_name n, std::size_t bytes)
        : sc_module(n)
        , want(bytes) {
        SC_HAS_PROCESS(reader);
        SC_THREAD(run);
    }

    std::uint32_t access(bool write, std::uint64_t offset, std::uint32_t value) {
        tlm::tlm_generic_payload tx;
        tx.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        tx.set_address(offset);
        tx.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
        tx.set_data_length(4);
        tx.set_streaming_width(4);
        sc_time delay = SC_ZERO_TIME;
        socket->b_transport(tx, delay);
        if (!tx.is_response_ok()) throw std::runtime_error("PL011 access failed");
        ++accesses;
        const sc_time cost = write ? write_cost : read_cost;
        wait(delay > cost ? delay : cost);
        return value;
    }

    void run() {
        access(true, IBRD, 13); // 24 MHz / (16 * 115200) = 13 + 1/64
        access(true, FBRD, 1);
        access(true, LCR_H, 0x70); // 8N1, FIFOs on
        access(true, IMSC, IM_RX | IM_RT);
        access(true, CR, 0x301); // UARTEN, TXE, RXE
        while (got.size() < want) {
            if (!irq.read()) wait(irq.posedge_event());
            const std::uint32_t mis = access(false, MIS, 0);
            while (!(access(false, FR, 0) & FR_RXFE))
                got += static_cast<char>(access(false, DR, 0) & 0xFF);
            access(true, ICR, mis & (IM_RX | IM_RT));
        }
        sc_stop();
    }
};

} // namespace

int main(int argc, char** argv) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    sc_report_handler::set_actions("/OSCI/SystemC", SC_INFO, SC_DO_NOTHING);
    if (argc < 2) {
        std::fprintf(stderr, "usage: uartvp-rx-paste BYTES [reference|pins]\n");
        return 2;
    }
    const std::size_t bytes = std::strtoull(argv[1], nullptr, 10);
    const bool reference = argc > 2 && std::string(argv[2]) == "reference";
    const bool pins = reference || (argc > 2 && std::string(argv[2]) == "pins");
    const auto wall0 = std::chrono::steady_clock::now();
    // Printable text, deterministic.
    std::string text(bytes, ' ');
    std::uint32_t x = 12345;
    for (char& c : text) {
        x = x * 1103515245u + 12345u;
        c = static_cast<char>(' ' + (x >> 16) % 95);
    }
    uartvp::pl011_config cfg;
    cfg.clock_every_cycle = reference;
    const char* measure = std::getenv("UARTVP_MEASURE_RTL");
    cfg.measure_eval_time = measure && std::string(measure) == "1";
    uartvp::pl011 uart("uart0", cfg);
    reader cpu("cpu", bytes);
    uartvp::rx_injector paste("paste", 115200, *uartvp::serial_format::parse("8N1"));
    sc_signal<bool> txd("txd", true), rxd("rxd", true), irq("irq");
    cpu.socket.bind(uart.bus);
    uart.txd(txd);
    uart.rxd(rxd);
    uart.irq(irq);
    cpu.irq(irq);
    paste.line(rxd);
    // The paste as characters (the PL011's receive line), as the program takes it, unless `pins`: then
    // on the pin, edge by edge.
    if (!pins) paste.report_to(uart.rx_line());
    paste.send(text, sc_time(100, SC_US)); // after the reader has set the UART up
    sc_start();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    const std::uint64_t deltas = sc_delta_count();
    const nlohmann::json j = {{"bytes", bytes},
                              {"received", cpu.got.size()},
                              {"intact", cpu.got == text},
                              {"sim_time_ns", sc_time_stamp().to_seconds() * 1e9},
                              {"wall_s", wall},
                              {"accesses", cpu.accesses},
                              {"rtl_eval_s", uart.rtl_eval_seconds()},
                              {"host",
                               {{"uart_wakes", uart.wakes()},
                                {"uart_idle_wakes", uart.idle_wakes()},
                                {"rtl_evals", uart.rtl_evals()},
                                {"rtl_edges_evaluated", uart.edges_evaluated()},
                                {"delta_cycles", deltas},
                                {"time_steps", sc_get_curr_simcontext()->change_stamp() - deltas}}}};
    std::printf("%s\n", j.dump().c_str());
    return cpu.got == text ? 0 : 1;
}

extern "C" int sc_main(int, char**) {
    return 3;
}
