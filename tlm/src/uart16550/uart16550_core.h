// SPDX-License-Identifier: Apache-2.0
#pragma once
// The 16550 (and the BCM2835 mini UART) as plain C++, apart from its TLM wrapper (uart16550.cpp), as
// the PL011's engine is apart from its wrapper: the registers, the FIFOs, the transmitter and receiver
// between bus accesses, each event at its own time. Internal to libuartvp.
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include <systemc>

#include <uartvp/cycle_clock.h>
#include <uartvp/read_promise.h>
#include <uartvp/serial_line.h>
#include <uartvp/uart16550.h>

namespace uartvp {

using namespace sc_core;

namespace detail {
// Parts of the core alone (the registers, the line's framing, the FIFOs), apart from the PL011's.
inline namespace uart16550_parts {

// Register indices (DLAB=0), each with its reset value (MR). DLL/DLM and SCR are not reset.
struct reg_def {
    unsigned index;
    std::uint8_t reset;
};
constexpr reg_def RBR_THR{0, 0x00}, IER{1, 0x00}, IIR_FCR{2, 0x01}, LCR{3, 0x00}, MCR{4, 0x00}, LSR{5, 0x60},
    MSR{6, 0x00}, SCR{7, 0x00};
constexpr unsigned DLL = 0, DLM = 1; // with LCR.DLAB

// Bit fields, datasheet names.
constexpr std::uint8_t IER_ERBFI = 0x01, IER_ETBEI = 0x02, IER_ELSI = 0x04, IER_EDSSI = 0x08;
constexpr std::uint8_t IIR_NO_INT = 0x01, IIR_RLS = 0x06, IIR_RDA = 0x04, IIR_CTI = 0x0C, IIR_THRI = 0x02,
                       IIR_MS = 0x00, IIR_FIFOS = 0xC0;
constexpr std::uint8_t FCR_ENABLE = 0x01, FCR_CLEAR_RX = 0x02, FCR_CLEAR_TX = 0x04, FCR_DMA = 0x08;
constexpr std::uint8_t LCR_WLS = 0x03, LCR_STB = 0x04, LCR_PEN = 0x08, LCR_EPS = 0x10, LCR_STICK = 0x20,
                       LCR_BREAK = 0x40, LCR_DLAB = 0x80;
constexpr std::uint8_t MCR_DTR = 0x01, MCR_RTS = 0x02, MCR_OUT1 = 0x04, MCR_OUT2 = 0x08, MCR_LOOP = 0x10;
constexpr std::uint8_t LSR_DR = 0x01, LSR_OE = 0x02, LSR_PE = 0x04, LSR_FE = 0x08, LSR_BI = 0x10,
                       LSR_THRE = 0x20, LSR_TEMT = 0x40, LSR_FIFOE = 0x80;
constexpr std::uint8_t MSR_DCTS = 0x01, MSR_DDSR = 0x02, MSR_TERI = 0x04, MSR_DDCD = 0x08;

constexpr std::size_t fifo_depth = 16;
constexpr std::size_t mini_fifo_depth = 8; // BCM2835 AUX mini UART: 8-entry TX and RX FIFOs
constexpr unsigned rx_trigger_levels[4] = {1, 4, 8, 14};
// "No such time". Not an sc_time object: one built before sc_main would fix SystemC's time resolution
// and make sc_set_time_resolution() fail in every program that links the library.
struct never_t {
    operator const sc_time&() const {
        static const sc_time t = sc_max_time(); // built at first use, with the resolution already set
        return t;
    }
};
constexpr never_t never{};

// A frame format as LCR and the divisor give it, in XIN cycles.
struct frame_format {
    unsigned data_bits = 5;
    bool parity = false;
    std::uint8_t lcr = 0;
    std::uint64_t bit = 16; // XIN cycles per bit: 16 BAUDOUT cycles of `divisor` XIN cycles
    unsigned stop_half = 2; // stop bits x 2: 2, 3 (1.5 with 5-bit words) or 4

    static frame_format from(std::uint8_t lcr, std::uint32_t divisor, bool mini) {
        frame_format f;
        f.lcr = lcr;
        if (mini) { // AUX_MU_LCR data size: 8 bits with both low bits set, else 7; no parity, 1 stop bit
            f.data_bits = (lcr & LCR_WLS) == LCR_WLS ? 8 : 7;
            f.bit = 8ull * (divisor + 1); // baud = system clock / (8 x (AUX_MU_BAUD + 1))
            return f;
        }
        f.data_bits = 5 + (lcr & LCR_WLS);
        f.parity = lcr & LCR_PEN;
        f.bit = 16ull * (divisor ? divisor : 65536u);
        f.stop_half = !(lcr & LCR_STB) ? 2 : f.data_bits == 5 ? 3 : 4;
        return f;
    }
    unsigned bits_before_stop() const { return 1 + data_bits + (parity ? 1 : 0); }
    std::uint64_t length() const { return bits_before_stop() * bit + stop_half * bit / 2; }
    bool parity_bit(std::uint8_t data) const {
        if (lcr & LCR_STICK) return !(lcr & LCR_EPS); // stick: EPS=1 sends 0, EPS=0 sends 1
        const bool odd_ones = __builtin_popcount(data & ((1u << data_bits) - 1)) & 1;
        return (lcr & LCR_EPS) ? odd_ones : !odd_ones;
    }
};

struct tx_frame {
    std::uint64_t start = 0, end = 0, bit = 16; // XIN cycles
    unsigned n = 0;                             // bits before the stop bit(s)
    std::uint32_t levels = 0;                   // bit k (k < n), start bit first
    frame_format f;                             // the format it is sent in
    std::uint8_t data = 0;
    bool level(unsigned k) const { return k < n ? (levels >> k) & 1 : true; }
};

// A FIFO of at most fifo_depth entries in place: copying the state (a promise runs a copy forward)
// allocates nothing.
template <class T> class small_fifo {
public:
    bool empty() const { return m_size == 0; }
    std::size_t size() const { return m_size; }
    T& front() { return m_v[m_head]; }
    const T& front() const { return m_v[m_head]; }
    T& back() { return m_v[(m_head + m_size - 1) % fifo_depth]; }
    const T& operator[](std::size_t i) const { return m_v[(m_head + i) % fifo_depth]; }
    void push_back(const T& v) { m_v[(m_head + m_size++) % fifo_depth] = v; } // callers check size()
    void pop_front() {
        m_head = (m_head + 1) % fifo_depth;
        --m_size;
    }
    void clear() { m_head = m_size = 0; }

private:
    std::array<T, fifo_depth> m_v{};
    std::size_t m_head = 0, m_size = 0;
};

// Who hears the TX line as characters (uart16550::report_line). Not copied with the state: a copy run
// forward (a promise, a debug read) reports nothing.
struct line_sink {
    serial_line_if* reader = nullptr;
    line_sink() = default;
    line_sink(const line_sink&) {}
    line_sink& operator=(const line_sink&) {
        reader = nullptr;
        return *this;
    }
};

struct rx_char {
    std::uint8_t data = 0;
    bool pe = false, fe = false, bi = false;
    bool error() const { return pe || fe || bi; }
};

// The receiver's input line: its edges since the frame being received started. A sample at time t
// sees the level strictly before t.
struct rx_line {
    bool before = true, last = true;
    std::deque<std::pair<sc_time, bool>> edges;

    void append(const sc_time& t, bool v) {
        if (v == last) return;
        edges.emplace_back(t, v);
        last = v;
    }
    bool level_before(const sc_time& t) const {
        bool v = before;
        for (const auto& [when, lvl] : edges) {
            if (when >= t) break;
            v = lvl;
        }
        return v;
    }
    // The first edge to `level` at or after t.
    sc_time first_edge(const sc_time& t, bool level) const {
        for (const auto& [when, lvl] : edges)
            if (when >= t && lvl == level) return when;
        return never;
    }
    void trim(const sc_time& t) {
        while (!edges.empty() && edges.front().first < t) {
            before = edges.front().second;
            edges.pop_front();
        }
    }
};

} // namespace uart16550_parts

// The 16550's state and what it does between bus accesses, as plain C++ (copyable: a read promise is
// found by running a copy forward). Every event is processed at its own time by advance().
class uart16550_core {
public:
    uart16550_core(const uart16550_config& cfg, const cycle_clock& clk)
        : m_cfg(cfg)
        , m_clk(clk)
        , m_mini(cfg.part == uart16550_part::bcm2835_mini)
        , m_txd_edges(cfg.txd_edges) {
        apply_reset();
    }

