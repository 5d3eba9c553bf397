// SPDX-License-Identifier: GPL-2.0-only
// The aarch64 core of <uartvp/cpu/a64.h> on the Unicorn engine (GPL-2.0): this file is built into the
// add-on libuartvp-a64.so only (see LICENSE beside it).
//
// Unicorn translates code a block at a time. One block hook does the core's bookkeeping before each block
// runs: it counts the block's instructions (time), takes a noticed interrupt, stops the engine at the
// quantum's grid points, and notes what the previous block changed (DAIF, eret). Device accesses arrive
// as MMIO callbacks, which synchronise with SystemC time and issue the transaction; they may wait() in
// SystemC, but never stop the engine (Unicorn would run part of the block again): they ask the next
// block hook to.
#include <uartvp/cpu/a64.h>
#include <uartvp/initiator_id.h>
#include <uartvp/read_promise.h>

#include <unicorn/unicorn.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <sstream>

namespace uartvp::cpu {

namespace {

using namespace sc_core;

std::string hex(std::uint64_t v) {
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}

// ---- what the block hook needs to know of an instruction (A64 encodings, Arm ARM C4.1)

// May write memory: every load/store-class encoding that is not plainly a load, and the system
// instructions (DC ZVA writes memory). Conservative: a false "yes" only costs a fast-forward.
bool may_store(std::uint32_t i) {
    if ((i & 0xfff80000u) == 0xd5080000u) return true;  // SYS (DC ZVA and cache maintenance)
    if ((i & 0x0a000000u) != 0x08000000u) return false; // not a load/store
    const std::uint32_t op = (i >> 27) & 7u;            // bits 29:27
    if (op == 3u) return false;                         // load literal (LDR, LDRSW, PRFM)
    if (op == 5u) return !(i & (1u << 22));             // load/store pair (and no-allocate): L
    if (op == 7u) {
        // Atomic memory operations read and write (bit 24 clear, bit 21 set, bits 11:10 00).
        if (!(i & (1u << 24)) && (i & (1u << 21)) && ((i >> 10) & 3u) == 0) return true;
        const std::uint32_t opc = (i >> 22) & 3u;
        if (i & (1u << 26)) return !(opc & 1u); // SIMD&FP: loads have opc 01 or 11
        return opc == 0u;                       // STR*; LDR* and PRFM otherwise
    }
    if ((i & 0x3f000000u) == 0x08000000u) return !(i & (1u << 22)); // exclusive/ordered: L
    return true;                                                    // anything else: assume a store
}

// Changes PSTATE.DAIF (at the end of its block: these end a translation block): MSR DAIFSet/DAIFClr and
// MSR DAIF, Xt.
bool changes_daif(std::uint32_t i) {
    return (i & 0xfffff0dfu) == 0xd50340dfu || (i & 0xffffffe0u) == 0xd51b4220u;
}
constexpr std::uint32_t insn_eret = 0xd69f03e0u;

constexpr std::uint32_t insn_wfi = 0xd503207fu;
constexpr std::uint32_t insn_hvc0 = 0xd4000002u, insn_smc0 = 0xd4000003u;
constexpr std::uint64_t pstate_i = 1u << 7;
constexpr std::uint64_t pstate_irq_entry = 0x3c5; // EL1h, D, A, I, F masked
constexpr std::uint64_t vector_irq_current_spx = 0x280;

// PSCI 0.2 function ids (SMC32 calling convention), and its answers.
constexpr std::uint64_t psci_version = 0x84000000, psci_system_off = 0x84000008,
                        psci_system_reset = 0x84000009;
constexpr std::uint64_t psci_not_supported = ~std::uint64_t(0); // -1

// The generic timer's registers (op0 3, op1 3, CRn 14).
struct sysreg {
    std::uint32_t crm, op2;
};
constexpr sysreg cntfrq{0, 0}, cntpct{0, 1}, cntvct{0, 2}, cntv_tval{3, 0}, cntv_ctl{3, 1}, cntv_cval{3, 2};
bool is(const uc_arm64_cp_reg* r, sysreg s) {
    return r->op0 == 3 && r->op1 == 3 && r->crn == 14 && r->crm == s.crm && r->op2 == s.op2;
}

// The registers a poll loop's state is compared by: x0..x30, SP and NZCV (SIMD registers are not;
// firmware built -mgeneral-regs-only keeps none there).
constexpr int watched_count = 33;
const std::array<int, watched_count>& watched_ids() {
    static const std::array<int, watched_count> ids = [] {
        std::array<int, watched_count> a{};
        for (int r = 0; r < 29; ++r)
            a[r] = UC_ARM64_REG_X0 + r;
        a[29] = UC_ARM64_REG_X29;
        a[30] = UC_ARM64_REG_X30;
        a[31] = UC_ARM64_REG_SP;
        a[32] = UC_ARM64_REG_NZCV;
        return a;
    }();
    return ids;
}

class a64_core_impl final : public a64_core {
public:
    a64_core_impl(const sc_module_name& name, const a64_config& config);
    ~a64_core_impl() override {
        if (m_uc) uc_close(m_uc);
    }

