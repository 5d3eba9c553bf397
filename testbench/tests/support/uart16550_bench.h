// SPDX-License-Identifier: Apache-2.0
#pragma once
// A SystemC bench for 16550 tests: the UART with its lines bound (modem inputs and reset driven by the
// test), an RX injector on RXD, a line monitor on TXD, and a test body that runs as the CPU (an
// SC_THREAD) with register accessors. TXD and IRQ edges are logged with their times.
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "tlm_payload.h"

#include <uartvp/line_monitor.h>
#include <uartvp/read_promise.h>
#include <uartvp/rx_injector.h>
#include <uartvp/uart16550.h>

namespace uartvp::test {

// Register indices and bits from the PC16550D datasheet, written here independently of the model.
namespace r16550 {
constexpr unsigned RBR = 0, THR = 0, DLL = 0, IER = 1, DLM = 1, IIR = 2, FCR = 2, LCR = 3, MCR = 4, LSR = 5,
                   MSR = 6, SCR = 7;
constexpr std::uint8_t LSR_DR = 0x01, LSR_OE = 0x02, LSR_PE = 0x04, LSR_FE = 0x08, LSR_BI = 0x10,
                       LSR_THRE = 0x20, LSR_TEMT = 0x40, LSR_FIFOE = 0x80;
constexpr std::uint8_t IER_RDA = 0x01, IER_THRE = 0x02, IER_RLS = 0x04, IER_MS = 0x08;
constexpr std::uint8_t IIR_NONE = 0x01, IIR_RLS = 0x06, IIR_RDA = 0x04, IIR_CTI = 0x0C, IIR_THRE = 0x02,
                       IIR_MS = 0x00, IIR_FIFOS = 0xC0;
constexpr std::uint8_t FCR_EN = 0x01, FCR_CLR_RX = 0x02, FCR_CLR_TX = 0x04;
constexpr std::uint8_t LCR_8N1 = 0x03, LCR_DLAB = 0x80, LCR_BREAK = 0x40;
constexpr std::uint8_t MCR_DTR = 0x01, MCR_RTS = 0x02, MCR_OUT1 = 0x04, MCR_OUT2 = 0x08, MCR_LOOP = 0x10;
} // namespace r16550

struct uart16550_bench : sc_core::sc_module {
    sc_core::sc_signal<bool> txd{"txd_line", true}, irq{"irq_line"}, rxd{"rxd_line", true};
    sc_core::sc_signal<bool> ncts{"ncts_line", true}, ndsr{"ndsr_line", true}, nri{"nri_line", true},
        ndcd{"ndcd_line", true}, nreset{"nreset_line", true};
    sc_core::sc_signal<bool> nrts{"nrts_line", true}, ndtr{"ndtr_line", true}, nout1{"nout1_line", true},
        nout2{"nout2_line", true};
    uart16550 uart;
    rx_injector injector;
    line_monitor monitor;
    tlm_utils::simple_initiator_socket<uart16550_bench, 32> socket{"socket"};
    std::function<void(uart16550_bench&)> body;
    std::vector<std::pair<sc_core::sc_time, bool>> txd_log, irq_log, thre_log, temt_log;
    std::vector<std::pair<sc_core::sc_time, unsigned>> rx_level_log;
    std::vector<decoded_char> decoded;

    SC_HAS_PROCESS(uart16550_bench);
    uart16550_bench(const sc_core::sc_module_name& name, const uart16550_config& cfg,
                    std::function<void(uart16550_bench&)> b, serial_format fmt = serial_format{})
        : sc_module(name)
        , uart("uart", cfg)
        , injector("injector", baud_of(cfg, 1), fmt)
        , monitor("monitor", baud_of(cfg, 1), fmt)
        , body(std::move(b)) {
        socket.bind(uart.bus);
        uart.txd(txd);
        uart.irq(irq);
        uart.rxd(rxd);
        uart.ncts(ncts);
        uart.ndsr(ndsr);
        uart.nri(nri);
        uart.ndcd(ndcd);
        uart.nreset(nreset);
        uart.nrts(nrts);
        uart.ndtr(ndtr);
        uart.nout1(nout1);
        uart.nout2(nout2);
        injector.line(rxd);
        monitor.line(txd);
        monitor.keep_text(true);
        monitor.on_char([this](const decoded_char& c) { decoded.push_back(c); });
        SC_THREAD(cpu);
        SC_METHOD(log_txd);
        sensitive << txd;
        dont_initialize();
        SC_METHOD(log_irq);
        sensitive << irq;
        dont_initialize();
        SC_METHOD(log_flags);
        sensitive << uart.thre << uart.temt << uart.rx_fifo_level;
        dont_initialize();
    }
    static double baud_of(const uart16550_config& cfg, unsigned divisor) {
        return static_cast<double>(cfg.clock_hz) / (16.0 * divisor);
    }
    void cpu() {
        body(*this);
        sc_core::sc_stop();
    }
    void log_txd() { txd_log.emplace_back(sc_core::sc_time_stamp(), txd.read()); }
    void log_irq() { irq_log.emplace_back(sc_core::sc_time_stamp(), irq.read()); }
    void log_flags() {
        const sc_core::sc_time t = sc_core::sc_time_stamp();
        if (thre_log.empty() ? !uart.thre.read() : thre_log.back().second != uart.thre.read())
            thre_log.emplace_back(t, uart.thre.read());
        if (temt_log.empty() ? !uart.temt.read() : temt_log.back().second != uart.temt.read())
            temt_log.emplace_back(t, uart.temt.read());
        if (rx_level_log.empty() ? uart.rx_fifo_level.read() != 0
                                 : rx_level_log.back().second != uart.rx_fifo_level.read())
            rx_level_log.emplace_back(t, uart.rx_fifo_level.read());
    }
    // Time of the first change of a log to `v` at or after t (SC_ZERO_TIME if none).
    template <class T>
    static sc_core::sc_time first(const std::vector<std::pair<sc_core::sc_time, T>>& log, T v,
                                  sc_core::sc_time after = sc_core::SC_ZERO_TIME) {
        for (const auto& [when, x] : log)
            if (when >= after && x == v) return when;
        return sc_core::SC_ZERO_TIME;
    }
    // Time of XIN edge n, and the first XIN edge at or after t.
    sc_core::sc_time xin(std::uint64_t n) const { return uart.clock().time_of(n); }
    std::uint64_t xin_at(const sc_core::sc_time& t) const { return uart.clock().edge_at_or_after(t); }

