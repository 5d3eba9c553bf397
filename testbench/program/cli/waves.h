// SPDX-License-Identifier: Apache-2.0
#pragma once
// Waves of one run: NAME.vcd (FIFO levels, flags, lines, IRQs, tasks, IRQs-off, bus accesses), or
// NAME.fst with --fst (the same waves in GTKWave's compressed format, written through GTKWave's
// vcd2fst), NAME.gtkw (a GTKWave save file: the signals grouped, ordered and formatted, the dump named
// by its absolute path), its translate filter files NAME.tasks.txt (task names for the task signals)
// and NAME.regs.txt (register names for the bus address, I/O ports explained), and
// NAME.lines.vcd (the serial lines alone, in the form Debian's sigrok-cli reads). All are written under
// temporary names (outputs::temporary) and renamed into place with the run's other outputs by
// outputs::commit(), so a failed or interrupted run leaves none.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include <uartvp/cpu/core.h>
#include <uartvp/cpu/machine.h>
#include <uartvp/gtkw_save.h>
#include <uartvp/lines_vcd.h>
#include <uartvp/serial_line.h>
#include <uartvp/vcd2fst_pipe.h>
#include <uartvp/vcd_writer.h>

namespace uartvp {
class pl011;
}

namespace uartvp::program {

struct run_request;

class waves : public cpu::core_observer {
public:
    // `vcd_path` ends in .vcd; `baud` sets the lines file's timescale; `fst`: NAME.fst instead of
    // NAME.vcd. Throws std::runtime_error if a file cannot be written.
    waves(const std::string& vcd_path, double baud, bool fst = false);
    ~waves() override;
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

    // A group per core of the machine (CPU for core 0, then CPU1, ...): the task running (by name,
    // through NAME.tasks.txt), IRQs off with the window's number (a window reopened at once moves it),
    // in hard IRQ, each IRQ line routed to the core, the IPI pending or being handled (with 2 cores or
    // more), polling spans with the reads each stood for, from the span's start; then Bus (the address
    // of each access, by register name through NAME.regs.txt, and the read/write strobes).
    void machine_and_bus(cpu::machine& m);
    void lines(sc_core::sc_signal_in_if<bool>& txd, sc_core::sc_signal_in_if<bool>& rxd);
    // The same group with TXD written from its sender's character reports rather than from the pin:
    // returns the reader to hand to the sender (pl011::report_line; any UART that reports its line
    // through serial_line_if), which then need not drive TXD edge by edge. The files are byte for byte
    // those of the pin: each reported edge lands at its exact time, in time order with the other
    // changes. RXD stays the pin.
    serial_line_if& lines_from_reports(sc_core::sc_signal_in_if<bool>& rxd);
    // The same group with both lines from reports: TXD from its sender's (the UART's report_line), RXD
    // from what drives the receive line (rx_injector::report_to, beside the UART's rx_line()), each
    // the pin's files byte for byte.
    struct reported_lines {
        serial_line_if& txd;
        serial_line_if& rxd;
    };
    reported_lines lines_from_reports();
    // A serial line from reports, as line() from a pin: in NAME.vcd under `name`, in NAME.lines.vcd as
    // `leaf`, `initial` until the first report.
    serial_line_if& reported_line(const std::string& name, const std::string& leaf, bool initial = true);
    // Names for bus addresses in the register filter ("UART0 FR"); an address at or above the timing
    // profile's io_base is shown as the I/O port it is.
    void name_registers(const std::map<std::uint64_t, std::string>& names);

    // A path for the full RTL trace (NAME.rtl.vcd, written by the model itself), renamed with the rest.
    std::string rtl_trace_path();

    // Closes the files and writes the save file and filters; throws std::runtime_error if a write
    // failed (vcd2fst's included).
    void finish();
    const std::string& vcd_path() const { return m_vcd; } // NAME.vcd or NAME.fst
    const std::string& gtkw_path() const { return m_gtkw; }
    const std::string& lines_path() const { return m_lines_path; }
    const std::string& rtl_path() const { return m_rtl_path; }

