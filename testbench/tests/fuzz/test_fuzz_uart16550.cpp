// SPDX-License-Identifier: Apache-2.0
// Seeded random register traffic on the 16550 (I/O-port layout with OUT2 gating the interrupt as on PC
// boards, and MMIO with reg_shift 2 and 4-byte accesses), checked against rules from the PC16550D
// datasheet and the model's documented interface, not against the model's code:
// - the response each access deserves (stride, width, map, byte enables); nothing changes (all eight
//   registers read through transport_dbg before and after) on an error or with lane 0 disabled, and a
//   register access changes only what the datasheet lets it change (a read of LSR clears LSR[4:1] and may
//   clear LSR7, of MSR clears MSR[3:0], of IIR the THRE source, of RBR pops; writes read back);
// - a debug read equals a normal read issued right after it at the same time; a promised read had no
//   side effect, and the value holds until the promise breaks; a break names its cause;
// - LSR, IIR, MSR consistent with each other and with IER (TEMT implies THRE, IIR's identification
//   agrees with the pending conditions and their priority, loopback's modem wiring, MSR[7:4] the modem
//   inputs), and the pins with the registers: irq = (IIR[0] == 0) gated by the OUT2 pin (inactive in
//   loopback) when the board gates it, DR/THRE/TEMT/FIFO enable and the levels, the modem outputs, TXD
//   held at mark in loopback;
// - accesses are applied at their issue time.
// Two initiators share the UART (ids 1 and 2 or none, often at the same times); RXD carries frames,
// errors, breaks and glitches; the modem inputs and the reset move. A twin run compares every output
// change and every access result with against without debug reads.
#include <array>
#include <climits>
#include <cstdio>
#include <memory>

#include <gtest/gtest.h>

#include "fuzz_support.h"
#include "sim_main.h"
#include "uart16550_bench.h"

using namespace sc_core;
using namespace uartvp;
using namespace uartvp::test;
using namespace uartvp::test::fuzz;
using namespace uartvp::test::r16550;