    std::uint64_t offset(unsigned idx) const { return std::uint64_t{idx} << uart.config().reg_shift; }

    tlm::tlm_response_status access(bool write, std::uint64_t off, unsigned size, std::uint32_t& data,
                                    read_promise* promise = nullptr,
                                    const std::vector<unsigned char>* be = nullptr) {
        tlm::tlm_generic_payload tx;
        set_access(tx, write, off, data, size, be);
        if (promise) tx.set_extension(promise);
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        socket->b_transport(tx, d);
        if (promise) tx.clear_extension(promise);
        wait(d);
        // Two deltas more: the UART's thread drives its signals at that time, they update a delta later.
        wait(sc_core::SC_ZERO_TIME);
        wait(sc_core::SC_ZERO_TIME);
        return tx.get_response_status();
    }
    std::uint8_t rd(unsigned idx, read_promise* promise = nullptr) {
        std::uint32_t v = 0;
        const auto st = access(false, offset(idx), uart.config().reg_io_width, v, promise);
        EXPECT_EQ(st, tlm::TLM_OK_RESPONSE) << "read of register " << idx;
        return static_cast<std::uint8_t>(v);
    }
    void wr(unsigned idx, std::uint8_t v) {
        std::uint32_t d = v;
        const auto st = access(true, offset(idx), uart.config().reg_io_width, d);
        EXPECT_EQ(st, tlm::TLM_OK_RESPONSE) << "write of register " << idx;
    }
    // Debug read: no side effects.
    std::uint8_t peek(unsigned idx) {
        std::uint32_t v = 0;
        tlm::tlm_generic_payload tx;
        tx.set_command(tlm::TLM_READ_COMMAND);
        tx.set_address(offset(idx));
        tx.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
        tx.set_data_length(uart.config().reg_io_width);
        tx.set_streaming_width(uart.config().reg_io_width);
        EXPECT_EQ(socket->transport_dbg(tx), uart.config().reg_io_width);
        return static_cast<std::uint8_t>(v);
    }
    void wait_us(double us) { wait(sc_core::sc_time(us, sc_core::SC_US)); }
    // Divisor and frame format (LCR without DLAB).
    void setup(unsigned divisor = 1, std::uint8_t lcr = r16550::LCR_8N1) {
        wr(r16550::LCR, lcr | r16550::LCR_DLAB);
        wr(r16550::DLL, divisor & 0xFF);
        wr(r16550::DLM, divisor >> 8);
        wr(r16550::LCR, lcr);
    }
    // Polls LSR every `us` until (LSR & bits) == bits; returns the time it was first seen.
    sc_core::sc_time poll_lsr(std::uint8_t bits, double us = 0.1, double limit_ms = 100) {
        const sc_core::sc_time end = sc_core::sc_time_stamp() + sc_core::sc_time(limit_ms, sc_core::SC_MS);
        while ((rd(r16550::LSR) & bits) != bits && sc_core::sc_time_stamp() < end)
            wait_us(us);
        return sc_core::sc_time_stamp();
    }
    // Start-bit edges of the characters the line monitor decoded.
    std::vector<sc_core::sc_time> starts() const {
        std::vector<sc_core::sc_time> t;
        for (const decoded_char& c : decoded)
            t.push_back(c.start);
        return t;
    }
    // Times of falling edges on TXD.
    std::vector<sc_core::sc_time> txd_falls() const {
        std::vector<sc_core::sc_time> t;
        for (const auto& [when, lvl] : txd_log)
            if (!lvl) t.push_back(when);
        return t;
    }
};

inline void run_bench(const uart16550_config& cfg, std::function<void(uart16550_bench&)> body,
                      serial_format fmt = serial_format{}) {
    uart16550_bench b("bench", cfg, std::move(body), fmt);
    sc_core::sc_start();
}

} // namespace uartvp::test
