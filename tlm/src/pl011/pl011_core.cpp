// SPDX-License-Identifier: Apache-2.0
#include "pl011/pl011_core.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "Vpl011_d16.h"
#include "Vpl011_d16___024root.h"
#include "Vpl011_d16t.h"
#include "Vpl011_d16t___024root.h"
#include "Vpl011_d32.h"
#include "Vpl011_d32___024root.h"
#include "Vpl011_d32t.h"
#include "Vpl011_d32t___024root.h"
#include "verilated.h"
#include "verilated_vcd_c.h"
#if UARTVP_RTL_COVERAGE
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "verilated_cov.h"
#endif

// Verilator 5.006's scheduling steps of the untraced models (generated with external linkage): an
// edge whose inputs did not change since the last evaluation runs them without the input
// combinational region (see verilated_pl011::edge()). Not in coverage builds, whose counts would miss
// the region's runs.
#if VERILATOR_VERSION_INTEGER == 5006000 && !UARTVP_RTL_COVERAGE
#define UARTVP_RTL_EVAL_STEPS_KNOWN 1
#define UARTVP_RTL_EVAL_STEPS(root)                                                                          \
    void root##___eval_triggers__act(root*);                                                                 \
    void root##___eval_act(root*);                                                                           \
    void root##___eval_nba(root*);
UARTVP_RTL_EVAL_STEPS(Vpl011_d16___024root)
UARTVP_RTL_EVAL_STEPS(Vpl011_d32___024root)
#undef UARTVP_RTL_EVAL_STEPS
#endif