    // The TX line goes to `r` as characters from now on.
    void report_line_to(serial_line_if* r) { m_sink.reader = r; }

    const sc_time& now() const { return m_now; }

    // Processes every event up to and including t.
    void advance(const sc_time& t) {
        for (;;) {
            const auto [when, kind] = next();
            if (when > t || when == never) break;
            m_now = when;
            process(kind);
            m_next_ok = false;
        }
        if (t > m_now) m_now = t;
        if (m_reset) {
            m_hunt_from = m_now;
            m_line.trim(m_now);
        }
    }
    sc_time next_event() const { return next().first; }

    // ---- bus, at now()
    std::uint8_t peek(unsigned idx) const {
        const bool dlab = m_lcr & LCR_DLAB;
        switch (idx) {
        case 0:
            return dlab ? static_cast<std::uint8_t>(m_divisor) : m_rxq.empty() ? m_rbr : m_rxq.front().data;
        case 1:
            return dlab ? static_cast<std::uint8_t>(m_divisor >> 8) : m_ier;
        case 2:
            return iir();
        case 3:
            return m_lcr;
        case 4:
            return m_mcr;
        case 5:
            return lsr();
        case 6:
            return static_cast<std::uint8_t>(m_msr_delta | m_msr_state << 4);
        default:
            return m_scr;
        }
    }

