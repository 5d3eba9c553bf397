// SPDX-License-Identifier: Apache-2.0
#pragma once
// uartvp::uart16550: a National/TI PC16550D UART as a TLM-2.0 target. A model, not RTL: it computes
// when things happen (the next TXD edge, THRE, the end of a frame, the stop-bit sample of a received
// frame, the character timeout) and wakes only then; no clock drives it and it sleeps while idle.
// Times derive from the XIN clock's cycle count (cycle_clock), so long runs do not drift.
//
// Choices where the datasheet leaves room (tested in testbench/tests/test_uart16550.cpp):
// - THR -> TSR transfer: immediate when the transmitter is idle (THRE rises again at once in 16450
//   mode; the first byte of a burst into a 1-byte THR survives, as seed 002's garbled line shows).
// - Start bit of a character written to an idle transmitter: 16 BAUDOUT cycles (one bit) after the
//   write's next XIN edge (datasheet: 8 to 24). Back-to-back characters follow without a gap.
// - THRE indication delay. The PC16550D gives it under "FIFO Interrupt Mode Operation", for "When the
//   XMIT FIFO and transmitter interrupts are enabled (FCR0=1, IER1=1)": "The transmitter FIFO empty
//   indications will be delayed 1 character time minus the last stop bit time whenever the following
//   occurs: THRE=1 and there have not been at least two bytes at the same time in the transmit FIFO,
//   since the last THRE=1. The first transmitter interrupt after changing FCR0 will be immediate, if it
//   is enabled." Under "FIFO Polled Mode Operation" ("With FCR0=1 resetting IER0, IER1, IER2, IER3 or
//   all to zero puts the UART in the FIFO Polled Mode"; receiver and transmitter "are controlled
//   separately") LSR5 only "will indicate when the XMIT FIFO is empty", with no delay. So the delay
//   applies only while IER.ETBEI (IER1) is set: THRE then rises one character time minus one stop bit
//   after the byte left the FIFO (from that XIN edge), and the first rise after a change of FCR0 is not
//   delayed; with ETBEI clear (the 8250 console clears IER for its whole write) THRE rises as the byte
//   leaves. An IER write while a rise is pending re-decides it: clearing ETBEI raises THRE at once (if
//   the slow part's latency has passed), setting it delays the rise to the datasheet's time. tSI/tSTI
//   are not modelled apart: IIR follows THRE.
// - The frame format and divisor are taken when a character starts (TX) or its start edge is seen (RX).
// - RX: the start edge is taken at the first XIN edge at or after the falling edge; bit k is sampled
//   8 + 16k BAUDOUT cycles later and a sample sees the line strictly before its time. The character is
//   loaded at the sample of its first stop bit; a framing error resynchronises on the low stop bit
//   (sampled as the next start bit); after a break the receiver waits for mark.
// - Character timeout: 4 character times of the current LCR/divisor, counted from the last stop-bit
//   sample or RBR read; the IIR shows RDA (0x04) before the timeout (0x0C) when both hold.
// - LSR7 is set when a character with PE/FE/BI enters the FIFO; an LSR read leaves it set only if a
//   character with an error is still queued behind the top one. Break sets BI and FE.
// - Divisor and SCR are not reset (power-on 0); a divisor of 0 counts as 65536.
// - DLL/DLM, SCR, IER, LCR, MCR read back; FCR is write only (offset 2 reads IIR); writes to LSR and MSR
//   are ignored (factory test).
// - INTR is the chip's pin; on PC boards OUT2 gates it: uart16550_config::out2_gates_irq.
// The BCM2835 AUX mini UART (uart16550_part::bcm2835_mini; BCM2835 ARM Peripherals, section 2.2), as
// Linux's 8250 driver sees it (UART_CAP_MINI, the eight 16550-compatible AUX_MU_* registers at a 4-byte
// stride): baud = clock / (8 x (AUX_MU_BAUD + 1)), the 16-bit AUX_MU_BAUD under DLAB; 8-entry TX and RX
// FIFOs, always enabled (IIR bits 7:6 read 11); LSR5 set while the TX FIFO can accept a byte, LSR6 while
// it is empty and the transmitter idle, LSR1 receiver overrun, no PE/FE/BI; 7 or 8 data bits (LCR bits
// 1:0 = 11 for 8), no parity, 1 stop bit; IER bit 0 interrupts while the RX FIFO holds a byte, bit 1
// while the TX FIFO is empty, levels that no register read clears (IIR 0xC4 before 0xC2); writing IIR bit
// 1/2 clears the RX/TX FIFO; MCR holds RTS only (no loopback, no OUT2), MSR bit 4 is CTS, no deltas, no
// character timeout. Choices: the start bit follows one bit time after the write's clock edge; a received
// frame with a low stop bit is kept and the receiver waits for mark. Not modelled: AUX_MU_CNTL/STAT/BAUD
// (the 8250 driver does not use them: receiver and transmitter always enabled, no auto flow control).
// Slow parts (seed 002's BMC-emulated UART): tx_drain_time keeps each byte at the head of THR/FIFO that
// long before it may leave (bytes leave no faster than one per drain time), thre_delay raises THRE that
// long after the last byte left (or later, if the datasheet's own delay applies and is longer).
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
class vcd_writer;

// Which part: the PC16550D, or the BCM2835 AUX mini UART (Raspberry Pi; see above).
enum class uart16550_part { pc16550d, bcm2835_mini };