    void load(const elf_image& image) override;
    void write_memory(std::uint64_t addr, const void* data, std::size_t n) override;
    void read_memory(std::uint64_t addr, void* data, std::size_t n) const override;
    const a64_stats& stats() const override { return m_stats; }
    a64_stop stop_reason() const override { return m_stop; }
    std::string fault() const override { return m_fault; }
    const sc_event& stopped_event() const override { return m_stopped; }
    sc_time local_time() const override { return m_time; }
    void finish() override;
    bool in_wfi() const override { return m_in_wfi; }
    void observe() override { m_observed = true; }

private:
    SC_HAS_PROCESS(a64_core_impl);
    void end_of_elaboration() override;
    void run();
    void on_line();
    void vtimer_eval();
    void drive();

    // Unicorn's callbacks.
    static void block_hook(uc_engine*, std::uint64_t addr, std::uint32_t size, void* self);
    static std::uint64_t mmio_read_cb(uc_engine*, std::uint64_t addr, unsigned size, void* self);
    static void mmio_write_cb(uc_engine*, std::uint64_t addr, unsigned size, std::uint64_t value, void* self);
    static void intr_hook(uc_engine*, std::uint32_t intno, void* self);
    static std::uint32_t mrs_hook(uc_engine*, uc_arm64_reg reg, const uc_arm64_cp_reg* cp, void* self);
    static std::uint32_t msr_hook(uc_engine*, uc_arm64_reg reg, const uc_arm64_cp_reg* cp, void* self);

    void on_block(std::uint64_t addr, std::uint32_t size);
    std::uint64_t access(std::uint64_t addr, unsigned size, bool write, std::uint64_t value);
    bool transport(tlm::tlm_generic_payload& tx, read_promise* promise);
    void fast_forward(const read_promise& p, const sc_time& issued, std::uint64_t period_instr,
                      const sc_time& period);
    void sync();
    bool line_before(const sc_time& t);
    void take_interrupt(std::uint64_t addr);
    void note_daif();
    void window(bool open);
    void psci(std::uint64_t pc);
    void stop(a64_stop why, const std::string& fault = "");
    void close_figures();
    void request_stop(a64_stop why, const std::string& fault);
    void halt_engine(a64_stop why, const std::string& fault = "");
    void wait_for_interrupt();
    std::uint64_t counter() const;
    void vtimer_schedule();
    std::uint64_t reg(int id) const;
    void set_reg(int id, std::uint64_t v);
    std::uint64_t read_spsr_el1() const;
    void write_spsr_el1(std::uint64_t v);
    void fail(const char* what, uc_err e);

    struct block_info {
        std::uint64_t addr = ~std::uint64_t(0);
        std::uint32_t size = 0;
        bool has_store = false, daif = false, eret = false;
    };
    const block_info& info(std::uint64_t addr, std::uint32_t size);
    static constexpr unsigned block_slots = 4096; // direct-mapped by address
    std::vector<block_info> m_blocks = std::vector<block_info>(block_slots);

    a64_config m_cfg;
    uc_engine* m_uc = nullptr;
    bool m_use64 = false;
    std::uint64_t m_entry = 0;
    std::uint64_t m_units_per_s = 0;
    sc_time m_time, m_quantum, m_next_grid;
    a64_stats m_stats;
    a64_stop m_stop = a64_stop::running;
    std::string m_fault;
    sc_event m_stopped;

    // Why the engine stopped (set before uc_emu_stop), and where to resume.
    enum class halt { none, quantum, stop } m_halt = halt::none;
    std::uint64_t m_resume = 0;
    // A stop asked by a callback (running: none), which the next block hook or exception carries out.
    a64_stop m_asked_stop = a64_stop::running;
    std::string m_asked_fault;
    bool stop_asked() const { return m_asked_stop != a64_stop::running; }

    // The IRQ line: its changes (time, level) since the last synchronisation's, and what it noticed.
    std::deque<std::pair<sc_time, bool>> m_line;
    bool m_line_initial = false;
    bool m_irq_noticed = false;
    bool m_irq_masked = true; // PSTATE.I, as of the last block boundary that could change it
    unsigned m_hardirq_depth = 0;
    sc_time m_hardirq_since, m_irq_off_since;
    bool m_daif_changed = false; // the block that ran last may have changed DAIF
    bool m_returned = false;     // the block that ran last ended in eret
    bool m_window_open = true;   // an IRQs-off window (PSTATE.I set outside handlers): from reset
    sc_time m_wfi_total;
    bool m_in_wfi = false, m_finished = false;

