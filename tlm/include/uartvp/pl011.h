// SPDX-License-Identifier: Apache-2.0
#pragma once
// uartvp::pl011: an ARM PrimeCell UART (PL011) r1p5 as a TLM-2.0 target, built around the verilated
// RTL of rtl/pl011.sv. No clock drives it: it advances its model itself, exact to the UARTCLK cycle at
// every bus access and at every change of its outputs, and sleeps while the UART is idle.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <uartvp/cycle_clock.h>
#include <uartvp/observed_signal.h>
#include <uartvp/serial_line.h>
#include <uartvp/uart_ports.h>

namespace uartvp {
struct pl011_config;
class vcd_writer;
namespace detail {
struct pl011_outputs;
struct word_access;

// pl011_config::uartclk_hz, the former name of clock_hz: it holds no value of its own, reads and
// assignments go to clock_hz (copying a config copies clock_hz alone).
class uartclk_alias {
public:
    uartclk_alias() = default;
    uartclk_alias(const uartclk_alias&) {}
    uartclk_alias& operator=(const uartclk_alias&) { return *this; }
    [[deprecated("use clock_hz")]] uartclk_alias& operator=(std::uint64_t hz);
    [[deprecated("use clock_hz")]] operator std::uint64_t() const;

private:
    pl011_config& owner() const;
};
} // namespace detail

struct pl011_config {
    std::uint64_t clock_hz = 24'000'000; // UARTCLK
    unsigned fifo_depth = 32;            // 32 (r1p5) or 16 (earlier revisions; PeriphID2 says which)
    // Clock the RTL through every UARTCLK cycle instead of skipping what cannot change anything.
    // Same results, much slower: the reference the fast path is held against.
    bool clock_every_cycle = false;
    // Loosely timed use (initiators with a tlm_quantumkeeper): b_transport never calls wait(). An
    // access is applied at the initiator's local time (SystemC time plus the annotated delay) and its
    // latency is added to the delay; the outputs still change at their own times. An input change is
    // seen by the first access after it in SystemC time (at most one quantum late); an access whose
    // local time is earlier than the model's is applied at the model's time (late_accesses()). Accesses
    // are applied in arrival order and reads get no read_promise.
    bool loosely_timed = false;
    // Measure the wall-clock time spent evaluating the RTL (benchmarks; costs a little).
    bool measure_eval_time = false;
    // Write a full trace of the RTL to this VCD (Verilator's writer): every evaluated edge at its
    // simulation time, across clock changes (timescale 1 ps, or the time resolution where finer). In
    // fast mode skipped cycles do not appear (values hold, counters jump); with clock_every_cycle
    // every cycle does. Closed by close_rtl_trace() or at destruction.
    std::string rtl_vcd;
    // Drive the txd port edge by edge (the default). Off: the line goes to report_line()'s readers as
    // characters, the model wakes where a character starts or ends rather than at every TXD edge, and
    // txd shows only the level between characters (idle high, a break low). Loopback is unaffected.
    bool txd_edges = true;
    // Deprecated: the former name of clock_hz (reads and assignments go to clock_hz).
    detail::uartclk_alias uartclk_hz;
};

inline pl011_config& detail::uartclk_alias::owner() const {
    // The alias is a member of a standard-layout pl011_config: its owner starts offsetof() before it.
    auto* self = reinterpret_cast<char*>(const_cast<uartclk_alias*>(this));
    return *reinterpret_cast<pl011_config*>(self - offsetof(pl011_config, uartclk_hz));
}
inline detail::uartclk_alias& detail::uartclk_alias::operator=(std::uint64_t hz) {
    owner().clock_hz = hz;
    return *this;
}
inline detail::uartclk_alias::operator std::uint64_t() const {
    return owner().clock_hz;
}

// The ports (<uartvp/uart_ports.h>) by the PrimeCell's names: irq is UARTINTR, txd UARTTXD, rxd UARTRXD,
// nreset nUARTRST, ncts nUARTCTS, ... nout2 nUARTOut2; clk_hz carries UARTCLK's frequency.
class pl011 : public sc_core::sc_module, public uart_ports<pl011> {
public:
    // Register map size: offsets 0x000..0xFFF (a method, as uart16550's is).
    static constexpr std::uint64_t map_size() { return 0x1000; }

    // DMA requests (UARTTXDMASREQ, ...) and the DMA controller's clears, active high; enabled by DMACR.
    optional_out txdmasreq, txdmabreq, rxdmasreq, rxdmabreq;
    optional_in txdmaclr, rxdmaclr; // held low when unbound

    // Observation, for waves and tests: FIFO fill levels and FR flags as they change, cycle exact.
    observed_signal<unsigned> tx_fifo_level, rx_fifo_level;
    observed_signal<bool> busy, txff, txfe, rxff, rxfe;

    explicit pl011(const sc_core::sc_module_name& name, const pl011_config& cfg = pl011_config());
    ~pl011() override;
    pl011(const pl011&) = delete;
    pl011& operator=(const pl011&) = delete;
    const char* kind() const override { return "uartvp::pl011"; }