    // core_observer: CPU0's accesses on the bus; the polling spans, written at their start once their
    // count is known.
    void access(const cpu::core& c, std::uint64_t addr, bool write, const sc_core::sc_time& start,
                const sc_core::sc_time& end) override;
    void poll_begin(const cpu::core& c, const sc_core::sc_time& start) override;
    void poll_span(const cpu::core& c, std::uint64_t addr, const sc_core::sc_time& start,
                   const sc_core::sc_time& end, std::uint64_t reads) override;

private:
    void core_group(cpu::machine& m, cpu::core& c, const std::string& group);
    std::uint64_t task_value(unsigned cpu, int index);
    std::string m_vcd, m_gtkw, m_lines_path, m_rtl_path, m_tasks_path, m_regs_path;
    std::string m_vcd_tmp, m_lines_tmp, m_gtkw_tmp, m_rtl_tmp, m_tasks_tmp, m_regs_tmp;
    std::unique_ptr<vcd_writer> m_vcd_writer;
    std::unique_ptr<lines_vcd> m_lines;
    gtkw_save m_save;
    std::vector<std::unique_ptr<vcd_line_reader>> m_reported; // lines from reports
    bool m_done = false;
    double m_baud = 115200;
    bool m_fst = false;
    std::unique_ptr<vcd2fst_pipe> m_vcd2fst; // converting the VCD written into its pipe (--fst)
    cpu::machine* m_machine = nullptr;
    std::uint64_t m_io_base = 0x1'0000'0000ull;
    std::map<std::uint64_t, std::string> m_registers;
    // Task numbers in the waves: 0 idle, then in order of first appearance over all cores.
    std::map<std::pair<unsigned, int>, std::uint64_t> m_task_numbers;
    std::vector<std::string> m_task_names;
    struct poll_vars {
        std::size_t polling = 0, reads = 0;
        std::uint64_t hold = 0;
        bool held = false;
    };
    std::map<unsigned, poll_vars> m_poll;
    struct bus_vars {
        std::size_t addr = 0, read = 0, write = 0;
        std::uint64_t last_addr = 0;
    } m_bus;
};

// The group "UART0 (PL011)" of a PL011's observation: its FIFO levels (of `fifo_depth` entries), BUSY, the
// TX and RX flags, and its interrupt line `irq`.
void add_pl011_group(waves& w, pl011& uart, sc_core::sc_signal_in_if<bool>& irq, unsigned fifo_depth);

// The register names of a PL011 at bus address `base`, and of a 16550 at `base` (registers 1 << shift
// apart): UART0 FR, UART0 LSR, ... for the waves' register filter and the timeline's polling spans.
using register_names = std::map<std::uint64_t, std::string>;
register_names pl011_register_names(std::uint64_t base);
register_names uart16550_register_names(std::uint64_t base, unsigned shift);
// "UART0 FR", or "UART0 LSR (I/O port 0x3FD)" at or above io_base, or the address in hex.
std::string register_label(const register_names& names, std::uint64_t addr, std::uint64_t io_base);

// Checks that DIR/NAME.vcd can be written; a one-line reason if not.
std::string waves_path_problem(const std::string& vcd_path, bool fst = false);
// The files a run with --vcd DIR/NAME.vcd may write: NAME.vcd (NAME.fst with --fst), .gtkw,
// .tasks.txt, .regs.txt, .lines.vcd, .rtl.vcd.
std::vector<std::string> waves_outputs(const std::string& vcd_path, bool fst = false);
// --fst needs GTKWave's vcd2fst on the PATH: a one-line reason if it is missing.
std::string fst_problem();
// A warning (one line, empty if none) for a run whose waves would pass 1 GB, with the estimate.
std::string waves_size_warning(const run_request& rq);
// The run's waves (--vcd; nothing without it), the lines file's timescale set by `baud`.
std::unique_ptr<waves> make_waves(const run_request& rq, double baud);

} // namespace uartvp::program
