// SPDX-License-Identifier: Apache-2.0
#pragma once
// The cycle-level engine behind uartvp::pl011: the verilated PL011 and the rules that let it skip
// UARTCLK cycles without changing what it does. Plain C++ (no SystemC), internal to the library; the
// equivalence tests drive it side by side with plain cycle-by-cycle clocking of the same RTL.
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <string>

namespace uartvp::detail {

// The RTL's ports, as plain values.
struct pl011_inputs {
    bool rst_n = true;
    bool sel = false;
    bool write = false;
    std::uint16_t addr = 0; // word index
    std::uint8_t strb = 0;
    std::uint32_t wdata = 0;
    bool rxd = true;
    bool ncts = true, ndsr = true, ndcd = true, nri = true;
    bool txdmaclr = false, rxdmaclr = false;
    std::uint32_t fast_fwd = 0;
    std::uint8_t skip_ticks = 0;
    // The divider's state, computed for cycles skipped without evaluation (see pl011_rtl::skip_divider).
    bool div_load = false;
    std::uint32_t div_cnt = 0;
    std::uint8_t div_acc = 0;
    // The synchroniser's second stage takes RXD at the next edge, as the first does (rxd_change()).
    bool rxd_load = false;
    // Nobody reads TXD between evaluated edges: skips pass its edges inside a character.
    bool txd_unseen = false;
};

struct pl011_outputs {
    std::uint32_t rdata = 0;
    bool rd_err = false, wr_err = false;
    bool txd = true;
    bool nrts = true, ndtr = true, nout1 = true, nout2 = true;
    bool intr = false;
    bool txdmasreq = false, txdmabreq = false, rxdmasreq = false, rxdmabreq = false;
    std::uint8_t tx_level = 0, rx_level = 0;
    std::uint16_t flags = 0;
    std::uint32_t b16_wait = 0;
    std::uint8_t b16_acc = 0;
    std::uint32_t baud_div = 0;
    std::uint8_t ev_ticks = 0;
    std::uint8_t out_ticks = 0;
    std::uint8_t reg_ticks = 0;
    std::uint8_t busy_ticks = 0; // enables until BUSY can fall (while set)
    bool rx_busy = false;
    std::uint8_t rx_frame_ticks = 0;
    bool synced = true;
    bool quiet = true;
    bool tx_started = false;        // the last edge started a character
    std::uint16_t tx_line_bits = 0; // the character in progress from the bit on TXD, LSB first
    std::uint8_t tx_bits_left = 0;  // its bits after the one on TXD
    bool tx_in_char = false;
    std::uint8_t tx_format = 0; // {WLEN, PEN, STP2} of the character in progress
};

// What the transmitter puts on the line, found at the evaluated edge where it happens.
struct tx_line_event {
    enum kind_t { start, cut } kind = start;
    std::uint64_t cycle = 0; // the edge
    // start: the frame from its start bit, LSB first, its bits (start and stop bits included), and the
    // edge at which each begins (bit_edge[bits]: the edge that ends the last stop bit).
    std::uint16_t levels = 0;
    unsigned bits = 0;
    std::uint64_t bit_edge[13] = {};
    std::uint8_t format = 0; // {WLEN, PEN, STP2} as LCR_H had them at the start
};

// One verilated PL011 (16- or 32-entry FIFOs), clocked edge by edge.
class pl011_rtl {
public:
    // `traceable`: the model verilated with tracing, which open_trace() needs; the other evaluates
    // faster. Throws std::invalid_argument for a depth other than 16 or 32.
    static std::unique_ptr<pl011_rtl> create(unsigned fifo_depth, bool traceable = false);
    virtual ~pl011_rtl() = default;

    pl011_inputs in;
    const pl011_outputs& out() const { return m_out; }
    // Settle the combinational logic for the current inputs, without a clock edge.
    virtual void settle() = 0;
    // One rising edge of UARTCLK with the current inputs.
    virtual void edge() = 0;
    // Hold reset over one edge; the state afterwards is "cycle 0".
    void reset();
    // `cycles` quiet cycles pass without evaluation: nothing changes but the free-running Baud16
    // divider, whose state after them is computed here and handed to the next edge (which consumes it,
    // clearing in.div_load); the divider outputs show it from now on.
    void skip_divider(std::uint64_t cycles);
    // A full trace of the RTL into a VCD (Verilator's own writer), its times in units of `timescale`
    // ("1ps", "100fs", ...); dump() records the state at a time, later than the last dump's.
    virtual void open_trace(const std::string& path, const std::string& timescale) = 0;
    virtual void dump(std::uint64_t time) = 0;
    virtual void close_trace() = 0;
    // Wall-clock seconds spent evaluating the RTL, when measure_eval_time is on (for the benchmark).
    bool measure_eval_time = false;
    double eval_seconds = 0;
    std::uint64_t evals = 0; // calls of the model's eval(), for the benchmark's counts

protected:
    pl011_outputs m_out;
};

enum class bus_result { ok, address_error, command_error };

// The cycle-exact engine: the model is at `cycle()` (the state after that many UARTCLK edges since
// reset). Bus accesses and input changes land on chosen edges; catch_up() advances to an edge, skipping
// what the RTL says cannot change anything unless `clock_every_cycle` asks for plain clocking.
class pl011_core {
public:
    static constexpr std::uint16_t fr_word = 0x018 >> 2; // UARTFR
    // `traceable`: built on the model with tracing compiled in, for trace_rtl().
    pl011_core(unsigned fifo_depth, bool clock_every_cycle, bool traceable = false);
    // Trace every evaluated edge of the RTL into `path`, edge n at `time_of(ctx, n)` in units of
    // `timescale`: the caller's clock decides, so the trace keeps each edge's own time however that
    // clock's period changes (times must rise with n; an edge's must not change once evaluated). In
    // fast mode only the evaluated edges appear: skipped cycles hold their values, counters jump.
    using edge_time_fn = std::uint64_t (*)(void* ctx, std::uint64_t edge);
    void trace_rtl(const std::string& path, edge_time_fn time_of, void* ctx,
                   const std::string& timescale = "1ps");
    void close_rtl_trace() {
        if (m_trace_time) m_rtl->close_trace();
        m_trace_time = nullptr;
    }

