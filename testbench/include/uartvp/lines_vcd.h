#pragma once
// A small VCD of serial lines for logic-analyser software: scalar signals only, one scope, unique leaf
// names, no $comment after the definitions, and a timescale coarse enough for a long run (Debian's
// sigrok 0.5 VCD import reads exactly that, taking 1/timescale as its sample rate). Each change is
// written at its time rounded to the timescale.
//   sigrok-cli -i run.lines.vcd -I vcd -P uart:baudrate=115200:rx=txd -B uart=rx
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

namespace uartvp {

class lines_vcd : public sc_core::sc_module {
public:
    // `timescale_ps`: 1, 10 or 100 times a power of ten; see timescale_for().
    lines_vcd(const sc_core::sc_module_name& name, const std::string& path, std::uint64_t timescale_ps);
    ~lines_vcd() override;
    // Adds a line named `leaf` (unique, [A-Za-z0-9_]); call before the simulation starts.
    void add(sc_core::sc_signal_in_if<bool>& line, const std::string& leaf);
    // The coarsest timescale that still gives `samples_per_bit` samples per bit at this baud rate.
    static std::uint64_t timescale_for(double baud, unsigned samples_per_bit = 16);
    void close();

private:
    struct line;
    void start_of_simulation() override;
    void header();
    void change(line& l);
    std::string m_path;
    std::uint64_t m_ts_ps;
    std::ofstream m_out;
    std::vector<std::unique_ptr<line>> m_lines;
    std::uint64_t m_last_tick = ~std::uint64_t(0);
};

} // namespace uartvp