struct uart16550_config {
    std::uint64_t clock_hz = 1'843'200; // XIN (the mini UART: the system clock, 250 MHz on a Pi 3B+)
    unsigned reg_shift = 0;             // register i at offset i << reg_shift: 0 for I/O ports, 2 for MMIO
    unsigned reg_io_width = 1;          // accesses of 1 byte or of this width (<= 1 << reg_shift) are served
    bool out2_gates_irq = false;        // PC boards: irq = INTR only while the OUT2 pin is active
    // Loosely timed use (initiators with a tlm_quantumkeeper): b_transport never calls wait(). An
    // access is applied at the initiator's local time (SystemC time plus the annotated delay), which it
    // leaves as it is (the model adds no latency); the outputs still change at their own times. An
    // input change is seen by the first access after it in SystemC time (at most one quantum late); an
    // access whose local time is earlier than the model's is applied at the model's time, the delay
    // grown to match (late_accesses()). Accesses are applied in arrival order; reads get no read_promise.
    bool loosely_timed = false;
    // A slow part's extra latencies (0 for a real 16550).
    sc_core::sc_time tx_drain_time = sc_core::SC_ZERO_TIME;
    sc_core::sc_time thre_delay = sc_core::SC_ZERO_TIME;
    uart16550_part part = uart16550_part::pc16550d;
    // Drive the txd port edge by edge (the default). Off: the line goes to report_line()'s readers as
    // characters, the model wakes where a character starts or ends rather than at every TXD edge, and
    // txd shows only the level between characters (mark, space while LCR.BREAK; mark in loopback).
    // Loopback into the receiver is unaffected.
    bool txd_edges = true;
};

// The ports (<uartvp/uart_ports.h>) by the chip's pins: irq is INTR, txd SOUT, rxd SIN, rst MR (active
// high on the chip; nreset beside it, as on the PL011), ncts nCTS, ... nout2 nOUT2; clk_hz carries
// XIN's frequency.
class uart16550 : public sc_core::sc_module, public uart_ports<uart16550> {
public:
    // Observation, for waves and tests, changing at the exact times.
    observed_signal<unsigned> tx_fifo_level, rx_fifo_level; // THR/RBR count as one entry in 16450 mode
    observed_signal<bool> thre, temt, dr, fifo_enabled;

    explicit uart16550(const sc_core::sc_module_name& name, const uart16550_config& cfg = uart16550_config());
    ~uart16550() override;
    uart16550(const uart16550&) = delete;
    uart16550& operator=(const uart16550&) = delete;
    const char* kind() const override { return "uartvp::uart16550"; }

    const uart16550_config& config() const { return m_cfg; }
    // A new XIN frequency (throws std::invalid_argument for 0 or a period below the time resolution).
    // The next XIN edge keeps its time and the edges after it follow at the new period: a character in
    // flight finishes its remaining bits at the new rate (times already decided in nanoseconds, the
    // THRE delay and a slow part's latencies, are kept). clock().hz() reads the frequency in force.
    void set_clock_hz(std::uint64_t hz);
    // Resets the UART as a pulse on MR would, at the present time, from a process.
    void reset();
    const cycle_clock& clock() const { return m_clock; }
    std::uint64_t map_size() const { return std::uint64_t{8} << m_cfg.reg_shift; }

    // Bytes written to THR and never sent: overwritten in 16450 mode, or written into a full FIFO.
    std::uint64_t tx_lost() const;
    // Received characters lost to overrun.
    std::uint64_t rx_overruns() const;
    // Accesses whose (local) time was earlier than the time the model had reached (loosely timed
    // initiators running ahead of each other): applied at the model's time.
    std::uint64_t late_accesses() const;

    // Reports the TX line to `reader` as characters, each as it starts (<uartvp/serial_line.h>), with
    // txd_edges on or off. What cuts a character is reported where it acts: LCR.BREAK (space at once),
    // loopback (mark), a reset (mark) by line_level(); BREAK or loopback released inside a character by
    // the levels of its remaining bits; a new XIN rate by the rest of the character anew. A divisor or
    // LCR change inside a character does not touch it (the format is taken as it starts). Call before
    // the simulation starts; `reader` must outlive the simulation.
    void report_line(serial_line_if& reader);

    // Adds the lines, IRQ and observation signals to a trace file, prefixed with this module's name
    // (sc_trace(tf, uart, name): with another prefix), or to a vcd_writer (<uartvp/vcd_writer.h>). Call
    // before the simulation starts.
    void trace(sc_core::sc_trace_file* tf) const override; // sc_object::trace
    void trace(vcd_writer& w) const;

private:
    struct impl;
    void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
    void serve(tlm::tlm_generic_payload& tx, unsigned idx, bool lane0, unsigned initiator,
               const sc_core::sc_time& local, sc_core::sc_time& delay);
    void run_ahead(const sc_core::sc_time& t);
    void note_ahead();
    unsigned transport_dbg(tlm::tlm_generic_payload& tx);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& tx, tlm::tlm_dmi& dmi);
    void run();
    void sample_inputs();
    void drive_outputs();
    void start_of_simulation() override;
    void clk_hz_changed();

    uart16550_config m_cfg;
    cycle_clock m_clock;
    std::unique_ptr<impl> m_impl;
    sc_core::sc_event m_wake;
};

// sc_trace(tf, uart, "soc.com1"): the lines, IRQ and observation signals under that name.
void sc_trace(sc_core::sc_trace_file* tf, const uart16550& uart, const std::string& name);

} // namespace uartvp