namespace uartvp::detail {

namespace {

#if UARTVP_RTL_COVERAGE
// Coverage builds (UARTVP_RTL_COVERAGE, scripts/rtl-coverage): each model's counts go to a file of their
// own, in $UARTVP_RTL_COVERAGE_DIR or else the working directory, named after the process, the copy of
// this code (a test binary links the engine itself and has a second copy inside libuartvp) and the
// model's number in that copy; verilator_coverage merges the files.
void write_coverage(VerilatedContext& ctx) {
    static std::atomic<unsigned> serial{0};
    const char* dir = std::getenv("UARTVP_RTL_COVERAGE_DIR");
    char copy[2 * sizeof(void*) + 1];
    std::snprintf(copy, sizeof copy, "%zx", reinterpret_cast<std::size_t>(&serial));
    const std::string path = std::string(dir && *dir ? dir : ".") + "/coverage-" +
                             std::to_string(::getpid()) + "-" + copy + "-" + std::to_string(serial++) +
                             ".dat";
    ctx.coveragep()->write(path.c_str());
}
#endif

// The file under Verilator's VCD writer, keeping a write failure (a full disk) instead of letting the
// writer see it: Verilator 5.006 reports one through its fatal handler while holding the trace's own
// lock and hangs. What follows a failure is dropped; close_trace() raises it.
class checked_vcd_file final : public VerilatedVcdFile {
public:
    bool open(const std::string& name) override {
        m_fd = ::open(name.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0666);
        return m_fd >= 0;
    }
    void close() override {
        if (m_fd >= 0 && ::close(m_fd) != 0 && !m_errno) m_errno = errno;
        m_fd = -1;
    }
    ssize_t write(const char* bufp, ssize_t len) override {
        for (ssize_t done = 0; !m_errno && done < len;) {
            const ssize_t n = ::write(m_fd, bufp + done, static_cast<std::size_t>(len - done));
            if (n > 0)
                done += n;
            else if (n < 0 && errno == EINTR)
                continue;
            else
                m_errno = n < 0 ? errno : EIO;
        }
        return len; // all of it, as far as the writer knows
    }
    int error() const { return m_errno; }

private:
    int m_fd = -1;
    int m_errno = 0;
};

// Verilator 5 (Debian 12 has 5.006) finds a rising edge by comparing the clock with the value its last
// eval() saw, kept in the model's root as __Vtrigrprev__TOP__clk. Where that member exists, an edge
// sets it low instead of evaluating the model with the clock low first: that evaluation changes nothing
// (no logic uses the falling edge, and the rising edge's evaluation computes the combinational logic
// of the new inputs again before the flops take it). Elsewhere the falling edge is evaluated.
template <class root, class = void> struct knows_last_clock : std::false_type {};
template <class root>
struct knows_last_clock<root, std::void_t<decltype(std::declval<root&>().__Vtrigrprev__TOP__clk)>>
    : std::true_type {};

// An evaluation's steps without the input combinational region, where they are known (Verilator
// 5.006, untraced models); elsewhere `known` is false and eval() does it all.
template <class root> struct eval_steps {
    static constexpr bool known = false;
    static void run(root*) {}
};
#if UARTVP_RTL_EVAL_STEPS_KNOWN
// Verilator's _eval() after its input combinational loop: the active and NBA regions to convergence.
#define UARTVP_RTL_EVAL_STEPS(root)                                                                          \
    template <> struct eval_steps<root> {                                                                    \
        static constexpr bool known = true;                                                                  \
        static void run(root* r) {                                                                           \
            for (bool nba = true; nba;) {                                                                    \
                r->__VnbaTriggered.clear();                                                                  \
                r->__VactIterCount = 0;                                                                      \
                r->__VactContinue = 1;                                                                       \
                while (r->__VactContinue) {                                                                  \
                    r->__VactContinue = 0;                                                                   \
                    ::root##___eval_triggers__act(r);                                                        \
                    if (r->__VactTriggered.any()) {                                                          \
                        r->__VactContinue = 1;                                                               \
                        ++r->__VactIterCount;                                                                \
                        r->__VnbaTriggered.set(r->__VactTriggered);                                          \
                        ::root##___eval_act(r);                                                              \
                    }                                                                                        \
                }                                                                                            \
                nba = r->__VnbaTriggered.any();                                                              \
                if (nba) ::root##___eval_nba(r);                                                             \
            }                                                                                                \
        }                                                                                                    \
    };
UARTVP_RTL_EVAL_STEPS(Vpl011_d16___024root)
UARTVP_RTL_EVAL_STEPS(Vpl011_d32___024root)
#undef UARTVP_RTL_EVAL_STEPS
#endif

// `traced`: the model was verilated with tracing (slower to evaluate, whether traced or not).
template <class model, bool traced> class verilated_pl011 final : public pl011_rtl {
public:
    verilated_pl011()
        : m_ctx(std::make_unique<VerilatedContext>())
        , m_model(std::make_unique<model>(m_ctx.get(), "pl011")) {
        m_model->clk = 1;
        m_model->eval();
    }
    ~verilated_pl011() override {
        end_trace();
        m_model->final();
#if UARTVP_RTL_COVERAGE
        write_coverage(*m_ctx);
#endif
    }
    void open_trace(const std::string& path, const std::string& timescale) override {
        if constexpr (traced) {
            m_ctx->traceEverOn(true);
            m_trace_file = std::make_unique<checked_vcd_file>();
            m_trace = std::make_unique<VerilatedVcdC>(m_trace_file.get());
            m_trace->set_time_resolution(timescale); // the header's $timescale, before open() writes it
            m_trace_path = path;
            m_model->trace(m_trace.get(), 99);
            m_trace->open(path.c_str());
            if (!m_trace->isOpen()) throw std::runtime_error("cannot write " + path);
        } else {
            throw std::logic_error("this PL011 model was built without tracing");
        }
    }
    void dump(std::uint64_t time) override {
        if (m_trace) m_trace->dump(time);
    }
    // Throws std::runtime_error if a write of the trace failed.
    void close_trace() override {
        if (const int err = end_trace())
            throw std::runtime_error("cannot write " + m_trace_path + ": " + std::strerror(err));
    }

    // A settle evaluates with the clock low, which is also what the next rising edge needs to see
    // first: an access (settle, then edge) costs two evaluations, not three. No logic uses the falling
    // edge, and an evaluation takes the inputs before the clock, so this changes nothing else.
    void settle() override {
        const auto t0 = start();
        apply();
        m_model->clk = 0;
        m_model->eval();
        ++evals;
        collect();
        stop(t0);
    }
    // The input combinational region recomputes the logic that depends on the inputs; every evaluation
    // leaves that logic consistent with the inputs and the state it ends with (the NBA region
    // recomputes what depends on state). So where no input changed since the last evaluation (the edge
    // of an access, after the settle that read it), running the region again changes nothing, and the
    // edge runs the active and NBA regions alone.
    void edge() override {
        const auto t0 = start();
        const bool inputs_changed = apply();
        if (m_model->clk) {
            if constexpr (knows_last_clock<root_t>::value) {
                m_model->rootp->__Vtrigrprev__TOP__clk = 0;
            } else {
                m_model->clk = 0;
                m_model->eval();
                ++evals;
            }
        }
        m_model->clk = 1;
        if constexpr (eval_steps<root_t>::known && knows_last_clock<root_t>::value && !traced) {
            if (inputs_changed) {
                m_model->eval();
                ++evals;
            } else {
                eval_steps<root_t>::run(m_model->rootp); // not an eval() call: not counted
            }
        } else {
            m_model->eval();
            ++evals;
        }
        in.div_load = false; // the edge has taken the divider state handed to it
        in.rxd_load = false;
        collect();
        stop(t0);
    }

private:
    using root_t = std::remove_reference_t<decltype(*std::declval<model&>().rootp)>;
    using clock = std::chrono::steady_clock;
    clock::time_point start() const {
        return measure_eval_time ? clock::now() : clock::time_point();
    }
    void stop(clock::time_point t0) {
        if (measure_eval_time) eval_seconds += std::chrono::duration<double>(clock::now() - t0).count();
    }
    // Sets the model's inputs; whether any differs from what the model last saw.
    bool apply() {
        model& m = *m_model;
        bool changed = false;
        const auto set = [&changed](auto& port, auto v) {
            changed |= port != v;
            port = v;
        };
        set(m.rst_n, in.rst_n);
        set(m.sel, in.sel);
        set(m.write, in.write);
        set(m.addr, in.addr);
        set(m.strb, in.strb);
        set(m.wdata, in.wdata);
        set(m.rxd, in.rxd);
        set(m.ncts, in.ncts);
        set(m.ndsr, in.ndsr);
        set(m.ndcd, in.ndcd);
        set(m.nri, in.nri);
        set(m.txdmaclr, in.txdmaclr);
        set(m.rxdmaclr, in.rxdmaclr);
        set(m.fast_fwd, in.fast_fwd);
        set(m.skip_ticks, in.skip_ticks);
        set(m.div_load, in.div_load);
        set(m.div_cnt, in.div_cnt);
        set(m.div_acc, in.div_acc);
        set(m.rxd_load, in.rxd_load);
        set(m.txd_unseen, in.txd_unseen);
        return changed;
    }
    void collect() {
        const model& m = *m_model;
        pl011_outputs& o = m_out;
        o.rdata = m.rdata;
        o.rd_err = m.rd_err;
        o.wr_err = m.wr_err;
        o.txd = m.txd;
        o.nrts = m.nrts;
        o.ndtr = m.ndtr;
        o.nout1 = m.nout1;
        o.nout2 = m.nout2;
        o.intr = m.intr;
        o.txdmasreq = m.txdmasreq;
        o.txdmabreq = m.txdmabreq;
        o.rxdmasreq = m.rxdmasreq;
        o.rxdmabreq = m.rxdmabreq;
        o.tx_level = m.tx_level;
        o.rx_level = m.rx_level;
        o.flags = m.flags;
        o.b16_wait = m.b16_wait;
        o.b16_acc = m.b16_acc;
        if (in.div_load) { // the registers are behind: the state handed to the next edge is the present
            o.b16_wait = in.div_cnt;
            o.b16_acc = in.div_acc;
        }
        o.baud_div = m.baud_div;
        o.ev_ticks = m.ev_ticks;
        o.out_ticks = m.out_ticks;
        o.reg_ticks = m.reg_ticks;
        o.busy_ticks = m.busy_ticks;
        o.rx_busy = m.rx_busy;
        o.rx_frame_ticks = m.rx_frame_ticks;
        o.synced = m.synced;
        o.quiet = m.quiet;
        o.tx_started = m.tx_started;
        o.tx_line_bits = m.tx_line_bits;
        o.tx_bits_left = m.tx_bits_left;
        o.tx_in_char = m.tx_in_char;
        o.tx_format = m.tx_format;
    }
    // Closes the trace; the error of a failed write, or 0.
    int end_trace() {
        if (!m_trace) return 0;
        m_trace->close();
        m_trace.reset();
        const int err = m_trace_file->error();
        m_trace_file.reset();
        return err;
    }
    std::unique_ptr<VerilatedContext> m_ctx;
    std::unique_ptr<model> m_model;
    std::unique_ptr<checked_vcd_file> m_trace_file; // outlives m_trace, which writes through it
    std::unique_ptr<VerilatedVcdC> m_trace;
    std::string m_trace_path;
};

// The Baud16 periods after the next enable, as the RTL's divider makes them: IBRD cycles, one more
// whenever the 6-bit fractional accumulator carries. The carries of j periods add up to
// floor((acc + j FBRD) / 64), so j periods span j IBRD + that many cycles.
class baud16_periods {
public:
    explicit baud16_periods(const pl011_outputs& o)
        : m_ibrd(o.baud_div >> 6)
        , m_fbrd(o.baud_div & 0x3F)
        , m_acc(o.b16_acc) {}
    std::uint64_t span(std::uint64_t j) const { return j * m_ibrd + (m_acc + j * m_fbrd) / 64; }
    // The most periods, up to `most`, that fit in `cycles`.
    std::uint64_t fitting(std::uint64_t cycles, std::uint64_t most) const {
        // The mean period is (64 IBRD + FBRD) / 64: this j never overshoots by more than a step.
        std::uint64_t j = std::min<std::uint64_t>(most, cycles * 64 / (64 * m_ibrd + m_fbrd));
        while (j > 0 && span(j) > cycles)
            --j;
        while (j < most && span(j + 1) <= cycles)
            ++j;
        return j;
    }

private:
    std::uint64_t m_ibrd, m_fbrd, m_acc;
};

} // namespace

std::unique_ptr<pl011_rtl> pl011_rtl::create(unsigned fifo_depth, bool traceable) {
    std::unique_ptr<pl011_rtl> rtl;
    if (fifo_depth == 32 && traceable)
        rtl = std::make_unique<verilated_pl011<Vpl011_d32t, true>>();
    else if (fifo_depth == 32)
        rtl = std::make_unique<verilated_pl011<Vpl011_d32, false>>();
    else if (fifo_depth == 16 && traceable)
        rtl = std::make_unique<verilated_pl011<Vpl011_d16t, true>>();
    else if (fifo_depth == 16)
        rtl = std::make_unique<verilated_pl011<Vpl011_d16, false>>();
    else
        throw std::invalid_argument("PL011 FIFO depth must be 16 or 32");
    rtl->reset();
    return rtl;
}

// The divider's counter and accumulator `n` cycles on, as the RTL runs it: enables at `cnt`, then at
// `cnt` + m * IBRD + floor((acc + m * FBRD) / 64) for m = 1, 2, ... (the carries of the accumulator add
// up to that floor); after an enable the counter holds the cycles to the next one.
static std::pair<std::uint32_t, std::uint8_t>
divider_after(std::uint64_t cnt, std::uint64_t acc, std::uint64_t ibrd, std::uint64_t fbrd, std::uint64_t n) {
    if (n < cnt) return {static_cast<std::uint32_t>(cnt - n), static_cast<std::uint8_t>(acc)};
    using u128 = unsigned __int128;
    const std::uint64_t past_first = n - cnt;
    auto to_enable = [&](std::uint64_t m) { // cycles from the first enable to the (m+1)-th
        return static_cast<std::uint64_t>(u128(m) * ibrd + (acc + u128(m) * fbrd) / 64);
    };
    // The mean period is (64 IBRD + FBRD) / 64: this m never overshoots, and falls short by a step or two.
    std::uint64_t m = static_cast<std::uint64_t>(u128(past_first) * 64 / (64 * ibrd + fbrd));
    while (to_enable(m + 1) <= past_first)
        ++m;
    // The last enable was the (m+1)-th; the next one is the (m+2)-th.
    return {static_cast<std::uint32_t>(cnt + to_enable(m + 1) - n),
            static_cast<std::uint8_t>((acc + u128(m + 1) * fbrd) % 64)};
}

void pl011_rtl::skip_divider(std::uint64_t cycles) {
    const std::uint32_t ibrd = m_out.baud_div >> 6, fbrd = m_out.baud_div & 0x3F;
    if (ibrd == 0 || cycles == 0) return; // no valid divisor: the divider stands still
    const auto [cnt, acc] = divider_after(m_out.b16_wait, m_out.b16_acc, ibrd, fbrd, cycles);
    in.div_load = true;
    in.div_cnt = cnt;
    in.div_acc = acc;
    m_out.b16_wait = cnt;
    m_out.b16_acc = acc;
}

void pl011_rtl::reset() {
    const bool was = in.rst_n;
    in.rst_n = false;
    edge();
    in.rst_n = was;
    settle();
}

pl011_core::pl011_core(unsigned fifo_depth, bool clock_every_cycle, bool traceable)
    : m_rtl(pl011_rtl::create(fifo_depth, traceable))
    , m_every_cycle(clock_every_cycle) {}

void pl011_core::trace_rtl(const std::string& path, edge_time_fn time_of, void* ctx,
                           const std::string& timescale) {
    m_rtl->open_trace(path, timescale);
    m_trace_time = time_of;
    m_trace_ctx = ctx;
    dump();
}

// Each edge's time is asked for when the edge is evaluated, however late that is (edges are evaluated
// lazily, and a skip lands on an edge many cycles on): the clock keeps the times of its past periods.
void pl011_core::dump() {
    if (m_trace_time) m_rtl->dump(m_trace_time(m_trace_ctx, m_cycle));
}

// One evaluated edge standing for `counts_as` cycles of the divider counting down (no enable among them).
void pl011_core::edge(std::uint64_t counts_as) {
    if (counts_as > 1) m_rtl->in.fast_fwd = static_cast<std::uint32_t>(counts_as);
    m_rtl->edge();
    m_rtl->in.fast_fwd = 0;
    m_cycle += counts_as;
    ++m_edges;
    m_reset_before = counts_as > 1 ? false : m_reset_done;
    m_reset_done = !m_rtl->in.rst_n;
    dump();
    if (m_tx_cb) after_edge();
}

// One evaluated edge that is the `ticks`-th Baud16 enable from now and `after` divider cycles past it
// (before the next enable), `counts_as` cycles ahead.
void pl011_core::jump(std::uint64_t counts_as, unsigned ticks, std::uint64_t after) {
    if (counts_as > 1 || ticks > 1) m_rtl->in.skip_ticks = static_cast<std::uint8_t>(ticks);
    m_rtl->in.fast_fwd = static_cast<std::uint32_t>(after);
    m_rtl->edge();
    m_rtl->in.skip_ticks = 0;
    m_rtl->in.fast_fwd = 0;
    m_cycle += counts_as;
    ++m_edges;
    m_reset_before = counts_as > 1 ? false : m_reset_done;
    m_reset_done = !m_rtl->in.rst_n;
    dump();
    if (m_tx_cb) after_edge();
}

void pl011_core::after_edge() {
    const pl011_outputs& o = out();
    tx_line_event e;
    e.cycle = m_cycle;
    if (!m_rtl->in.rst_n) { // a reset edge: the line goes high here, whatever was on it
        if (m_tx_end > m_cycle) {
            e.kind = tx_line_event::cut;
            m_tx_cb(m_tx_ctx, e);
        }
        m_tx_end = 0;
        return;
    }
    if (!o.tx_started) return;
    // Bit k begins at the 16k-th Baud16 enable after the start edge. The divisor cannot change while a
    // character is in progress, so the divider's closed form gives them all.
    e.kind = tx_line_event::start;
    e.bits = o.tx_bits_left + 1u;
    e.levels = static_cast<std::uint16_t>(o.tx_line_bits & ((1u << e.bits) - 1));
    const baud16_periods periods(o);
    e.bit_edge[0] = m_cycle;
    for (unsigned k = 1; k <= e.bits; ++k)
        e.bit_edge[k] = m_cycle + o.b16_wait + periods.span(16 * k - 1);
    e.format = o.tx_format;
    m_tx_end = e.bit_edge[e.bits];
    m_tx_cb(m_tx_ctx, e);
}

void pl011_core::rxd_change(std::uint64_t after, bool v) {
    const std::uint64_t at = after + 2; // the first stage takes it at after + 1, the second one edge later
    if (!m_rxd.empty() && m_rxd.back().at == at)
        m_rxd.back().value = v; // two changes before one edge: the edge sees the last
    else
        m_rxd.push_back({at, v});
}

void pl011_core::catch_up(std::uint64_t target) {
    while (!m_rxd.empty() && m_rxd.front().at <= target) {
        const pending_rxd c = m_rxd.front();
        m_rxd.pop_front();
        advance(c.at, &c.value);
    }
    advance(target, nullptr);
}

// Up to `target`; with `load`, the edge landing on it loads RXD *load into the synchroniser.
void pl011_core::advance(std::uint64_t target, const bool* load) {
    pl011_inputs& in = m_rtl->in;
    auto arm = [&](std::uint64_t lands_on) {
        if (load && lands_on == target) {
            in.rxd = *load;
            // The second stage takes what the first took one edge before: nothing of it if that edge
            // was held in reset (the stages then hold their reset value).
            in.rxd_load = !(lands_on == m_cycle + 1 && m_reset_done);
        }
    };
    while (m_cycle < target) {
        const pl011_outputs& o = out();
        const std::uint64_t left = target - m_cycle;
        if (!in.rst_n && m_reset_done && !m_every_cycle) {
            m_cycle = target; // held in reset: the state stays the reset state (its synchroniser too)
            m_reset_before = true;
            if (load) {
                in.rxd = *load; // the stages hold their reset value; the outputs show the input
                m_rtl->settle();
            }
        } else if (m_every_cycle || !o.synced || !in.rst_n) {
            arm(m_cycle + 1);
            edge(1);
        } else if (o.quiet && !load) {
            // Nothing changes on these edges but the divider, whose state is computed.
            m_rtl->skip_divider(left);
            m_cycle = target;
            m_reset_before = left > 1 ? false : m_reset_done;
            m_reset_done = false;
        } else if (o.quiet && left > 1) {
            m_rtl->skip_divider(left - 1); // and the load's own edge evaluated
            m_cycle = target - 1;
            m_reset_before = left > 2 ? false : m_reset_done;
            m_reset_done = false;
        } else if (o.b16_wait > left) {
            // The divider alone counts down to `target`, before the next Baud16 enable.
            arm(target);
            edge(left);
        } else if (o.b16_wait > 0) {
            // Jump to a Baud16 enable: the next one, or, when the enables up to the end of the bit only
            // count into it, the last of those that fits before `target` (at most the bit's end).
            const unsigned most = std::max<unsigned>(1, o.ev_ticks);
            const baud16_periods periods(o);
            const std::uint64_t more = periods.fitting(left - o.b16_wait, most - 1);
            const std::uint64_t cycles = o.b16_wait + periods.span(more);
            // Where every enable passed only counts (fewer than ev_ticks: the next enable lies past
            // `target`), the same edge also counts the divider down to `target`: one evaluation
            // where a jump and a plain countdown would take two (an RXD load's edge, say).
            const std::uint64_t after = more + 1 < most && !m_every_cycle ? left - cycles : 0;
            arm(m_cycle + cycles + after);
            jump(cycles + after, static_cast<unsigned>(more + 1), after);
        } else {
            arm(m_cycle + 1);
            edge(1);
        }
    }
}

std::uint64_t pl011_core::next_event_cycle(std::uint64_t falling_load_at) const {
    const pl011_outputs& o = out();
    std::uint64_t next = next_change(o.out_ticks);
    // A receiver past its start bit's decision ends its character only at the stop bit's, which the
    // outputs plan for; planning again there covers what comes after. Otherwise a falling RXD may start
    // a character: at the first enable that sees it (after the edge that loads it), the earliest; its
    // first output change rx_frame_ticks enables later. (Anything that delays that start, a character
    // in progress or a receiver off, only makes the plan early.)
    if (o.rx_busy) return next;
    std::uint64_t load = falling_load_at;
    for (const pending_rxd& c : m_rxd)
        if (!c.value) {
            load = c.at;
            break;
        }
    if (load == std::numeric_limits<std::uint64_t>::max()) return next;
    std::uint64_t at = load;
    if (m_rtl->in.rst_n && o.synced && o.b16_wait > 0) {
        const baud16_periods periods(o);
        const std::uint64_t first = m_cycle + o.b16_wait; // the next enable
        // The first enable after the load: j periods after `first`.
        const std::uint64_t j =
            first > load ? 0 : periods.fitting(load - first, std::numeric_limits<std::uint32_t>::max()) + 1;
        at = first + periods.span(j + o.rx_frame_ticks);
    }
    return std::min(next, at);
}

bool pl011_core::read_needs_catch_up(std::uint64_t present) const {
    // Up to the next edge at which more than counters change, the model's registers and its promise
    // are those of any edge before: no catch-up. ev_ticks at its top is a horizon, not an event
    // (nothing for at least that many enables), and a promise counts from the present.
    return out().ev_ticks == 255 || next_change(out().ev_ticks) <= present ||
           (!m_rxd.empty() && m_rxd.front().at <= present);
}

std::uint64_t pl011_core::next_register_change(std::uint64_t present) const {
    // With RXD changes still to load, this model's first stage and input lag plain clocking's: a
    // promise is what plain clocking's synchroniser gives at edge q. Held in reset it gives none.
    if (!m_rxd.empty() && m_rtl->in.rst_n) {
        const std::uint64_t q = std::max(m_cycle, present);
        // Edges after the model's were taken with the present reset input.
        auto reset_at = [&](std::uint64_t k) {
            return k > m_cycle ? !m_rtl->in.rst_n : k == m_cycle ? m_reset_done : m_reset_before;
        };
        auto raw_at = [&](std::uint64_t k) { // RXD as edge k sees it (each change seen from at - 1)
            bool v = m_rtl->in.rxd;
            for (const pending_rxd& c : m_rxd)
                if (c.at <= k + 1) v = c.value;
            return v;
        };
        const bool s1 = reset_at(q) || raw_at(q);
        const bool s2 = reset_at(q) || reset_at(q - 1) || raw_at(q - 1);
        if (raw_at(q + 1) != s1 || s1 != s2) return q + 1; // not settled: only the next edge
    }
    return next_change(out().reg_ticks);
}

std::uint64_t pl011_core::next_fr_change(std::uint64_t present, std::uint32_t mask) const {
    const std::uint64_t whole = next_register_change(present);
    constexpr std::uint32_t busy = 1u << 3, txff = 1u << 5, txfe = 1u << 7;
    if (mask == 0 || (mask & ~(busy | txff | txfe)) || whole == std::numeric_limits<std::uint64_t>::max())
        return whole;
    const pl011_outputs& o = out();
    // Only writes fill the TX FIFO: BUSY and TXFF clear and TXFE set hold until one (or an input change
    // or a reset, which break the promise). Otherwise each bit holds until its transmitter event:
    // BUSY's fall no earlier than busy_ticks, TXFF's and TXFE's at the next character start (reg_ticks'
    // transmitter part).
    // The next start: where the character in the shifter ends, else at the next enable if one can
    // start (busy_ticks is then below its top), else not before busy_ticks' horizon.
    const unsigned start_ticks = o.tx_in_char || o.busy_ticks == 255 ? o.busy_ticks : 1;
    std::uint64_t until = std::numeric_limits<std::uint64_t>::max();
    if ((mask & busy) && (o.flags & busy)) until = std::min(until, next_change(o.busy_ticks));
    if (((mask & txff) && (o.flags & txff)) || ((mask & txfe) && !(o.flags & txfe)))
        until = std::min(until, next_change(start_ticks));
    return std::max(whole, until);
}

std::uint64_t pl011_core::next_change(unsigned ticks) const {
    const pl011_outputs& o = out();
    if (!m_rtl->in.rst_n) return m_reset_done ? std::numeric_limits<std::uint64_t>::max() : m_cycle + 1;
    if (!o.synced) return m_cycle + 1;
    if (o.quiet) return std::numeric_limits<std::uint64_t>::max();
    if (o.b16_wait == 0) return m_cycle + 1; // no divisor in force: a plain edge settles what is left
    // The `ticks`-th Baud16 enable from now: the divider's current count, then whole periods of
    // IBRD cycles, one more whenever the fractional accumulator carries (as the RTL computes them).
    return m_cycle + o.b16_wait + baud16_periods(o).span(ticks > 0 ? ticks - 1 : 0);
}

bus_result pl011_core::access(std::uint64_t at, bool write, std::uint16_t word, std::uint8_t strb,
                              std::uint32_t& data, std::uint64_t* stable_until) {
    catch_up(at - 1);
    if (stable_until) *stable_until = next_register_change(at - 1);
    pl011_inputs& in = m_rtl->in;
    in.sel = true;
    in.write = write;
    in.addr = word;
    in.strb = write ? strb : 0;
    in.wdata = write ? data : 0;
    m_rtl->settle();
    const pl011_outputs& o = out();
    bus_result r = bus_result::ok;
    // Neither readable nor writable: outside the map. Only one of them: the wrong direction.
    if (o.rd_err && o.wr_err)
        r = bus_result::address_error;
    else if (write ? o.wr_err : o.rd_err)
        r = bus_result::command_error;
    if (r == bus_result::ok) {
        if (!write) data = o.rdata;
        if (!m_rxd.empty() && m_rxd.front().at == at) { // an RXD change loaded on this very edge
            in.rxd = m_rxd.front().value;
            in.rxd_load = !m_reset_done;
            m_rxd.pop_front();
        }
        edge(1);
    }
    // The next edge or settle applies these; the outputs that matter come from registers.
    in.sel = false;
    in.write = false;
    in.strb = 0;
    in.wdata = 0;
    return r;
}

bus_result pl011_core::peek(std::uint16_t word, std::uint32_t& data) {
    if (word == fr_word && !m_every_cycle) {
        data = out().flags; // FR is the RTL's flags output: no evaluation needed
        return bus_result::ok;
    }
    // rdata and the error flags follow `addr` combinationally; the next edge is a plain one anyway
    // (sel low), so `addr` may stay.
    m_rtl->in.addr = word;
    m_rtl->settle();
    const pl011_outputs& o = out();
    data = o.rdata;
    if (o.rd_err && o.wr_err) return bus_result::address_error;
    return o.rd_err ? bus_result::command_error : bus_result::ok;
}

} // namespace uartvp::detail