    std::uint64_t cycle() const { return m_cycle; }
    const pl011_outputs& out() const { return m_rtl->out(); }
    pl011_inputs& inputs() { return m_rtl->in; }
    // Settle the outputs after inputs() changed (no edge).
    void settle() { m_rtl->settle(); }

    // Advance to edge `target` (no-op if already there or past it).
    void catch_up(std::uint64_t target);
    // RXD changes to `v` for the edges after `after` (>= cycle()), as if set in inputs() there. Applied
    // at the next catch_up() past it, without the synchroniser's edges: RXD is held until the edge at
    // which the second stage would take the change, and that edge loads both stages (rxd_load). Fast
    // mode only; the other inputs keep inputs() and settle().
    void rxd_change(std::uint64_t after, bool v);
    // The next edge at which an output can change with the inputs as they are, or at which a character
    // that a falling RXD not yet applied may start can first change one; UINT64_MAX if none.
    std::uint64_t next_event_cycle() const {
        return next_event_cycle(std::numeric_limits<std::uint64_t>::max());
    }
    // The same, with a falling RXD not yet handed over (a character reported ahead of its time) that
    // would be loaded at edge `falling_load_at`: planned from as the first falling change if no change
    // handed over falls (UINT64_MAX: none).
    std::uint64_t next_event_cycle(std::uint64_t falling_load_at) const;
    // Whether a read without side effects at edge `present` needs the model caught up first: else the
    // model, behind, answers and promises as it would there (fast mode).
    bool read_needs_catch_up(std::uint64_t present) const;
    // The next edge at which a register's value can change, without bus writes or input changes, for
    // a read at edge `present` (>= cycle() unless !read_needs_catch_up(present)). While an RXD change
    // waits to be loaded, the next edge: where plain clocking has its synchroniser unsettled, and says so.
    std::uint64_t next_register_change(std::uint64_t present) const;
    // The same for the bits `mask` of FR only (0: all of FR): no earlier than next_register_change(),
    // later where the transmitter's state proves those bits hold longer (BUSY set until the character
    // in the shifter ends, TXFF set until the next character starts, BUSY and TXFF clear and TXFE set
    // until a write). Bits of the receiver and the modem lines hold no longer than the whole value.
    std::uint64_t next_fr_change(std::uint64_t present, std::uint32_t mask) const;
    // One register access on edge `at` (> cycle()): byte offset `word << 2`, lanes `strb`. A read
    // returns the 32-bit register as it was before that edge. Errors leave the model untouched.
    // `stable_until`, if given, receives the first edge at which the value read could differ (for a
    // read without side effects), UINT64_MAX if never (until a write or an input change).
    bus_result access(std::uint64_t at, bool write, std::uint16_t word, std::uint8_t strb,
                      std::uint32_t& data, std::uint64_t* stable_until = nullptr);
    // Read a register without side effects (debug transport): no edge, no FIFO pop.
    bus_result peek(std::uint16_t word, std::uint32_t& data);

    // Called at each evaluated edge that starts a character on TXD, and at a reset edge that cuts one
    // short (the line high from there). Set once, before the first edge that matters.
    void on_tx_line(void (*cb)(void*, const tx_line_event&), void* ctx) {
        m_tx_cb = cb;
        m_tx_ctx = ctx;
    }
    // Let skips pass TXD's edges inside a character (nobody reads the pin between evaluated edges).
    void txd_unseen(bool on) { m_rtl->in.txd_unseen = on && !m_every_cycle; }

    // RTL edges evaluated, and the wall-clock time that took if measured, for benchmarks.
    std::uint64_t edges_evaluated() const { return m_edges; }
    void measure_eval_time(bool on) { m_rtl->measure_eval_time = on; }
    double eval_seconds() const { return m_rtl->eval_seconds; }
    std::uint64_t evals() const { return m_rtl->evals; }

private:
    std::uint64_t next_change(unsigned ticks) const;
    void advance(std::uint64_t target, const bool* rxd_load);
    struct pending_rxd {
        std::uint64_t at; // the edge that loads it
        bool value;
    };
    std::deque<pending_rxd> m_rxd; // RXD changes not yet applied, in order
    void edge(std::uint64_t counts_as);
    void jump(std::uint64_t counts_as, unsigned ticks, std::uint64_t after = 0);
    std::unique_ptr<pl011_rtl> m_rtl;
    bool m_every_cycle;
    std::uint64_t m_cycle = 0;
    std::uint64_t m_edges = 0;
    // The edge the model is at was taken with reset asserted (more such edges change nothing), and the
    // one before it.
    bool m_reset_done = false;
    bool m_reset_before = false;
    edge_time_fn m_trace_time = nullptr; // tracing the RTL when set
    void* m_trace_ctx = nullptr;
    void (*m_tx_cb)(void*, const tx_line_event&) = nullptr;
    void* m_tx_ctx = nullptr;
    std::uint64_t m_tx_end = 0; // the edge that ends the character on TXD (0: none in progress)
    void after_edge();          // reports what the edge did on TXD
    void dump();                // the state at this cycle into the RTL trace
};

} // namespace uartvp::detail
