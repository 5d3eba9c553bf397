// SPDX-License-Identifier: Apache-2.0
#include <uartvp/cpu/core.h>
#include <uartvp/cpu/kernel.h>

namespace uartvp::kapi {

using cpu::core;

std::uint8_t readb(iomem addr) {
    return static_cast<std::uint8_t>(core::current().read(addr, 1));
}
std::uint16_t readw(iomem addr) {
    return static_cast<std::uint16_t>(core::current().read(addr, 2));
}
std::uint32_t readl(iomem addr) {
    return core::current().read(addr, 4);
}
void writeb(std::uint8_t v, iomem addr) {
    core::current().write(addr, v, 1);
}
void writew(std::uint16_t v, iomem addr) {
    core::current().write(addr, v, 2);
}
void writel(std::uint32_t v, iomem addr) {
    core::current().write(addr, v, 4);
}

std::uint8_t inb(std::uint16_t port) {
    core& c = core::current();
    return static_cast<std::uint8_t>(c.read(c.timing().io_base + port, 1));
}
void outb(std::uint8_t v, std::uint16_t port) {
    core& c = core::current();
    c.write(c.timing().io_base + port, v, 1);
}

void cpu_relax() {
    core::current().relax();
}

std::uint32_t spin_while(std::uint32_t (*)(iomem), iomem addr, const std::function<bool(std::uint32_t)>& keep,
                         std::uint32_t bits) {
    return core::current().spin_read_while(addr, 4, keep, bits);
}
std::uint16_t spin_while(std::uint16_t (*)(iomem), iomem addr, const std::function<bool(std::uint32_t)>& keep,
                         std::uint32_t bits) {
    return static_cast<std::uint16_t>(core::current().spin_read_while(addr, 2, keep, bits));
}
std::uint8_t spin_while(std::uint8_t (*)(iomem), iomem addr, const std::function<bool(std::uint32_t)>& keep,
                        std::uint32_t bits) {
    return static_cast<std::uint8_t>(core::current().spin_read_while(addr, 1, keep, bits));
}

std::uint8_t spin_while(std::uint8_t (*)(std::uint16_t), std::uint16_t port,
                        const std::function<bool(std::uint32_t)>& keep, std::uint32_t bits) {
    core& c = core::current();
    return static_cast<std::uint8_t>(c.spin_read_while(c.timing().io_base + port, 1, keep, bits));
}

static poll_result poll_at(std::uint64_t addr, unsigned size, const std::function<bool(std::uint32_t)>& keep,
                           unsigned long max_reads, unsigned long us, std::uint32_t bits) {
    const auto r = core::current().poll(addr, size, keep, max_reads,
                                        sc_core::sc_time(static_cast<double>(us), sc_core::SC_US), bits);
    return {r.value, static_cast<unsigned long>(r.reads), r.timed_out};
}
poll_result poll_udelay(std::uint8_t (*)(iomem), iomem addr, const std::function<bool(std::uint32_t)>& keep,
                        unsigned long max_reads, unsigned long us, std::uint32_t bits) {
    return poll_at(addr, 1, keep, max_reads, us, bits);
}
poll_result poll_udelay(std::uint32_t (*)(iomem), iomem addr, const std::function<bool(std::uint32_t)>& keep,
                        unsigned long max_reads, unsigned long us, std::uint32_t bits) {
    return poll_at(addr, 4, keep, max_reads, us, bits);
}
poll_result poll_udelay(std::uint8_t (*)(std::uint16_t), std::uint16_t port,
                        const std::function<bool(std::uint32_t)>& keep, unsigned long max_reads,
                        unsigned long us, std::uint32_t bits) {
    return poll_at(core::current().timing().io_base + port, 1, keep, max_reads, us, bits);
}

void udelay(unsigned long us) {
    core::current().spend(sc_core::sc_time(static_cast<double>(us), sc_core::SC_US));
}
void ndelay(unsigned long ns) {
    core::current().spend(sc_core::sc_time(static_cast<double>(ns), sc_core::SC_NS));
}

void local_irq_save(irqflags& flags) {
    flags = core::current().irq_disable();
}
void local_irq_restore(irqflags flags) {
    core::current().irq_restore(flags);
}

namespace {
sc_core::sc_event& lock_released() {
    static sc_core::sc_event e("uartvp_spinlock_released"); // built at first use, in the simulation
    return e;
}
} // namespace

void spin_lock(spinlock& lock) {
    core& c = core::current();
    c.sync(); // the lock is looked at in SystemC time, where the other cores' holds are
    if (lock.locked && lock.owner == static_cast<int>(c.id()))
        throw std::logic_error("spinlock taken twice on one core: deadlock");
    while (lock.locked)
        c.wait_for(lock_released()); // spinning: the core is busy, its IRQs as they are
    lock.locked = true;
    lock.owner = static_cast<int>(c.id());
}

void spin_unlock(spinlock& lock) {
    core& c = core::current();
    if (lock.locked && lock.owner != static_cast<int>(c.id()))
        throw std::logic_error("spinlock released by a core that does not hold it");
    c.sync();
    lock.locked = false;
    lock.owner = -1;
    lock_released().notify();
}

void spin_lock_irqsave(spinlock& lock, irqflags& flags) {
    local_irq_save(flags);
    spin_lock(lock);
}

void spin_unlock_irqrestore(spinlock& lock, irqflags flags) {
    spin_unlock(lock);
    local_irq_restore(flags);
}

} // namespace uartvp::kapi
