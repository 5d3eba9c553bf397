// SPDX-License-Identifier: Apache-2.0
#pragma once
// Test harness for the PL011: a scripted sequence of register accesses and input changes (RXD, modem
// lines, DMA clears, reset) at chosen UARTCLK cycles, run (a) on the bare verilated RTL clocked through
// every cycle, the reference, and (b) through the TLM wrapper in SystemC; both record the cycle of every
// change of TXD, IRQ, nRTS, the DMA requests, the flags and FIFO levels.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include <uartvp/cycle_clock.h>
#include <uartvp/initiator_id.h>
#include <uartvp/pl011.h>
#include <uartvp/read_promise.h>

#include "pl011/pl011_core.h"

namespace uartvp::test {

// Register offsets from the TRM, written here independently of the RTL.
namespace reg {
constexpr std::uint32_t DR = 0x000, RSR = 0x004, FR = 0x018, ILPR = 0x020, IBRD = 0x024, FBRD = 0x028,
                        LCR_H = 0x02C, CR = 0x030, IFLS = 0x034, IMSC = 0x038, RIS = 0x03C, MIS = 0x040,
                        ICR = 0x044, DMACR = 0x048;
} // namespace reg
namespace fr {
constexpr std::uint32_t CTS = 1 << 0, DSR = 1 << 1, DCD = 1 << 2, BUSY = 1 << 3, RXFE = 1 << 4, TXFF = 1 << 5,
                        RXFF = 1 << 6, TXFE = 1 << 7, RI = 1 << 8;
}
// Interrupt bits (IMSC/RIS/MIS/ICR).
namespace irq {
constexpr std::uint32_t RI = 1 << 0, CTS = 1 << 1, DCD = 1 << 2, DSR = 1 << 3, RX = 1 << 4, TX = 1 << 5,
                        RT = 1 << 6, FE = 1 << 7, PE = 1 << 8, BE = 1 << 9, OE = 1 << 10;
}

// One 32-bit register access through `socket` at `addr`, a read promise `p` asked for if given;
// `delay` grows by the access's annotation. Returns the value read (a write: the value written).
template <class socket_t>
std::uint32_t word_access(socket_t& socket, bool write, std::uint64_t addr, std::uint32_t value,
                          read_promise* p, sc_core::sc_time& delay) {
    tlm::tlm_generic_payload tx;
    tx.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    tx.set_address(addr);
    tx.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
    tx.set_data_length(4);
    tx.set_streaming_width(4);
    if (p) tx.set_extension(p);
    socket->b_transport(tx, delay);
    if (p) tx.clear_extension(p);
    return value;
}

struct bus_op {
    std::uint64_t cycle;  // the UARTCLK edge the access lands on (or that first sees an input's new level)
    bool write;           // for `pin` ops: the new level
    std::uint32_t offset; // byte offset
    unsigned size;        // 1, 2 or 4 bytes
    std::uint32_t data;   // written value (in the access's own lanes)
    enum kind_t {
        bus,
        pin_ncts,
        pin_nreset,
        pin_rxd,
        pin_ndsr,
        pin_ndcd,
        pin_nri,
        pin_txdmaclr,
        pin_rxdmaclr
    };
    kind_t kind = bus;
};

// The RTL input a pin op drives.
inline bool& pin_of(detail::pl011_inputs& in, bus_op::kind_t k) {
    switch (k) {
    case bus_op::pin_ncts:
        return in.ncts;
    case bus_op::pin_nreset:
        return in.rst_n;
    case bus_op::pin_rxd:
        return in.rxd;
    case bus_op::pin_ndsr:
        return in.ndsr;
    case bus_op::pin_ndcd:
        return in.ndcd;
    case bus_op::pin_nri:
        return in.nri;
    case bus_op::pin_txdmaclr:
        return in.txdmaclr;
    default:
        return in.rxdmaclr;
    }
}

// The four DMA requests as one value: TXDMASREQ, TXDMABREQ, RXDMASREQ, RXDMABREQ in bits 0..3.
inline unsigned dma_code(bool txs, bool txb, bool rxs, bool rxb) {
    return unsigned(txs) | unsigned(txb) << 1 | unsigned(rxs) << 2 | unsigned(rxb) << 3;
}

struct observed {
    std::vector<std::uint32_t> reads;
    std::vector<std::uint64_t> txd_edges, irq_edges, nrts_edges;
    // (cycle, value) for each change
    std::vector<std::pair<std::uint64_t, unsigned>> busy, txfe, txff, tx_level, rxfe, rxff, rx_level, dma;
    bool operator==(const observed& o) const {
        return reads == o.reads && txd_edges == o.txd_edges && irq_edges == o.irq_edges &&
               nrts_edges == o.nrts_edges && busy == o.busy && txfe == o.txfe && txff == o.txff &&
               tx_level == o.tx_level && rxfe == o.rxfe && rxff == o.rxff && rx_level == o.rx_level &&
               dma == o.dma;
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
        if (n.nrts != p.nrts) ob.nrts_edges.push_back(cyc);
        auto flag = [&](std::uint32_t bit, auto& vec) {
            if ((n.flags & bit) != (p.flags & bit)) vec.emplace_back(cyc, !!(n.flags & bit));
        };
        flag(fr::BUSY, ob.busy);
        flag(fr::TXFE, ob.txfe);
        flag(fr::TXFF, ob.txff);
        flag(fr::RXFE, ob.rxfe);
        flag(fr::RXFF, ob.rxff);
        if (n.tx_level != p.tx_level) ob.tx_level.emplace_back(cyc, n.tx_level);
        if (n.rx_level != p.rx_level) ob.rx_level.emplace_back(cyc, n.rx_level);
        const unsigned dn = dma_code(n.txdmasreq, n.txdmabreq, n.rxdmasreq, n.rxdmabreq),
                       dp = dma_code(p.txdmasreq, p.txdmabreq, p.rxdmasreq, p.rxdmabreq);
        if (dn != dp) ob.dma.emplace_back(cyc, dn);
    };
    std::size_t i = 0;
    for (std::uint64_t c = 1; c <= end; ++c) {
        detail::pl011_inputs& in = rtl->in;
        while (i < ops.size() && ops[i].cycle == c && ops[i].kind != bus_op::bus) {
            pin_of(in, ops[i].kind) = ops[i].write;
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
    sc_core::sc_signal<bool> ncts{"ncts", true}, nreset{"nreset", true}, rxd{"rxd", true}, ndsr{"ndsr", true},
        ndcd{"ndcd", true}, nri{"nri", true}, txdmaclr{"txdmaclr", false}, rxdmaclr{"rxdmaclr", false};
    sc_core::sc_signal<bool>& pin_signal(bus_op::kind_t k) {
        switch (k) {
        case bus_op::pin_ncts:
            return ncts;
        case bus_op::pin_nreset:
            return nreset;
        case bus_op::pin_rxd:
            return rxd;
        case bus_op::pin_ndsr:
            return ndsr;
        case bus_op::pin_ndcd:
            return ndcd;
        case bus_op::pin_nri:
            return nri;
        case bus_op::pin_txdmaclr:
            return txdmaclr;
        default:
            return rxdmaclr;
        }
    }
    // RXD as characters (pl011::rx_line()) instead of the pin: the script's RXD edges, cut into runs
    // from a falling to a rising edge of 1 to 6 low pulses, each reported as one serial_char (some single
    // pulses as two line levels instead), at its first edge's time or, with `rx_ahead`, up to that many
    // cycles before it.
    serial_line_if* rx_chars = nullptr;
    std::uint64_t rx_ahead = 0;
    std::uint64_t rx_reports = 0;
    // Accesses issued ahead of SystemC time (<uartvp/initiator_id.h>): an access whose time comes
    // with nothing for SystemC to do until then goes at once, unsynchronised, its time as the annotated
    // delay, as the CPU stub issues them; the rest wait for their time.
    bool issue_ahead = false;
    std::uint64_t issued_ahead = 0, served_ahead = 0; // served: b_transport returned without waiting
    SC_HAS_PROCESS(script_initiator);
    script_initiator(sc_core::sc_module_name n, std::vector<bus_op> o, std::uint64_t hz, observed* out)
        : sc_module(n)
        , ops(std::move(o))
        , clock(hz)
        , ob(out) {
        SC_THREAD(run);
        SC_THREAD(feed);
    }
    void wait_until(const sc_core::sc_time& t) {
        if (t > sc_core::sc_time_stamp()) wait(t - sc_core::sc_time_stamp());
    }
    void feed() {
        if (!rx_chars) return;
        std::vector<std::uint64_t> e; // the cycles of the RXD edges, falling first, alternating
        for (const bus_op& op : ops)
            if (op.kind == bus_op::pin_rxd) e.push_back(op.cycle);
        auto at = [&](std::size_t k) { return clock.time_of(e[k] - 1); }; // seen by the edge after
        sc_core::sc_time handed;
        for (std::size_t i = 0; i + 1 < e.size();) {
            const std::size_t pulses = std::min<std::size_t>(1 + e[i] % 6, (e.size() - i) / 2);
            const std::uint64_t ahead = rx_ahead ? e[i] % (rx_ahead + 1) : 0;
            const std::uint64_t from = e[i] - 1 > ahead ? e[i] - 1 - ahead : 0;
            sc_core::sc_time h = clock.time_of(from);
            if (h < handed) h = handed;
            handed = h;
            wait_until(h);
            ++rx_reports;
            if (pulses == 1 && e[i] % 3 == 0) { // a low pulse as the line's level, then back high
                rx_chars->line_level(at(i), false);
                if (!rx_ahead) wait_until(at(i + 1));
                rx_chars->line_level(at(i + 1), true);
                i += 2;
                continue;
            }
            serial_char c;
            c.bits = static_cast<unsigned>(2 * pulses - 1);
            for (unsigned k = 0; k <= c.bits; ++k) {
                c.edge[k] = at(i + k);
                if (k % 2) c.levels = static_cast<std::uint16_t>(c.levels | (1u << k));
            }
            rx_chars->line_char(c);
            i += 2 * pulses;
        }
    }
    void run() {
        for (const bus_op& op : ops) {
            if (rx_chars && op.kind == bus_op::pin_rxd) continue; // feed() reports them
            // An access issued at time t lands on the first edge after t.
            const sc_core::sc_time at = clock.time_of(op.cycle - 1);
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            initiator_id who(0);
            if (at > sc_core::sc_time_stamp()) {
                const sc_core::sc_time ahead = at - sc_core::sc_time_stamp();
                if (issue_ahead && op.kind == bus_op::bus &&
                    !sc_core::sc_pending_activity_at_current_time() &&
                    sc_core::sc_time_to_pending_activity() > ahead) {
                    d = ahead;
                    who.unsynchronised = true;
                    ++issued_ahead;
                } else {
                    wait(ahead);
                }
            }
            if (op.kind != bus_op::bus) { // an input changing at t is first seen by the edge after t
                pin_signal(op.kind).write(op.write);
                continue;
            }
            std::uint32_t data = op.data;
            tlm::tlm_generic_payload tx;
            tx.set_command(op.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
            tx.set_address(op.offset);
            tx.set_data_ptr(reinterpret_cast<unsigned char*>(&data));
            tx.set_data_length(op.size);
            tx.set_streaming_width(op.size);
            if (issue_ahead) tx.set_extension(&who);
            const sc_core::sc_time issued = sc_core::sc_time_stamp();
            socket->b_transport(tx, d);
            if (issue_ahead) tx.clear_extension(&who);
            if (who.unsynchronised && sc_core::sc_time_stamp() == issued) ++served_ahead;
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
    sc_core::sc_in<bool> txd{"txd"}, irq{"irq"}, nrts{"nrts"};
    sc_core::sc_in<bool> txdmasreq{"txdmasreq"}, txdmabreq{"txdmabreq"}, rxdmasreq{"rxdmasreq"},
        rxdmabreq{"rxdmabreq"};
    const pl011& uart;
    cycle_clock clock;
    observed* ob;
    SC_HAS_PROCESS(output_recorder);
    output_recorder(sc_core::sc_module_name n, const pl011& u, observed* out)
        : sc_module(n)
        , uart(u)
        , clock(u.config().clock_hz)
        , ob(out) {
        SC_METHOD(on_txd);
        sensitive << txd;
        dont_initialize();
        SC_METHOD(on_irq);
        sensitive << irq;
        dont_initialize();
        SC_METHOD(on_nrts);
        sensitive << nrts;
        dont_initialize();
        SC_METHOD(on_flags);
        sensitive << u.busy << u.txfe << u.txff << u.tx_fifo_level << u.rxfe << u.rxff << u.rx_fifo_level;
        dont_initialize();
        SC_METHOD(on_dma);
        sensitive << txdmasreq << txdmabreq << rxdmasreq << rxdmabreq;
        dont_initialize();
    }
    std::uint64_t now_cycle() const {
        const std::uint64_t c = clock.edge_at_or_after(sc_core::sc_time_stamp());
        return clock.time_of(c) == sc_core::sc_time_stamp() ? c : ~0ull;
    }
    void on_txd() { ob->txd_edges.push_back(now_cycle()); }
    void on_irq() { ob->irq_edges.push_back(now_cycle()); }
    void on_nrts() { ob->nrts_edges.push_back(now_cycle()); }
    unsigned last_dma = 0;
    void on_dma() {
        const unsigned v = dma_code(txdmasreq.read(), txdmabreq.read(), rxdmasreq.read(), rxdmabreq.read());
        if (v != last_dma) ob->dma.emplace_back(now_cycle(), v);
        last_dma = v;
    }
    unsigned last_busy = 0, last_txfe = 1, last_txff = 0, last_level = 0, last_rxfe = 1, last_rxff = 0,
             last_rx_level = 0;
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
        upd(uart.rxfe.read(), last_rxfe, ob->rxfe);
        upd(uart.rxff.read(), last_rxff, ob->rxff);
        upd(uart.rx_fifo_level.read(), last_rx_level, ob->rx_level);
    }
};

// Rebuilds TXD's edges from the characters the UART reports (pl011::report_line), as the pin shows
// them: changes only, cut where a reset cuts a character. Times off an edge record as cycle ~0.
struct line_edge_recorder : serial_line_if {
    explicit line_edge_recorder(std::uint64_t clock_hz)
        : clock(clock_hz) {}
    cycle_clock clock;
    std::vector<std::pair<std::uint64_t, bool>> edges;
    bool level = true;
    std::uint64_t chars = 0, cuts = 0;
    std::uint64_t cycle_of(const sc_core::sc_time& t) const {
        const std::uint64_t c = clock.edge_at_or_after(t);
        return clock.time_of(c) == t ? c : ~0ull;
    }
    void add(std::uint64_t c, bool v) {
        if (v == level) return;
        edges.emplace_back(c, v);
        level = v;
    }
    void line_char(const serial_char& c) override {
        ++chars;
        for (unsigned k = 0; k < c.bits; ++k)
            add(cycle_of(c.edge[k]), c.level(k));
    }
    void line_level(const sc_core::sc_time& t, bool v) override {
        const std::uint64_t at = cycle_of(t);
        bool cut = false;
        while (!edges.empty() && edges.back().first >= at) {
            edges.pop_back();
            cut = true;
        }
        if (cut) ++cuts;
        level = edges.empty() ? true : edges.back().second;
        add(at, v);
    }
    std::vector<std::uint64_t> cycles() const {
        std::vector<std::uint64_t> v;
        for (const auto& e : edges)
            v.push_back(e.first);
        return v;
    }
};

// A PL011 with its lines bound, the script initiator and the recorders (the pin's, and the reported
// characters').
struct tlm_bench {
    sc_core::sc_signal<bool> txd{"txd_sig", true}, irq{"irq_sig"}, nrts{"nrts_sig", true};
    sc_core::sc_signal<bool> txdmasreq{"txdmasreq_sig"}, txdmabreq{"txdmabreq_sig"},
        rxdmasreq{"rxdmasreq_sig"}, rxdmabreq{"rxdmabreq_sig"};
    observed ob;
    pl011 uart;
    script_initiator init;
    output_recorder rec;
    line_edge_recorder line;
    // `rx_chars`: RXD goes to the UART as characters (rx_line()), reported up to `rx_ahead` cycles
    // before their first edge (script_initiator::feed); the pin stays high.
    // `issue_ahead`: the initiator issues accesses ahead of SystemC time where nothing comes first.
    tlm_bench(const pl011_config& cfg, std::vector<bus_op> ops, bool rx_chars = false,
              std::uint64_t rx_ahead = 0, bool issue_ahead = false)
        : uart("uart", cfg)
        , init("init", std::move(ops), cfg.clock_hz, &ob)
        , rec("rec", uart, &ob)
        , line(cfg.clock_hz) {
        uart.report_line(line);
        if (rx_chars) init.rx_chars = &uart.rx_line();
        init.rx_ahead = rx_ahead;
        init.issue_ahead = issue_ahead;
        init.socket.bind(uart.bus);
        uart.ncts(init.ncts);
        uart.nreset(init.nreset);
        uart.ndsr(init.ndsr);
        uart.ndcd(init.ndcd);
        uart.nri(init.nri);
        uart.txdmaclr(init.txdmaclr);
        uart.rxdmaclr(init.rxdmaclr);
        uart.txd(txd);
        uart.irq(irq);
        uart.rxd(init.rxd);
        uart.nrts(nrts);
        uart.txdmasreq(txdmasreq);
        uart.txdmabreq(txdmabreq);
        uart.rxdmasreq(rxdmasreq);
        uart.rxdmabreq(rxdmabreq);
        rec.txd(txd);
        rec.irq(irq);
        rec.nrts(nrts);
        rec.txdmasreq(txdmasreq);
        rec.txdmabreq(txdmabreq);
        rec.rxdmasreq(rxdmasreq);
        rec.rxdmabreq(rxdmabreq);
    }
    void run_to(std::uint64_t end_cycle) {
        sc_core::sc_start(cycle_clock(uart.config().clock_hz).time_of(end_cycle));
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