namespace {

enum pin_id : unsigned { p_rxd, p_ncts, p_ndsr, p_ndcd, p_nri, p_nreset, n_pins };
static_assert(p_nreset == 5, "pins 0 to 5 are the ones rig_core::line_pins() makes and bind_lines() binds");
constexpr std::uint8_t LCR_STB = 0x04; // 2 stop bits (1.5 with 5-bit words)

// ---- one access

using bus_req = bus_request<1>;

// What the layout says an access deserves: 1 byte or reg_io_width bytes at a register's offset
// (stride 1 << reg_shift); the register is lane 0, upper lanes of a wider access read 0. Where several
// error classes apply at once any of them is accepted.
struct verdict {
    std::vector<tlm::tlm_response_status> allowed;
    bool ok = false;
    bool reaches = false; // lane 0 enabled: the register is read or written
    unsigned idx = 0;
    bool allows(tlm::tlm_response_status s) const {
        return std::find(allowed.begin(), allowed.end(), s) != allowed.end();
    }
};
verdict judge(const bus_req& q, const uart16550_config& cfg) {
    verdict v;
    if ((q.len != 1 && q.len != cfg.reg_io_width) || q.sw < q.len)
        v.allowed.push_back(tlm::TLM_BURST_ERROR_RESPONSE);
    if (q.addr >= (std::uint64_t{8} << cfg.reg_shift) || q.addr % (1u << cfg.reg_shift))
        v.allowed.push_back(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    if (q.has_be && q.be.empty()) v.allowed.push_back(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    if (!v.allowed.empty()) return v;
    v.allowed.push_back(tlm::TLM_OK_RESPONSE);
    v.ok = true;
    v.idx = static_cast<unsigned>(q.addr >> cfg.reg_shift);
    v.reaches = q.lane_on(0);
    return v;
}

// The eight registers as debug reads show them (indices 0 and 1 in the view LCR.DLAB selects).
struct snapshot {
    std::array<std::uint8_t, 8> r{};
    bool dlab() const { return r[LCR] & LCR_DLAB; }
    bool fifo() const { return (r[IIR] & 0xC0) == 0xC0; }
};
const char* reg_name(unsigned idx, bool dlab) {
    static const char* names[] = {"RBR", "IER", "IIR", "LCR", "MCR", "LSR", "MSR", "SCR"};
    if (dlab && idx == 0) return "DLL";
    if (dlab && idx == 1) return "DLM";
    return names[idx];
}

// ---- the traffic

struct op {
    using req_t = bus_req;
    enum kind_t { access, rx_burst, modem, reset_pulse } kind = access;
    std::uint64_t gap_ps = 0;
    bool after_completion = true;
    bool on_grid = false;
    bus_req req;
    std::uint64_t length_ps = 0;
};

// The stream of operations (traffic_base), keeping the UART mostly set up sanely: plausible divisors,
// FIFOs on mostly, interrupts enabled, OUT2 set.
class traffic : public traffic_base<traffic, op> {
public:
    traffic(std::uint64_t seed, const uart16550_config& cfg, std::vector<unsigned> divisors)
        : traffic_base(seed)
        , m_cfg(cfg)
        , m_clk(cfg.clock_hz)
        , m_divisors(std::move(divisors)) {
        reconfigure();
        m_q.push_back(reg_write(FCR, 0xC7));
        m_q.push_back(reg_write(MCR, MCR_OUT2 | MCR_RTS | MCR_DTR));
        m_q.push_back(reg_write(IER, 0x0F));
    }
    std::uint64_t period_ps() const { return m_clk.time_of(1).value(); }
    std::uint64_t bit_ps() const { return 16 * m_divisor * m_clk.time_of(1000).value() / 1000; }
    std::uint8_t lcr() const { return m_lcr; }

private:
    friend traffic_base;
    std::uint64_t offset(unsigned idx) const { return std::uint64_t{idx} << m_cfg.reg_shift; }
    op reg_access(bool write, unsigned idx, std::uint8_t value) {
        op o = base();
        bus_req& q = o.req;
        q.write = write;
        q.addr = offset(idx);
        q.len = m_cfg.reg_io_width > 1 && r.chance(60) ? m_cfg.reg_io_width : 1;
        q.sw = q.len;
        q.data[0] = value;
        for (unsigned i = 1; i < 8; ++i)
            q.data[i] = static_cast<unsigned char>(r.bits(8)); // upper lanes of a wide write are ignored
        if (r.chance(6)) {
            q.has_be = true;
            q.be.resize(q.len);
            for (auto& b : q.be)
                b = r.chance(85) ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED;
        }
        if (!write) q.promise = r.chance(40);
        if (r.chance(8)) q.annotate_ps = r.pick(2 * period_ps());
        return o;
    }
    op reg_write(unsigned idx, std::uint8_t v) {
        op o = reg_access(true, idx, v);
        o.req.has_be = false;
        o.req.annotate_ps = 0;
        o.gap_ps = r.chance(50) ? 0 : r.pick(bit_ps());
        return o;
    }
    std::uint8_t plausible_lcr() {
        return static_cast<std::uint8_t>((r.chance(60) ? 3 : r.pick(4)) | (r.chance(25) ? LCR_STB : 0) |
                                         (r.chance(30) ? 0x08 : 0) | r.bits(1) << 4 |
                                         (r.chance(10) ? 0x20 : 0));
    }
    std::uint8_t plausible_mcr() {
        std::uint8_t m = static_cast<std::uint8_t>(r.bits(3));
        if (r.chance(90)) m |= MCR_OUT2;
        if (r.chance(15)) m |= MCR_LOOP;
        return m;
    }
    // Divisor and format, with DLAB set only for the divisor's two writes.
    void reconfigure() {
        m_divisor = m_divisors[r.pick(m_divisors.size())];
        if (r.chance(10)) m_divisor = static_cast<unsigned>(r.range(1, 2 * m_divisors.back()));
        m_lcr = plausible_lcr();
        m_q.push_back(reg_write(LCR, m_lcr | LCR_DLAB));
        m_q.push_back(reg_write(DLL, static_cast<std::uint8_t>(m_divisor)));
        m_q.push_back(reg_write(DLM, static_cast<std::uint8_t>(m_divisor >> 8)));
        m_q.push_back(reg_write(LCR, m_lcr));
    }
    bus_req chaos(bool debug) {
        bus_req q;
        q.debug = debug;
        q.write = debug ? r.chance(10) : r.chance(45);
        static const unsigned lens[] = {1, 1, 1, 2, 3, 4, 4, 8};
        q.len = lens[r.pick(8)];
        const std::uint64_t stride = 1u << m_cfg.reg_shift, size = 8 * stride;
        switch (r.pick(8)) {
        case 0:
        case 1:
        case 2:
            q.addr = r.pick(8) * stride;
            break;
        case 3:
        case 4:
            q.addr = r.pick(size);
            break;
        case 5:
            q.addr = size + r.pick(64);
            break;
        case 6:
            q.addr = 0x3F8 + r.pick(8); // the port's absolute address, not its offset
            break;
        default:
            q.addr = r.chance(50) ? ~std::uint64_t{0} - r.pick(8) : std::uint64_t{1} << r.range(8, 40);
            break;
        }
        q.sw = q.len;
        if (!debug) {
            const unsigned s = static_cast<unsigned>(r.pick(10));
            if (s == 0 && q.len > 1) q.sw = static_cast<unsigned>(r.range(1, q.len - 1));
            if (s == 1) q.sw = q.len + static_cast<unsigned>(r.range(1, 8));
            const unsigned b = static_cast<unsigned>(r.pick(20));
            if (b < 8) {
                q.has_be = true;
                q.be.resize(r.range(1, q.len));
                for (auto& e : q.be)
                    e = r.chance(50) ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED;
            } else if (b < 10) {
                q.has_be = true;
                q.be.assign(r.range(1, q.len), TLM_BYTE_DISABLED);
            } else if (b == 10) {
                q.has_be = true;
            }
            q.promise = !q.write && r.chance(30);
            if (r.chance(5)) q.annotate_ps = r.pick(2 * period_ps());
        }
        for (auto& d : q.data)
            d = static_cast<unsigned char>(r.bits(8));
        return q;
    }

    void generate() {
        if (m_reconfigure_in && --m_reconfigure_in == 0) {
            reconfigure();
            return;
        }
        const unsigned k = static_cast<unsigned>(r.pick(1000));
        if (k < 170) { // THR writes: one, or a burst
            const unsigned n = r.chance(20) ? static_cast<unsigned>(r.range(2, 24)) : 1;
            for (unsigned i = 0; i < n; ++i) {
                op o = reg_access(true, THR, static_cast<std::uint8_t>(r.range(0x20, 0x7E)));
                if (i) o.gap_ps = r.chance(50) ? 0 : r.pick(bit_ps());
                m_q.push_back(o);
            }
        } else if (k < 260) { // RBR reads: one, or a drain
            const unsigned n = r.chance(25) ? static_cast<unsigned>(r.range(2, 20)) : 1;
            for (unsigned i = 0; i < n; ++i) {
                op o = reg_access(false, RBR, 0);
                if (i) o.gap_ps = r.chance(50) ? 0 : r.pick(bit_ps());
                m_q.push_back(o);
            }
        } else if (k < 400) { // LSR polling
            const unsigned n = r.chance(30) ? static_cast<unsigned>(r.range(2, 30)) : 1;
            for (unsigned i = 0; i < n; ++i) {
                op o = reg_access(false, LSR, 0);
                o.req.promise = r.chance(70);
                if (i) o.gap_ps = r.pick(r.chance(80) ? bit_ps() : 10 * bit_ps());
                m_q.push_back(o);
            }
        } else if (k < 450) {
            m_q.push_back(reg_access(false, IIR, 0));
        } else if (k < 480) {
            m_q.push_back(reg_access(false, MSR, 0));
        } else if (k < 520) {
            m_q.push_back(
                reg_access(true, IER, static_cast<std::uint8_t>(r.chance(80) ? r.bits(4) : r.bits(8))));
        } else if (k < 550) {
            static const std::uint8_t fcr[] = {0x01, 0x07, 0x41, 0x81, 0xC1, 0xC3, 0x85, 0x00, 0x06, 0x09};
            m_q.push_back(
                reg_access(true, FCR, r.chance(85) ? fcr[r.pick(10)] : static_cast<std::uint8_t>(r.bits(8))));
        } else if (k < 565) {
            m_lcr = plausible_lcr();
            m_q.push_back(reg_access(true, LCR, m_lcr));
        } else if (k < 580) {
            reconfigure();
        } else if (k < 610) {
            m_q.push_back(reg_access(true, MCR, plausible_mcr()));
        } else if (k < 630) {
            m_q.push_back(reg_access(r.chance(50), SCR, static_cast<std::uint8_t>(r.bits(8))));
        } else if (k < 640) {
            m_q.push_back(reg_access(true, r.chance(50) ? LSR : MSR, static_cast<std::uint8_t>(r.bits(8))));
        } else if (k < 690) {
            static const unsigned idx[] = {IER, LCR, MCR, SCR, IIR};
            m_q.push_back(reg_access(false, idx[r.pick(5)], 0));
        } else if (k < 698) { // a break for a while
            m_q.push_back(reg_access(true, LCR, m_lcr | LCR_BREAK));
            op off = reg_access(true, LCR, m_lcr);
            off.gap_ps = r.pick(30 * bit_ps());
            m_q.push_back(off);
        } else if (k < 810) {
            op o = base();
            o.req = chaos(false);
            // A write that may have reached LCR or MCR: set the UART up again soon.
            const verdict v = judge(o.req, m_cfg);
            if (v.reaches && o.req.write && (v.idx == LCR || v.idx == MCR || v.idx == FCR || v.idx == IER))
                m_reconfigure_in = static_cast<unsigned>(r.range(1, 30));
            m_q.push_back(o);
        } else if (k < 880) {
            op o = base();
            if (r.chance(60)) {
                o.req = chaos(true);
            } else {
                o.req = as_debug_read(reg_access(false, static_cast<unsigned>(r.pick(8)), 0));
            }
            m_q.push_back(o);
        } else if (k < 950) {
            push(op::rx_burst);
        } else if (k < 975) {
            push(op::modem);
        } else if (k < 976) {
            push_reset_pulse(period_ps(), [&] { return reg_access(false, LSR, 0); });
            reconfigure();
            m_q.push_back(reg_write(FCR, 0xC7));
            m_q.push_back(reg_write(MCR, MCR_OUT2 | MCR_RTS | MCR_DTR));
            m_q.push_back(reg_write(IER, 0x0F));
        } else {
            op o = base();
            o.req = chaos(false);
            o.req.write = false;
            m_q.push_back(o);
        }
    }

    uart16550_config m_cfg;
    cycle_clock m_clk;
    std::vector<unsigned> m_divisors;
    unsigned m_divisor = 1;
    std::uint8_t m_lcr = LCR_8N1;
};

// ---- the TX line as the UART reports it (uart16550::report_line), against the pin

// TXD's changes, one per time (the level a time ends with), from mark.
using line_changes = std::vector<std::pair<sc_time, bool>>;
line_changes settled(const line_changes& in) {
    line_changes out;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (i + 1 < in.size() && in[i + 1].first == in[i].first) continue;
        const bool before = out.empty() ? true : out.back().second;
        if (in[i].second == before) continue;
        if (!out.empty() && out.back().first == in[i].first)
            out.pop_back();
        else
            out.push_back(in[i]);
    }
    return out;
}

// Rebuilds the pin's changes from the reports: a character's bit levels at its edges; a level drops
// what was reported from its time on.
struct line_rebuilder : serial_line_if {
    line_changes edges;
    bool level = true;
    void add(const sc_time& t, bool v) {
        if (v == level) return;
        edges.emplace_back(t, v);
        level = v;
    }
    void line_char(const serial_char& c) override {
        for (unsigned k = 0; k < c.bits; ++k)
            add(c.edge[k], c.level(k));
    }
    void line_level(const sc_time& t, bool v) override {
        while (!edges.empty() && edges.back().first >= t)
            edges.pop_back();
        level = edges.empty() ? true : edges.back().second;
        add(t, v);
    }
};

// ---- one 16550 with two initiators, the stimulus and the checks

struct rig_options {
    std::string name = "rig";
    uart16550_config cfg;
    std::vector<unsigned> divisors{1, 2, 3, 6, 12};
    bool checks = true;
    bool debug_reads = true;
    bool second_initiator = true;
    bool keep_records = false;
    std::uint64_t grid_ps = 1'013'000;
    std::uint64_t second_max_steps = 30; // the second initiator waits 1 to this many grid steps
};

class rig : public rig_core<rig, rig_options, traffic> {
public:
    uart16550 uart;

    struct {
        std::uint64_t accesses = 0, debug = 0, errors = 0, no_lane = 0, promised = 0, snapshots = 0,
                      at_rest = 0, same_time = 0, second = 0, causes = 0;
        std::uint8_t lsr_seen = 0, msr_seen = 0;
        std::uint32_t iir_seen = 0; // bit per identification
    } n;

    SC_HAS_PROCESS(rig);
    rig(const sc_module_name& nm, const rig_options& o, const settings& s)
        : rig_core(nm, line_pins({}), p_nreset, o, s, traffic(s.seed, o.cfg, o.divisors))
        , uart("uart", o.cfg) {
        bind_lines(uart);
        outputs =
            std::make_unique<change_log>("outputs",
                                         line_watches({{"thre", &uart.thre},
                                                       {"temt", &uart.temt},
                                                       {"dr", &uart.dr},
                                                       {"fifo_enabled", &uart.fifo_enabled},
                                                       {"tx_fifo_level", nullptr, &uart.tx_fifo_level},
                                                       {"rx_fifo_level", nullptr, &uart.rx_fifo_level}}),
                                         opt.keep_records);
        SC_THREAD(first_initiator);
        if (opt.second_initiator) SC_THREAD(second_initiator);
        uart.report_line(line);
        SC_METHOD(log_txd);
        sensitive << txd;
        dont_initialize();
    }

    // TXD as the pin shows it and as rebuilt from the reports.
    line_changes txd_log;
    line_rebuilder line;
    void log_txd() { txd_log.emplace_back(sc_time_stamp(), txd.read()); }

private:
    friend rig_core;
    // Accesses that may have broken promises: `certain` if the datasheet says the access changes a
    // register (a write of lane 0, a read that clears or pops something), else it only may have.
    struct toucher {
        sc_time issued;
        unsigned batch, who;
        bool certain;
    };
    std::deque<toucher> m_touchers;

    std::uint64_t offset(unsigned idx) const { return std::uint64_t{idx} << opt.cfg.reg_shift; }
    snapshot snap() {
        snapshot s;
        ++n.snapshots;
        for (unsigned i = 0; i < 8; ++i) {
            unsigned char b[4] = {canary, canary, canary, canary};
            if (dbg(offset(i), 1, b) != 1)
                ctx.fail("debug read of register " + std::to_string(i) + " refused");
            s.r[i] = b[0];
        }
        return s;
    }
    std::string diff(const snapshot& a, const snapshot& b, unsigned allowed_mask = 0) {
        std::string d;
        for (unsigned i = 0; i < 8; ++i)
            if (!(allowed_mask & (1u << i)) && a.r[i] != b.r[i])
                d += std::string(" ") + reg_name(i, a.dlab()) + " " + hex(a.r[i]) + "->" + hex(b.r[i]);
        return d;
    }
    bool loop(const snapshot& s) const { return s.r[MCR] & MCR_LOOP; }
    // The datasheet's rules among the registers, for every snapshot.
    void check_snapshot(const snapshot& s, const char* when) {
        const std::uint8_t lsr = s.r[LSR], iir = s.r[IIR], msr = s.r[MSR], mcr = s.r[MCR], id = iir & 0x0F;
        n.lsr_seen |= lsr;
        n.msr_seen |= msr;
        n.iir_seen |= 1u << id;
        std::ostringstream o;
        if ((lsr & LSR_TEMT) && !(lsr & LSR_THRE)) o << " TEMT without THRE;";
        if ((lsr & LSR_FIFOE) && !s.fifo()) o << " LSR7 without FIFOs;";
        if (iir & 0x30) o << " IIR[5:4] set;";
        if ((iir & 0xC0) != 0 && (iir & 0xC0) != 0xC0) o << " IIR[7:6] neither 00 nor 11;";
        if (id != 0x01 && id != 0x06 && id != 0x04 && id != 0x0C && id != 0x02 && id != 0x00)
            o << " IIR id invalid;";
        if (id == 0x0C && !s.fifo()) o << " character timeout without FIFOs;";
        if (mcr & 0xE0) o << " MCR[7:5] set;";
        if (loop(s)) {
            // RTS->CTS, DTR->DSR, OUT1->RI, OUT2->DCD
            const std::uint8_t want = std::uint8_t(((mcr >> 1) & 1) << 4 | (mcr & 1) << 5 |
                                                   ((mcr >> 2) & 1) << 6 | ((mcr >> 3) & 1) << 7);
            if ((msr & 0xF0) != want) o << " MSR[7:4] " << hex(msr & 0xF0) << " not the loopback of MCR;";
        } else {
            const std::uint8_t want = std::uint8_t(!pin(p_ncts).read() << 4 | !pin(p_ndsr).read() << 5 |
                                                   !pin(p_nri).read() << 6 | !pin(p_ndcd).read() << 7);
            if ((msr & 0xF0) != want)
                o << " MSR[7:4] " << hex(msr & 0xF0) << " not the modem inputs " << hex(want) << ";";
        }
        if (!s.dlab()) {
            const std::uint8_t ier = s.r[IER];
            const bool err = lsr & 0x1E, dr = lsr & LSR_DR, delta = msr & 0x0F;
            const bool rls = (ier & IER_RLS) && err, rda16450 = (ier & IER_RDA) && dr && !s.fifo(),
                       ms = (ier & IER_MS) && delta;
            if (ier & 0xF0) o << " IER[7:4] set;";
            if (rls && id != 0x06) o << " line status pending but IIR id " << hex(id) << ";";
            if (id == 0x06 && !rls) o << " IIR says line status, none pending;";
            if (id == 0x04 && !((ier & IER_RDA) && dr)) o << " IIR says data available, none;";
            if (id == 0x0C && !((ier & IER_RDA) && dr)) o << " IIR says timeout, no data;";
            if (id == 0x02 && (!(ier & IER_THRE) || !(lsr & LSR_THRE) || rls || rda16450))
                o << " IIR says THR empty against IER/LSR or a higher priority;";
            if (id == 0x00 && (!ms || rls || rda16450))
                o << " IIR says modem status against IER/MSR or a higher priority;";
            if (id == 0x01 && (rls || ms || rda16450)) o << " IIR says none but one is pending;";
            if (rda16450 && id != 0x06 && id != 0x04)
                o << " data available (16450 mode) but IIR id " << hex(id) << ";";
        }
        if (m_breaks)
            for (unsigned i = 0; i < 8; ++i) {
                const std::string e = m_promises.check(i, s.r[i], 0xFF, *m_breaks);
                if (!e.empty()) o << " debug read: " << e << ";";
            }
        if (!o.str().empty())
            ctx.fail(std::string(when) + ": LSR " + hex(lsr) + " IIR " + hex(iir) + " MSR " + hex(msr) +
                     " MCR " + hex(mcr) + " IER/DLM " + hex(s.r[IER]) + ":" + o.str());
    }
    // The pins against the registers, once the UART has shown its state (nothing under way).
    void check_at_rest() {
        const sc_time now = sc_time_stamp();
        if (m_second_at == now) return;
        ++n.at_rest;
        const snapshot s = snap();
        check_snapshot(s, "at rest");
        const std::uint8_t lsr = s.r[LSR], mcr = s.r[MCR];
        auto active = [&](std::uint8_t bit) {
            return (mcr & bit) && !(mcr & MCR_LOOP);
        }; // outputs inactive in loopback
        const bool intr = !(s.r[IIR] & 1);
        const bool want_irq = intr && (!opt.cfg.out2_gates_irq || active(MCR_OUT2));
        const unsigned tx = uart.tx_fifo_level.read(), rx = uart.rx_fifo_level.read(),
                       cap = s.fifo() ? 16 : 1;
        std::ostringstream o;
        if (irq.read() != want_irq) o << " irq " << irq.read() << ";";
        if (uart.dr.read() != bool(lsr & LSR_DR) || bool(lsr & LSR_DR) != (rx > 0))
            o << " DR against dr/rx level;";
        if (uart.thre.read() != bool(lsr & LSR_THRE)) o << " thre signal;";
        if (uart.temt.read() != bool(lsr & LSR_TEMT)) o << " temt signal;";
        if ((lsr & LSR_THRE) && tx != 0) o << " THRE with data in THR/FIFO;";
        if (uart.fifo_enabled.read() != s.fifo()) o << " fifo_enabled signal;";
        if (tx > cap || rx > cap) o << " a level above the FIFO size;";
        if (nrts.read() == active(MCR_RTS) || ndtr.read() == active(MCR_DTR) ||
            nout1.read() == active(MCR_OUT1) || nout2.read() == active(MCR_OUT2))
            o << " modem outputs against MCR;";
        if ((mcr & MCR_LOOP) && !txd.read()) o << " TXD not at mark in loopback;";
        if (!o.str().empty())
            ctx.fail("at rest: LSR " + hex(lsr) + " IIR " + hex(s.r[IIR]) + " MCR " + hex(mcr) +
                     ", tx level " + std::to_string(tx) + ", rx level " + std::to_string(rx) + ":" + o.str());
    }
    void check_cause() {
        const sc_time now = sc_time_stamp();
        auto trim = [&] {
            m_obs_time = now;
            forget_inputs_before(now);
            while (!m_touchers.empty() && m_touchers.front().issued < now)
                m_touchers.pop_front();
        };
        if (!m_breaks || *m_breaks == m_breaks_seen) {
            trim();
            return;
        }
        const read_promise::break_cause c = *m_cause;
        if (c.when == now) return; // accesses of this time may still be on their way: look later
        ++n.causes;
        std::ostringstream o;
        if (c.when < m_obs_time || c.when > now) {
            o << "a break since " << m_obs_time << " gives its time as " << c.when;
        } else if (input_changed_at(c.when)) {
            if (c.by_access) o << "break at " << c.when << " blamed on an access, but an input changed then";
        } else if (!c.by_access) {
            o << "break at " << c.when << " blamed on an input, but none changed then";
        } else {
            // The blamed access is one that may have broken it, not after one that certainly did.
            std::vector<toucher> at;
            for (const toucher& t : m_touchers)
                if (t.issued == c.when) at.push_back(t);
            std::stable_sort(at.begin(), at.end(), [](const toucher& a, const toucher& b) {
                return a.batch != b.batch ? a.batch < b.batch : a.who < b.who;
            });
            bool found = false;
            for (const toucher& t : at) {
                if (t.who == c.initiator) found = true;
                if (found || t.certain) break;
            }
            if (!found) {
                o << "break at " << c.when << " blamed on initiator " << c.initiator
                  << ", not one that may have been the first; accesses then:";
                for (const toucher& t : at)
                    o << " [" << t.who << " batch " << t.batch << (t.certain ? " certain" : " maybe") << "]";
            }
        }
        if (!o.str().empty()) ctx.fail(o.str());
        m_breaks_seen = *m_breaks;
        trim();
    }

    void schedule_rx_burst() {
        std::uint8_t lcr = gen.r.chance(15) ? static_cast<std::uint8_t>(gen.r.bits(8)) : gen.lcr();
        line_format f;
        f.data_bits = 5 + (lcr & 3);
        f.parity = lcr & 0x08;
        f.even = lcr & 0x10;
        f.stick = lcr & 0x20;
        f.stop_bits = (lcr & LCR_STB) ? 2 : 1;
        schedule_rx(gen.r, p_rxd, gen.bit_ps(), f);
    }

    // The first initiator's steps (its loop is rig_core's).
    void schedule(const op& o) {
        if (o.kind == op::rx_burst) {
            schedule_rx_burst();
        } else if (o.kind == op::modem) {
            static const pin_id pins[] = {p_ncts, p_ndsr, p_ndcd, p_nri};
            schedule_toggle(gen.r, pins[gen.r.pick(4)], gen.period_ps(), gen.r.chance(50),
                            gen.r.chance(40) ? gen.r.range(1, 2000 * gen.period_ps()) : 0);
        } else if (o.kind == op::reset_pulse) {
            m_inputs.add(sc_time_stamp(), p_nreset, false);
            m_inputs.add(sc_time_stamp() + sc_time::from_value(o.length_ps), p_nreset, true);
            advance_to(sc_time_stamp());
        }
    }

    void debug_access(const bus_req& q) {
        ++n.debug;
        std::array<unsigned char, 8> buf;
        buf.fill(canary);
        const snapshot before = opt.checks ? snap() : snapshot{};
        const unsigned got = dbg(q.addr, q.len, buf.data(), q.write);
        const verdict v = judge(q, opt.cfg);
        const unsigned want = !q.write && v.ok ? q.len : 0;
        if (got != want)
            ctx.fail("debug access answered " + std::to_string(got) + " bytes, expected " +
                     std::to_string(want));
        if (!opt.checks) return;
        const std::string d = diff(before, snap());
        if (!d.empty()) ctx.fail("a debug access changed registers:" + d);
        if (got && want) {
            if (buf[0] != before.r[v.idx])
                ctx.fail("debug read " + hex(buf[0]) + ", the snapshot has " + hex(before.r[v.idx]));
            for (unsigned i = 1; i < q.len; ++i)
                if (buf[i] != 0)
                    ctx.fail("upper lane " + std::to_string(i) + " of a debug read is " + hex(buf[i]));
        }
    }

    sc_time bus_access(const bus_req& q, std::uint64_t seq) {
        ++n.accesses;
        const verdict v = judge(q, opt.cfg);
        const bool reset = !pin(p_nreset).read();
        std::array<unsigned char, 8> buf;
        read_promise promise;
        const bool exact = opt.checks && q.annotate_ps == 0;
        const snapshot s0 = exact ? snap() : snapshot{};
        if (exact) check_snapshot(s0, "before");
        const std::uint64_t breaks0 = m_breaks ? *m_breaks : 0;
        const sc_time issued = sc_time_stamp() + sc_time::from_value(q.annotate_ps);
        const bool second_now = m_second_at == issued;
        if (second_now) ++n.same_time;
        const unsigned batch = m_second_returned == issued ? 1 : 0;
        sc_time d = sc_time::from_value(q.annotate_ps);
        const auto st = transport(sock1, q, buf, 1, promise, d);
        const sc_time completed = sc_time_stamp() + d;
        const bool ok = st == tlm::TLM_OK_RESPONSE;
        if (!ok) ++n.errors;
        if (ok && !v.reaches) ++n.no_lane;
        if (opt.keep_records)
            records1.push_back({seq, issued, completed, st, buf, promise.valid, promise.until});
        note_promise(promise);
        // What this access does by the datasheet, as far as the state before it tells.
        bool certain = false, maybe = false;
        if (ok && v.reaches) {
            if (q.write) {
                certain = true;
            } else if (!s0.dlab() || v.idx >= 2 || !exact) {
                // A target may break promises where nothing visible changes (it need not know), so any
                // read of these may have; one that clears or pops something visible certainly did.
                maybe = v.idx == RBR || v.idx == IIR || v.idx == LSR || v.idx == MSR;
                certain =
                    exact &&
                    ((v.idx == RBR && (s0.r[LSR] & LSR_DR)) || (v.idx == LSR && (s0.r[LSR] & 0x1E)) ||
                     (v.idx == MSR && (s0.r[MSR] & 0x0F)) || (v.idx == IIR && (s0.r[IIR] & 0x0F) == 0x02));
            }
        }
        if (certain || maybe) m_touchers.push_back({issued, batch, 1, certain});
        if (!opt.checks) return completed;

        if (!v.allows(st)) {
            std::string a;
            for (auto s : v.allowed)
                a += std::string(" ") + status_name(s);
            ctx.fail(std::string("answered ") + status_name(st) + ", expected" + a);
        }
        if (ok && completed != issued)
            ctx.fail("completed at " + completed.to_string() + ", not at its issue");
        if (completed < issued) ctx.fail("completed before it was issued");
        // Data lanes: refused or lane 0 disabled, nothing is touched but enabled upper lanes of a read
        // (which read 0); otherwise lane 0 is the register, upper lanes 0, disabled lanes untouched.
        for (unsigned i = 0; i < q.len && i < 8; ++i) {
            const unsigned char orig = q.write ? q.data[i] : canary;
            if (!ok || q.write || !q.lane_on(i)) {
                if (buf[i] != orig) ctx.fail("data lane " + std::to_string(i) + " touched");
            } else if (i > 0 && buf[i] != 0) {
                ctx.fail("upper lane " + std::to_string(i) + " read " + hex(buf[i]));
            } else if (i == 0 && exact && buf[0] != s0.r[v.idx]) {
                ctx.fail(std::string("read ") + hex(buf[0]) + ", the debug read just before gave " +
                         hex(s0.r[v.idx]));
            }
        }
        if (ok && v.reaches && !q.write) {
            if (promise.valid) {
                ++n.promised;
                if (promise.until <= issued)
                    ctx.fail("promised until " + promise.until.to_string() + ", not after the read");
            }
            if (m_breaks) {
                const std::string e = m_promises.check(v.idx, buf[0], 0xFF, exact ? breaks0 : *m_breaks);
                if (!e.empty()) ctx.fail(e);
            }
            if (promise.valid) m_promises.add(v.idx, buf[0], 0xFF, promise, ctx.index);
        }
        const snapshot s1 = snap();
        check_snapshot(s1, "after");
        if (!exact || second_now) return completed;
        if (!ok || !v.reaches) {
            const std::string d1 = diff(s0, s1);
            if (!d1.empty())
                ctx.fail(std::string(ok ? "an access with lane 0 disabled" : "a refused access") +
                         " changed registers:" + d1);
            return completed;
        }
        if (promise.valid) {
            const std::string d1 = diff(s0, s1);
            if (!d1.empty()) ctx.fail("a promised read had a side effect:" + d1);
        }
        if (reset && q.write) return completed; // the chip is held in reset
        check_effect(q, v.idx, s0, s1);
        return completed;
    }

    // What one register access may change, by the datasheet.
    void check_effect(const bus_req& q, unsigned idx, const snapshot& s0, const snapshot& s1) {
        const bool dlab = s0.dlab();
        const std::uint8_t v = q.data[0];
        unsigned allowed = 0;
        std::ostringstream o;
        auto bit = [](unsigned i) { return 1u << i; };
        if (!q.write) {
            if (dlab && idx < 2) {
                allowed = 0;
            } else if (idx == RBR) {
                allowed = bit(RBR) | bit(IIR) | bit(LSR);
                // The pop may reveal the next character's PE/FE/BI; it clears none of LSR's bits but DR.
                if ((s1.r[LSR] & 0xFE & s0.r[LSR]) != (s0.r[LSR] & 0xFE) ||
                    (s1.r[LSR] & 0xE2) != (s0.r[LSR] & 0xE2))
                    o << " RBR read changed LSR " << hex(s0.r[LSR]) << "->" << hex(s1.r[LSR]) << ";";
            } else if (idx == IIR) {
                allowed = bit(IIR);
                if ((s0.r[IIR] & 0x0F) == 0x02 && (s1.r[IIR] & 0x0F) == 0x02)
                    o << " THRE interrupt not cleared by the IIR read;";
            } else if (idx == LSR) {
                allowed = bit(LSR) | bit(IIR);
                if (s1.r[LSR] & 0x1E) o << " LSR[4:1] not cleared by the read;";
                if ((s1.r[LSR] & 0x61) != (s0.r[LSR] & 0x61) || (s1.r[LSR] & ~s0.r[LSR] & 0x80))
                    o << " LSR read changed DR/THRE/TEMT or set LSR7;";
            } else if (idx == MSR) {
                allowed = bit(MSR) | bit(IIR);
                if (s1.r[MSR] & 0x0F) o << " MSR[3:0] not cleared by the read;";
                if ((s1.r[MSR] & 0xF0) != (s0.r[MSR] & 0xF0)) o << " MSR read changed MSR[7:4];";
            }
        } else if (dlab && idx < 2) {
            allowed = bit(idx) | bit(IIR); // a smaller divisor may bring the character timeout due at once
            if (s1.r[idx] != v) o << " divisor latch reads back " << hex(s1.r[idx]) << ";";
        } else {
            switch (idx) {
            case THR:
                allowed = bit(LSR) | bit(IIR);
                if ((s1.r[LSR] & 0x9F) != (s0.r[LSR] & 0x9F)) o << " THR write changed LSR beyond THRE/TEMT;";
                if (s1.r[LSR] & LSR_TEMT) o << " TEMT right after a THR write;";
                break;
            case IER:
                // The THRE delay applies in FIFO interrupt mode only (<uartvp/uart16550.h>): clearing
                // ETBEI while a delayed rise is pending raises THRE at once. Nothing else in LSR moves.
                allowed = bit(IER) | bit(IIR) | bit(LSR);
                if (s1.r[IER] != (v & 0x0F)) o << " IER reads back " << hex(s1.r[IER]) << ";";
                if ((s1.r[LSR] & 0x9F) != (s0.r[LSR] & 0x9F) ||
                    ((s0.r[LSR] & LSR_THRE) && !(s1.r[LSR] & LSR_THRE)))
                    o << " IER write changed LSR " << hex(s0.r[LSR]) << "->" << hex(s1.r[LSR]) << ";";
                break;
            case FCR:
                if (!s0.fifo() && !(v & 1)) break; // FCR0 must be set for the other bits
                allowed = bit(RBR) | bit(IIR) | bit(LSR);
                if (s1.fifo() != bool(v & 1)) o << " FIFO enable not as written;";
                if (((v & 2) || s0.fifo() != bool(v & 1)) && (s1.r[LSR] & LSR_DR))
                    o << " RX FIFO not cleared;";
                break;
            case LCR:
                // The character timeout counts character times of the current format: a shorter one
                // may bring it due at once.
                allowed = bit(LCR) | bit(IIR) | ((v ^ s0.r[LCR]) & LCR_DLAB ? bit(0) | bit(1) : 0);
                if (s1.r[LCR] != v) o << " LCR reads back " << hex(s1.r[LCR]) << ";";
                break;
            case MCR:
                allowed = bit(MCR) | bit(MSR) | bit(IIR);
                if (s1.r[MCR] != (v & 0x1F)) o << " MCR reads back " << hex(s1.r[MCR]) << ";";
                break;
            case SCR:
                allowed = bit(SCR);
                if (s1.r[SCR] != v) o << " SCR reads back " << hex(s1.r[SCR]) << ";";
                break;
            default: // LSR, MSR: factory test, ignored
                allowed = 0;
            }
        }
        const std::string d = diff(s0, s1, allowed);
        if (!d.empty()) o << " changed beyond what the access may change:" << d << ";";
        if (!o.str().empty()) ctx.fail(o.str());
    }

    void second_initiator() {
        std::uint64_t seq = 0;
        while (!done && !ctx.stopped) {
            const sc_time t = next_grid(sc_time_stamp() +
                                        sc_time::from_value(opt.grid_ps * r2.range(1, opt.second_max_steps)));
            m_second_at = t;
            wait(t - sc_time_stamp());
            if (done) break;
            ++n.second;
            const unsigned k = static_cast<unsigned>(r2.pick(100));
            unsigned idx = LSR;
            bool write = false, promise_it = false;
            std::uint8_t value = 0;
            if (k < 45) {
                idx = LSR;
                promise_it = true;
            } else if (k < 60) {
                idx = RBR;
            } else if (k < 75) {
                idx = THR;
                write = true;
                value = static_cast<std::uint8_t>(r2.range(0x20, 0x7E));
            } else if (k < 85) {
                idx = IIR;
                promise_it = r2.chance(50);
            } else if (k < 90) {
                idx = MSR;
                promise_it = true;
            } else if (k < 95) {
                idx = SCR;
                write = r2.chance(50);
                value = static_cast<std::uint8_t>(r2.bits(8));
            } else {
                idx = IER;
                write = true;
                value = static_cast<std::uint8_t>(r2.bits(4));
            }
            bus_req q;
            q.write = write;
            q.addr = offset(idx);
            q.len = q.sw = opt.cfg.reg_io_width > 1 && r2.chance(50) ? opt.cfg.reg_io_width : 1;
            q.data[0] = value; // the upper lanes of a write 0
            q.promise = promise_it;
            const bool with_id = r2.chance(70);
            std::array<unsigned char, 8> buf;
            read_promise promise;
            sc_time d = SC_ZERO_TIME;
            const auto st = transport(sock2, q, buf, with_id ? 2 : 0, promise, d);
            const unsigned id = with_id ? 2 : UINT_MAX;
            if (opt.keep_records)
                records2.push_back({seq++, t, sc_time_stamp() + d, st, buf, promise.valid, promise.until});
            note_promise(promise);
            if (write || idx == RBR || idx == IIR || idx == LSR || idx == MSR)
                m_touchers.push_back({t, 0, id, write});
            m_second_returned = t;
            if (opt.checks) {
                if (st != tlm::TLM_OK_RESPONSE)
                    ctx.fail("second initiator: answered " + std::string(status_name(st)));
                if (d != SC_ZERO_TIME || sc_time_stamp() != t)
                    ctx.fail("second initiator: not completed at its issue");
                if (!write && m_breaks) {
                    const std::string e = m_promises.check(idx, buf[0], 0xFF, *m_breaks);
                    if (!e.empty()) ctx.fail("second initiator: " + e);
                }
                if (promise.valid) {
                    if (promise.until <= t) ctx.fail("second initiator: promise not after the read");
                    m_promises.add(idx, buf[0], 0xFF, promise, ctx.index);
                }
            }
        }
        m_second_at = sc_max_time();
    }
};

void report(const rig& x) {
    auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
    std::printf(
        "%s: %llu accesses (%llu refused, %llu with lane 0 disabled, %llu promised), %llu debug ops, %llu "
        "snapshots, %llu checks at rest, %llu input changes (%llu resets), %llu accesses of the second "
        "initiator (%llu at the first's time), %llu break causes and %llu promises checked; LSR bits seen "
        "%#x, MSR bits seen %#x, IIR ids seen %#x; outputs: %llu txd, %llu irq, %llu rx level changes\n",
        x.opt.name.c_str(), u(x.n.accesses), u(x.n.errors), u(x.n.no_lane), u(x.n.promised), u(x.n.debug),
        u(x.n.snapshots), u(x.n.at_rest), u(x.input_changes), u(x.resets), u(x.n.second), u(x.n.same_time),
        u(x.n.causes), u(x.promise_checks()), x.n.lsr_seen, x.n.msr_seen, x.n.iir_seen,
        u(x.outputs->count(0)), u(x.outputs->count(1)), u(x.outputs->count(11)));
}

void expect_exercised(const rig& x) {
    // The reported line is the pin's, change by change, over all of the traffic (resets, BREAK,
    // loopback, format, divisor changes at any time).
    const line_changes pin = settled(x.txd_log), reported = settled(x.line.edges);
    EXPECT_GT(pin.size(), 100u);
    std::size_t i = 0;
    while (i < pin.size() && i < reported.size() && pin[i] == reported[i])
        ++i;
    if (i < pin.size() || i < reported.size())
        ADD_FAILURE() << x.opt.name << ": the reported line differs from TXD at change #" << i << " of "
                      << pin.size() << " (" << reported.size()
                      << " reported): " << (i < pin.size() ? pin[i].first.to_string() : std::string("none"))
                      << " against "
                      << (i < reported.size() ? reported[i].first.to_string() : std::string("none"));
    const exercise_quota want(x.set.transactions);
    if (!want.applies()) return;
    want.at_least(x.outputs->count(0), 50000, "txd changes");
    want.at_least(x.outputs->count(1), 3000, "irq changes");
    want.at_least(x.outputs->count(11), 10000, "rx level changes");
    want.at_least(x.n.errors, 2000, "refused accesses");
    want.at_least(x.n.no_lane, 300, "accesses with lane 0 disabled");
    want.at_least(x.n.promised, 5000, "promised reads");
    want.at_least(x.resets, 15, "reset pulses");
    want.at_least(x.n.same_time, 500, "accesses of both initiators at one time");
    want.at_least(x.n.causes, 10000, "break causes checked");
    if (x.opt.checks) {
        want.at_least(x.n.at_rest, 50000, "checks at rest");
        EXPECT_EQ(x.n.lsr_seen, 0xFF) << "every LSR bit set at least once";
        EXPECT_EQ(x.n.msr_seen, 0xFF) << "every MSR bit set at least once";
        const std::uint32_t ids = 1u << 0x01 | 1u << 0x06 | 1u << 0x04 | 1u << 0x0C | 1u << 0x02 | 1u << 0x00;
        EXPECT_EQ(x.n.iir_seen, ids) << "every IIR identification seen";
    }
}

rig_options io_port() {
    rig_options o;
    o.name = "uart16550_io";
    o.cfg.out2_gates_irq = true; // a PC board
    o.divisors = {1, 2, 3, 6, 12};
    o.grid_ps = 10'013'000; // slow lines: about one access of the second initiator per 15 bits
    return o;
}

rig_options mmio() {
    rig_options o;
    o.name = "uart16550_mmio";
    o.cfg.clock_hz = 48'000'000; // a period that is no whole number of picoseconds
    o.cfg.reg_shift = 2;
    o.cfg.reg_io_width = 4;
    o.divisors = {3, 13, 26, 52, 104, 312}; // 1 Mbaud .. 9600
    o.grid_ps = 5'013'000;
    return o;
}

} // namespace

TEST(Uart16550Fuzz, RandomTrafficKeepsTheDatasheetRules_IoPort) {
    UARTVP_SIM_TEST();
    run_fuzz<rig>(io_port(), 100'000, 11);
}

TEST(Uart16550Fuzz, RandomTrafficKeepsTheDatasheetRules_MmioRegShift2) {
    UARTVP_SIM_TEST();
    run_fuzz<rig>(mmio(), 100'000, 12);
}

TEST(Uart16550Fuzz, DebugReadsMoveNothing_IoPort) {
    UARTVP_SIM_TEST();
    rig_options a = io_port(), b = io_port();
    a.name = "with_debug_reads";
    b.name = "without_debug_reads";
    b.checks = false;
    b.debug_reads = false;
    run_twins<rig>(a, b, 100'000, 13);
}
