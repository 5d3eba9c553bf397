// SPDX-License-Identifier: Apache-2.0
#pragma once
// Run parameters: every knob a scenario's profile sets and `--set KEY=VALUE` may override. Each key is
// declared once, in the table of params.cpp (keys()): its name, unit, default, description, the
// scenarios (and profiles) that take it, its parser. `uartvp list`, --set, the unknown-key message and
// the JSON's `params` all come from that table.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <uartvp/serial_format.h>
#include <uartvp/sw/pl011.h>
#include <uartvp/sw/serial/serial_core.h>
#include <uartvp/sw/serial8250.h>

namespace uartvp::program {

// Bad usage or input: exit code 2, one line on stderr, nothing run.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A value as an error message quotes it: at most its first 80 characters, then "...".
std::string shown(std::string_view value);

// How the line monitor and the waves take a UART's lines: as the characters the UART reports, or from
// its pins, driven edge by edge (for comparison; reference mode always does).
enum class line_kind { characters, pins };

struct params {
    // The run whose keys these are: the key table's scopes name scenarios and profiles.
    std::string scenario, profile;

    // The keys' values. Their defaults are the key table's (the constructor applies them), never
    // written here.
    // CPU side
    std::uint64_t cpu_hz{};
    double mmio_read_ns{}, mmio_write_ns{}; // one read (write) of a UART register, as the core sees it
    unsigned relax_cycles{};                // cpu_relax()
    // device side
    std::uint64_t uartclk_hz{};
    // One UARTCLK cycle must last at least the program's time resolution (1 ps).
    static constexpr std::uint64_t max_uartclk_hz = 1'000'000'000'000;
    std::uint64_t baud{};
    serial_format frame;
    unsigned fifo_depth{};
    std::uint64_t uart_base{}; // a port number when port_io
    // 16550 only: register layout and a slow part's latencies (uart16550_config).
    unsigned reg_shift{}, reg_io_width{};
    double thre_delay_ns{}; // THRE rises this long after the last byte left THR/FIFO
    double tx_drain_ns{};   // each byte waits this long at the head of THR/FIFO
    // machine: cores of the kernel model (scenarios that use one core leave the others idle)
    unsigned cores{};
    // tty-paste: the UART's IRQ routed to irq_cpu, a task on hog_cpu (none: irq_cpu) holding IRQs off
    // for hog_us every hog_period_us (at the UART IRQ's rise with hog_sync rx_irq), the RX trigger level
    // ("": as Linux programs it), the kernel's HZ.
    unsigned irq_cpu{};
    double hog_us{}, hog_period_us{};
    std::optional<unsigned> hog_cpu;
    std::string hog_sync;
    std::string rx_trigger;
    unsigned hz{};
    unsigned hog_cpu_or_irq_cpu() const { return hog_cpu ? *hog_cpu : irq_cpu; }
    // boot-console: a kworker on CPU0 sends kick_all_cpus_sync at ipi_at_ms (negative: never); the BMC
    // behind the UART takes one character per bmc_char_ns (CTS flow control; 0: no flow control); the
    // CSD lock's debug timeout; an earlycon (a boot console before the real one); the console_loglevel
    // the command line gives (loglevel=N, quiet: 4; neither: 7).
    double ipi_at_ms{};
    double bmc_char_ns{};
    unsigned csd_lock_timeout_ms{};
    bool earlycon{};
    std::optional<int> loglevel;
    bool quiet{};
    int console_loglevel() const { return loglevel ? *loglevel : quiet ? 4 : 7; }
    // hvc-paste: the host's paste in bursts of burst_bytes at paste_kbps (KB/s of 1000 B); OPAL's input
    // buffer of bmc_buffer_bytes; khvcd on khvcd_cpu (below cores).
    std::uint64_t burst_bytes{};
    double paste_kbps{};
    std::uint64_t bmc_buffer_bytes{};
    unsigned khvcd_cpu{};
    // the aarch64 core (firmware): cycles per instruction, its quantum; when firmware's RX paste starts
    unsigned cpi{};
    std::uint64_t quantum_ns{};
    bool a64_fast_forward{};
    double paste_at_us{};
    // run
    bool reset_after_write{}; // assert the UART's reset right after the last write returns
    line_kind line_model{};
    bool line_as_characters() const { return !reference && line_model == line_kind::characters; }

    // What the profile fixes, not keys.
    // The UART model ("pl011", "16550", "mini", the BCM2835 AUX mini UART; "": none, hvc-paste): the
    // checks of --set follow it.
    std::string uart_model = "pl011";
    bool port_io = false;    // 16550: registers at I/O ports (inb/outb) from uart_base
    std::string hvc_backend; // hvc-paste: "opal" or "virtio"
    bool reference = false;  // reference mode: every poll a transaction, the RTL clocked every cycle

    // Every key at its default.
    params();

    // Applies KEY=VALUE for this scenario and profile; returns an error message naming the problem,
    // or nothing.
    std::optional<std::string> set(const std::string& key, const std::string& value);
    // The UART's cross-checks (the divisor the rate needs must exist); an error message, or nothing.
    std::optional<std::string> check() const;
    // Every key this run takes, with what follows from them (the divisor, the mode).
    nlohmann::json to_json() const;
};

// Where a key applies: a scenario and, where not all of them, some of its profiles (a run on another
// says `profile_refusal`, or the key's refusal).
struct key_scope {
    std::string scenario;
    std::vector<std::string> profiles; // empty: every profile
    std::string profile_refusal;
};

// How a key's value is taken: checked and stored (the problem, after "--set KEY=VALUE: ", or
// nothing), and shown in the JSON (the value in effect).
struct key_value {
    std::function<std::optional<std::string>(params&, const std::string& value)> parse;
    std::function<nlohmann::json(const params&)> json;
};

// One --set key.
struct key_def {
    std::string name;          // ends in its unit where it has one: cpu_hz, mmio_read_ns
    std::string unit;          // Hz, ns, us, ms, bytes, KB/s, cycles, baud; empty for counts and choices
    std::string default_value; // as --set takes it; empty: none (the description says what applies)
    std::string description;   // its line in `uartvp list`
    std::vector<key_scope> scope;
    std::string refusal; // what a run outside the scope says: "applies to ..."
    key_value value;

    bool takes(const std::string& scenario, const std::string& profile) const;
    // Where the scope names the scenario (nothing: not at all).
    const key_scope* scope_of(const std::string& scenario) const;
};

// The key table, in the order the unknown-key message names them.
const std::vector<key_def>& keys();
const key_def* find_key(const std::string& name);

// The divisors for a rate are the drivers' own arithmetic (sw/): pl011_set_termios's IBRD and FBRD,
// the 8250's uart_get_divisor, the mini UART's AUX_MU_BAUD.
using sw::bcm2835aux_baud_reg;
using sw::pl011_baud_divisor;
using sw::uart_get_divisor;

} // namespace uartvp::program
