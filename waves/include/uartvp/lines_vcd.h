// SPDX-License-Identifier: Apache-2.0
#pragma once
// A small VCD of serial lines for logic-analyser software: scalar signals only, one scope, unique leaf
// names, no $comment or $dumpvars after the definitions, and a timescale coarse enough for a long run
// (Debian's sigrok 0.5 VCD import reads exactly that, taking 1/timescale as its sample rate).
//   sigrok-cli -i run.lines.vcd -I vcd -P uart:baudrate=115200:rx=txd -B uart=rx
#include <cstdint>
#include <string>

#include <uartvp/vcd_writer.h>

namespace uartvp {

class lines_vcd : public vcd_writer {
public:
    lines_vcd(const sc_core::sc_module_name& name, const std::string& path, std::uint64_t timescale_ps)
        : vcd_writer(name, path, timescale_ps) {
        plain_initial_values(true);
    }
    // Adds a line named `leaf` (unique, [A-Za-z0-9_]) under the scope "lines".
    void add(sc_core::sc_signal_in_if<bool>& line, const std::string& leaf) {
        vcd_writer::add(line, "lines." + leaf);
    }
    // A line written from its sender's reports (vcd_line_reader), named `leaf` as above.
    void add(vcd_line_reader& line, const std::string& leaf) { line.add_to(*this, "lines." + leaf); }
    // The coarsest timescale (a power of ten in ps) that still gives `samples_per_bit` samples per bit.
    static std::uint64_t timescale_for(double baud, unsigned samples_per_bit = 16) {
        const double want_ps = 1e12 / baud / samples_per_bit;
        std::uint64_t ts = 1;
        while (ts * 10 <= want_ps)
            ts *= 10;
        return ts;
    }
};

} // namespace uartvp