    bool read_has_side_effect(unsigned idx) const {
        switch (idx) {
        case 0:
            return !(m_lcr & LCR_DLAB) && !m_rxq.empty();
        case 2:
            return !m_mini && (iir() & 0x0F) == IIR_THRI; // the mini UART's IIR read clears nothing
        case 5:
            return m_oe || m_pe || m_fe || m_bi || m_lsr7;
        case 6:
            return m_msr_delta != 0;
        default:
            return false;
        }
    }

    std::uint8_t read(unsigned idx) {
        m_next_ok = false;
        const std::uint8_t v = peek(idx);
        if (idx == 0 && !(m_lcr & LCR_DLAB) && !m_rxq.empty()) {
            m_rbr = m_rxq.front().data;
            m_rxq.pop_front();
            if (!m_rxq.empty()) reveal_top();
            m_last_activity = m_now; // the timeout counts from the last read too
            m_timeout = false;
        } else if (idx == 2 && !m_mini && (v & 0x0F) == IIR_THRI) {
            m_thri = false; // reading IIR clears THRE as the source
        } else if (idx == 5) {
            m_oe = m_pe = m_fe = m_bi = false;
            m_lsr7 = false; // unless a character with an error waits behind the top one
            for (std::size_t i = 1; i < m_rxq.size(); ++i)
                m_lsr7 |= m_rxq[i].error();
        } else if (idx == 6) {
            m_msr_delta = 0;
        }
        return v;
    }

    void write(unsigned idx, std::uint8_t v) {
        m_next_ok = false;
        if (m_reset) return;
        const bool dlab = m_lcr & LCR_DLAB;
        switch (idx) {
        case 0:
            if (dlab)
                m_divisor = (m_divisor & 0xFF00) | v;
            else
                write_thr(v);
            break;
        case 1:
            if (dlab)
                m_divisor = (m_divisor & 0x00FF) | std::uint32_t(v) << 8;
            else
                write_ier(v);
            break;
        case 2:
            write_fcr(v);
            break;
        case 3: {
            const std::uint8_t was = m_lcr;
            m_lcr = m_mini ? v & (LCR_DLAB | LCR_BREAK | LCR_WLS) : v;
            rx_source_changed(); // BREAK acts on the serial output at once
            if ((was ^ m_lcr) & LCR_BREAK) report_line_change();
            break;
        }
        case 4: {
            const std::uint8_t was = m_mcr;
            m_mcr = v & (m_mini ? MCR_RTS : 0x1F); // the mini UART has RTS only: no loopback, no OUT2
            if ((was ^ m_mcr) & MCR_LOOP) {
                if (!m_txd_edges) sync_frame_edges(); // loopback follows the frame's edges from now on
                report_line_change();
            }
            rx_source_changed();
            update_modem();
            break;
        }
        case 7:
            m_scr = v;
            break;
        default: // LSR, MSR: factory test, ignored
            break;
        }
        advance(m_now); // a byte into an idle transmitter leaves THR now
    }

    // How long a read of idx would return the value it returns now, inputs staying as they are: the
    // bits `mask` of it (0: all), and in *whole (if given) the whole value, no later.
    // `scratch` is overwritten with a copy of this state and run forward (its storage is reused).
    sc_time stable_until(unsigned idx, uart16550_core& scratch, std::uint8_t mask = 0,
                         sc_time* whole = nullptr) const {
        const bool dlab = m_lcr & LCR_DLAB;
        if (whole) *whole = never;
        if (idx == 1 || idx == 3 || idx == 4 || idx == 7 || (dlab && idx == 0)) return never;
        const std::uint8_t v = peek(idx);
        const std::uint8_t m = mask ? mask : 0xFF;
        uart16550_core& c = scratch;
        c = *this;
        // Outside loopback the TX line's edges reach no register: the copy runs past them.
        c.m_line_unseen = !(m_mcr & MCR_LOOP);
        c.m_next_ok = false;
        bool whole_found = !whole;
        for (int i = 0; i < 100000; ++i) {
            const sc_time e = c.next_event();
            if (e == never) return never;
            c.advance(e);
            const std::uint8_t now_v = c.peek(idx);
            if (!whole_found && now_v != v) {
                *whole = e;
                whole_found = true;
            }
            // Past a change of other bits the read may gain a side effect (LSR's error bits, cleared
            // by reading): no promise covers such a read.
            if (((now_v ^ v) & m) || (mask && c.read_has_side_effect(idx))) return e;
        }
        if (!whole_found) *whole = c.now();
        return c.now();
    }

