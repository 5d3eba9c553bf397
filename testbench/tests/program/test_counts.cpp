// SPDX-License-Identifier: Apache-2.0
// The simulation's work, held by counts rather than by wall time: deterministic host figures of fixed
// runs (JSON `host`, `transactions`, `rtl_edges_evaluated`) must stay at or below what the fast path
// reaches today. A change that makes the PL011 wake, or evaluate its RTL, more often than that fails
// here, whatever the machine's speed; one that does better lowers the ceilings below.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "program_runner.h"

using namespace uartvp::test;

namespace {

struct ceiling {
    const char* what; // a key of the JSON's `host`, or a top-level key
    std::uint64_t most;
};

void hold(const nlohmann::json& j, std::uint64_t chars, std::initializer_list<ceiling> ceilings) {
    ASSERT_TRUE(j.contains("host")) << j.dump();
    for (const ceiling& c : ceilings) {
        const nlohmann::json& v = j["host"].contains(c.what) ? j["host"][c.what] : j[c.what];
        ASSERT_TRUE(v.is_number_unsigned()) << c.what;
        const auto got = v.get<std::uint64_t>();
        EXPECT_LE(got, c.most) << c.what << ": " << got << " (" << double(got) / chars
                               << " per character), at most " << c.most << " (" << double(c.most) / chars
                               << ")";
    }
}

// RTL eval() calls: an edge whose inputs did not change runs without the input logic and is no eval()
// call, where that is built (Verilator 5.006); elsewhere each such edge is one more.
#if UARTVP_EDGES_WITHOUT_INPUT_LOGIC
constexpr std::uint64_t boot_99k_evals = 301498, paste_20k_evals = 233373;
#else
constexpr std::uint64_t boot_99k_evals = 402000, paste_20k_evals = 255676;
#endif

} // namespace

// The benchmark's boot: 99 KB through the earlycon v0 loop on `hw` (100,497 characters), the line
// as characters (the UART reports each as it starts; no wake per TXD edge, skips pass them). Per
// character: 3.0 activations of the PL011's process (where a character starts, where it ends, and the
// DR write's edge), 3.0 RTL eval() calls (the DR write's settle, the edges where the character starts
// and ends; the access edge runs without the input logic its settle evaluated: 4.0 before), 6.01
// time steps (docs/speed.md names each: the PL011 where a character ends, the core's read there, the
// PL011 at the DR write's edge, the core's first BUSY read, the PL011 and the line monitor where the
// next character starts, the monitor at its stop bit; 7.01 while the core waited for the DR write's
// time, 8.01 while the monitor woke at each start bit's middle), 7.03 delta cycles (one per record more
// since printk's legacy loop holds IRQs off for each: the core's irqs_off signal changes; 10.03 while
// the platform's FIFO and BUSY tracking was a process of its own), 3.01 transactions: the DR write, the
// BUSY loop's first read (BUSY, named, is promised until the character ends) and its read there; the
// TXFF loop's read is answered from that read's promise. Without named bits the loop took 6.95 (three
// reads before the character reached the shifter, a read before the promise's end).
TEST(Counts, EarlyconV0Hw99KBootStaysWithinItsCounts) {
    const nlohmann::json j = run_json("earlycon-pl011", "--variant v0 --profile hw --payload-bytes 99000");
    ASSERT_EQ(j["bytes_written"], 100497);
    hold(j, 100497,
         {{"uart_wakes", 301496},
          {"uart_idle_wakes", 5},
          {"rtl_evals", boot_99k_evals},
          {"rtl_edges_evaluated", 301496},
          {"time_steps", 604221},
          {"delta_cycles", 706488},
          {"transactions", 302993}});
}

// The same boot with the kernel's literal loops (v0-literal, 70.7 M FR reads): 4.01 transactions per
// character (v0's 3.01: it names BUSY; here the TXFF read is answered from the BUSY loop's last
// promise), 8.0 time steps
// and 9.0 delta cycles (the core synchronises where the PL011 wakes in a loop; with the line as
// characters that is three times per character), the PL011's wakes and evaluations as v0's. A read per
// transaction, as before, would be 704.
TEST(Counts, EarlyconV0LiteralHw99KBootAnswersItsLoopsFromPromises) {
    const nlohmann::json j =
        run_json("earlycon-pl011", "--variant v0-literal --profile hw --payload-bytes 99000");
    ASSERT_EQ(j["bytes_written"], 100497);
    hold(j, 100497,
         {{"uart_wakes", 301496},
          {"uart_idle_wakes", 5},
          {"rtl_evals", boot_99k_evals},
          {"time_steps", 804945},
          {"delta_cycles", 907483},
          {"transactions", 403490}});
}

// The receive side: a 20 KB paste into the PL011, interrupt driven, the paste reported to the PL011's
// receive line as characters (rx_line). Per received character 2.06 activations of the PL011's
// process (the stop bit's decision, the RX FIFO push, and the reader's DR reads at their edges), 0.06
// of them changing nothing; 11.7 RTL eval() calls (about one per RXD change loaded, its edge also
// taking the Baud16 enables before it, the decisions, the accesses, whose edges run without the input
// logic their settle evaluated: 12.8 before; 18.3 when a jump to the last enable and the countdown to
// the load were two); 5.41 time steps, 5.54 delta cycles (7.48 while the platform's FIFO tracking was a
// process), 2.25 transactions. No
// wake per RXD edge (on the pin: 7.84 wakes, 5.84 of them idle, 10.2 time steps), synchroniser edge or sample
// point, nor where a start bit falls (its stop bit's decision is planned from the character as reported).
TEST(Counts, TtyPasteReadHw20KReceivesWithinItsCounts) {
    const nlohmann::json j = run_json("tty-paste", "--variant read --profile hw --payload-bytes 20000");
    ASSERT_EQ(j["rx_bytes_pasted"], 20000);
    hold(j, 20000,
         {{"uart_wakes", 41262},
          {"uart_idle_wakes", 1261},
          {"rtl_evals", paste_20k_evals},
          {"time_steps", 108283},
          {"delta_cycles", 110790},
          {"transactions", 45018}});
}

// The 16550: 20 KB through the console's FIFO path on `pc` (20,310 characters), the line as characters
// (the UART reports each as it starts; no wake per TXD edge). Per character 3.22 time steps, 5.25 delta
// cycles (6.26 while the platform's FIFO and TEMT tracking was a process; 4.22 and 7.26 time steps and
// delta cycles while the line monitor woke at each start bit's middle), 1.22 transactions (a loop's
// first read answered from the last read's standing promise, a polling span's reads counted up to the
// promise's end): the model's process wakes at its own events (where a character starts and ends, THRE) and
// for accesses that change its state, not for reads without side effects nor for the TXD edges inside a
// character.
TEST(Counts, Console8250FifoPc20KStaysWithinItsCounts) {
    const nlohmann::json j = run_json("console-8250", "--variant fifo --profile pc --payload-bytes 20000");
    ASSERT_EQ(j["bytes_written"], 20310);
    hold(j, 20310, {{"time_steps", 65327}, {"delta_cycles", 106578}, {"transactions", 24704}});
}
