// SPDX-License-Identifier: Apache-2.0
// Seeded random register traffic on the PL011, checked against rules from the TRM and the wrapper's
// documented timing, not against the model's own code:
// - the response each access deserves (map, holes, direction, length, alignment, byte enables), and
//   no change of any register (all read through transport_dbg before and after) on an error, on an
//   access without an enabled lane and on a read other than DR; the data array untouched where it must be;
// - a debug read equals a normal read issued right after it at the same time; writes read back;
// - FR consistent (TXFE/TXFF, RXFE/RXFF never both, BUSY while the TX FIFO holds data), MIS = RIS & IMSC,
//   irq = (MIS != 0) and the observation signals equal to FR once the outputs are shown;
// - every access lands on the first UARTCLK edge after those already taken (b_transport's delay),
//   side-effect accesses take their edge, others do not; read promises hold until broken, and a break
//   names its cause (an input change before every access of its time, else the lowest initiator id).
// Two initiators share the UART (ids 1 and 2 or none, often at the same times), RXD carries frames,
// errors, breaks and glitches, the modem and DMA-clear inputs and nRESET move.
// Twin runs compare every output change and every access result: fast against clock_every_cycle, and
// with against without debug reads (issued also between b_transport's return and its delay's end).
#include <array>
#include <climits>
#include <cstdio>
#include <memory>

#include <gtest/gtest.h>

#include "fuzz_support.h"
#include "pl011_harness.h"
#include "sim_main.h"

using namespace sc_core;
using namespace uartvp;
using namespace uartvp::test;
using namespace uartvp::test::fuzz;

