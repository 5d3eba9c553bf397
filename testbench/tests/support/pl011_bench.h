// SPDX-License-Identifier: Apache-2.0
#pragma once
// A SystemC bench for PL011 tests: the UART with its lines bound (RXD driven by an RX injector), and a
// test body that runs as the CPU (an SC_THREAD) with register accessors of every width. TXD and IRQ
// edges are logged with their times.
#include <functional>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include "tlm_payload.h"

#include <uartvp/rx_injector.h>

#include "pl011_harness.h"

namespace uartvp::test {

struct pl011_bench : sc_core::sc_module {
    sc_core::sc_signal<bool> txd{"txd_line", true}, irq{"irq_line"}, rxd{"rxd_line", true};
    sc_core::sc_signal<bool> ncts{"ncts_line", true}, nreset{"nreset_line", true};
    sc_core::sc_signal<bool> ndsr{"ndsr_line", true}, ndcd{"ndcd_line", true}, nri{"nri_line", true},
        nrts{"nrts_line", true}, ndtr{"ndtr_line", true};
    sc_core::sc_signal<bool> txdmasreq{"txdmasreq_line"}, txdmabreq{"txdmabreq_line"},
        rxdmasreq{"rxdmasreq_line"}, rxdmabreq{"rxdmabreq_line"}, txdmaclr{"txdmaclr_line"},
        rxdmaclr{"rxdmaclr_line"};
    pl011 uart;
    rx_injector inj{"inj", 115200, serial_format{}};
    tlm_utils::simple_initiator_socket<pl011_bench, 32> socket{"socket"};
    std::function<void(pl011_bench&)> body;
    std::vector<std::pair<sc_core::sc_time, bool>> txd_log;
    std::vector<std::pair<sc_core::sc_time, bool>> irq_log;

    SC_HAS_PROCESS(pl011_bench);
    pl011_bench(const pl011_config& cfg, std::function<void(pl011_bench&)> b)
        : sc_module("bench")
        , uart("uart", cfg)
        , body(std::move(b)) {
        socket.bind(uart.bus);
        uart.txd(txd);
        uart.irq(irq);
        uart.rxd(rxd);
        uart.ncts(ncts);
        uart.nreset(nreset);
        uart.ndsr(ndsr);
        uart.ndcd(ndcd);
        uart.nri(nri);
        uart.nrts(nrts);
        uart.ndtr(ndtr);
        uart.txdmasreq(txdmasreq);
        uart.txdmabreq(txdmabreq);
        uart.rxdmasreq(rxdmasreq);
        uart.rxdmabreq(rxdmabreq);
        uart.txdmaclr(txdmaclr);
        uart.rxdmaclr(rxdmaclr);
        inj.line(rxd);
        SC_THREAD(cpu);
        SC_METHOD(log_txd);
        sensitive << txd;
        dont_initialize();
        SC_METHOD(log_irq);
        sensitive << irq;
        dont_initialize();
    }
    void cpu() {
        body(*this);
        sc_core::sc_stop();
    }
    void log_txd() { txd_log.emplace_back(sc_core::sc_time_stamp(), txd.read()); }
    void log_irq() { irq_log.emplace_back(sc_core::sc_time_stamp(), irq.read()); }

    tlm::tlm_response_status access(bool write, std::uint64_t off, unsigned size, std::uint32_t& data,
                                    const std::vector<unsigned char>* be = nullptr) {
        tlm::tlm_generic_payload tx;
        set_access(tx, write, off, data, size, be);
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        socket->b_transport(tx, d);
        wait(d); // the access completes at its UARTCLK edge
        // Two deltas more: the UART's thread drives its signals at that time, they update a delta later.
        wait(sc_core::SC_ZERO_TIME);
        wait(sc_core::SC_ZERO_TIME);
        return tx.get_response_status();
    }
    std::uint32_t rd(std::uint64_t off, unsigned size = 4) {
        std::uint32_t v = 0;
        const auto st = access(false, off, size, v);
        EXPECT_EQ(st, tlm::TLM_OK_RESPONSE) << "read of 0x" << std::hex << off;
        return v;
    }
    void wr(std::uint64_t off, std::uint32_t v, unsigned size = 4) {
        const auto st = access(true, off, size, v);
        EXPECT_EQ(st, tlm::TLM_OK_RESPONSE) << "write of 0x" << std::hex << off;
    }
    void wait_cycles(std::uint64_t n) { wait(uart.clock().time_of(n)); }
    void wait_us(double us) { wait(sc_core::sc_time(us, sc_core::SC_US)); }
    std::uint64_t now_cycle() const { return uart.clock().edge_at_or_before(sc_core::sc_time_stamp()); }
    // Set up baud rate and format, enable UART and transmitter.
    void setup(std::uint64_t baud, std::uint32_t lcr_h = 0x70, std::uint32_t cr = 0x301) {
        const auto [ibrd, fbrd] = divisor(uart.config().clock_hz, baud);
        wr(reg::IBRD, ibrd);
        wr(reg::FBRD, fbrd);
        wr(reg::LCR_H, lcr_h);
        wr(reg::CR, cr);
    }
    // Wait until FR.BUSY clears (polling every `us`), with a limit.
    void wait_idle(double limit_ms = 100) {
        const sc_core::sc_time end = sc_core::sc_time_stamp() + sc_core::sc_time(limit_ms, sc_core::SC_MS);
        while ((rd(reg::FR) & fr::BUSY) && sc_core::sc_time_stamp() < end)
            wait_us(5);
    }
};

inline void run_bench(const pl011_config& cfg, std::function<void(pl011_bench&)> body) {
    pl011_bench b(cfg, std::move(body));
    sc_core::sc_start();
}

// Decodes TXD from its logged edges, sampling each bit at its middle from the start edge, with a known
// bit period: the test's own decoder, independent of the line monitor.
struct tx_frame {
    sc_core::sc_time start;
    std::vector<int> bits; // data bits LSB first, then parity (if any), then stop bits
};
inline std::vector<tx_frame> decode_frames(const std::vector<std::pair<sc_core::sc_time, bool>>& log,
                                           double bit_s, unsigned bits_after_start) {
    auto level_at = [&](const sc_core::sc_time& t) {
        bool v = true;
        for (const auto& [when, lvl] : log) {
            if (when > t) break;
            v = lvl;
        }
        return v;
    };
    std::vector<tx_frame> out;
    sc_core::sc_time busy_until = sc_core::SC_ZERO_TIME;
    for (const auto& [when, lvl] : log) {
        if (lvl || when < busy_until) continue;
        tx_frame f{when, {}};
        for (unsigned k = 1; k <= bits_after_start; ++k)
            f.bits.push_back(level_at(when + sc_core::sc_time((k + 0.5) * bit_s, sc_core::SC_SEC)));
        busy_until = when + sc_core::sc_time((bits_after_start + 0.5) * bit_s, sc_core::SC_SEC);
        out.push_back(std::move(f));
    }
    return out;
}

} // namespace uartvp::test
