#pragma once
// The kernel-like API that sw-tasks are written against, so that a driver routine reads like the
// kernel routine it models. Every call acts on the core running the task and costs time from its
// timing profile; register accessors are TLM transactions.
#include <cstdint>
#include <functional>

namespace uartvp::kapi {

using iomem = std::uint64_t; // a bus address (Linux: void __iomem *)

std::uint8_t readb(iomem addr);
std::uint16_t readw(iomem addr);
std::uint32_t readl(iomem addr);
void writeb(std::uint8_t v, iomem addr);
void writew(std::uint16_t v, iomem addr);
void writel(std::uint32_t v, iomem addr);

// x86 port I/O: the core's I/O space sits on the bus at the timing profile's `io_base`.
std::uint8_t inb(std::uint16_t port);
void outb(std::uint8_t v, std::uint16_t port);

// A spin hint: a few CPU cycles; it does not sleep and does not give the CPU away.
void cpu_relax();
// A polling loop as one operation: `spin_while(readl, addr, keep)` is
//     while (keep(v = readl(addr))) cpu_relax();  return v;
// with the same reads, values and end time; in fast mode, the reads a target promises will return
// the same value are counted without a transaction each.
std::uint32_t spin_while(std::uint32_t (*readl)(iomem), iomem addr,
                         const std::function<bool(std::uint32_t)>& keep);
std::uint16_t spin_while(std::uint16_t (*readw)(iomem), iomem addr,
                         const std::function<bool(std::uint32_t)>& keep);
std::uint8_t spin_while(std::uint8_t (*readb)(iomem), iomem addr,
                        const std::function<bool(std::uint32_t)>& keep);
std::uint8_t spin_while(std::uint8_t (*inb)(std::uint16_t), std::uint16_t port,
                        const std::function<bool(std::uint32_t)>& keep);

// A bounded polling loop with a delay, as one operation, like the 8250's wait_for_lsr:
//     for (n = 1;; ++n) { v = read(addr); if (!keep(v)) break; if (n == max_reads) break; udelay(us); }
// `timed_out` tells which way it ended. (us = 0 means cpu_relax() between reads, not udelay(0).)
struct poll_result {
    std::uint32_t value;
    unsigned long reads;
    bool timed_out;
};
poll_result poll_udelay(std::uint8_t (*readb)(iomem), iomem addr,
                        const std::function<bool(std::uint32_t)>& keep, unsigned long max_reads,
                        unsigned long us);
poll_result poll_udelay(std::uint32_t (*readl)(iomem), iomem addr,
                        const std::function<bool(std::uint32_t)>& keep, unsigned long max_reads,
                        unsigned long us);
poll_result poll_udelay(std::uint8_t (*inb)(std::uint16_t), std::uint16_t port,
                        const std::function<bool(std::uint32_t)>& keep, unsigned long max_reads,
                        unsigned long us);

// Busy-wait in simulated time.
void udelay(unsigned long us);
void ndelay(unsigned long ns);

// IRQ masking on the current core; flags hold the previous state.
using irqflags = bool;
void local_irq_save(irqflags& flags);
void local_irq_restore(irqflags flags);

struct spinlock {
    bool locked = false;
};
void spin_lock(spinlock& lock);
void spin_unlock(spinlock& lock);
void spin_lock_irqsave(spinlock& lock, irqflags& flags);
void spin_unlock_irqrestore(spinlock& lock, irqflags flags);

} // namespace uartvp::kapi