    // ---- inputs, at now()
    void set_rxd(bool v) {
        m_next_ok = false;
        m_rxd_pin = v;
        rx_source_changed();
        advance(m_now);
    }
    void set_modem(bool cts, bool dsr, bool ri, bool dcd) {
        m_next_ok = false;
        m_in_modem = std::uint8_t(cts | dsr << 1 | ri << 2 | dcd << 3);
        update_modem();
    }
    // A new clock (the same edges up to its change): the times planned from cycles are planned anew.
    void set_clock(const cycle_clock& clk) {
        m_clk = clk;
        m_next_ok = false;
        // A character in flight finishes at the new rate: what was reported of it from now on is not so.
        if (m_frame_active && m_now < at_cycle(m_frame.end)) report_line_change();
    }
    void set_reset(bool asserted) {
        m_next_ok = false;
        if (asserted == m_reset) return;
        m_reset = asserted;
        if (asserted) {
            apply_reset();
            report_line_change(); // a frame on the line is cut off: the line idles from now
        }
        m_hunt_from = m_now;
        m_line.trim(m_now);
    }

    // ---- outputs
    // Without TXD edges the pin shows the line between characters only: mark, or space while BREAK.
    bool txd_pin() const {
        if (m_mcr & MCR_LOOP) return true;
        return m_txd_edges ? serial_out() : !(m_lcr & LCR_BREAK);
    }
    bool intr() const { return !(iir() & IIR_NO_INT); }
    bool irq_pin() const { return intr() && (!m_cfg.out2_gates_irq || out_active(MCR_OUT2)); }
    bool out_active(std::uint8_t mcr_bit) const { return (m_mcr & mcr_bit) && !(m_mcr & MCR_LOOP); }
    unsigned tx_level() const { return static_cast<unsigned>(m_txq.size()); }
    unsigned rx_level() const { return static_cast<unsigned>(m_rxq.size()); }
    // The mini UART's LSR5 means "the TX FIFO can accept a byte", LSR6 "FIFO empty, transmitter idle".
    bool thre() const { return m_mini ? m_txq.size() < mini_fifo_depth : m_thre; }
    bool temt() const { return m_mini ? m_txq.empty() && !m_frame_active : m_thre && !m_frame_active; }
    bool data_ready() const { return !m_rxq.empty(); }
    bool fifo_enabled() const { return m_fifo_en; }
    std::uint64_t tx_lost() const { return m_tx_lost; }
    std::uint64_t rx_overruns() const { return m_rx_overruns; }

private:
    enum class ev { none, tsr_end, tx_leave, tx_edge, thre_rise, rx, timeout };

    frame_format format() const { return frame_format::from(m_lcr, m_divisor, m_mini); }
    sc_time at_cycle(std::uint64_t c) const { return m_clk.time_of(c); }

    // The earliest pending event; ties in this order (a frame ends before the next byte leaves THR).
    // Kept until the state changes (every public mutator and each processed event clears it): the
    // process, a promise's forward run and advance() ask for it again and again. Advancing the present
    // past no event leaves it right: of the candidates only tx_leave's depends on the present, and not
    // once it lies beyond it.
    const std::pair<sc_time, ev>& next() const {
        if (!m_next_ok) {
            m_next = compute_next();
            m_next_ok = true;
        }
        return m_next;
    }
    std::pair<sc_time, ev> compute_next() const {
        std::pair<sc_time, ev> best{never, ev::none};
        auto consider = [&](const sc_time& t, ev k) {
            if (t < best.first) best = {t, k};
        };
        if (m_reset) return best;
        const sc_time frame_end = m_frame_active ? at_cycle(m_frame.end) : SC_ZERO_TIME;
        if (m_frame_active) consider(frame_end, ev::tsr_end);
        if (!m_txq.empty()) {
            // Not before the TSR is free (a byte blocked by the frame leaves when it ends).
            sc_time t = std::max(m_head_since + m_cfg.tx_drain_time, m_now);
            if (m_frame_active) t = std::max(t, frame_end);
            consider(t, ev::tx_leave);
        }
        if (m_frame_active && m_edge_k <= m_frame.n && !m_line_unseen && (m_txd_edges || (m_mcr & MCR_LOOP)))
            consider(at_cycle(m_frame.start + m_edge_k * m_frame.bit), ev::tx_edge);
        consider(m_thre_at, ev::thre_rise);
        consider(rx_event_time(), ev::rx);
        if (m_fifo_en && !m_mini && !m_rxq.empty() && !m_timeout)
            consider(at_cycle(m_clk.edge_at_or_after(m_last_activity) + 4 * format().length()), ev::timeout);
        return best;
    }

    void process(ev k) {
        switch (k) {
        case ev::tsr_end:
            m_frame_active = false;
            m_last_end = m_frame.end;
            m_last_end_valid = true;
            break;
        case ev::tx_leave:
            tx_leave();
            break;
        case ev::tx_edge:
            m_so_frame = m_frame.level(m_edge_k);
            ++m_edge_k;
            skip_unchanged_edges();
            rx_source_changed();
            break;
        case ev::thre_rise:
            thre_rise();
            break;
        case ev::rx:
            rx_step();
            break;
        case ev::timeout:
            m_timeout = true;
            break;
        case ev::none:
            break;
        }
    }

