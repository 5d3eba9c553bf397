#pragma once
// Run parameters: every knob a scenario's profile sets and `--set KEY=VALUE` may override, with its
// parser and its check, declared once.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <uartvp/serial_format.h>

namespace uartvp::program {

// Bad usage or input: exit code 2, one line on stderr, nothing run.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A value as an error message quotes it: at most its first 80 characters, then "...".
std::string shown(std::string_view value);

struct params {
    // CPU side
    std::uint64_t cpu_hz = 1'000'000'000;
    double mmio_read_ns = 120; // one read of a UART register, as the core sees it
    double mmio_write_ns = 60; // one write
    unsigned relax_cycles = 4; // cpu_relax()
    // device side
    std::uint64_t uartclk_hz = 24'000'000;
    // One UARTCLK cycle must last at least the program's time resolution (1 ps).
    static constexpr std::uint64_t max_uartclk_hz = 1'000'000'000'000;
    std::uint64_t baud = 115200;
    serial_format frame;
    unsigned fifo_depth = 32;
    std::uint64_t uart_base = 0x09000000; // a port number when port_io
    // The UART model a scenario's profiles choose ("pl011", "16550" or "mini", the BCM2835 AUX mini
    // UART): the checks of --set follow it.
    std::string uart_model = "pl011";
    // 16550 only: register layout and a slow part's latencies (uart16550_config).
    bool port_io = false; // registers at I/O ports (inb/outb) from uart_base
    unsigned reg_shift = 0, reg_io_width = 1;
    double thre_delay_ns = 0; // THRE rises this long after the last byte left THR/FIFO
    double tx_drain_ns = 0;   // each byte waits this long at the head of THR/FIFO
    // machine: cores of the kernel model (scenarios that use one core leave the others idle)
    unsigned cores = 1;
    // tty-paste (its profiles set `tty`): the UART's IRQ routed to irq_cpu, a task on hog_cpu (default
    // irq_cpu) holding IRQs off for hog_us every hog_period_us (at the UART IRQ's rise with hog_sync
    // rx_irq), the RX trigger level ("": as Linux programs it), the kernel's HZ.
    bool tty = false;
    unsigned irq_cpu = 0;
    double hog_us = 0, hog_period_us = 10000;
    std::optional<unsigned> hog_cpu;
    std::string hog_sync = "none";
    std::string rx_trigger;
    unsigned hz = 250;
    unsigned hog_cpu_or_irq_cpu() const { return hog_cpu ? *hog_cpu : irq_cpu; }
    // boot-console (its profiles set `boot`): a kworker on CPU0 sends kick_all_cpus_sync at ipi_at_ms
    // (negative: never); the BMC behind the UART takes one character per bmc_char_ns (CTS flow
    // control; 0: no flow control); the CSD lock's debug timeout; an earlycon (a boot console before the
    // real one); the console_loglevel the command line gives (loglevel=N, quiet: 4; neither: 7).
    bool boot = false;
    double ipi_at_ms = 413.5;
    double bmc_char_ns = 177800;
    unsigned csd_lock_timeout_ms = 5000;
    bool earlycon = false;
    std::optional<int> loglevel;
    bool quiet = false;
    int console_loglevel() const { return loglevel ? *loglevel : quiet ? 4 : 7; }
    // hvc-paste (its profiles set `hvc` and the backend, "opal" or "virtio"): the host's paste in bursts
    // of burst_bytes at paste_kbps (KB/s of 1000 B); OPAL's input buffer of bmc_buffer_bytes. Its other
    // keys are cores and hz; no UART key applies. khvcd runs on khvcd_cpu.
    bool hvc = false;
    std::string hvc_backend;
    std::uint64_t burst_bytes = 4096;
    double paste_kbps = 1000;
    std::uint64_t bmc_buffer_bytes = 65536;
    unsigned khvcd_cpu = 0; // the core khvcd runs on (below cores)
    // run
    bool reference = false;         // reference mode: every poll a transaction, the RTL clocked every cycle
    bool reset_after_write = false; // assert the UART's reset right after the last write returns

    // Applies KEY=VALUE; returns an error message naming the problem, or nothing.
    std::optional<std::string> set(const std::string& key, const std::string& value);
    // Cross-checks (the divisor the rate needs must exist); an error message, or nothing.
    std::optional<std::string> check() const;
    std::optional<std::optional<std::string>> set_tty_key(const std::string& key, const std::string& value);
    std::optional<std::string> check_tty() const;
    std::optional<std::optional<std::string>> set_boot_key(const std::string& key, const std::string& value);
    std::optional<std::optional<std::string>> set_hvc_key(const std::string& key, const std::string& value);
    nlohmann::json to_json() const;
    static const std::map<std::string, std::string>& keys(); // key -> description
};

// IBRD and FBRD for the rate: UARTCLK / (16 * baud) = IBRD + FBRD/64, FBRD rounded.
void pl011_divisor(std::uint64_t uartclk, std::uint64_t baud, std::uint32_t& ibrd, std::uint32_t& fbrd);
// The 16550's divisor for the rate, rounded: clock / (16 * baud).
std::uint64_t uart16550_divisor(std::uint64_t clock, std::uint64_t baud);
// The mini UART's AUX_MU_BAUD for the rate, rounded: clock / (8 * baud) - 1 (negative: none).
std::int64_t mini_uart_baud_reg(std::uint64_t clock, std::uint64_t baud);

} // namespace uartvp::program
