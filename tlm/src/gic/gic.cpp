// SPDX-License-Identifier: Apache-2.0
#include <uartvp/gic.h>

#include <stdexcept>
#include <string>

namespace uartvp {

using namespace sc_core;

namespace {

struct reg_def {
    std::uint32_t offset;
    std::uint32_t reset;
};

// Distributor (IHI 0048B, table 4-1). The banks hold 1, 8 or 2 bits per INTID; a bank's reset value is
// that of each of its words (GICD_ICFGR0, the SGIs', aside).
constexpr reg_def GICD_CTLR{0x000, 0}, GICD_TYPER{0x004, 0 /* from num_spis */}, GICD_IIDR{0x008, 0x0000043B};
constexpr reg_def GICD_ISENABLER{0x100, 0}, GICD_ICENABLER{0x180, 0}, GICD_ISPENDR{0x200, 0},
    GICD_ICPENDR{0x280, 0}, GICD_ISACTIVER{0x300, 0}, GICD_ICACTIVER{0x380, 0}, GICD_IPRIORITYR{0x400, 0},
    GICD_ITARGETSR{0x800, 0x01010101}, GICD_ICFGR{0xC00, 0};
constexpr std::uint32_t icfgr_sgi = 0xAAAAAAAA; // SGIs: edge-triggered, read only

// CPU interface (table 4-2).
constexpr reg_def GICC_CTLR{0x000, 0}, GICC_PMR{0x004, 0}, GICC_BPR{0x008, 0}, GICC_IAR{0x00C, 1023},
    GICC_EOIR{0x010, 0}, GICC_RPR{0x014, 0xFF}, GICC_HPPIR{0x018, 1023}, GICC_IIDR{0x0FC, 0x0202143B};

constexpr unsigned spurious = 1023;
constexpr unsigned idle_priority = 0xFF;

unsigned checked_spis(unsigned n) {
    if (n > gicv2::max_spis)
        throw std::invalid_argument("gicv2: " + std::to_string(n) + " SPIs (at most " +
                                    std::to_string(gicv2::max_spis) + ")");
    return n;
}

// Which bank of `bits` bits per INTID an offset falls in: the first INTID of the word, or false.
bool in_bank(std::uint32_t offset, const reg_def& bank, unsigned bits, unsigned bank_bytes, unsigned& first) {
    if (offset < bank.offset || offset >= bank.offset + bank_bytes) return false;
    first = (offset - bank.offset) * 8 / bits;
    return true;
}

} // namespace

gicv2::gicv2(const sc_module_name& name, unsigned num_spis)
    : sc_module(name)
    , distributor("distributor")
    , distributor64("distributor64")
    , cpu_interface("cpu_interface")
    , cpu_interface64("cpu_interface64")
    , spi("spi", checked_spis(num_spis))
    , ppi("ppi", 16)
    , irq("irq")
    , m_num_spis(num_spis)
    , m_tie_low("tie_low", false) {
    distributor.register_b_transport(this, &gicv2::b_transport<region::distributor>);
    distributor.register_transport_dbg(this, &gicv2::transport_dbg<region::distributor>);
    distributor64.register_b_transport(this, &gicv2::b_transport<region::distributor>);
    distributor64.register_transport_dbg(this, &gicv2::transport_dbg<region::distributor>);
    cpu_interface.register_b_transport(this, &gicv2::b_transport<region::cpu_interface>);
    cpu_interface.register_transport_dbg(this, &gicv2::transport_dbg<region::cpu_interface>);
    cpu_interface64.register_b_transport(this, &gicv2::b_transport<region::cpu_interface>);
    cpu_interface64.register_transport_dbg(this, &gicv2::transport_dbg<region::cpu_interface>);

    m_state.irqs.resize(num_intids());
    for (unsigned i = 0; i < num_intids(); ++i) {
        intid_state& s = m_state.irqs[i];
        s.priority = static_cast<std::uint8_t>(GICD_IPRIORITYR.reset);
        s.targets = static_cast<std::uint8_t>(GICD_ITARGETSR.reset);
        s.edge = i < 16 ? (icfgr_sgi >> 1) & 1 : (GICD_ICFGR.reset >> (2 * (i % 16) + 1)) & 1;
    }
    m_state.dist_enabled = GICD_CTLR.reset & 1;
    m_state.cpu_enabled = GICC_CTLR.reset & 1;
    m_state.pmr = static_cast<std::uint8_t>(GICC_PMR.reset);
    m_state.bpr = static_cast<std::uint8_t>(GICC_BPR.reset);

    irq.initialize(false);
    SC_HAS_PROCESS(gicv2);
    SC_METHOD(evaluate); // also at initialisation: the lines' levels at the start
    sensitive << m_changed;
    for (auto& p : spi)
        sensitive << p;
    for (auto& p : ppi)
        sensitive << p;
}

void gicv2::before_end_of_elaboration() {
    // The lines the SoC left unbound read low. Bound here, before SystemC completes the bindings, they
    // take part in the static sensitivity above like the others (a tied line never changes).
    for (auto* v : {&spi, &ppi})
        for (auto& p : *v)
            if (p.bind_count() == 0) p.bind(m_tie_low);
}

void gicv2::start_of_simulation() {
    if (distributor.size() == 0 && distributor64.size() == 0)
        SC_REPORT_ERROR(kind(),
                        (std::string(name()) + ": neither distributor nor distributor64 is bound").c_str());
    if (cpu_interface.size() == 0 && cpu_interface64.size() == 0)
        SC_REPORT_ERROR(
            kind(), (std::string(name()) + ": neither cpu_interface nor cpu_interface64 is bound").c_str());
}

bool gicv2::line(unsigned intid) const {
    if (intid < 16) return false;
    return intid < 32 ? ppi[intid - 16].read() : spi[intid - 32].read();
}

bool gicv2::pending_in(const state& s, unsigned intid) const {
    const intid_state& q = s.irqs[intid];
    return q.latched || (!q.edge && line(intid));
}

bool gicv2::pending(unsigned intid) const {
    return intid < num_intids() && pending_in(m_state, intid);
}

bool gicv2::active(unsigned intid) const {
    return intid < num_intids() && m_state.irqs[intid].active;
}

void gicv2::sample(state& s) const {
    // Edges are latched by whoever looks first: the method at the change, or an access in that delta.
    for (unsigned i = 16; i < num_intids(); ++i) {
        intid_state& q = s.irqs[i];
        const bool v = line(i);
        if (v && !q.seen && q.edge) q.latched = true;
        q.seen = v;
    }
}

unsigned gicv2::running_priority(const state& s) const {
    unsigned p = idle_priority;
    for (const intid_state& q : s.irqs)
        if (q.active && q.priority < p) p = q.priority;
    return p;
}

unsigned gicv2::highest_pending(const state& s, bool masked) const {
    // Unmasked, as GICC_HPPIR: the best candidate whatever its priority; masked, as GICC_IAR and irq:
    // only one that beats both GICC_PMR and the running priority.
    if (!s.dist_enabled || !s.cpu_enabled) return spurious;
    unsigned best = spurious, best_priority = 0x100;
    for (unsigned i = 0; i < num_intids(); ++i) {
        const intid_state& q = s.irqs[i];
        if (!q.enabled || q.active || !(q.targets & 1) || q.priority >= best_priority || !pending_in(s, i))
            continue;
        best = i;
        best_priority = q.priority;
    }
    if (masked && best != spurious && (best_priority >= s.pmr || best_priority >= running_priority(s)))
        return spurious;
    return best;
}

std::uint32_t gicv2::dist_read(const state& s, std::uint32_t offset) const {
    unsigned first = 0;
    const unsigned n = num_intids();
    auto bits = [&](unsigned width, auto field) {
        std::uint32_t v = 0;
        for (unsigned k = 0; k < 32 / width && first + k < n; ++k)
            v |= std::uint32_t(field(first + k)) << (k * width);
        return v;
    };
    if (offset == GICD_CTLR.offset) return s.dist_enabled ? 1 : 0;
    if (offset == GICD_TYPER.offset) return (n + 31) / 32 - 1; // ITLinesNumber; CPUNumber 0
    if (offset == GICD_IIDR.offset) return GICD_IIDR.reset;
    if (in_bank(offset, GICD_ISENABLER, 1, 0x80, first) || in_bank(offset, GICD_ICENABLER, 1, 0x80, first))
        return bits(1, [&](unsigned i) { return s.irqs[i].enabled; });
    if (in_bank(offset, GICD_ISPENDR, 1, 0x80, first) || in_bank(offset, GICD_ICPENDR, 1, 0x80, first))
        return bits(1, [&](unsigned i) { return pending_in(s, i); });
    if (in_bank(offset, GICD_ISACTIVER, 1, 0x80, first) || in_bank(offset, GICD_ICACTIVER, 1, 0x80, first))
        return bits(1, [&](unsigned i) { return s.irqs[i].active; });
    if (in_bank(offset, GICD_IPRIORITYR, 8, 0x400, first))
        return bits(8, [&](unsigned i) { return s.irqs[i].priority; });
    if (in_bank(offset, GICD_ITARGETSR, 8, 0x400, first))
        return bits(8, [&](unsigned i) { return i < 32 ? 0x01 : s.irqs[i].targets; });
    if (in_bank(offset, GICD_ICFGR, 2, 0x100, first))
        return bits(2, [&](unsigned i) { return s.irqs[i].edge ? 2 : 0; });
    return 0;
}

void gicv2::dist_write(std::uint32_t offset, std::uint32_t value, unsigned byte_mask) {
    // byte_mask: the bytes of the word written (all four, or the lanes of byte accesses to the banks
    // that take them).
    state& s = m_state;
    unsigned first = 0;
    const unsigned n = num_intids();
    auto each_bit = [&](auto apply) {
        for (unsigned k = 0; k < 32 && first + k < n; ++k)
            if ((value >> k) & 1) apply(s.irqs[first + k], first + k);
    };
    auto each_byte = [&](auto apply) {
        for (unsigned k = 0; k < 4 && first + k < n; ++k)
            if ((byte_mask >> k) & 1) apply(s.irqs[first + k], first + k, std::uint8_t(value >> (8 * k)));
    };
    if (byte_mask != 0xF && !in_bank(offset, GICD_IPRIORITYR, 8, 0x400, first) &&
        !in_bank(offset, GICD_ITARGETSR, 8, 0x400, first))
        return;
    if (offset == GICD_CTLR.offset) {
        s.dist_enabled = value & 1;
    } else if (in_bank(offset, GICD_ISENABLER, 1, 0x80, first)) {
        each_bit([](intid_state& q, unsigned) { q.enabled = true; });
    } else if (in_bank(offset, GICD_ICENABLER, 1, 0x80, first)) {
        each_bit([](intid_state& q, unsigned) { q.enabled = false; });
    } else if (in_bank(offset, GICD_ISPENDR, 1, 0x80, first)) {
        each_bit([](intid_state& q, unsigned i) { q.latched |= i >= 16; }); // SGIs: write ignored
    } else if (in_bank(offset, GICD_ICPENDR, 1, 0x80, first)) {
        each_bit([](intid_state& q, unsigned) { q.latched = false; }); // a high level line stays pending
    } else if (in_bank(offset, GICD_ISACTIVER, 1, 0x80, first)) {
        each_bit([](intid_state& q, unsigned) { q.active = true; });
    } else if (in_bank(offset, GICD_ICACTIVER, 1, 0x80, first)) {
        each_bit([](intid_state& q, unsigned) { q.active = false; });
    } else if (in_bank(offset, GICD_IPRIORITYR, 8, 0x400, first)) {
        each_byte([](intid_state& q, unsigned, std::uint8_t b) { q.priority = b; });
    } else if (in_bank(offset, GICD_ITARGETSR, 8, 0x400, first)) {
        each_byte([](intid_state& q, unsigned i, std::uint8_t b) {
            if (i >= 32) q.targets = b;
        });
    } else if (in_bank(offset, GICD_ICFGR, 2, 0x100, first)) {
        for (unsigned k = 0; k < 16 && first + k < n; ++k)
            if (first + k >= 32) s.irqs[first + k].edge = (value >> (2 * k + 1)) & 1; // SPIs only
    }
}

std::uint32_t gicv2::cpu_read(state& s, std::uint32_t offset, bool acknowledge) const {
    if (offset == GICC_CTLR.offset) return s.cpu_enabled ? 1 : 0;
    if (offset == GICC_PMR.offset) return s.pmr;
    if (offset == GICC_BPR.offset) return s.bpr;
    if (offset == GICC_IAR.offset) {
        const unsigned id = highest_pending(s, true);
        if (acknowledge && id != spurious) {
            // Pending -> active; a level line still high keeps it pending too (active and pending).
            s.irqs[id].active = true;
            s.irqs[id].latched = false;
        }
        return id; // CPUID bits 0: SGIs come from nowhere else
    }
    if (offset == GICC_RPR.offset) return running_priority(s);
    if (offset == GICC_HPPIR.offset) return highest_pending(s, false);
    if (offset == GICC_IIDR.offset) return GICC_IIDR.reset;
    return 0;
}

void gicv2::cpu_write(std::uint32_t offset, std::uint32_t value) {
    state& s = m_state;
    if (offset == GICC_CTLR.offset) {
        s.cpu_enabled = value & 1;
    } else if (offset == GICC_PMR.offset) {
        s.pmr = static_cast<std::uint8_t>(value);
    } else if (offset == GICC_BPR.offset) {
        s.bpr = value & 7;
    } else if (offset == GICC_EOIR.offset) {
        const unsigned id = value & 0x3FF;
        if (id < num_intids()) s.irqs[id].active = false; // not active: nothing to do
    }
}

unsigned gicv2::serve(region r, tlm::tlm_generic_payload& tx, bool debug) {
    // Returns the bytes served; sets the response status.
    const std::uint64_t size = r == region::distributor ? distributor_size : cpu_interface_size;
    const std::uint64_t addr = tx.get_address();
    const unsigned len = tx.get_data_length();
    unsigned char* data = tx.get_data_ptr();
    if (addr >= size || len > size - addr) {
        tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return 0;
    }
    tx.set_response_status(tlm::TLM_OK_RESPONSE);
    if (tx.is_read() == tx.is_write()) return 0; // TLM_IGNORE_COMMAND
    if (debug && tx.is_write()) return 0;        // debug reads only

    const auto offset = static_cast<std::uint32_t>(addr);
    const std::uint32_t word = offset & ~3u;
    unsigned first = 0;
    const bool byte_bank = r == region::distributor && (in_bank(word, GICD_IPRIORITYR, 8, 0x400, first) ||
                                                        in_bank(word, GICD_ITARGETSR, 8, 0x400, first));
    const bool word_access = len == 4 && offset % 4 == 0;
    // Byte enables choose the lanes; without them every lane of the access.
    unsigned lanes = 0;
    const unsigned char* be = tx.get_byte_enable_ptr();
    const unsigned be_len = tx.get_byte_enable_length();
    for (unsigned k = 0; k < len && k < 4; ++k)
        if (!be || (be_len && be[k % be_len] == TLM_BYTE_ENABLED)) lanes |= 1u << ((offset + k) & 3);
    const bool ok = tx.get_streaming_width() >= len && (word_access || (len == 1 && byte_bank));
    if (!ok) { // RAZ/WI
        if (tx.is_read())
            for (unsigned k = 0; k < len; ++k)
                data[k] = 0;
        return len;
    }

    if (tx.is_write()) {
        std::uint32_t v = 0;
        for (unsigned k = 0; k < len; ++k)
            v |= std::uint32_t(data[k]) << (8 * ((offset + k) & 3));
        sample(m_state);
        if (r == region::distributor)
            dist_write(word, v, lanes);
        else if (lanes == 0xF) // a write of some lanes of a word-only register is ignored
            cpu_write(word, v);
        m_changed.notify();
        return len;
    }
    std::uint32_t v = 0;
    if (debug) {
        state copy = m_state; // what a read would see, leaving the model as it is
        sample(copy);
        v = r == region::distributor ? dist_read(copy, word) : cpu_read(copy, word, false);
    } else {
        sample(m_state);
        v = r == region::distributor ? dist_read(m_state, word) : cpu_read(m_state, word, true);
        if (r == region::cpu_interface && word == GICC_IAR.offset) m_changed.notify();
    }
    for (unsigned k = 0; k < len; ++k)
        if (lanes & (1u << ((offset + k) & 3)))
            data[k] = static_cast<unsigned char>(v >> (8 * ((offset + k) & 3)));
    return len;
}

template <gicv2::region R> void gicv2::b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
    if (delay != SC_ZERO_TIME) { // the access's side effects at its own time
        wait(delay);
        delay = SC_ZERO_TIME;
    }
    serve(R, tx, false);
}

template <gicv2::region R> unsigned gicv2::transport_dbg(tlm::tlm_generic_payload& tx) {
    return serve(R, tx, true);
}

void gicv2::evaluate() {
    // The one writer of irq: input changes, register writes and acknowledges all come through here.
    sample(m_state);
    const bool level = highest_pending(m_state, true) != spurious;
    if (level != m_irq_level) {
        m_irq_level = level;
        irq.write(level);
    }
}

} // namespace uartvp