namespace {

// ---- the register map, from the TRM

enum class dir { rw, ro, wo };
struct reg_def {
    std::uint32_t off;
    const char* name;
    dir d;
    std::uint32_t readback; // documented bits a write sets and a read returns (0: none)
};
const reg_def map[] = {
    {0x000, "DR", dir::rw, 0},        {0x004, "RSR/ECR", dir::rw, 0},   {0x018, "FR", dir::ro, 0},
    {0x020, "ILPR", dir::rw, 0xFF},   {0x024, "IBRD", dir::rw, 0xFFFF}, {0x028, "FBRD", dir::rw, 0x3F},
    {0x02C, "LCR_H", dir::rw, 0xFF},  {0x030, "CR", dir::rw, 0xFF87},   {0x034, "IFLS", dir::rw, 0x3F},
    {0x038, "IMSC", dir::rw, 0x7FF},  {0x03C, "RIS", dir::ro, 0},       {0x040, "MIS", dir::ro, 0},
    {0x044, "ICR", dir::wo, 0},       {0x048, "DMACR", dir::rw, 0x7},   {0xFE0, "PeriphID0", dir::ro, 0},
    {0xFE4, "PeriphID1", dir::ro, 0}, {0xFE8, "PeriphID2", dir::ro, 0}, {0xFEC, "PeriphID3", dir::ro, 0},
    {0xFF0, "PCellID0", dir::ro, 0},  {0xFF4, "PCellID1", dir::ro, 0},  {0xFF8, "PCellID2", dir::ro, 0},
    {0xFFC, "PCellID3", dir::ro, 0},
};
const reg_def* reg_at(std::uint64_t word_off) {
    for (const reg_def& r : map)
        if (r.off == word_off) return &r;
    return nullptr; // a reserved hole (or the test registers, not modelled)
}
std::uint8_t id_value(std::uint32_t off, unsigned depth) {
    switch (off) {
    case 0xFE0:
        return 0x11;
    case 0xFE4:
        return 0x10;
    case 0xFE8:
        return depth == 32 ? 0x34 : 0x14;
    case 0xFEC:
        return 0x00;
    case 0xFF0:
        return 0x0D;
    case 0xFF4:
        return 0xF0;
    case 0xFF8:
        return 0x05;
    default:
        return 0xB1;
    }
}

// The registers a snapshot reads (all readable ones but the constant IDs).
enum snap_reg {
    s_dr,
    s_rsr,
    s_fr,
    s_ilpr,
    s_ibrd,
    s_fbrd,
    s_lcrh,
    s_cr,
    s_ifls,
    s_imsc,
    s_ris,
    s_mis,
    s_dmacr,
    n_snap
};
constexpr std::uint32_t snap_off[n_snap] = {0x000, 0x004, 0x018, 0x020, 0x024, 0x028, 0x02C,
                                            0x030, 0x034, 0x038, 0x03C, 0x040, 0x048};
constexpr bool snap_config[n_snap] = {false, false, false, true,  true,  true, true,
                                      true,  true,  true,  false, false, true};
int snap_index(std::uint64_t off) {
    for (int i = 0; i < n_snap; ++i)
        if (snap_off[i] == off) return i;
    return -1;
}
using snapshot = std::array<std::uint32_t, n_snap>;

// ---- one access

constexpr std::uint64_t map_size = 0x1000;

using bus_req = bus_request<4>;

// What the TRM and the documented rules say an access deserves. Where several error classes apply at
// once their order is not documented: any of them is accepted.
struct verdict {
    std::vector<tlm::tlm_response_status> allowed;
    bool reaches = false;     // a register is read or written (valid, at least one lane)
    bool side_effect = false; // ... and it takes its edge (a write, a DR read)
    std::uint8_t strb = 0;    // enabled byte lanes of the word
    const reg_def* reg = nullptr;
    bool allows(tlm::tlm_response_status s) const {
        return std::find(allowed.begin(), allowed.end(), s) != allowed.end();
    }
};
verdict judge(const bus_req& q) {
    verdict v;
    const bool len_ok = q.len == 1 || q.len == 2 || q.len == 4;
    if (!len_ok || q.sw < q.len) v.allowed.push_back(tlm::TLM_BURST_ERROR_RESPONSE);
    if (q.addr >= map_size || (len_ok && q.addr % q.len))
        v.allowed.push_back(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    if (q.has_be && q.be.empty()) v.allowed.push_back(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    if (!v.allowed.empty()) return v;
    for (unsigned i = 0; i < q.len; ++i)
        if (q.lane_on(i)) v.strb |= 1u << ((q.addr & 3) + i);
    v.reg = reg_at(q.addr & ~std::uint64_t{3});
    const bool wrong_dir = v.reg && (q.write ? v.reg->d == dir::ro : v.reg->d == dir::wo);
    if (v.strb == 0) {
        // No lane enabled: OK and nothing happens. Whether a hole or the wrong direction still answers
        // its error first is not said; either is accepted.
        v.allowed.push_back(tlm::TLM_OK_RESPONSE);
        if (!v.reg) v.allowed.push_back(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        if (wrong_dir) v.allowed.push_back(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return v;
    }
    if (!v.reg) {
        v.allowed.push_back(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    } else if (wrong_dir) {
        v.allowed.push_back(tlm::TLM_COMMAND_ERROR_RESPONSE);
    } else {
        v.allowed.push_back(tlm::TLM_OK_RESPONSE);
        v.reaches = true;
        v.side_effect = q.write || v.reg->off == 0x000;
    }
    return v;
}

// ---- the traffic

enum pin_id : unsigned { p_rxd, p_ncts, p_ndsr, p_ndcd, p_nri, p_nreset, p_txdmaclr, p_rxdmaclr, n_pins };
static_assert(p_nreset == 5, "pins 0 to 5 are the ones rig_core::line_pins() makes and bind_lines() binds");

struct op {
    using req_t = bus_req;
    enum kind_t { access, rx_burst, modem, dma_clear, reset_pulse } kind = access;
    std::uint64_t gap_ps = 0; // from the previous access's issue, or its completion
    bool after_completion = true;
    bool on_grid = false; // snapped to the grid the second initiator uses
    bus_req req;
    std::uint64_t length_ps = 0; // reset pulse
};

// The stream of operations (traffic_base): it keeps the UART mostly configured sanely (plausible
// divisors, enabled) so that the traffic exercises transmission, reception and interrupts.
class traffic : public traffic_base<traffic, op> {
public:
    traffic(std::uint64_t seed, std::uint64_t uartclk, std::uint64_t max_baud_div)
        : traffic_base(seed)
        , m_clk(uartclk)
        , m_max_div(max_baud_div) {
        reconfigure();
    }
    const cycle_clock& clock() const { return m_clk; }
    std::uint64_t period_ps() const { return m_clk.time_of(1).value(); }
    std::uint64_t bit_ps() const {
        return (16 * (64 * m_ibrd + m_fbrd) * m_clk.time_of(1000).value()) / 64000;
    }
    std::uint32_t lcr_h() const { return m_lcr_h; }

private:
    friend traffic_base;
    void put32(bus_req& q, std::uint32_t v) {
        for (unsigned i = 0; i < 4; ++i)
            q.data[i] = static_cast<unsigned char>(v >> (8 * i));
    }
    // A well-formed access of a register: 4 bytes mostly, or the low byte / halfword.
    op reg_access(bool write, std::uint32_t off, std::uint32_t value, unsigned lens = 4) {
        op o = base();
        bus_req& q = o.req;
        q.write = write;
        q.len = lens;
        if (lens == 4 && r.chance(15)) q.len = r.chance(50) ? 1 : 2;
        q.sw = q.len;
        q.addr = off;
        put32(q, value);
        if (r.chance(8)) { // byte enables, mostly all on
            q.has_be = true;
            q.be.resize(q.len);
            for (auto& b : q.be)
                b = r.chance(80) ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED;
        }
        if (!write) q.promise = r.chance(40);
        if (r.chance(8)) q.annotate_ps = r.pick(4 * period_ps());
        return o;
    }
    std::uint32_t plausible_cr() {
        std::uint32_t cr = 0x301;
        const unsigned k = static_cast<unsigned>(r.pick(20));
        if (k == 0) cr = 0x300;
        if (k == 1) cr = 0x201;
        if (k == 2) cr = 0x101;
        if (r.chance(15)) cr |= 0x80; // loopback
        cr |= static_cast<std::uint32_t>(r.bits(4)) << 10;
        if (r.chance(15)) cr |= 0x4000; // RTSEN
        if (r.chance(8)) cr |= 0x8000;  // CTSEN
        return cr;
    }
    void reconfigure() {
        static const std::uint64_t bauds[] = {921600, 460800, 230400, 115200, 57600, 38400};
        std::uint64_t baud = bauds[r.pick(6)];
        auto [ibrd, fbrd] = divisor(m_clk.hz(), baud);
        if (r.chance(30)) fbrd = static_cast<std::uint32_t>(r.pick(64));
        if (r.chance(10)) ibrd = static_cast<std::uint32_t>(r.range(1, 64));
        while (ibrd > m_max_div)
            ibrd = ibrd / 2;
        if (ibrd == 0) ibrd = 1;
        m_ibrd = ibrd;
        m_fbrd = fbrd;
        m_lcr_h = static_cast<std::uint32_t>((r.chance(60) ? 3 : r.pick(4)) << 5 | (r.chance(85) ? 0x10 : 0) |
                                             (r.chance(30) ? 0x02 : 0) | r.bits(1) << 2 |
                                             (r.chance(25) ? 0x08 : 0) | (r.chance(10) ? 0x80 : 0));
        m_q.push_back(reg_access(true, reg::IBRD, m_ibrd));
        m_q.push_back(reg_access(true, reg::FBRD, m_fbrd));
        op l = reg_access(true, reg::LCR_H, m_lcr_h);
        l.req.len = 4;
        l.req.sw = 4;
        l.req.has_be = false;
        m_q.push_back(l);
        op c = reg_access(true, reg::CR, plausible_cr(), 4);
        c.req.has_be = false;
        m_q.push_back(c);
        if (r.chance(50)) m_q.push_back(reg_access(true, reg::IMSC, static_cast<std::uint32_t>(r.bits(11))));
    }
    // Any address, length, streaming width and byte enables: most of it must be refused.
    bus_req chaos(bool debug) {
        bus_req q;
        q.debug = debug;
        q.write = debug ? r.chance(10) : r.chance(45);
        static const unsigned lens[] = {1, 1, 1, 2, 2, 3, 4, 4, 4, 8};
        q.len = lens[r.pick(10)];
        switch (r.pick(10)) {
        case 0:
        case 1:
        case 2:
        case 3: // a register, maybe off its lane
            q.addr = map[r.pick(14)].off + (r.chance(60) ? 0 : r.pick(4));
            break;
        case 4:
        case 5:
            q.addr = r.pick(map_size);
            break;
        case 6: // the ID block
            q.addr = 0xFE0 + r.pick(32);
            break;
        case 7: { // a reserved hole or the test registers
            static const std::uint32_t holes[] = {0x008, 0x00C, 0x010, 0x014, 0x01C,
                                                  0x04C, 0x080, 0x08C, 0xFDC, 0x800};
            q.addr = holes[r.pick(10)] + (r.chance(70) ? 0 : r.pick(4));
            break;
        }
        case 8:
            q.addr = map_size + r.pick(map_size);
            break;
        default:
            q.addr = r.chance(50) ? ~std::uint64_t{0} - r.pick(8) : std::uint64_t{1} << r.range(13, 40);
            break;
        }
        q.sw = q.len;
        if (!debug) {
            const unsigned s = static_cast<unsigned>(r.pick(10));
            if (s == 0 && q.len > 1) q.sw = static_cast<unsigned>(r.range(1, q.len - 1));
            if (s == 1) q.sw = q.len + static_cast<unsigned>(r.range(1, 8));
            const unsigned b = static_cast<unsigned>(r.pick(20));
            if (b < 8) { // random enables, pattern shorter than the data or as long
                q.has_be = true;
                q.be.resize(r.range(1, q.len));
                for (auto& e : q.be)
                    e = r.chance(50) ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED;
            } else if (b < 10) { // all disabled
                q.has_be = true;
                q.be.assign(r.range(1, q.len), TLM_BYTE_DISABLED);
            } else if (b == 10) { // byte_enable_length 0
                q.has_be = true;
            }
            q.promise = !q.write && r.chance(30);
            if (r.chance(5)) q.annotate_ps = r.pick(4 * period_ps());
        }
        for (auto& d : q.data)
            d = static_cast<unsigned char>(r.bits(8));
        return q;
    }

    void generate() {
        const unsigned k = static_cast<unsigned>(r.pick(1000));
        if (m_reconfigure_in && --m_reconfigure_in == 0) {
            reconfigure();
            return;
        }
        if (k < 170) { // DR writes: one, or a burst that fills the FIFO
            const unsigned n = r.chance(20) ? static_cast<unsigned>(r.range(2, 40)) : 1;
            for (unsigned i = 0; i < n; ++i) {
                op o = reg_access(true, reg::DR, static_cast<std::uint32_t>(r.range(0x20, 0x7E)), 1);
                if (i) o.gap_ps = r.chance(50) ? 0 : r.pick(bit_ps());
                m_q.push_back(o);
            }
        } else if (k < 260) { // DR reads: one, or a drain
            const unsigned n = r.chance(25) ? static_cast<unsigned>(r.range(2, 40)) : 1;
            for (unsigned i = 0; i < n; ++i) {
                static const unsigned lens[] = {1, 2, 4};
                op o = reg_access(false, reg::DR, 0, lens[r.pick(3)]);
                if (i) o.gap_ps = r.chance(50) ? 0 : r.pick(bit_ps());
                m_q.push_back(o);
            }
        } else if (k < 400) { // FR polling
            const unsigned n = r.chance(30) ? static_cast<unsigned>(r.range(2, 30)) : 1;
            for (unsigned i = 0; i < n; ++i) {
                op o = reg_access(false, reg::FR, 0);
                o.req.promise = r.chance(70);
                if (i) o.gap_ps = r.pick(r.chance(80) ? bit_ps() : 10 * bit_ps());
                m_q.push_back(o);
            }
        } else if (k < 425) {
            m_q.push_back(reg_access(false, reg::RSR, 0));
        } else if (k < 440) {
            m_q.push_back(reg_access(true, reg::RSR, static_cast<std::uint32_t>(r.bits(32))));
        } else if (k < 470) {
            m_q.push_back(reg_access(true, reg::IMSC, static_cast<std::uint32_t>(r.bits(11))));
        } else if (k < 500) {
            m_q.push_back(
                reg_access(true, reg::ICR, r.chance(50) ? 0x7FF : static_cast<std::uint32_t>(r.bits(11))));
        } else if (k < 535) {
            m_q.push_back(reg_access(false, r.chance(50) ? reg::RIS : reg::MIS, 0));
        } else if (k < 550) {
            m_q.push_back(reg_access(true, reg::IFLS, static_cast<std::uint32_t>(r.bits(6))));
        } else if (k < 565) {
            m_q.push_back(reg_access(true, reg::DMACR, static_cast<std::uint32_t>(r.bits(3))));
        } else if (k < 570) {
            m_q.push_back(reg_access(true, reg::ILPR, static_cast<std::uint32_t>(r.bits(8))));
        } else if (k < 595) {
            m_q.push_back(reg_access(true, reg::CR, plausible_cr()));
        } else if (k < 610) {
            reconfigure();
        } else if (k < 618) { // BRK for a while
            m_q.push_back(reg_access(true, reg::LCR_H, m_lcr_h | 1, 4));
            op off = reg_access(true, reg::LCR_H, m_lcr_h, 4);
            off.gap_ps = r.pick(30 * bit_ps());
            m_q.push_back(off);
        } else if (k < 670) {
            static const std::uint32_t offs[] = {reg::ILPR, reg::IBRD, reg::FBRD,  reg::LCR_H, reg::CR,
                                                 reg::IFLS, reg::IMSC, reg::DMACR, 0xFE0,      0xFF0};
            const std::uint32_t off = offs[r.pick(10)];
            m_q.push_back(
                reg_access(false, off + (off >= 0xFE0 ? 4 * static_cast<std::uint32_t>(r.pick(4)) : 0), 0));
        } else if (k < 790) {
            op o = base();
            o.req = chaos(false);
            // A write that may have reached a register of the set-up: set it up again soon.
            const verdict v = judge(o.req);
            if (v.reaches && o.req.write &&
                (v.reg->off == reg::CR || v.reg->off == reg::LCR_H || v.reg->off == reg::IBRD))
                m_reconfigure_in = static_cast<unsigned>(r.range(1, 30));
            m_q.push_back(o);
        } else if (k < 870) {
            op o = base();
            if (r.chance(60)) {
                o.req = chaos(true);
            } else { // a well-formed debug read of a register
                o.req = as_debug_read(reg_access(false, map[r.pick(22)].off, 0));
            }
            m_q.push_back(o);
        } else if (k < 935) {
            push(op::rx_burst);
        } else if (k < 955) {
            push(op::modem);
        } else if (k < 965) {
            push(op::dma_clear);
        } else if (k < 966) {
            // After the reset, set the UART up again (after the pulse's first access).
            push_reset_pulse(period_ps(), [&] { return reg_access(false, reg::FR, 0); });
            reconfigure();
        } else {
            op o = base();
            o.req = chaos(false);
            o.req.write = false; // random reads are harmless to the set-up
            m_q.push_back(o);
        }
    }

    cycle_clock m_clk;
    std::uint64_t m_max_div;
    std::uint32_t m_ibrd = 13, m_fbrd = 1, m_lcr_h = 0x70;
};

// ---- one PL011 with two initiators, the stimulus and the checks

struct rig_options {
    std::string name = "rig";
    pl011_config cfg;
    std::uint64_t max_baud_div = 1 << 16; // keep IBRD at most this (fast lines for the clocked twin)
    bool checks = true;                   // the invariants (and the debug reads they need)
    bool debug_reads = true; // debug-read operations of the traffic (also between return and delay)
    bool second_initiator = true;
    bool keep_records = false;           // every output change and access result, for a twin run
    std::uint64_t grid_ps = 1'013'000;   // the second initiator's issue times are multiples of this
    std::uint64_t second_max_steps = 30; // the second initiator waits 1 to this many grid steps
};

class rig : public rig_core<rig, rig_options, traffic> {
public:
    sc_signal<bool> txdmasreq{"txdmasreq"}, txdmabreq{"txdmabreq"}, rxdmasreq{"rxdmasreq"},
        rxdmabreq{"rxdmabreq"};
    pl011 uart;

    // Counters for the report and for "the traffic did exercise the UART".
    struct {
        std::uint64_t accesses = 0, debug = 0, errors = 0, no_lane = 0, taken = 0, promised = 0,
                      snapshots = 0, at_rest = 0, same_time = 0, second = 0, causes = 0, dr_errors = 0;
        std::uint32_t ris_seen = 0, fr_seen = 0;
    } n;

    SC_HAS_PROCESS(rig);
    rig(const sc_module_name& nm, const rig_options& o, const settings& s)
        : rig_core(nm, line_pins({{"txdmaclr", false}, {"rxdmaclr", false}}), p_nreset, o, s,
                   traffic(s.seed, o.cfg.clock_hz, o.max_baud_div))
        , uart("uart", o.cfg) {
        bind_lines(uart);
        uart.txdmaclr(pin(p_txdmaclr));
        uart.rxdmaclr(pin(p_rxdmaclr));
        uart.txdmasreq(txdmasreq);
        uart.txdmabreq(txdmabreq);
        uart.rxdmasreq(rxdmasreq);
        uart.rxdmabreq(rxdmabreq);
        outputs =
            std::make_unique<change_log>("outputs",
                                         line_watches({{"txdmasreq", &txdmasreq},
                                                       {"txdmabreq", &txdmabreq},
                                                       {"rxdmasreq", &rxdmasreq},
                                                       {"rxdmabreq", &rxdmabreq},
                                                       {"busy", &uart.busy},
                                                       {"txfe", &uart.txfe},
                                                       {"txff", &uart.txff},
                                                       {"rxfe", &uart.rxfe},
                                                       {"rxff", &uart.rxff},
                                                       {"tx_fifo_level", nullptr, &uart.tx_fifo_level},
                                                       {"rx_fifo_level", nullptr, &uart.rx_fifo_level}}),
                                         opt.keep_records);
        SC_THREAD(first_initiator);
        if (opt.second_initiator) SC_THREAD(second_initiator);
    }

    unsigned depth() const { return opt.cfg.fifo_depth; }
    const cycle_clock& clock() const { return uart.clock(); }

private:
    friend rig_core;
    // ---- shared state of the two initiators (with the promises and breaks, rig_core's)
    // The landing rule is checked over the accesses of both initiators in the order the target must
    // apply them: by issue time, then id. An access issued at the same time as another that has already
    // been applied (and returned) comes after it, whatever the ids: `batch` is 1 for an access of the
    // first initiator issued once the second's access of that time had returned, 0 otherwise.
    struct ledger_entry {
        sc_time issued;
        unsigned batch;
        unsigned who;
        std::uint64_t seq;
        sc_time completed;
        int cls; // 0: error (no landing), 1: looks (no edge taken), 2: takes its edge
        std::uint64_t index;
    };
    std::vector<ledger_entry> m_ledger;
    std::deque<ledger_entry> m_recent; // the last ones checked, for the report
    std::uint64_t m_last_taken = 0;
    std::uint64_t m_seq = 0;
    sc_time m_ahead_until; // completion of the latest edge taken by either initiator
    // For the cause of breaks: recent input changes and edge-taking accesses.
    struct take {
        sc_time issued;
        unsigned batch, who;
    };
    std::deque<take> m_takes;
    sc_time m_second_busy_until; // completion of the second initiator's last access

    // ---- debug reads
    snapshot snap() {
        snapshot s{};
        ++n.snapshots;
        for (int i = 0; i < n_snap; ++i) {
            unsigned char b[4] = {canary, canary, canary, canary};
            if (dbg(snap_off[i], 4, b) != 4)
                ctx.fail(std::string("debug read of ") + hex(snap_off[i]) + " refused");
            s[i] = std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 | std::uint32_t(b[2]) << 16 |
                   std::uint32_t(b[3]) << 24;
        }
        return s;
    }
    std::string diff(const snapshot& a, const snapshot& b, bool config_only = false, int except = -1) {
        std::string d;
        for (int i = 0; i < n_snap; ++i) {
            if ((config_only && !snap_config[i]) || i == except || a[i] == b[i]) continue;
            d += " " + std::string(reg_at(snap_off[i])->name) + " " + hex(a[i]) + "->" + hex(b[i]);
        }
        return d;
    }
    // Register-level rules every snapshot must satisfy.
    void check_snapshot(const snapshot& s, const char* when) {
        const std::uint32_t fr = s[s_fr];
        n.ris_seen |= s[s_ris];
        n.fr_seen |= fr;
        auto bad = [&](const std::string& what) {
            ctx.fail(std::string(when) + ": " + what + " (FR " + hex(fr) + ")");
        };
        if ((fr & fr::TXFE) && (fr & fr::TXFF)) bad("TXFE and TXFF both set");
        if ((fr & fr::RXFE) && (fr & fr::RXFF)) bad("RXFE and RXFF both set");
        if (!(fr & fr::TXFE) && !(fr & fr::BUSY)) bad("TX FIFO not empty but BUSY clear");
        if ((s[s_mis] & 0x7FF) != (s[s_ris] & s[s_imsc] & 0x7FF))
            bad("MIS " + hex(s[s_mis]) + " is not RIS " + hex(s[s_ris]) + " & IMSC " + hex(s[s_imsc]));
        if (m_breaks) {
            for (int i = 0; i < n_snap; ++i) {
                const std::string e = m_promises.check(snap_off[i], s[i], 0xFFFFFFFFu, *m_breaks);
                if (!e.empty()) bad("debug read: " + e);
            }
        }
    }

    void schedule_rx_burst() {
        // The programmed format mostly, sometimes another one.
        std::uint32_t lcr = gen.r.chance(15) ? static_cast<std::uint32_t>(gen.r.bits(8)) : gen.lcr_h();
        line_format f;
        f.data_bits = 5 + ((lcr >> 5) & 3);
        f.parity = lcr & 0x02;
        f.even = lcr & 0x04;
        f.stick = lcr & 0x80;
        f.stop_bits = (lcr & 0x08) ? 2 : 1;
        schedule_rx(gen.r, p_rxd, gen.bit_ps(), f);
    }
    void schedule_modem() {
        fuzz::rng& r = gen.r;
        static const pin_id pins[] = {p_ncts, p_ndsr, p_ndcd, p_nri};
        const pin_id p = pins[r.pick(4)];
        schedule_toggle(r, p, gen.period_ps(), r.chance(50),
                        r.chance(40) ? r.range(1, 100 * gen.period_ps()) : 0);
    }
    void schedule_dma_clear() {
        fuzz::rng& r = gen.r;
        schedule_toggle(r, r.chance(50) ? p_txdmaclr : p_rxdmaclr, gen.period_ps(), true,
                        r.range(1, 6 * gen.period_ps()));
    }
    void schedule_reset(std::uint64_t length_ps) {
        const sc_time t = sc_time_stamp();
        m_inputs.add(t, p_nreset, false);
        m_inputs.add(t + sc_time::from_value(length_ps), p_nreset, true);
        advance_to(t); // the pulse starts now
    }

    // ---- rules over time
    // The landing rule, for every access issued before now, in the order the target applies them.
    void flush_ledger(bool all) {
        const sc_time now = sc_time_stamp();
        std::sort(m_ledger.begin(), m_ledger.end(), [](const ledger_entry& a, const ledger_entry& b) {
            if (a.issued != b.issued) return a.issued < b.issued;
            if (a.batch != b.batch) return a.batch < b.batch;
            if (a.who != b.who) return a.who < b.who;
            return a.seq < b.seq;
        });
        std::size_t k = 0;
        for (; k < m_ledger.size() && (all || m_ledger[k].issued < now); ++k) {
            const ledger_entry& e = m_ledger[k];
            if (e.completed < e.issued)
                ctx.fail("transaction #" + std::to_string(e.index) + " completed before it was issued");
            if (e.cls == 0) continue;
            const std::uint64_t edge = std::max(m_last_taken, clock().edge_at_or_before(e.issued)) + 1;
            if (e.completed != clock().time_of(edge)) {
                std::ostringstream o;
                o << "transaction #" << e.index << " (initiator " << e.who << ") issued at " << e.issued
                  << " completed at " << e.completed << ", expected its edge " << edge << " at "
                  << clock().time_of(edge) << " (edges taken up to " << m_last_taken << "); before it:";
                for (const ledger_entry& p : m_recent)
                    o << " [#" << p.index << " by " << p.who << " at " << p.issued << " batch " << p.batch
                      << " to " << p.completed
                      << (p.cls == 2   ? " taking"
                          : p.cls == 1 ? " looking"
                                       : " refused")
                      << "]";
                ctx.fail(o.str());
            }
            if (e.cls == 2) m_last_taken = edge;
            m_recent.push_back(e);
            if (m_recent.size() > 4) m_recent.pop_front();
        }
        m_ledger.erase(m_ledger.begin(), m_ledger.begin() + k);
    }
    // What the last break says of its cause, against what happened at its time.
    void check_cause() {
        const sc_time now = sc_time_stamp();
        auto trim = [&] {
            m_obs_time = now;
            forget_inputs_before(now);
            while (!m_takes.empty() && m_takes.front().issued < now)
                m_takes.pop_front();
        };
        if (!m_breaks || *m_breaks == m_breaks_seen) {
            trim();
            return;
        }
        const read_promise::break_cause c = *m_cause;
        if (c.when == now) return; // accesses of this time may still be on their way: look later
        ++n.causes;
        if (c.when < m_obs_time || c.when > now) {
            std::ostringstream o;
            o << "a break since " << m_obs_time << " gives its time as " << c.when;
            ctx.fail(o.str());
        } else {
            const bool input = input_changed_at(c.when);
            // The first access with a side effect the target applied at that time.
            unsigned first = UINT_MAX, first_batch = UINT_MAX;
            bool any = false;
            for (const take& k : m_takes)
                if (k.issued == c.when &&
                    (k.batch < first_batch || (k.batch == first_batch && k.who < first))) {
                    any = true;
                    first = k.who;
                    first_batch = k.batch;
                }
            std::ostringstream o;
            if (input && c.by_access)
                o << "break at " << c.when << " blamed on an access, but an input changed then";
            else if (!input && !c.by_access)
                o << "break at " << c.when << " blamed on an input, but none changed then";
            else if (!input && (!any || c.initiator != first))
                o << "break at " << c.when << " blamed on initiator " << c.initiator << ", expected " << first
                  << (any ? "" : " (no access with a side effect then)");
            if (!o.str().empty()) ctx.fail(o.str());
        }
        m_breaks_seen = *m_breaks;
        trim();
    }
    // Once every edge taken has been shown and nothing else is under way: the outputs against the
    // registers.
    void check_at_rest() {
        const sc_time now = sc_time_stamp();
        if (m_ahead_until > now || m_second_busy_until > now || m_second_at == now) return;
        ++n.at_rest;
        const snapshot s = snap();
        check_snapshot(s, "at rest");
        const bool mis = (s[s_mis] & 0x7FF) != 0;
        if (irq.read() != mis) ctx.fail("irq " + std::to_string(irq.read()) + " but MIS " + hex(s[s_mis]));
        const std::uint32_t fr = s[s_fr];
        const unsigned tx = uart.tx_fifo_level.read(), rx = uart.rx_fifo_level.read();
        const unsigned cap = (s[s_lcrh] & 0x10) ? depth() : 1;
        std::ostringstream o;
        if (uart.busy.read() != bool(fr & fr::BUSY)) o << " busy signal";
        if (uart.txfe.read() != bool(fr & fr::TXFE)) o << " txfe signal";
        if (uart.txff.read() != bool(fr & fr::TXFF)) o << " txff signal";
        if (uart.rxfe.read() != bool(fr & fr::RXFE)) o << " rxfe signal";
        if (uart.rxff.read() != bool(fr & fr::RXFF)) o << " rxff signal";
        if (bool(fr & fr::TXFE) != (tx == 0)) o << " TXFE against tx level";
        if (bool(fr & fr::RXFE) != (rx == 0)) o << " RXFE against rx level";
        if (bool(fr & fr::TXFF) != (tx >= cap)) o << " TXFF against tx level";
        if (bool(fr & fr::RXFF) != (rx >= cap)) o << " RXFF against rx level";
        if (tx > depth() || rx > depth()) o << " a level above the FIFO depth";
        if (!o.str().empty())
            ctx.fail("FR " + hex(fr) + ", LCR_H " + hex(s[s_lcrh]) + ", tx level " + std::to_string(tx) +
                     ", rx level " + std::to_string(rx) + ":" + o.str());
    }

    // ---- the first initiator's steps (its loop is rig_core's)
    void flush(bool last) { flush_ledger(last); }
    void schedule(const op& o) {
        switch (o.kind) {
        case op::rx_burst:
            schedule_rx_burst();
            break;
        case op::modem:
            schedule_modem();
            break;
        case op::dma_clear:
            schedule_dma_clear();
            break;
        case op::reset_pulse:
            schedule_reset(o.length_ps);
            break;
        case op::access:
            break;
        }
    }

    void debug_access(const bus_req& q) {
        ++n.debug;
        std::array<unsigned char, 8> buf;
        buf.fill(canary);
        const snapshot before = opt.checks ? snap() : snapshot{};
        const unsigned got = dbg(q.addr, q.len, buf.data(), q.write);
        bus_req plain = q;
        plain.has_be = false;
        const verdict v = judge(plain);
        const unsigned want = !q.write && v.reaches ? q.len : 0;
        if (got != want)
            ctx.fail("debug access answered " + std::to_string(got) + " bytes, expected " +
                     std::to_string(want));
        if (!opt.checks) return;
        const snapshot after = snap();
        const std::string d = diff(before, after);
        if (!d.empty()) ctx.fail("a debug access changed registers:" + d);
        if (got == want && want) {
            const std::uint32_t off = v.reg->off;
            for (unsigned i = 0; i < q.len; ++i) {
                const unsigned lane = (q.addr & 3) + i;
                const int si = snap_index(off);
                const std::uint8_t expect = off >= 0xFE0
                                                ? (lane ? buf[i] : id_value(off, depth()))
                                                : static_cast<std::uint8_t>(before[si] >> (8 * lane));
                if (buf[i] != expect)
                    ctx.fail("debug read lane " + std::to_string(lane) + " " + hex(buf[i]) + ", expected " +
                             hex(expect));
            }
        }
    }

    // One access of the first initiator with all its checks; returns its completion time.
    sc_time bus_access(const bus_req& q, std::uint64_t seq) {
        ++n.accesses;
        const verdict v = judge(q);
        const bool reset = !pin(p_nreset).read();
        std::array<unsigned char, 8> buf;
        read_promise promise;
        // Before/after snapshots at the same time are meaningful for an access applied now (not one
        // annotated into the future).
        const bool exact = opt.checks && q.annotate_ps == 0;
        const snapshot s0 = exact ? snap() : snapshot{};
        if (exact) check_snapshot(s0, "before");
        const std::uint64_t breaks0 = m_breaks ? *m_breaks : 0;
        const sc_time issued = sc_time_stamp() + sc_time::from_value(q.annotate_ps);
        const bool second_now = m_second_at == issued;
        const unsigned batch = m_second_returned == issued ? 1 : 0;
        if (second_now) ++n.same_time;
        sc_time d = sc_time::from_value(q.annotate_ps);
        const auto st = transport(sock1, q, buf, 1, promise, d);
        const sc_time completed = sc_time_stamp() + d;
        const bool ok = st == tlm::TLM_OK_RESPONSE;
        if (!ok) ++n.errors;
        if (ok && !v.reaches) ++n.no_lane;
        if (opt.keep_records)
            records1.push_back({seq, issued, completed, st, buf, promise.valid, promise.until});
        if (ok && v.reaches && !q.write && v.reg->off == reg::DR && (v.strb & 2) &&
            (buf[(q.addr & 3) ? 0 : 1] & 0xF))
            ++n.dr_errors;
        note_promise(promise);
        const int cls = !ok ? 0 : v.side_effect ? 2 : 1;
        m_ledger.push_back({issued, batch, 1, m_seq++, completed, cls, ctx.index});
        if (cls == 2) {
            ++n.taken;
            m_ahead_until = std::max(m_ahead_until, completed);
            m_takes.push_back({issued, batch, 1u});
        }
        if (!opt.checks) return completed;

        if (!v.allows(st)) {
            std::string a;
            for (auto s : v.allowed)
                a += std::string(" ") + status_name(s);
            ctx.fail(std::string("answered ") + status_name(st) + ", expected" + a);
        }
        if (!ok || !v.reaches) {
            // Nothing may change and the data array must be as it was.
            bool same = true;
            for (unsigned i = 0; i < 8; ++i)
                same &= buf[i] == (q.write ? q.data[i] : canary);
            if (!same) ctx.fail("the data array was touched by an access that reached no register");
        }
        const std::uint32_t off = ok && v.reaches ? v.reg->off : 0;
        const int si = snap_index(off);
        if (ok && v.reaches && !q.write) {
            std::uint64_t val = 0, lanes = 0;
            for (unsigned i = 0; i < q.len; ++i) {
                const unsigned lane = (q.addr & 3) + i;
                if (!(v.strb & (1u << lane))) {
                    if (buf[i] != canary) ctx.fail("disabled lane " + std::to_string(lane) + " written");
                    continue;
                }
                val |= std::uint64_t(buf[i]) << (8 * lane);
                lanes |= std::uint64_t{0xFF} << (8 * lane);
                // The value is the one a debug read gave just before, at the same time.
                if (off >= 0xFE0 ? lane == 0 && buf[i] != id_value(off, depth())
                                 : exact && buf[i] != static_cast<std::uint8_t>(s0[si] >> (8 * lane)))
                    ctx.fail("lane " + std::to_string(lane) + " read " + hex(buf[i]) + ", expected " +
                             hex(off >= 0xFE0 ? id_value(off, depth()) : std::uint8_t(s0[si] >> (8 * lane))) +
                             (off >= 0xFE0 ? " (TRM)" : " (the debug read just before)"));
            }
            if (promise.valid) {
                ++n.promised;
                if (v.side_effect) ctx.fail("a read with a side effect (DR) was promised");
                if (promise.until <= issued)
                    ctx.fail("promised until " + promise.until.to_string() + ", not after the read");
            }
            if (m_breaks) {
                // Annotated: breaks may have come between the count read above and the read itself.
                const std::string e = m_promises.check(off, val, lanes, exact ? breaks0 : *m_breaks);
                if (!e.empty()) ctx.fail(e);
            }
            if (promise.valid) m_promises.add(off, val, lanes, promise, ctx.index);
        }
        // The state right after b_transport returned, before the initiator waits its delay. An access
        // of the other initiator at this same time may be in it: then only the rules of every state.
        const snapshot s1 = snap();
        check_snapshot(s1, "after");
        if (!exact || second_now) return completed;
        if (!ok || !v.reaches || !v.side_effect) {
            const std::string d1 = diff(s0, s1);
            if (!d1.empty())
                ctx.fail(std::string(ok ? "an access without side effect" : "a refused access") +
                         " changed registers:" + d1);
        }
        if (!ok || !v.reaches || reset) return completed;
        if (q.write) {
            // Writes read back on their enabled lanes.
            if (v.reg->readback) {
                std::uint32_t merged = s0[si];
                for (unsigned i = 0; i < q.len; ++i) {
                    const unsigned lane = (q.addr & 3) + i;
                    if (v.strb & (1u << lane))
                        merged = (merged & ~(0xFFu << (8 * lane))) | std::uint32_t(q.data[i]) << (8 * lane);
                }
                if ((s1[si] & v.reg->readback) != (merged & v.reg->readback))
                    ctx.fail(std::string(v.reg->name) + " reads back " + hex(s1[si]) + ", expected " +
                             hex(merged & v.reg->readback) + " on bits " + hex(v.reg->readback));
            }
            // A character written while the FIFO is not full is in it (or already in the transmitter):
            // TXFE clear, BUSY set. Written into a full FIFO it is lost, but the FIFO was not empty.
            if (off == reg::DR && (v.strb & 1) &&
                (!(s1[s_fr] & fr::BUSY) || (!(s0[s_fr] & fr::TXFF) && (s1[s_fr] & fr::TXFE))))
                ctx.fail("after a DR write FR is " + hex(s1[s_fr]) + ", before it " + hex(s0[s_fr]));
            if (off == reg::RSR && (s1[s_rsr] & 0x7))
                ctx.fail("after an ECR write RSR is " + hex(s1[s_rsr]) + " (FE/PE/BE not cleared)");
        }
        if (v.side_effect) {
            // The set-up changes only by its own writes.
            const std::string d1 = diff(s0, s1, true, q.write ? si : -1);
            if (!d1.empty())
                ctx.fail("an access of " + std::string(v.reg->name) + " changed the set-up:" + d1);
        }
        return completed;
    }

    // ---- the second initiator: status polls with promises, data reads and writes, interrupt
    // registers, on a grid of times the first initiator often snaps to.
    void second_initiator() {
        std::uint64_t seq = 0;
        while (!done && !ctx.stopped) {
            const sc_time t = next_grid(sc_time_stamp() +
                                        sc_time::from_value(opt.grid_ps * r2.range(1, opt.second_max_steps)));
            m_second_at = t;
            wait(t - sc_time_stamp());
            if (done) break;
            ++n.second;
            bus_req q;
            const unsigned k = static_cast<unsigned>(r2.pick(100));
            q.len = 4;
            if (k < 45) {
                q.addr = reg::FR;
                q.promise = true;
            } else if (k < 60) {
                q.addr = reg::DR;
                q.len = r2.chance(50) ? 1 : 4;
            } else if (k < 75) {
                q.addr = reg::DR;
                q.write = true;
                q.len = 1;
                q.data[0] = static_cast<unsigned char>(r2.range(0x20, 0x7E));
            } else if (k < 85) {
                q.addr = r2.chance(50) ? reg::RIS : reg::MIS;
                q.promise = true;
            } else if (k < 90) {
                q.addr = reg::IMSC;
                q.write = true;
                const std::uint32_t m = static_cast<std::uint32_t>(r2.bits(11));
                for (unsigned i = 0; i < 4; ++i)
                    q.data[i] = static_cast<unsigned char>(m >> (8 * i));
            } else if (k < 95) {
                q.addr = reg::ICR;
                q.write = true;
                q.data[0] = static_cast<unsigned char>(r2.bits(8));
                q.data[1] = static_cast<unsigned char>(r2.bits(3));
            } else {
                q.addr = reg::CR;
                q.promise = true;
            }
            q.sw = q.len;
            const bool with_id = r2.chance(70);
            std::array<unsigned char, 8> buf;
            read_promise promise;
            sc_time d = SC_ZERO_TIME;
            const auto st = transport(sock2, q, buf, with_id ? 2 : 0, promise, d);
            const sc_time completed = sc_time_stamp() + d;
            const unsigned id = with_id ? 2 : UINT_MAX;
            const verdict v = judge(q);
            if (opt.keep_records)
                records2.push_back({seq, t, completed, st, buf, promise.valid, promise.until});
            note_promise(promise);
            m_ledger.push_back(
                {t, 0, id, seq++, completed, st == tlm::TLM_OK_RESPONSE ? (v.side_effect ? 2 : 1) : 0, 0});
            if (v.side_effect) {
                m_takes.push_back({t, 0, id});
                m_ahead_until = std::max(m_ahead_until, completed);
            }
            m_second_busy_until = completed;
            m_second_returned = t;
            if (opt.checks) {
                if (st != tlm::TLM_OK_RESPONSE)
                    ctx.fail(std::string("second initiator: ") + describe(q) + " answered " +
                             status_name(st));
                if (promise.valid && promise.until <= t)
                    ctx.fail("second initiator: promise not after the read");
                if (!q.write && m_breaks) {
                    std::uint64_t val = 0, lanes = 0;
                    for (unsigned i = 0; i < q.len; ++i) {
                        val |= std::uint64_t(buf[i]) << (8 * i);
                        lanes |= std::uint64_t{0xFF} << (8 * i);
                    }
                    // The count as it is now may include breaks after this read: that only skips checks.
                    const std::string e = m_promises.check(q.addr, val, lanes, *m_breaks);
                    if (!e.empty()) ctx.fail("second initiator: " + e);
                    if (promise.valid) m_promises.add(q.addr, val, lanes, promise, ctx.index);
                }
            }
            wait(d);
        }
        m_second_at = sc_max_time();
    }
};

void report(const rig& x) {
    auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
    std::printf(
        "%s: %llu accesses (%llu refused, %llu without a lane, %llu edges taken, %llu promised, %llu DR "
        "reads with errors), %llu debug ops, %llu snapshots, %llu checks at rest, %llu input changes "
        "(%llu resets), %llu accesses of the second initiator (%llu at the first's time), %llu break "
        "causes and %llu promises checked; RIS bits seen %#x, FR bits seen %#x; outputs: %llu txd, %llu "
        "irq, %llu rx level changes\n",
        x.opt.name.c_str(), u(x.n.accesses), u(x.n.errors), u(x.n.no_lane), u(x.n.taken), u(x.n.promised),
        u(x.n.dr_errors), u(x.n.debug), u(x.n.snapshots), u(x.n.at_rest), u(x.input_changes), u(x.resets),
        u(x.n.second), u(x.n.same_time), u(x.n.causes), u(x.promise_checks()), x.n.ris_seen, x.n.fr_seen,
        u(x.outputs->count(0)), u(x.outputs->count(1)), u(x.outputs->count(16)));
}

// The traffic must have exercised the UART, or the checks prove little (per 10^5 transactions).
void expect_exercised(const rig& x) {
    const exercise_quota want(x.set.transactions);
    if (!want.applies()) return;
    want.at_least(x.outputs->count(0), 50000, "txd changes");
    want.at_least(x.outputs->count(1), 3000, "irq changes");
    want.at_least(x.outputs->count(16), 10000, "rx level changes");
    want.at_least(x.n.errors, 2000, "refused accesses");
    want.at_least(x.n.no_lane, 500, "accesses without an enabled lane");
    want.at_least(x.n.promised, 5000, "promised reads");
    want.at_least(x.n.dr_errors, 150, "DR reads with error bits");
    want.at_least(x.resets, 15, "reset pulses");
    want.at_least(x.n.same_time, 500, "accesses of both initiators at one time");
    want.at_least(x.n.causes, 10000, "break causes checked");
    if (x.opt.checks) {
        want.at_least(x.n.at_rest, 50000, "checks at rest");
        EXPECT_EQ(x.n.ris_seen & 0x7FF, 0x7FFu) << "every interrupt raised at least once";
        const std::uint32_t flags =
            fr::BUSY | fr::RXFE | fr::TXFF | fr::RXFF | fr::TXFE | fr::CTS | fr::DSR | fr::DCD | fr::RI;
        EXPECT_EQ(x.n.fr_seen & flags, flags) << "every FR flag set at least once";
    }
}

pl011_config config(unsigned depth, std::uint64_t hz) {
    pl011_config c;
    c.fifo_depth = depth;
    c.clock_hz = hz;
    return c;
}

} // namespace

TEST(Pl011Fuzz, RandomTrafficKeepsTheTrmRules_Depth32) {
    UARTVP_SIM_TEST();
    rig_options o;
    o.name = "pl011_d32";
    o.cfg = config(32, 24'000'000);
    run_fuzz<rig>(o, 100'000, 1);
}

TEST(Pl011Fuzz, RandomTrafficKeepsTheTrmRules_Depth16_OddClock) {
    UARTVP_SIM_TEST();
    rig_options o;
    o.name = "pl011_d16";
    o.cfg = config(16, 7'372'801); // a period that is no whole number of picoseconds
    run_fuzz<rig>(o, 100'000, 2);
}

namespace {
// Fast lines (IBRD at most 4): the clocked twin pays for every UARTCLK cycle.
void fast_against_clocked(const char* name, unsigned depth, std::uint64_t hz, std::uint64_t seed) {
    rig_options a, b;
    a.name = std::string("fast_") + name;
    a.cfg = config(depth, hz);
    a.max_baud_div = 4;
    b = a;
    b.name = std::string("clocked_") + name;
    b.cfg.clock_every_cycle = true;
    run_twins<rig>(a, b, 50'000, seed);
}
} // namespace

TEST(Pl011Fuzz, FastMatchesClockEveryCycleOnIdenticalTraffic_Depth32) {
    UARTVP_SIM_TEST();
    fast_against_clocked("d32", 32, 24'000'000, 3);
}

TEST(Pl011Fuzz, FastMatchesClockEveryCycleOnIdenticalTraffic_Depth16_OddClock) {
    UARTVP_SIM_TEST();
    fast_against_clocked("d16", 16, 7'372'801, 5);
}

TEST(Pl011Fuzz, DebugReadsMoveNothing) {
    UARTVP_SIM_TEST();
    rig_options a, b;
    a.name = "with_debug_reads";
    a.cfg = config(16, 24'000'000);
    b = a;
    b.name = "without_debug_reads";
    b.checks = false;
    b.debug_reads = false;
    run_twins<rig>(a, b, 100'000, 4);
}
