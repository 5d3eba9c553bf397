#pragma once
// Test harness for the PL011: a scripted sequence of register accesses at chosen UARTCLK cycles, run
// (a) on the bare verilated RTL clocked through every cycle, the reference, and (b) through the TLM
// wrapper in SystemC; both record the cycle of every change of TXD, IRQ, the flags and FIFO levels.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include <uartvp/cycle_clock.h>
#include <uartvp/pl011.h>

#include "pl011_core.h"

namespace uartvp::test {

// Register offsets from the TRM, written here independently of the RTL.
namespace reg {
constexpr std::uint32_t DR = 0x000, RSR = 0x004, FR = 0x018, ILPR = 0x020, IBRD = 0x024, FBRD = 0x028,
                        LCR_H = 0x02C, CR = 0x030, IFLS = 0x034, IMSC = 0x038, RIS = 0x03C, MIS = 0x040,
                        ICR = 0x044, DMACR = 0x048;
} // namespace reg
namespace fr {
constexpr std::uint32_t CTS = 1 << 0, BUSY = 1 << 3, RXFE = 1 << 4, TXFF = 1 << 5, RXFF = 1 << 6,
                        TXFE = 1 << 7;
}

struct bus_op {
    std::uint64_t cycle;  // the UARTCLK edge the access lands on (or that first sees an input's new level)
    bool write;           // for `pin` ops: the new level
    std::uint32_t offset; // byte offset
    unsigned size;        // 1, 2 or 4 bytes
    std::uint32_t data;   // written value (in the access's own lanes)
    enum kind_t { bus, pin_ncts, pin_nreset } kind = bus;
};

struct observed {
    std::vector<std::uint32_t> reads;
    std::vector<std::uint64_t> txd_edges, irq_edges;
    // (cycle, value) for each change
    std::vector<std::pair<std::uint64_t, unsigned>> busy, txfe, txff, tx_level;
    bool operator==(const observed& o) const {
        return reads == o.reads && txd_edges == o.txd_edges && irq_edges == o.irq_edges && busy == o.busy &&
               txfe == o.txfe && txff == o.txff && tx_level == o.tx_level;
    }
};

// Plain clocking of the RTL, every cycle, up to `end`.
inline observed run_reference(const std::vector<bus_op>& ops, unsigned depth, std::uint64_t end) {
    auto rtl = detail::pl011_rtl::create(depth);
    observed ob;
    auto o = rtl->out();
    auto record = [&](std::uint64_t cyc, const detail::pl011_outputs& n, const detail::pl011_outputs& p) {
        if (n.txd != p.txd) ob.txd_edges.push_back(cyc);
        if (n.intr != p.intr) ob.irq_edges.push_back(cyc);
        if ((n.flags & fr::BUSY) != (p.flags & fr::BUSY)) ob.busy.emplace_back(cyc, !!(n.flags & fr::BUSY));
        if ((n.flags & fr::TXFE) != (p.flags & fr::TXFE)) ob.txfe.emplace_back(cyc, !!(n.flags & fr::TXFE));
        if ((n.flags & fr::TXFF) != (p.flags & fr::TXFF)) ob.txff.emplace_back(cyc, !!(n.flags & fr::TXFF));
        if (n.tx_level != p.tx_level) ob.tx_level.emplace_back(cyc, n.tx_level);
    };
    std::size_t i = 0;
    for (std::uint64_t c = 1; c <= end; ++c) {
        detail::pl011_inputs& in = rtl->in;
        while (i < ops.size() && ops[i].cycle == c && ops[i].kind != bus_op::bus) {
            (ops[i].kind == bus_op::pin_ncts ? in.ncts : in.rst_n) = ops[i].write;
            ++i;
        }
        if (i < ops.size() && ops[i].cycle == c) {
            const bus_op& op = ops[i++];
            const unsigned lane = op.offset & 3;
            in.sel = true;
            in.write = op.write;
            in.addr = static_cast<std::uint16_t>(op.offset >> 2);
            in.strb = op.write ? static_cast<std::uint8_t>(((1u << op.size) - 1) << lane) : 0;
            in.wdata = op.write ? op.data << (8 * lane) : 0;
            rtl->settle();
            if (!op.write) {
                const std::uint32_t mask = op.size == 4 ? 0xFFFFFFFFu : ((1u << (8 * op.size)) - 1);
                ob.reads.push_back((rtl->out().rdata >> (8 * lane)) & mask);
            }
        }
        rtl->edge();
        in.sel = false;
        in.write = false;
        record(c, rtl->out(), o);
        o = rtl->out();
    }
    return ob;
}

// Drives the scripted accesses through the TLM socket at the exact time of their edge.
struct script_initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<script_initiator, 32> socket{"socket"};
    std::vector<bus_op> ops;
    cycle_clock clock;
    observed* ob;
    std::vector<tlm::tlm_response_status> status;
    std::vector<std::uint64_t> landed, late; // the edge each access landed on; those not on their cycle
    sc_core::sc_signal<bool> ncts{"ncts", true}, nreset{"nreset", true};
    SC_HAS_PROCESS(script_initiator);
    script_initiator(sc_core::sc_module_name n, std::vector<bus_op> o, std::uint64_t hz, observed* out)
        : sc_module(n)
        , ops(std::move(o))
        , clock(hz)
        , ob(out) {
        SC_THREAD(run);
    }
    void run() {
        for (const bus_op& op : ops) {
            // An access issued at time t lands on the first edge after t.
            const sc_core::sc_time at = clock.time_of(op.cycle - 1);
            if (at > sc_core::sc_time_stamp()) wait(at - sc_core::sc_time_stamp());
            if (op.kind != bus_op::bus) { // an input changing at t is first seen by the edge after t
                (op.kind == bus_op::pin_ncts ? ncts : nreset).write(op.write);
                continue;
            }
            std::uint32_t data = op.data;
            tlm::tlm_generic_payload tx;
            tx.set_command(op.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
            tx.set_address(op.offset);
            tx.set_data_ptr(reinterpret_cast<unsigned char*>(&data));
            tx.set_data_length(op.size);
            tx.set_streaming_width(op.size);
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            socket->b_transport(tx, d);
            status.push_back(tx.get_response_status());
            landed.push_back(clock.edge_at_or_after(sc_core::sc_time_stamp() + d));
            if (landed.back() != op.cycle) late.push_back(op.cycle);
            if (!op.write) {
                const std::uint32_t mask = op.size == 4 ? 0xFFFFFFFFu : ((1u << (8 * op.size)) - 1);
                ob->reads.push_back(data & mask);
            }
        }
    }
};

// Records the wrapper's outputs, converting each change's time to its UARTCLK edge; a change that is
// not exactly at an edge's time is recorded as cycle ~0 so that the comparison fails.
struct output_recorder : sc_core::sc_module {
    sc_core::sc_in<bool> txd{"txd"}, irq{"irq"};
    const pl011& uart;
    cycle_clock clock;
    observed* ob;
    SC_HAS_PROCESS(output_recorder);
    output_recorder(sc_core::sc_module_name n, const pl011& u, observed* out)
        : sc_module(n)
        , uart(u)
        , clock(u.config().uartclk_hz)
        , ob(out) {
        SC_METHOD(on_txd);
        sensitive << txd;
        dont_initialize();
        SC_METHOD(on_irq);
        sensitive << irq;
        dont_initialize();
        SC_METHOD(on_flags);
        sensitive << u.busy << u.txfe << u.txff << u.tx_fifo_level;
        dont_initialize();
    }
    std::uint64_t now_cycle() const {
        const std::uint64_t c = clock.edge_at_or_after(sc_core::sc_time_stamp());
        return clock.time_of(c) == sc_core::sc_time_stamp() ? c : ~0ull;
    }
    void on_txd() { ob->txd_edges.push_back(now_cycle()); }
    void on_irq() { ob->irq_edges.push_back(now_cycle()); }
    unsigned last_busy = 0, last_txfe = 1, last_txff = 0, last_level = 0;
    void on_flags() {
        const std::uint64_t c = now_cycle();
        auto upd = [&](unsigned v, unsigned& last, auto& vec) {
            if (v != last) vec.emplace_back(c, v);
            last = v;
        };
        upd(uart.busy.read(), last_busy, ob->busy);
        upd(uart.txfe.read(), last_txfe, ob->txfe);
        upd(uart.txff.read(), last_txff, ob->txff);
        upd(uart.tx_fifo_level.read(), last_level, ob->tx_level);
    }
};

// A PL011 with its lines bound, the script initiator and the recorder.
struct tlm_bench {
    sc_core::sc_signal<bool> txd{"txd_sig", true}, irq{"irq_sig"}, rxd{"rxd_sig", true};
    observed ob;
    pl011 uart;
    script_initiator init;
    output_recorder rec;
    tlm_bench(const pl011_config& cfg, std::vector<bus_op> ops)
        : uart("uart", cfg)
        , init("init", std::move(ops), cfg.uartclk_hz, &ob)
        , rec("rec", uart, &ob) {
        init.socket.bind(uart.bus);
        uart.ncts(init.ncts);
        uart.nreset(init.nreset);
        uart.txd(txd);
        uart.irq(irq);
        uart.rxd(rxd);
        rec.txd(txd);
        rec.irq(irq);
    }
    void run_to(std::uint64_t end_cycle) {
        sc_core::sc_start(cycle_clock(uart.config().uartclk_hz).time_of(end_cycle));
    }
};

// Divisor for a baud rate: IBRD and FBRD = round(64 * fraction), as the TRM prescribes.
inline std::pair<std::uint32_t, std::uint32_t> divisor(std::uint64_t uartclk, std::uint64_t baud) {
    const std::uint64_t x64 = (uartclk * 4 + baud / 2) / baud; // 64 * uartclk / (16 * baud), rounded
    return {static_cast<std::uint32_t>(x64 >> 6), static_cast<std::uint32_t>(x64 & 63)};
}

// Appends the usual set-up: divisor, LCR_H (latching it), CR; returns the next free cycle.
inline std::uint64_t program_uart(std::vector<bus_op>& ops, std::uint64_t c, std::uint64_t uartclk,
                                  std::uint64_t baud, std::uint32_t lcr_h, std::uint32_t cr = 0x301) {
    const auto [ibrd, fbrd] = divisor(uartclk, baud);
    ops.push_back({c += 3, true, reg::IBRD, 4, ibrd});
    ops.push_back({c += 3, true, reg::FBRD, 4, fbrd});
    ops.push_back({c += 3, true, reg::LCR_H, 4, lcr_h});
    ops.push_back({c += 3, true, reg::CR, 4, cr});
    return c;
}

} // namespace uartvp::test
