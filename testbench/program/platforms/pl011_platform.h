// SPDX-License-Identifier: Apache-2.0
#pragma once
// An SoC with one core and one PL011: core -> router -> PL011 -> TXD -> line monitor -> scoreboard.
#include <optional>

#include <uartvp/bus_monitor.h>
#include <uartvp/cpu/core.h>
#include <uartvp/cpu/machine.h>
#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/router.h>
#include <uartvp/scoreboard.h>

#include "cli/params.h"

namespace uartvp::program {

class pl011_platform : public sc_core::sc_module {
public:
    sc_core::sc_signal<bool> txd{"txd", true}, irq{"irq", false}, rxd{"rxd", true};
    // Asserted by a task (a reboot) and released by the platform.
    sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS> nreset{"nreset", true};
    cpu::machine kernel; // `cores` cores; the console prints from cpu0
    cpu::core& cpu0;
    router bus;
    pl011 uart;
    line_monitor monitor;
    scoreboard sb;

    // `rtl_vcd`: where the UART writes a full RTL trace, if anywhere. With the line as characters
    // (params::line_as_characters) the UART reports its characters and the monitor decodes them, and the
    // waves write TXD from them (else from the TXD pin); `pins`: TXD is still driven edge by edge (for
    // the RTL trace, which records the model's own TXD), else only between characters.
    // `tap`, if given, sits between the cores and the bus (run --bus-log).
    pl011_platform(const sc_core::sc_module_name& name, const params& p, const std::string& rtl_vcd = "",
                   bool pins = false, bus_monitor* tap = nullptr);
    // Whether the monitor takes the UART's characters rather than the TXD pin.
    bool line_as_characters() const { return m_chars; }

    // Asserts the UART's reset now (a reboot); a frame on the line at that moment is cut off and lost.
    void reset_uart();
    // Runs until the tasks have finished and the line is idle.
    void run();
    // Puts the CPU, bus, UART and line signals into a run's waves.
    void add_waves(class waves& w);
    // Puts the cores, the FIFO levels and the scoreboard's differences into a run's timeline.
    void add_timeline(class timeline& t);

    unsigned tx_fifo_max() const { return m_tx_fifo_max; }
    sc_core::sc_time line_idle_at() const { return m_line_idle; }

private:
    void supervise();
    params m_p;
    bool m_chars, m_pins;
    unsigned m_tx_fifo_max = 0;
    sc_core::sc_time m_line_idle;
    std::optional<sc_core::sc_time> m_reset_at;
};

cpu::timing_profile make_timing(const params& p);
// The PL011 the params describe (UARTCLK, FIFO depth, every cycle clocked in reference mode, the RTL's
// evaluation timed for the benchmark under UARTVP_MEASURE_RTL=1): TXD driven edge by edge or not, the
// full RTL trace to `rtl_vcd` if given.
pl011_config pl011_config_of(const params& p, bool txd_edges, const std::string& rtl_vcd = "");

} // namespace uartvp::program