    // ---- transmitter
    void write_thr(std::uint8_t v) {
        if (m_mini) { // a byte into a full FIFO is lost; the flags follow the FIFO's fill
            if (m_txq.size() == mini_fifo_depth) {
                ++m_tx_lost;
                return;
            }
            if (m_txq.empty()) m_head_since = m_now;
            m_txq.push_back(v);
            return;
        }
        m_thri = false; // writing THR clears the THRE interrupt
        const std::size_t cap = m_fifo_en ? fifo_depth : 1;
        if (m_txq.size() == cap) {
            ++m_tx_lost;
            if (!m_fifo_en) m_txq.back() = v; // 16450: overwrites the waiting byte
        } else {
            if (m_txq.empty()) m_head_since = m_now;
            m_txq.push_back(v);
        }
        if (m_fifo_en && m_txq.size() >= 2) m_held_two = true;
        m_thre = false;
        m_thre_at = m_thre_late_at = m_thre_rule_at = never;
    }

    void tx_leave() {
        const std::uint8_t b = m_txq.front();
        m_txq.pop_front();
        if (!m_txq.empty()) m_head_since = m_now;
        const frame_format f = format();
        tx_frame fr;
        fr.bit = f.bit;
        // Back to back after the previous stop bit; into an idle transmitter one bit after the write.
        fr.start = m_last_end_valid && at_cycle(m_last_end) == m_now ? m_last_end
                                                                     : m_clk.edge_at_or_after(m_now) + f.bit;
        fr.n = f.bits_before_stop();
        fr.levels = std::uint32_t(b & ((1u << f.data_bits) - 1)) << 1;
        if (f.parity && f.parity_bit(b)) fr.levels |= 1u << (1 + f.data_bits);
        fr.end = fr.start + f.length();
        fr.f = f;
        fr.data = b;
        m_frame = fr;
        m_frame_active = true;
        m_edge_k = 0;
        skip_unchanged_edges();
        if (m_sink.reader && !line_forced()) report_char();
        if (m_mini || !m_txq.empty()) return;
        // THR/FIFO empty: THRE rises now, or later (a slow part's latency; the datasheet's delay).
        m_thre_late_at = m_now + m_cfg.thre_delay;
        m_thre_rule_at = m_fifo_en && !m_held_two && !m_thre_immediate
                             ? at_cycle(m_clk.edge_at_or_after(m_now) + f.length() - f.bit)
                             : never;
        schedule_thre();
    }

    // The pending THRE rise: the slow part's time, and while IER.ETBEI is set (FIFO interrupt mode) no
    // earlier than the datasheet's delayed indication; FIFO polled mode has no such delay.
    void schedule_thre() {
        sc_time at = m_thre_late_at;
        if ((m_ier & IER_ETBEI) && m_thre_rule_at != never) at = std::max(at, m_thre_rule_at);
        if (at <= m_now)
            thre_rise();
        else
            m_thre_at = at;
    }

    void skip_unchanged_edges() {
        while (m_edge_k <= m_frame.n &&
               m_frame.level(m_edge_k) == (m_edge_k ? m_frame.level(m_edge_k - 1) : true))
            ++m_edge_k;
    }

    void thre_rise() {
        m_thre = true;
        m_thre_at = m_thre_late_at = m_thre_rule_at = never;
        if (m_ier & IER_ETBEI) m_thri = true;
        m_held_two = false;
        m_thre_immediate = false;
    }

    void clear_tx_fifo() {
        const bool was_waiting = !m_thre;
        m_txq.clear();
        if (was_waiting) thre_rise(); // not a transfer into the TSR: no delay
    }

    void write_ier(std::uint8_t v) {
        if (m_mini) { // level interrupts from the FIFOs' states: nothing to re-decide
            m_ier = v & 0x0F;
            return;
        }
        const bool etbei_on = (v & IER_ETBEI) && !(m_ier & IER_ETBEI);
        m_ier = v & 0x0F;
        if (m_thre_at != never) schedule_thre(); // ETBEI decides whether the delay applies, now
        if (etbei_on && m_thre) m_thri = true;   // enabling it while THRE is set raises it at once
        if (!(m_ier & IER_ETBEI)) m_thri = false;
    }

    void write_fcr(std::uint8_t v) {
        if (m_mini) { // AUX_MU_IIR write: bit 1 clears the RX FIFO, bit 2 the TX FIFO; always enabled
            if (v & FCR_CLEAR_RX) clear_rx_fifo();
            if (v & FCR_CLEAR_TX) m_txq.clear();
            return;
        }
        const bool en = v & FCR_ENABLE;
        if (!en && !m_fifo_en) return; // FCR0 must be 1 for the other bits to take effect
        if (en != m_fifo_en) {
            // Changing FCR0 clears both FIFOs; the next transmitter interrupt is immediate.
            m_fifo_en = en;
            m_thre_immediate = true;
            clear_rx_fifo();
            clear_tx_fifo();
        }
        if (!en) return;
        if (v & FCR_CLEAR_RX) clear_rx_fifo();
        if (v & FCR_CLEAR_TX) clear_tx_fifo();
        m_dma_mode = v & FCR_DMA;
        m_rx_trigger = rx_trigger_levels[v >> 6];
    }

