// SPDX-License-Identifier: Apache-2.0
#pragma once
// CPU-side costs of a timing profile: what a register access, a spin hint and a delay cost the core.
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

namespace uartvp::cpu {

// The cost of one access to a bus address range, as the core sees it (a posted write on an SoC's APB
// costs less than a read; under a hypervisor either one is a trapped access, a VM exit and entry).
struct region_cost {
    std::string name;
    std::uint64_t base = 0, size = 0;
    sc_core::sc_time read, write;
};

struct timing_profile {
    std::uint64_t cpu_hz = 1'000'000'000;
    unsigned cpu_relax_cycles = 4; // arm64 `yield`, x86 `pause`: a few cycles, no scheduling
    unsigned call_cycles = 0;      // cost of the C code around each access, if a profile wants it
    std::vector<region_cost> regions;
    // Where port I/O (inb/outb) appears on the bus: port p is bus address io_base + p.
    std::uint64_t io_base = 0x1'0000'0000ull;
    region_cost fallback{"other", 0, 0, sc_core::sc_time(100, sc_core::SC_NS),
                         sc_core::sc_time(50, sc_core::SC_NS)};

    const region_cost& cost_for(std::uint64_t addr) const {
        for (const region_cost& r : regions)
            if (addr >= r.base && addr - r.base < r.size) return r;
        return fallback;
    }
    sc_core::sc_time cycles(std::uint64_t n) const {
        return sc_core::sc_time::from_value(n * units_per_s() / cpu_hz);
    }
    // Time-resolution units per second, built at first use (the resolution is fixed by then); building
    // an sc_time from a double on every access cost several percent of a boot's wall time.
    static std::uint64_t units_per_s() {
        static const std::uint64_t u = sc_core::sc_time(1, sc_core::SC_SEC).value();
        return u;
    }
};

} // namespace uartvp::cpu