    // The block that runs (for the poll watch), and whether a store may have happened since the watch
    // was last set.
    std::uint64_t m_block = 0;
    bool m_block_stores = false;
    bool m_store_seen = false;
    struct {
        bool valid = false, has_regs = false;
        std::uint64_t addr = 0, block = 0;
        unsigned size = 0;
        std::uint64_t value = 0;
        std::uint64_t instr = 0;
        sc_time issued;
        std::array<std::uint64_t, watched_count> regs{};
    } m_watch;
    std::array<std::uint64_t, watched_count> read_watched() const;

    // The virtual timer.
    std::uint64_t m_cntv_ctl = 0, m_cntv_cval = 0;
    sc_event m_vtimer_ev;

    tlm::tlm_generic_payload m_tx;

    // The observation signals' changes, in time order, written by drive() at their times.
    enum class sig : std::uint8_t { irqs_off, in_hardirq, waiting, polling, addr, read, write };
    struct change {
        sc_time at;
        sig what;
        std::uint64_t value;
    };
    std::deque<change> m_changes;
    sc_event m_drive_ev;
    bool m_observed = false;
    sc_time m_last_change;
    void show(sig what, std::uint64_t value, const sc_time& at);
};

a64_core_impl::a64_core_impl(const sc_module_name& name, const a64_config& config)
    : a64_core(name)
    , m_cfg(config) {
    m_units_per_s = timing_profile::units_per_s();
    m_quantum = sc_time(static_cast<double>(config.quantum_ns), SC_NS);
    if (m_quantum == SC_ZERO_TIME) m_quantum = sc_time::from_value(1);
    uc_err e = uc_open(UC_ARCH_ARM64, UC_MODE_ARM, &m_uc);
    if (e != UC_ERR_OK) {
        m_uc = nullptr;
        fail("uc_open", e);
    }
    // QEMU's `virt` comparison runs -cpu cortex-a57.
    if ((e = uc_ctl_set_cpu_model(m_uc, UC_CPU_ARM64_A57)) != UC_ERR_OK) fail("cpu model", e);
    if ((e = uc_mem_map(m_uc, config.ram_base, config.ram_size, UC_PROT_ALL)) != UC_ERR_OK)
        fail("mapping RAM", e);
    // Everything below RAM is the bus (devices decode their own ranges; the router answers the rest).
    if ((e = uc_mmio_map(m_uc, 0, config.ram_base, mmio_read_cb, this, mmio_write_cb, this)) != UC_ERR_OK)
        fail("mapping the bus", e);
    uc_hook h;
    if ((e = uc_hook_add(m_uc, &h, UC_HOOK_BLOCK, reinterpret_cast<void*>(block_hook), this, 1, 0)) !=
            UC_ERR_OK ||
        (e = uc_hook_add(m_uc, &h, UC_HOOK_INTR, reinterpret_cast<void*>(intr_hook), this, 1, 0)) !=
            UC_ERR_OK ||
        (e = uc_hook_add(m_uc, &h, UC_HOOK_INSN, reinterpret_cast<void*>(mrs_hook), this, 1, 0,
                         UC_ARM64_INS_MRS)) != UC_ERR_OK ||
        (e = uc_hook_add(m_uc, &h, UC_HOOK_INSN, reinterpret_cast<void*>(msr_hook), this, 1, 0,
                         UC_ARM64_INS_MSR)) != UC_ERR_OK)
        fail("adding hooks", e);
    // Without RW in SCR_EL3 and HCR_EL2 every eret is an illegal return.
    uc_arm64_cp_reg scr{1, 1, 3, 6, 0, 1u << 10};
    uc_arm64_cp_reg hcr{1, 1, 3, 4, 0, 1u << 31};
    if ((e = uc_reg_write(m_uc, UC_ARM64_REG_CP_REG, &scr)) != UC_ERR_OK ||
        (e = uc_reg_write(m_uc, UC_ARM64_REG_CP_REG, &hcr)) != UC_ERR_OK)
        fail("setting SCR_EL3.RW and HCR_EL2.RW", e);
    SC_THREAD(run);
    set_stack_size(1u << 20); // Unicorn's frames below a callback take about 10 KB; sanitizers more
    SC_METHOD(on_line);
    sensitive << irq;
    dont_initialize();
    SC_METHOD(vtimer_eval);
    sensitive << m_vtimer_ev;
    dont_initialize();
    SC_METHOD(drive);
    sensitive << m_drive_ev;
    dont_initialize();
}

// A change of an observation signal at `at` (the core's time; the present if the core stands behind it,
// after a fast-forward), kept in time order.
void a64_core_impl::show(sig what, std::uint64_t value, const sc_time& at) {
    if (!m_observed) return;
    const sc_time t = std::max({at, sc_time_stamp(), m_last_change});
    m_last_change = t;
    const bool first = m_changes.empty();
    m_changes.push_back({t, what, value});
    if (first) m_drive_ev.notify(t - sc_time_stamp());
}

void a64_core_impl::drive() {
    const sc_time now = sc_time_stamp();
    while (!m_changes.empty() && m_changes.front().at <= now) {
        const change& c = m_changes.front();
        switch (c.what) {
        case sig::irqs_off:
            irqs_off.write(c.value != 0);
            break;
        case sig::in_hardirq:
            in_hardirq.write(c.value != 0);
            break;
        case sig::waiting:
            waiting.write(c.value != 0);
            break;
        case sig::polling:
            polling.write(c.value != 0);
            break;
        case sig::addr:
            mmio_addr.write(c.value);
            break;
        case sig::read:
            mmio_read.write(c.value != 0);
            break;
        case sig::write:
            mmio_write.write(c.value != 0);
            break;
        }
        m_changes.pop_front();
    }
    if (!m_changes.empty()) m_drive_ev.notify(m_changes.front().at - now);
}

void a64_core_impl::fail(const char* what, uc_err e) {
    throw std::runtime_error(std::string(name()) + ": " + what + ": " + uc_strerror(e));
}

void a64_core_impl::end_of_elaboration() {
    m_use64 = bus64.get_base_port().size() > 0;
    if (!m_use64 && bus.get_base_port().size() == 0)
        throw std::runtime_error(std::string(name()) + ": neither bus nor bus64 is bound");
    vtimer_irq.initialize(false);
}

void a64_core_impl::load(const elf_image& image) {
    for (const elf_image::segment& s : image.segments) {
        if (!s.data.empty()) write_memory(s.addr, s.data.data(), s.data.size());
        const std::vector<std::uint8_t> zero(s.mem_size - s.data.size(), 0);
        if (!zero.empty()) write_memory(s.addr + s.data.size(), zero.data(), zero.size());
    }
    m_entry = image.entry;
}

void a64_core_impl::write_memory(std::uint64_t addr, const void* data, std::size_t n) {
    if (addr < m_cfg.ram_base || addr - m_cfg.ram_base > m_cfg.ram_size ||
        n > m_cfg.ram_size - (addr - m_cfg.ram_base))
        throw std::out_of_range(std::string(name()) + ": write of " + std::to_string(n) + " bytes at " +
                                hex(addr) + " outside RAM");
    if (n) uc_mem_write(m_uc, addr, data, n); // through the engine: code written so is translated anew
}

void a64_core_impl::read_memory(std::uint64_t addr, void* data, std::size_t n) const {
    if (addr < m_cfg.ram_base || addr - m_cfg.ram_base > m_cfg.ram_size ||
        n > m_cfg.ram_size - (addr - m_cfg.ram_base))
        throw std::out_of_range(std::string(name()) + ": read of " + std::to_string(n) + " bytes at " +
                                hex(addr) + " outside RAM");
    if (n) uc_mem_read(m_uc, addr, data, n);
}

std::uint64_t a64_core_impl::reg(int id) const {
    std::uint64_t v = 0;
    uc_reg_read(m_uc, id, &v);
    return v;
}

void a64_core_impl::set_reg(int id, std::uint64_t v) {
    uc_reg_write(m_uc, id, &v);
}

// SPSR_EL1 is not in Unicorn's register list: through its encoding (op0 3, op1 0, CRn 4, CRm 0, op2 0).
std::uint64_t a64_core_impl::read_spsr_el1() const {
    uc_arm64_cp_reg r{4, 0, 3, 0, 0, 0};
    uc_reg_read(m_uc, UC_ARM64_REG_CP_REG, &r);
    return r.val;
}

void a64_core_impl::write_spsr_el1(std::uint64_t v) {
    uc_arm64_cp_reg r{4, 0, 3, 0, 0, v};
    uc_reg_write(m_uc, UC_ARM64_REG_CP_REG, &r);
}

std::array<std::uint64_t, watched_count> a64_core_impl::read_watched() const {
    std::array<std::uint64_t, watched_count> v{};
    std::array<void*, watched_count> p{};
    for (int i = 0; i < watched_count; ++i)
        p[i] = &v[i];
    uc_reg_read_batch(m_uc, const_cast<int*>(watched_ids().data()), p.data(), watched_count);
    return v;
}

const a64_core_impl::block_info& a64_core_impl::info(std::uint64_t addr, std::uint32_t size) {
    block_info& b = m_blocks[(addr >> 2) % block_slots];
    if (b.addr == addr && b.size == size) return b;
    b = block_info{};
    b.addr = addr;
    b.size = size;
    std::vector<std::uint32_t> words(size / 4);
    if (!words.empty() && uc_mem_read(m_uc, addr, words.data(), words.size() * 4) == UC_ERR_OK)
        for (std::uint32_t w : words) {
            b.has_store = b.has_store || may_store(w);
            b.daif = b.daif || changes_daif(w);
            b.eret = b.eret || w == insn_eret;
        }
    return b;
}

// ---- the run

void a64_core_impl::run() {
    std::uint64_t pc = m_entry;
    m_next_grid = m_quantum;
    m_irq_off_since = SC_ZERO_TIME; // PSTATE.I is set at reset
    while (m_stop == a64_stop::running) {
        m_halt = halt::none;
        const uc_err e = uc_emu_start(m_uc, pc, 0, 0, 0);
        if (m_halt == halt::stop) break;
        if (e != UC_ERR_OK) {
            stop(a64_stop::fault, uc_strerror(e) + std::string(" at pc ") + hex(reg(UC_ARM64_REG_PC)));
            break;
        }
        if (m_halt == halt::quantum) {
            sync();
            pc = m_resume;
            continue;
        }
        // The engine returned by itself: after a wfi (PC past it), or at an exception it could not
        // take.
        pc = reg(UC_ARM64_REG_PC);
        std::uint32_t insn = 0;
        if (pc >= 4) uc_mem_read(m_uc, pc - 4, &insn, 4);
        if (insn != insn_wfi) {
            stop(a64_stop::fault, "the engine stopped at pc " + hex(pc));
            break;
        }
        note_daif();
        wait_for_interrupt();
    }
    if (m_stop == a64_stop::running) stop(a64_stop::fault, "the engine stopped");
}

void a64_core_impl::stop(a64_stop why, const std::string& fault) {
    if (m_stop != a64_stop::running) return;
    // The run's figures end at the core's time.
    if (m_time > sc_time_stamp()) wait(m_time - sc_time_stamp());
    close_figures();
    m_stop = why;
    m_fault = fault;
    m_stopped.notify();
}

void a64_core_impl::finish() {
    if (m_stop != a64_stop::running || m_finished) return;
    m_finished = true;
    close_figures();
    if (m_in_wfi) m_stop = a64_stop::halted;
}

void a64_core_impl::close_figures() {
    window(false);
    if (m_hardirq_depth > 0) m_stats.hardirq += m_time - m_hardirq_since;
    m_stats.busy = m_time - m_wfi_total;
}

// From a hook (the block hook, an exception): the engine stops there for good, and the core with it.
void a64_core_impl::halt_engine(a64_stop why, const std::string& fault) {
    m_halt = halt::stop;
    uc_emu_stop(m_uc);
    stop(why, fault);
}

// From an MMIO callback (which must not stop the engine): the next block boundary stops it.
void a64_core_impl::request_stop(a64_stop why, const std::string& fault) {
    if (stop_asked()) return;
    m_asked_stop = why;
    m_asked_fault = fault;
}

// SystemC time catches up with the core's, and the core notices its IRQ line as it was just before.
void a64_core_impl::sync() {
    if (m_time > sc_time_stamp()) wait(m_time - sc_time_stamp());
    m_irq_noticed = line_before(m_time);
    m_next_grid = sc_time::from_value((m_time.value() / m_quantum.value() + 1) * m_quantum.value());
}

void a64_core_impl::on_line() {
    m_line.emplace_back(sc_time_stamp(), irq.read());
}

// The line's level before `t` (changes at t itself not yet), forgetting what came before that.
bool a64_core_impl::line_before(const sc_time& t) {
    while (!m_line.empty() && m_line.front().first < t) {
        m_line_initial = m_line.front().second;
        m_line.pop_front();
    }
    return m_line_initial;
}

void a64_core_impl::wait_for_interrupt() {
    sync();
    const sc_time from = m_time;
    m_in_wfi = true;
    show(sig::waiting, 1, m_time);
    while (!irq.read())
        wait(irq.value_changed_event());
    m_in_wfi = false;
    if (sc_time_stamp() > m_time) m_time = sc_time_stamp();
    show(sig::waiting, 0, m_time);
    m_wfi_total += m_time - from;
    m_irq_noticed = true; // woken by it
    m_next_grid = sc_time::from_value((m_time.value() / m_quantum.value() + 1) * m_quantum.value());
}

// ---- the block hook

void a64_core_impl::block_hook(uc_engine*, std::uint64_t addr, std::uint32_t size, void* self) {
    static_cast<a64_core_impl*>(self)->on_block(addr, size);
}

void a64_core_impl::on_block(std::uint64_t addr, std::uint32_t size) {
    if (stop_asked()) {
        halt_engine(m_asked_stop, m_asked_fault);
        return;
    }
    if (m_daif_changed || m_returned) note_daif();
    if (m_irq_noticed && !m_irq_masked) {
        take_interrupt(addr); // a PC write: the engine goes to the vector (this block does not run)
        return;
    }
    if (m_time >= m_next_grid) {
        m_halt = halt::quantum;
        m_resume = addr;
        uc_emu_stop(m_uc); // before the block runs: the hook comes again for it on resume
        return;
    }
    const block_info& b = info(addr, size);
    const std::uint64_t n = size / 4;
    m_stats.instructions += n;
    m_time += sc_time::from_value(n * m_cfg.cpi * m_units_per_s / m_cfg.timing.cpu_hz);
    m_block = addr;
    m_block_stores = b.has_store;
    m_store_seen = m_store_seen || b.has_store;
    m_daif_changed = b.daif;
    m_returned = b.eret;
}

// PSTATE.I after a block that may have changed it (MSR DAIF*) or returned from an interrupt (ERET): the
// IRQs-off windows (outside handlers) and the time in handlers.
void a64_core_impl::note_daif() {
    if (m_returned && m_hardirq_depth > 0 && --m_hardirq_depth == 0) {
        m_stats.hardirq += m_time - m_hardirq_since;
        show(sig::in_hardirq, 0, m_time);
    }
    m_daif_changed = m_returned = false;
    m_irq_masked = reg(UC_ARM64_REG_PSTATE) & pstate_i;
    window(m_hardirq_depth == 0 && m_irq_masked);
}

// Opens or closes the IRQs-off window at the core's time.
void a64_core_impl::window(bool open) {
    if (open == m_window_open) return;
    m_window_open = open;
    show(sig::irqs_off, open, m_time);
    if (open) {
        m_irq_off_since = m_time;
        return;
    }
    const sc_time w = m_time - m_irq_off_since;
    m_stats.irq_off_total += w;
    m_stats.irq_off_max = std::max(m_stats.irq_off_max, w);
    ++m_stats.irq_off_windows;
}

// The architecture's IRQ entry at the boundary before `addr`, to the current EL with SP_ELx.
void a64_core_impl::take_interrupt(std::uint64_t addr) {
    write_spsr_el1(reg(UC_ARM64_REG_PSTATE));
    set_reg(UC_ARM64_REG_ELR_EL1, addr);
    set_reg(UC_ARM64_REG_PSTATE, pstate_irq_entry);
    set_reg(UC_ARM64_REG_PC, reg(UC_ARM64_REG_VBAR_EL1) + vector_irq_current_spx);
    m_irq_masked = true;
    if (m_hardirq_depth++ == 0) {
        m_hardirq_since = m_time;
        show(sig::in_hardirq, 1, m_time);
    }
    window(false); // handlers are hard-IRQ time, not an IRQs-off window
    ++m_stats.interrupts;
    m_watch.valid = false;
}

// ---- device accesses

std::uint64_t a64_core_impl::mmio_read_cb(uc_engine*, std::uint64_t addr, unsigned size, void* self) {
    return static_cast<a64_core_impl*>(self)->access(addr, size, false, 0);
}

void a64_core_impl::mmio_write_cb(uc_engine*, std::uint64_t addr, unsigned size, std::uint64_t value,
                                  void* self) {
    static_cast<a64_core_impl*>(self)->access(addr, size, true, value);
}

std::uint64_t a64_core_impl::access(std::uint64_t addr, unsigned size, bool write, std::uint64_t value) {
    if (stop_asked()) return 0; // a failed access earlier in this block: nothing more reaches the bus
    sync();                     // interrupts come before the access (taken at the next block boundary)
    const sc_time issued = m_time;
    std::uint64_t data = write ? value : 0;
    m_tx.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    m_tx.set_address(addr);
    m_tx.set_data_ptr(reinterpret_cast<unsigned char*>(&data)); // the host is little-endian, as the core
    m_tx.set_data_length(size);
    m_tx.set_streaming_width(size);
    m_tx.set_byte_enable_ptr(nullptr);
    m_tx.set_dmi_allowed(false);
    m_tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (write) {
        ++m_stats.mmio_writes;
        m_watch.valid = false;
        transport(m_tx, nullptr);
        return 0;
    }
    ++m_stats.mmio_reads;
    // Is this read the same as the last one in a loop? The same register from the same block, nothing
    // else in between; then its registers tell.
    const bool again = m_cfg.fast_forward && m_watch.valid && m_watch.addr == addr && m_watch.size == size &&
                       m_watch.block == m_block && !m_store_seen;
    std::array<std::uint64_t, watched_count> regs{};
    bool repeats = false;
    if (again) {
        regs = read_watched();
        repeats = m_watch.has_regs && regs == m_watch.regs;
    }
    read_promise promise;
    const bool by_cost = transport(m_tx, m_cfg.fast_forward ? &promise : nullptr);
    if (stop_asked()) return 0;
    const std::uint64_t period_instr = m_stats.instructions - m_watch.instr;
    const sc_time period = issued - m_watch.issued;
    const bool same_value = repeats && data == m_watch.value;
    m_watch.valid = true;
    m_watch.has_regs = again;
    m_watch.addr = addr;
    m_watch.size = size;
    m_watch.block = m_block;
    m_watch.value = data;
    m_watch.regs = regs;
    m_watch.instr = m_stats.instructions;
    m_watch.issued = issued;
    m_store_seen = m_block_stores; // the rest of this block may store
    if (same_value && by_cost && promise.valid && promise.latency <= m_time - issued && period > SC_ZERO_TIME)
        fast_forward(promise, issued, period_instr, period);
    return data;
}

// Issues the transaction at the core's time (SystemC time has caught up); the core goes on after the
// access's cost or when the target answers, if later. Returns true if the cost decided.
bool a64_core_impl::transport(tlm::tlm_generic_payload& tx, read_promise* promise) {
    const std::uint64_t addr = tx.get_address();
    const region_cost& cost = m_cfg.timing.cost_for(addr);
    const sc_time done_by_cost = m_time + (tx.is_read() ? cost.read : cost.write);
    sc_time delay = m_time - sc_time_stamp();
    initiator_id who(m_cfg.initiator_id);
    tx.set_extension(&who);
    if (promise) tx.set_extension(promise);
    ++m_stats.transactions;
    if (m_use64)
        bus64->b_transport(tx, delay);
    else
        bus->b_transport(tx, delay);
    tx.clear_extension(&who); // both live on this stack
    if (promise) tx.clear_extension(promise);
    if (!tx.is_response_ok()) {
        request_stop(a64_stop::fault, std::string(tx.is_read() ? "read" : "write") + " of " +
                                          std::to_string(tx.get_data_length()) + " bytes at " + hex(addr) +
                                          ": " + tx.get_response_string());
        return false;
    }
    const sc_time by_target = sc_time_stamp() + delay;
    const sc_time issued = m_time;
    m_time = std::max(done_by_cost, by_target);
    if (m_observed) {
        const sig strobe = tx.is_read() ? sig::read : sig::write;
        show(sig::addr, addr, issued);
        show(strobe, 1, issued);
        show(strobe, 0, m_time);
    }
    return by_target <= done_by_cost;
}

// The loop's next reads come at issued + k * period (k >= 1) and return the promised value until the
// promise ends, breaks, or the IRQ line changes (which the literal loop notices at a read). Wait for the
// first of these, count the reads issued before it, and move the core's time and count past them: the
// core's state at each read is the same, so executing one more iteration stands for them all. The read
// after them is executed for real.
void a64_core_impl::fast_forward(const read_promise& p, const sc_time& issued, std::uint64_t period_instr,
                                 const sc_time& period) {
    if (p.broken_already() || p.until <= issued + period) return;
    show(sig::polling, 1, m_time);
    if (p.until == sc_max_time())
        wait(*p.broken | irq.value_changed_event());
    else
        wait(p.until - sc_time_stamp(), *p.broken | irq.value_changed_event());
    const std::uint64_t span = sc_time_stamp().value() - issued.value();
    const std::uint64_t n = span == 0 ? 0 : (span - 1) / period.value(); // issued + k*period < now
    show(sig::polling, 0, sc_time_stamp());
    if (n == 0) return;
    m_time += sc_time::from_value(n * period.value());
    m_stats.instructions += n * period_instr;
    m_stats.mmio_reads += n;
    m_stats.skipped_reads += n;
    ++m_stats.fast_forwards;
    // The core now stands where the last counted read left it: as reference mode's synchronisation
    // at that read would, it notices the line as it was before it, and the watch moves along.
    m_watch.instr += n * period_instr;
    m_watch.issued += sc_time::from_value(n * period.value());
    m_irq_noticed = line_before(m_watch.issued);
    m_next_grid = sc_time::from_value((m_watch.issued.value() / m_quantum.value() + 1) * m_quantum.value());
}

// ---- exceptions: PSCI calls by hvc/smc (an undefined instruction at EL1 on this core), the rest faults

void a64_core_impl::intr_hook(uc_engine*, std::uint32_t intno, void* self) {
    auto* c = static_cast<a64_core_impl*>(self);
    if (c->stop_asked()) { // a failed access earlier in the block comes first
        c->halt_engine(c->m_asked_stop, c->m_asked_fault);
        return;
    }
    const std::uint64_t pc = c->reg(UC_ARM64_REG_PC);
    std::uint32_t insn = 0;
    uc_mem_read(c->m_uc, pc, &insn, 4);
    if (insn == insn_hvc0 || insn == insn_smc0) {
        c->psci(pc);
        return;
    }
    // hvc/smc taken as such report the address after them.
    if (pc >= 4) {
        std::uint32_t before = 0;
        uc_mem_read(c->m_uc, pc - 4, &before, 4);
        if ((before == insn_hvc0 || before == insn_smc0) && (intno == 11 || intno == 13)) {
            c->psci(pc - 4);
            return;
        }
    }
    c->halt_engine(a64_stop::fault, "exception " + std::to_string(intno) + " (" +
                                        (intno == 1   ? "undefined instruction " + hex(insn)
                                         : intno == 2 ? std::string("svc")
                                                      : std::string("not modelled")) +
                                        ") at pc " + hex(pc));
}

void a64_core_impl::psci(std::uint64_t pc) {
    const std::uint64_t fn = reg(UC_ARM64_REG_X0) & 0xffffffffu;
    if (fn == psci_system_off || fn == psci_system_reset) {
        halt_engine(fn == psci_system_off ? a64_stop::system_off : a64_stop::system_reset);
        return;
    }
    set_reg(UC_ARM64_REG_X0, fn == psci_version ? 0x00010000 /* 1.0 */ : psci_not_supported);
    set_reg(UC_ARM64_REG_PC, pc + 4);
}

// ---- the generic timer

std::uint64_t a64_core_impl::counter() const {
    return static_cast<std::uint64_t>(static_cast<unsigned __int128>(m_time.value()) * m_cfg.cntfrq_hz /
                                      m_units_per_s);
}

std::uint32_t a64_core_impl::mrs_hook(uc_engine*, uc_arm64_reg reg, const uc_arm64_cp_reg* cp, void* self) {
    auto* c = static_cast<a64_core_impl*>(self);
    std::uint64_t v;
    if (is(cp, cntfrq))
        v = c->m_cfg.cntfrq_hz;
    else if (is(cp, cntvct) || is(cp, cntpct))
        v = c->counter();
    else if (is(cp, cntv_ctl))
        v = (c->m_cntv_ctl & 3u) | (c->counter() >= c->m_cntv_cval ? 4u : 0u);
    else if (is(cp, cntv_cval))
        v = c->m_cntv_cval;
    else if (is(cp, cntv_tval))
        v = static_cast<std::uint32_t>(c->m_cntv_cval - c->counter());
    else
        return 0; // the engine's own
    c->set_reg(reg, v);
    return 1;
}

std::uint32_t a64_core_impl::msr_hook(uc_engine*, uc_arm64_reg, const uc_arm64_cp_reg* cp, void* self) {
    auto* c = static_cast<a64_core_impl*>(self);
    if (is(cp, cntv_ctl))
        c->m_cntv_ctl = cp->val & 3u;
    else if (is(cp, cntv_cval))
        c->m_cntv_cval = cp->val;
    else if (is(cp, cntv_tval))
        c->m_cntv_cval = c->counter() + static_cast<std::uint64_t>(
                                            static_cast<std::int64_t>(static_cast<std::int32_t>(cp->val)));
    else
        return 0;
    c->sync(); // the timer's output changes at the core's time
    c->vtimer_schedule();
    return 1;
}

// The output follows ENABLE && !IMASK && count >= CVAL: now, or at the count's time.
void a64_core_impl::vtimer_schedule() {
    m_vtimer_ev.cancel();
    m_vtimer_ev.notify(SC_ZERO_TIME);
}

void a64_core_impl::vtimer_eval() {
    const bool on = (m_cntv_ctl & 3u) == 1u;
    const std::uint64_t now = static_cast<std::uint64_t>(
        static_cast<unsigned __int128>(sc_time_stamp().value()) * m_cfg.cntfrq_hz / m_units_per_s);
    const bool fire = on && now >= m_cntv_cval;
    if (vtimer_irq.read() != fire) vtimer_irq.write(fire);
    if (on && !fire) {
        // The first time unit at which the count reaches CVAL.
        const unsigned __int128 t =
            (static_cast<unsigned __int128>(m_cntv_cval) * m_units_per_s + m_cfg.cntfrq_hz - 1) /
            m_cfg.cntfrq_hz;
        m_vtimer_ev.notify(sc_time::from_value(static_cast<std::uint64_t>(t)) - sc_time_stamp());
    }
}

} // namespace

} // namespace uartvp::cpu

extern "C" __attribute__((visibility("default"))) uartvp::cpu::a64_core*
uartvp_a64_create(const char* name, const uartvp::cpu::a64_config* config) {
    return new uartvp::cpu::a64_core_impl(name, *config);
}
