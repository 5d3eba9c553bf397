#pragma once
// Waves of one run: NAME.vcd (FIFO levels, flags, lines, IRQs, tasks, IRQs-off, bus
// accesses), NAME.gtkw (a GTKWave save file: the signals grouped, ordered and formatted) and
// NAME.lines.vcd (the serial lines alone, in the form Debian's sigrok-cli reads). All are written under
// temporary names (outputs::temporary) and renamed into place with the run's other outputs by
// outputs::commit(), so a failed or interrupted run leaves none.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include <uartvp/cpu/core.h>
#include <uartvp/cpu/machine.h>
#include <uartvp/lines_vcd.h>
#include <uartvp/vcd_writer.h>

namespace uartvp::program {

class waves {
public:
    // `vcd_path` ends in .vcd; `baud` sets the lines file's timescale. Throws std::runtime_error if a
    // file cannot be written.
    waves(const std::string& vcd_path, double baud);
    ~waves();
    waves(const waves&) = delete;
    waves& operator=(const waves&) = delete;

    void begin_group(const std::string& name);
    void end_group();
    void bit(const sc_core::sc_signal_in_if<bool>& s, const std::string& name);
    void level(const sc_core::sc_signal_in_if<unsigned>& s, const std::string& name, unsigned max); // analog
    void number(const sc_core::sc_signal_in_if<int>& s, const std::string& name);
    void number(const sc_core::sc_signal_in_if<std::uint64_t>& s, const std::string& name);
    void address(const sc_core::sc_signal_in_if<std::uint64_t>& s, const std::string& name);
    // A serial line: in NAME.vcd under `name`, and in NAME.lines.vcd as `leaf`.
    void line(sc_core::sc_signal_in_if<bool>& s, const std::string& name, const std::string& leaf);

    // The groups every platform has: CPU (task, IRQs off, polling spans) and Bus (accesses); Lines.
    void cpu_and_bus(cpu::core& cpu);
    // Every core of the machine: the task running, IRQs off, in hard IRQ (core 0's beside its bus signals).
    void cores(cpu::machine& m);
    void lines(sc_core::sc_signal_in_if<bool>& txd, sc_core::sc_signal_in_if<bool>& rxd);

    // A path for the full RTL trace (NAME.rtl.vcd, written by the model itself), renamed with the rest.
    std::string rtl_trace_path();

    // Closes the files and writes the save file; throws std::runtime_error if a write failed.
    void finish();
    const std::string& vcd_path() const { return m_vcd; }
    const std::string& gtkw_path() const { return m_gtkw; }
    const std::string& lines_path() const { return m_lines_path; }
    const std::string& rtl_path() const { return m_rtl_path; }

private:
    struct entry {
        std::string text; // a save-file line: "@flags" or a signal
    };
    void add(const std::string& flags, const std::string& signal);
    std::string m_vcd, m_gtkw, m_lines_path, m_rtl_path;
    std::string m_vcd_tmp, m_lines_tmp, m_gtkw_tmp, m_rtl_tmp;
    std::unique_ptr<vcd_writer> m_vcd_writer;
    std::unique_ptr<lines_vcd> m_lines;
    std::vector<std::string> m_save;
    bool m_done = false;
    double m_baud = 115200;
};

// Checks that DIR/NAME.vcd can be written; a one-line reason if not.
std::string waves_path_problem(const std::string& vcd_path);
// The files a run with --vcd DIR/NAME.vcd may write: NAME.vcd, .gtkw, .lines.vcd, .rtl.vcd.
std::vector<std::string> waves_outputs(const std::string& vcd_path);

} // namespace uartvp::program