    // Serial output before loopback: mark when idle, the frame's bits, space while BREAK.
    bool serial_out() const { return !(m_lcr & LCR_BREAK) && m_so_frame; }

    // ---- the TX line as characters (report_line)
    // The frame's level at t, from its bit boundaries in closed form: a boundary at t is passed (as
    // advance() processes an edge at t before an access at t).
    bool frame_level_at(const sc_time& t) const {
        if (!m_frame_active) return true;
        const std::uint64_t c = m_clk.edge_at_or_before(t);
        if (c < m_frame.start) return true;
        return m_frame.level(
            static_cast<unsigned>(std::min<std::uint64_t>((c - m_frame.start) / m_frame.bit, 32)));
    }
    // Without TXD edges the frame's edges are not processed outside loopback: where the frame is now.
    void sync_frame_edges() {
        m_so_frame = frame_level_at(m_now);
        if (!m_frame_active) return;
        const std::uint64_t c = m_clk.edge_at_or_before(m_now);
        m_edge_k = c < m_frame.start ? 0
                                     : static_cast<unsigned>(std::min<std::uint64_t>(
                                           (c - m_frame.start) / m_frame.bit + 1, m_frame.n + 1));
        skip_unchanged_edges();
    }
    // Loopback holds the line at mark, BREAK at space: the frame does not reach it.
    bool line_forced() const { return (m_mcr & MCR_LOOP) || (m_lcr & LCR_BREAK); }

    void report_char() {
        const tx_frame& fr = m_frame;
        const frame_format& f = fr.f;
        const std::uint8_t b = fr.data;
        const unsigned stops = f.stop_half == 2 ? 1 : 2;
        serial_char c;
        c.bits = fr.n + stops;
        c.levels = static_cast<std::uint16_t>(fr.levels | ((1u << stops) - 1) << fr.n);
        for (unsigned k = 0; k < c.bits; ++k)
            c.edge[k] = at_cycle(fr.start + k * fr.bit);
        c.edge[c.bits] = at_cycle(fr.end);
        c.data_bits = f.data_bits;
        c.parity = f.parity;
        c.stop_bits = stops;
        c.short_stop = f.stop_half == 3;
        c.data = static_cast<std::uint8_t>(b & ((1u << f.data_bits) - 1));
        m_sink.reader->line_char(c);
        m_rep_until = c.end();
        m_rep_final = true;
    }
    // The line at `v` from t on; nothing if that is what was reported already.
    void report_level(const sc_time& t, bool v) {
        if (t >= m_rep_until && v == m_rep_final) return;
        m_sink.reader->line_level(t, v);
        m_rep_until = t;
        m_rep_final = v;
    }
    // BREAK or loopback changed, a reset, a new clock: the line from now on, reported anew. A frame
    // not started yet goes as a character; one under way as the levels of its remaining bits.
    void report_line_change() {
        if (!m_sink.reader) return;
        if (line_forced()) {
            report_level(m_now, (m_mcr & MCR_LOOP) != 0);
            return;
        }
        if (!m_frame_active || m_now >= at_cycle(m_frame.end)) {
            report_level(m_now, true);
            return;
        }
        const std::uint64_t c = m_clk.edge_at_or_before(m_now);
        if (c < m_frame.start) {
            m_sink.reader->line_level(m_now, true);
            m_rep_until = m_now;
            m_rep_final = true;
            report_char();
            return;
        }
        const unsigned k = static_cast<unsigned>((c - m_frame.start) / m_frame.bit);
        bool v = m_frame.level(k);
        m_sink.reader->line_level(m_now, v);
        m_rep_until = m_now;
        m_rep_final = v;
        for (unsigned j = k + 1; j <= m_frame.n; ++j)
            if (m_frame.level(j) != v) {
                v = m_frame.level(j);
                report_level(at_cycle(m_frame.start + j * m_frame.bit), v);
            }
        m_rep_until = std::max(m_rep_until, at_cycle(m_frame.end));
    }

    // ---- receiver
    void rx_source_changed() { m_line.append(m_now, (m_mcr & MCR_LOOP) ? serial_out() : m_rxd_pin); }

    sc_time rx_event_time() const {
        switch (m_rx) {
        case rx_state::in_frame:
            return at_cycle(m_rxf.start + m_rxf.f.bits_before_stop() * m_rxf.f.bit + m_rxf.f.bit / 2);
        case rx_state::hunting:
            return m_line.first_edge(m_hunt_from, false);
        default:
            return m_line.first_edge(m_hunt_from, true);
        }
    }