    const pl011_config& config() const { return m_cfg; }
    // A new UARTCLK frequency (throws std::invalid_argument for 0 or a period below the time
    // resolution). The next clock edge keeps its time and the edges after it follow at the new period
    // (edges an access already took keep theirs): a character in flight finishes its remaining Baud16
    // ticks at the new rate. clock().hz() reads the frequency in force.
    void set_clock_hz(std::uint64_t hz);
    // Resets the UART as one UARTCLK edge with nRESET low would (at the next edge), from a process.
    void reset();
    const cycle_clock& clock() const { return m_clock; }
    // UARTCLK edges the model has reached, and RTL edges actually evaluated to get there.
    std::uint64_t cycle() const;
    std::uint64_t edges_evaluated() const;
    double rtl_eval_seconds() const; // with pl011_config::measure_eval_time
    // Host figures for benchmarks: activations of the model's own processes, those of them that changed
    // no output, and calls of the RTL model's eval().
    std::uint64_t wakes() const;
    std::uint64_t idle_wakes() const;
    std::uint64_t rtl_evals() const;
    // Accesses whose (local) time was earlier than the UARTCLK edge the model had reached: applied on
    // the edge after it. Loosely timed initiators running ahead of each other cause them; a lone
    // synchronising initiator that waits out each delay never does (several accesses with side
    // effects within one UARTCLK period do, in both modes).
    std::uint64_t late_accesses() const;
    void close_rtl_trace();

    // Reports the TX line to `reader` as characters, each as it starts (<uartvp/serial_line.h>), with
    // txd_edges on or off. Call before the simulation starts; `reader` must outlive the simulation.
    void report_line(serial_line_if& reader);

    // The receive line as characters: a sender (rx_injector::report_to, or another UART's
    // report_line) reports to it each character as it starts, or before (serial_line_if's contract:
    // in time order, each report at or before the time it describes), and the line's level between
    // characters (a break). The PL011 queues the character's RXD changes at once and applies each as
    // the pin would have at its time, cycle for cycle (the synchroniser, the access that lands on an
    // edge after the change); its process wakes only where a register or an output changes (the RX
    // FIFO push at the stop bit's decision, an interrupt, a timeout), not per edge or sample point.
    // - The receiver sees the AND of the rxd pin and this line (both idle high, either pulls RXD
    //   low, as on a wired-AND line): with the pin left high the line alone decides; changes of the
    //   pin still cost a wake each. Loopback (LBE) reads TXD, as with the pin.
    // - A report whose time lies inside a character reported before cuts that character there: its
    //   changes from then on are dropped (a sender reset mid-frame). A low stop bit (a framing error)
    //   and a character followed by a low level (a break) are sent as they are.
    // - Read promises end at the next change the line was told of; a report that comes ahead of its
    //   time breaks the promises given before it at the report, not at its start (values and times
    //   stay exact; a polling initiator may issue one more transaction). A report at its own time,
    //   as rx_injector makes them, breaks them exactly where the pin would.
    // - With clock_every_cycle the model wakes at each change (the reference); loosely timed, a change
    //   is seen by the first access after it in SystemC time, as the pin's.
    serial_line_if& rx_line();

    // Adds the observation signals and lines to a VCD/WIF trace file, prefixed with this module's name
    // (sc_trace(tf, uart, name): with another prefix), or to a vcd_writer (<uartvp/vcd_writer.h>). Call
    // before the simulation starts; unbound optional ports are left out.
    void trace(sc_core::sc_trace_file* tf) const override; // sc_object::trace
    void trace(vcd_writer& w) const;

private:
    struct impl;
    void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
    bool serves_ahead(const sc_core::sc_time& local) const;
    void serve(tlm::tlm_generic_payload& tx, const detail::word_access& a, sc_core::sc_time& delay,
               unsigned initiator, const sc_core::sc_time& at);
    void run_ahead(std::uint64_t target);
    void note_ahead(std::uint64_t at);
    unsigned transport_dbg(tlm::tlm_generic_payload& tx);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& tx, tlm::tlm_dmi& dmi);
    void run();
    void sample_inputs(const sc_core::sc_time& now); // now: sc_time_stamp()
    void rxd_changed();
    void inputs_changed();
    void note_rxd();
    void release_rx(const sc_core::sc_time& now);
    void rx_reported(const sc_core::sc_time& from);
    std::uint64_t next_wake() const;
    bool drive_outputs(const detail::pl011_outputs& o); // false: every output already showed that
    void start_of_simulation() override;
    void clk_hz_changed();

    pl011_config m_cfg;
    cycle_clock m_clock;
    std::unique_ptr<impl> m_impl;
    sc_core::sc_event m_wake;
};

// sc_trace(tf, uart, "soc.uart0"): the observation signals and lines under that name.
void sc_trace(sc_core::sc_trace_file* tf, const pl011& uart, const std::string& name);

} // namespace uartvp