    void rx_step() {
        if (m_rx == rx_state::hunting) { // a start edge
            m_rxf.start = m_clk.edge_at_or_after(m_now);
            m_rxf.f = format();
            m_rx = rx_state::in_frame;
            m_line.trim(m_now);
            return;
        }
        if (m_rx == rx_state::wait_mark) { // mark after a break
            m_rx = rx_state::hunting;
            m_hunt_from = m_now;
            m_line.trim(m_now);
            return;
        }
        const frame_format& f = m_rxf.f;
        auto sample = [&](unsigned k) {
            return m_line.level_before(at_cycle(m_rxf.start + k * f.bit + f.bit / 2));
        };
        if (sample(0)) { // false start: the start bit was high at its middle
            m_rx = rx_state::hunting;
            m_hunt_from = at_cycle(m_rxf.start + f.bit / 2);
            m_line.trim(m_hunt_from);
            return;
        }
        rx_char c;
        for (unsigned k = 0; k < f.data_bits; ++k)
            c.data |= std::uint8_t(sample(1 + k)) << k;
        const bool pbit = f.parity && sample(1 + f.data_bits);
        const unsigned ks = f.bits_before_stop();
        const bool stop = sample(ks);
        if (m_mini) { // no PE/FE/BI: the character is taken; a low stop bit waits for mark first
            receive(c);
            m_rx = stop ? rx_state::hunting : rx_state::wait_mark;
            m_hunt_from = m_now;
            m_line.trim(m_now);
            return;
        }
        if (f.parity) c.pe = pbit != f.parity_bit(c.data);
        if (c.data == 0 && !pbit && !stop) { // break: one zero character, then wait for mark
            c.pe = false;
            c.fe = c.bi = true;
            receive(c);
            m_rx = rx_state::wait_mark;
            m_hunt_from = m_now;
            m_line.trim(m_now);
            return;
        }
        c.fe = !stop;
        receive(c);
        if (c.fe) { // resynchronise: the low stop bit is taken as the next start bit
            m_rxf.start += ks * f.bit;
            m_rxf.f = format();
            return;
        }
        m_rx = rx_state::hunting;
        m_hunt_from = m_now;
        m_line.trim(m_now);
    }

    void receive(const rx_char& c) {
        ++m_rx_chars;
        m_last_activity = m_now;
        if (!m_fifo_en) { // 16450: RBR holds one character; an unread one is overwritten
            if (!m_rxq.empty()) {
                m_oe = true;
                ++m_rx_overruns;
                m_rxq.clear();
            }
            m_rxq.push_back(c);
            m_pe |= c.pe;
            m_fe |= c.fe;
            m_bi |= c.bi;
            return;
        }
        if (m_rxq.size() == (m_mini ? mini_fifo_depth : fifo_depth)) { // the shift register's is lost
            m_oe = true;
            ++m_rx_overruns;
            return;
        }
        m_rxq.push_back(c);
        if (c.error()) m_lsr7 = true;
        if (m_rxq.size() == 1) reveal_top();
    }

    // PE/FE/BI show in LSR when their character reaches the top of the FIFO.
    void reveal_top() {
        const rx_char& t = m_rxq.front();
        m_pe |= t.pe;
        m_fe |= t.fe;
        m_bi |= t.bi;
    }

    void clear_rx_fifo() {
        m_rxq.clear();
        m_timeout = false;
    }

    // ---- interrupts and status
    bool rda() const { return m_fifo_en && !m_mini ? m_rxq.size() >= m_rx_trigger : !m_rxq.empty(); }

    std::uint8_t iir() const {
        const std::uint8_t fifos = m_fifo_en ? IIR_FIFOS : 0;
        if (m_mini) { // receive FIFO holds a byte; transmit FIFO empty (levels, cleared by no read)
            if ((m_ier & IER_ERBFI) && !m_rxq.empty()) return fifos | IIR_RDA;
            if ((m_ier & IER_ETBEI) && m_txq.empty()) return fifos | IIR_THRI;
            return fifos | IIR_NO_INT;
        }
        if ((m_ier & IER_ELSI) && (m_oe || m_pe || m_fe || m_bi)) return fifos | IIR_RLS;
        if ((m_ier & IER_ERBFI) && rda()) return fifos | IIR_RDA;
        if ((m_ier & IER_ERBFI) && m_fifo_en && m_timeout) return fifos | IIR_CTI;
        if ((m_ier & IER_ETBEI) && m_thri) return fifos | IIR_THRI;
        if ((m_ier & IER_EDSSI) && m_msr_delta) return fifos | IIR_MS;
        return fifos | IIR_NO_INT;
    }

    std::uint8_t lsr() const {
        return std::uint8_t((m_rxq.empty() ? 0 : LSR_DR) | (m_oe ? LSR_OE : 0) | (m_pe ? LSR_PE : 0) |
                            (m_fe ? LSR_FE : 0) | (m_bi ? LSR_BI : 0) | (thre() ? LSR_THRE : 0) |
                            (temt() ? LSR_TEMT : 0) | (m_fifo_en && m_lsr7 ? LSR_FIFOE : 0));
    }

    // MSR[7:4] from the inputs, or in loopback from MCR (RTS->CTS, DTR->DSR, OUT1->RI, OUT2->DCD).
    void update_modem() {
        const std::uint8_t s = (m_mcr & MCR_LOOP)
                                   ? std::uint8_t(((m_mcr >> 1) & 1) | (m_mcr & 1) << 1 |
                                                  ((m_mcr >> 2) & 1) << 2 | ((m_mcr >> 3) & 1) << 3)
                                   : m_in_modem;
        if (m_mini) { // AUX_MU_MSR: CTS status only, no deltas
            m_msr_state = s & 0x01;
            return;
        }
        const std::uint8_t changed = s ^ m_msr_state;
        m_msr_delta |= changed & (MSR_DCTS | MSR_DDSR | MSR_DDCD);
        if ((changed & 0x04) && !(s & 0x04)) m_msr_delta |= MSR_TERI; // RI went inactive
        m_msr_state = s;
    }

    void apply_reset() {
        m_ier = IER.reset;
        m_lcr = LCR.reset;
        m_mcr = MCR.reset;
        m_fifo_en = m_mini; // the mini UART's FIFOs are always on
        m_dma_mode = false;
        m_rx_trigger = 1;
        m_oe = m_pe = m_fe = m_bi = m_lsr7 = false;
        m_txq.clear();
        m_thre = true; // LSR resets to 0x60
        m_thre_at = m_thre_late_at = m_thre_rule_at = never;
        m_thri = m_held_two = m_thre_immediate = false;
        m_frame_active = m_last_end_valid = false; // a frame on the line is cut off
        m_so_frame = true;
        m_rxq.clear();
        m_timeout = false;
        m_rx = rx_state::hunting;
        m_hunt_from = m_now;
        m_msr_delta = 0;
        m_msr_state = m_mini ? m_in_modem & 0x01 : m_in_modem;
        rx_source_changed();
    }

    enum class rx_state { hunting, in_frame, wait_mark };
    struct rx_frame {
        std::uint64_t start = 0; // XIN edge of the start edge
        frame_format f;
    };

    uart16550_config m_cfg;
    cycle_clock m_clk;
    bool m_mini = false; // uart16550_part::bcm2835_mini
    bool m_txd_edges = true;
    line_sink m_sink;
    // What was last reported: the line changes up to m_rep_until and stays at m_rep_final after it.
    sc_time m_rep_until = SC_ZERO_TIME;
    bool m_rep_final = true;
    sc_time m_now = SC_ZERO_TIME;
    mutable std::pair<sc_time, ev> m_next;
    mutable bool m_next_ok = false;
    // A promise's forward-running copy outside loopback: TX line edges are not processed (the line
    // is not shown, and only loopback takes it into the receiver).
    bool m_line_unseen = false;
    bool m_reset = false;
    // registers
    std::uint8_t m_ier = 0, m_lcr = 0, m_mcr = 0, m_scr = SCR.reset, m_rbr = RBR_THR.reset;
    std::uint32_t m_divisor = 0;
    bool m_fifo_en = false, m_dma_mode = false;
    unsigned m_rx_trigger = 1;
    // transmitter
    small_fifo<std::uint8_t> m_txq; // THR (16450 mode) or the TX FIFO
    sc_time m_head_since;           // when the byte at the head of m_txq got there
    tx_frame m_frame;               // in the TSR
    bool m_frame_active = false;
    unsigned m_edge_k = 0; // next bit boundary of m_frame that changes the line
    bool m_so_frame = true;
    std::uint64_t m_last_end = 0; // XIN cycle the last frame ended
    bool m_last_end_valid = false;
    bool m_thre = true;
    sc_time m_thre_at = never; // pending (delayed) THRE rise
    bool m_thri = false;       // THRE interrupt pending
    bool m_held_two = false;   // the FIFO held two bytes at once since THRE was last 1
    bool m_thre_immediate = false;
    // The parts of a pending rise: the slow part's latency after the FIFO emptied, and the datasheet's
    // delayed indication (never: not delayed), which counts only while IER.ETBEI is set.
    sc_time m_thre_late_at = never, m_thre_rule_at = never;
    std::uint64_t m_tx_lost = 0;
    // receiver
    bool m_rxd_pin = true;
    rx_line m_line;
    rx_state m_rx = rx_state::hunting;
    sc_time m_hunt_from;
    rx_frame m_rxf;
    small_fifo<rx_char> m_rxq; // RBR (16450 mode) or the RX FIFO
    bool m_oe = false, m_pe = false, m_fe = false, m_bi = false, m_lsr7 = false;
    bool m_timeout = false;
    sc_time m_last_activity;
    std::uint64_t m_rx_chars = 0, m_rx_overruns = 0;
    // modem status
    std::uint8_t m_in_modem = 0, m_msr_state = 0, m_msr_delta = 0;
};

} // namespace detail

} // namespace uartvp
