// SPDX-License-Identifier: Apache-2.0
// The aarch64 core (<uartvp/cpu/a64.h>, the add-on libuartvp-a64.so) against its contract: time per
// instruction and per access, PSCI, wfi, the IRQ entry and eret, the generic timer, faults, and the poll
// loop's fast-forward against reference mode (each mode simulated in a child process of its own).
// Programs are hand-assembled A64 words, each with its source beside it. Skips where the add-on is not
// built (no Unicorn).
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <vector>

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <uartvp/cpu/a64.h>
#include <uartvp/cpu/elf.h>
#include <uartvp/read_promise.h>
#include <uartvp/router.h>

#include "sim_main.h"

namespace {

using namespace sc_core;
using namespace uartvp;

constexpr std::uint64_t ram = 0x4000'0000, dev = 0x0900'0000;

// A device at 0x09000000: +0 DATA (write: logged), +4 STATUS (read: bit 0 set until busy_until,
// promised until then), +8 ACK (read: lowers the IRQ line, returns how many so far), +12 LOG (write:
// logged). Anything past 0x100 answers an address error.
struct probe_device : sc_module {
    tlm_utils::simple_target_socket<probe_device, 32> socket{"socket"};
    sc_signal<bool, SC_MANY_WRITERS> irq{"irq", false};
    sc_time busy_until;
    struct entry {
        sc_time at;
        std::uint32_t value;
    };
    std::vector<entry> data, log;
    std::uint32_t acks = 0;
    detail::promise_breaker breaker;

    explicit probe_device(const sc_module_name& n)
        : sc_module(n) {
        socket.register_b_transport(this, &probe_device::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
        if (delay > SC_ZERO_TIME) {
            wait(delay);
            delay = SC_ZERO_TIME;
        }
        std::uint32_t v = 0;
        const auto addr = tx.get_address();
        if (addr >= 0x100) {
            tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        if (tx.is_write()) {
            std::memcpy(&v, tx.get_data_ptr(), std::min(4u, tx.get_data_length()));
            (addr == 0 ? data : log).push_back({sc_time_stamp(), v});
        } else if (addr == 4) {
            const bool busy = sc_time_stamp() < busy_until;
            v = busy ? 1 : 0;
            if (auto* p = tx.get_extension<read_promise>()) {
                breaker.promise(*p);
                p->until = busy ? busy_until : sc_max_time();
            }
        } else if (addr == 8) {
            v = ++acks;
            irq.write(false);
        }
        if (tx.is_read()) std::memcpy(tx.get_data_ptr(), &v, tx.get_data_length());
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

struct rig : sc_module {
    router bus{"bus"};
    probe_device device{"device"};
    std::unique_ptr<cpu::a64_core> core;
    sc_signal<bool> vtimer{"vtimer"};

    rig(const sc_module_name& n, const std::vector<cpu::elf_image::segment>& program, bool fast)
        : sc_module(n) {
        cpu::a64_config c;
        c.fast_forward = fast;
        core = cpu::make_a64_core("a64", c);
        core->bus.bind(bus.target);
        core->irq(device.irq);
        core->vtimer_irq(vtimer);
        bus.map(device.socket, dev, 0x1000, "device");
        cpu::elf_image img;
        img.entry = ram;
        img.segments = program;
        core->load(img);
    }
};

cpu::elf_image::segment words(std::uint64_t addr, const std::vector<std::uint32_t>& w) {
    cpu::elf_image::segment s;
    s.addr = addr;
    s.data.resize(w.size() * 4);
    std::memcpy(s.data.data(), w.data(), s.data.size());
    s.mem_size = s.data.size();
    return s;
}

// What a child's run reports to the test.
struct outcome {
    cpu::a64_stop stop;
    std::uint64_t instructions, reads, writes, transactions, fast_forwards, interrupts;
    double end_ns, busy_ns, hardirq_ns, irq_off_ns;
    std::uint64_t counter; // a RAM word the program keeps (0 when none)
    unsigned n_data;
    std::uint32_t data[8];
    double data_ns[8];
};

// Runs `program` in a child process (SystemC simulates once per process) until the core stops.
// What `simulate` returns (plain data), computed in a child process: SystemC simulates once per process.
template <class result_t> result_t in_child(const std::function<result_t()>& simulate) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        const result_t r = simulate();
        (void)!write(fds[1], &r, sizeof r);
        _exit(0);
    }
    close(fds[1]);
    result_t r{};
    const auto got = read(fds[0], &r, sizeof r);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_EQ(got, static_cast<ssize_t>(sizeof r))
        << "the child's simulation failed (status " << status << ")";
    return r;
}

// Runs `program` in a child process until the core stops.
outcome run_child(const std::vector<cpu::elf_image::segment>& program, bool fast,
                  const std::function<void(rig&)>& setup = {}, std::uint64_t counter_at = 0) {
    return in_child<outcome>([&] {
        outcome o{};
        rig r("rig", program, fast);
        if (setup) setup(r);
        sc_start(sc_time(1, SC_SEC));
        r.core->finish();
        const cpu::a64_stats& s = r.core->stats();
        o.stop = r.core->stop_reason();
        o.instructions = s.instructions;
        o.reads = s.mmio_reads;
        o.writes = s.mmio_writes;
        o.transactions = s.transactions;
        o.fast_forwards = s.fast_forwards;
        o.interrupts = s.interrupts;
        o.end_ns = r.core->local_time().to_seconds() * 1e9;
        o.busy_ns = s.busy.to_seconds() * 1e9;
        o.hardirq_ns = s.hardirq.to_seconds() * 1e9;
        o.irq_off_ns = s.irq_off_total.to_seconds() * 1e9;
        if (counter_at) r.core->read_memory(counter_at, &o.counter, 8);
        o.n_data = static_cast<unsigned>(std::min<std::size_t>(8, r.device.data.size()));
        for (unsigned i = 0; i < o.n_data; ++i) {
            o.data[i] = r.device.data[i].value;
            o.data_ns[i] = r.device.data[i].at.to_seconds() * 1e9;
        }
        return o;
    });
}

#define A64_OR_SKIP()                                                                                        \
    do {                                                                                                     \
        std::string why;                                                                                     \
        if (!cpu::a64_available(&why)) GTEST_SKIP() << why;                                                  \
    } while (0)

const std::vector<std::uint32_t> poll_program = {
    0xd2a12000, // 0:  mov x0, #0x9000000
    0xd2800005, // 4:  mov x5, #0x0
    0xb9400401, // 8:  ldr w1, [x0, #4]      (STATUS)
    0x3707ffe1, // c:  tbnz w1, #0, 8
    0x52800882, // 10: mov w2, #'D'
    0xb9000002, // 14: str w2, [x0]          (DATA)
    0xd2800100, // 18: mov x0, #0x8
    0xf2b08000, // 1c: movk x0, #0x8400, lsl #16  (PSCI SYSTEM_OFF)
    0xd4000002, // 20: hvc #0
};

TEST(A64Core, InstructionsAndAccessesCostTheirTimeAndSystemOffStops) {
    A64_OR_SKIP();
    // Not busy: one read. Block 0..c (4 instructions, 4 ns at 1 GHz), the read (100 ns, the profile's
    // default), block 10..20 (5 ns), the write at 109 ns (50 ns), then SYSTEM_OFF at 159 ns.
    const outcome o = run_child({words(ram, poll_program)}, true);
    EXPECT_EQ(o.stop, cpu::a64_stop::system_off);
    EXPECT_EQ(o.instructions, 9u);
    EXPECT_EQ(o.reads, 1u);
    ASSERT_EQ(o.n_data, 1u);
    EXPECT_EQ(o.data[0], static_cast<std::uint32_t>('D'));
    EXPECT_DOUBLE_EQ(o.data_ns[0], 109);
    EXPECT_DOUBLE_EQ(o.end_ns, 159);
    EXPECT_DOUBLE_EQ(o.irq_off_ns, 159); // PSTATE.I is set from reset
}

TEST(A64Core, PollLoopFastForwardEqualsReferenceMode) {
    A64_OR_SKIP();
    const auto busy = [](rig& r) { r.device.busy_until = sc_time(100, SC_US); };
    const outcome ref = run_child({words(ram, poll_program)}, false, busy);
    const outcome fast = run_child({words(ram, poll_program)}, true, busy);
    // Reads at 4 ns + k * 102 ns (2 instructions and a 100 ns read a round) until one at or after
    // 100 us finds it idle.
    const std::uint64_t reads = (100'000 - 4 + 101) / 102 + 1;
    EXPECT_EQ(ref.reads, reads);
    EXPECT_EQ(ref.transactions, reads + 1);
    EXPECT_EQ(fast.reads, ref.reads);
    EXPECT_EQ(fast.instructions, ref.instructions);
    EXPECT_DOUBLE_EQ(fast.end_ns, ref.end_ns);
    ASSERT_EQ(fast.n_data, 1u);
    EXPECT_DOUBLE_EQ(fast.data_ns[0], ref.data_ns[0]);
    EXPECT_EQ(fast.stop, cpu::a64_stop::system_off);
    EXPECT_GE(fast.fast_forwards, 1u);
    EXPECT_LT(fast.transactions, 10u) << "the loop ran read by read";
}

// Unicorn keeps its state per engine: two cores on SystemC's one thread, interleaving at every wait()
// (each polls its own device, with different timings), run as each does alone.
TEST(A64Core, TwoCoresInOneSimulationRunAsEachAlone) {
    A64_OR_SKIP();
    const auto busy = [](const sc_time& t) { return [t](rig& r) { r.device.busy_until = t; }; };
    const outcome alone_a = run_child({words(ram, poll_program)}, true, busy(sc_time(30, SC_US)));
    const outcome alone_b = run_child({words(ram, poll_program)}, false, busy(sc_time(70, SC_US)));
    const std::array<double, 4> out = in_child<std::array<double, 4>>([] {
        rig a("a", {words(ram, poll_program)}, true), b("b", {words(ram, poll_program)}, false);
        a.device.busy_until = sc_time(30, SC_US);
        b.device.busy_until = sc_time(70, SC_US);
        sc_start(sc_time(1, SC_SEC));
        return std::array<double, 4>{
            a.core->local_time().to_seconds() * 1e9, static_cast<double>(a.core->stats().mmio_reads),
            b.core->local_time().to_seconds() * 1e9, static_cast<double>(b.core->stats().mmio_reads)};
    });
    EXPECT_DOUBLE_EQ(out[0], alone_a.end_ns);
    EXPECT_EQ(out[1], static_cast<double>(alone_a.reads));
    EXPECT_DOUBLE_EQ(out[2], alone_b.end_ns);
    EXPECT_EQ(out[3], static_cast<double>(alone_b.reads));
}

TEST(A64Core, LoopThatStoresIsNotFastForwarded) {
    A64_OR_SKIP();
    const std::vector<std::uint32_t> program = {
        0xd2a12000, // 0:  mov x0, #0x9000000
        0x10000126, // 4:  adr x6, counter (0x28)
        0xb9400401, // 8:  ldr w1, [x0, #4]
        0xf94000c7, // c:  ldr x7, [x6]
        0x910004e7, // 10: add x7, x7, #1
        0xf90000c7, // 14: str x7, [x6]
        0x3707ff81, // 18: tbnz w1, #0, 8
        0xd2800100, // 1c: mov x0, #0x8
        0xf2b08000, // 20: movk x0, #0x8400, lsl #16
        0xd4000002, // 24: hvc #0
        0,          // 28: counter
        0,
    };
    const auto busy = [](rig& r) { r.device.busy_until = sc_time(20, SC_US); };
    const outcome ref = run_child({words(ram, program)}, false, busy, ram + 0x28);
    const outcome fast = run_child({words(ram, program)}, true, busy, ram + 0x28);
    EXPECT_EQ(fast.fast_forwards, 0u);
    EXPECT_EQ(fast.counter, ref.counter);
    EXPECT_EQ(fast.counter, fast.reads); // one increment per read
    EXPECT_EQ(fast.reads, ref.reads);
    EXPECT_DOUBLE_EQ(fast.end_ns, ref.end_ns);
}

// The IRQ vector (VBAR_EL1 + 0x280 at 0x40000a80) of the interrupt tests: acknowledges the device,
// counts in x20 and writes '0' + the acknowledgement's number to DATA, returns.
const std::vector<std::uint32_t> irq_vector = {
    0xb9400803, // a80: ldr w3, [x0, #8]   (ACK: lowers the line)
    0x91000694, // a84: add x20, x20, #1
    0x1100c063, // a88: add w3, w3, #'0'
    0xb9000003, // a8c: str w3, [x0]
    0xd69f03e0, // a90: eret
};

TEST(A64Core, InterruptsAreTakenThroughVbarAndEretReturns) {
    A64_OR_SKIP();
    const std::vector<std::uint32_t> main_code = {
        0x10004001, // 0:  adr x1, vectors (0x800)
        0xd518c001, // 4:  msr vbar_el1, x1
        0xd2a12000, // 8:  mov x0, #0x9000000
        0xd2800014, // c:  mov x20, #0
        0xd50342ff, // 10: msr daifclr, #2
        0xd503207f, // 14: wfi
        0xf1000e9f, // 18: cmp x20, #3
        0x54ffffcb, // 1c: b.lt 14
        0xd50342df, // 20: msr daifset, #2
        0xd2800100, // 24: mov x0, #0x8
        0xf2b08000, // 28: movk x0, #0x8400, lsl #16
        0xd4000002, // 2c: hvc #0
    };
    const auto raise = [](rig& r) {
        sc_spawn([&r] {
            for (int i = 1; i <= 3; ++i) {
                wait(sc_time(10, SC_US) * i - sc_time_stamp());
                r.device.irq.write(true);
            }
        });
    };
    for (bool fast : {false, true}) {
        const outcome o = run_child({words(ram, main_code), words(ram + 0xa80, irq_vector)}, fast, raise);
        EXPECT_EQ(o.stop, cpu::a64_stop::system_off);
        EXPECT_EQ(o.interrupts, 3u);
        ASSERT_EQ(o.n_data, 3u);
        for (unsigned i = 0; i < 3; ++i) {
            EXPECT_EQ(o.data[i], '1' + i);
            // Woken from wfi at the raise: the vector block (5 instructions, counted as it starts), the ACK
            // read (100 ns), the write.
            EXPECT_DOUBLE_EQ(o.data_ns[i], 10'000.0 * (i + 1) + 5 + 100);
        }
        EXPECT_GT(o.hardirq_ns, 0);
        EXPECT_LT(o.busy_ns, 2'000) << "wfi counts as busy";
    }
}

TEST(A64Core, WfiWithIrqsMaskedWakesAndTheInterruptWaitsForTheUnmask) {
    A64_OR_SKIP();
    const std::vector<std::uint32_t> main_code = {
        0x10004001, // 0:  adr x1, vectors (0x800)
        0xd518c001, // 4:  msr vbar_el1, x1
        0xd2a12000, // 8:  mov x0, #0x9000000
        0xd2800014, // c:  mov x20, #0
        0xd503207f, // 10: wfi                  (PSTATE.I set since reset)
        0x52800ee2, // 14: mov w2, #'w'
        0xb9000002, // 18: str w2, [x0]
        0xd50342ff, // 1c: msr daifclr, #2      (the interrupt is taken after this block)
        0xd2800100, // 20: mov x0, #0x8
        0xf2b08000, // 24: movk x0, #0x8400, lsl #16
        0xd4000002, // 28: hvc #0
    };
    const auto raise = [](rig& r) {
        sc_spawn([&r] {
            wait(sc_time(5, SC_US));
            r.device.irq.write(true);
        });
    };
    const outcome o = run_child({words(ram, main_code), words(ram + 0xa80, irq_vector)}, true, raise);
    EXPECT_EQ(o.stop, cpu::a64_stop::system_off);
    EXPECT_EQ(o.interrupts, 1u);
    ASSERT_EQ(o.n_data, 2u);
    EXPECT_EQ(o.data[0], static_cast<std::uint32_t>('w')); // wfi returned with the interrupt pending
    EXPECT_EQ(o.data[1], static_cast<std::uint32_t>('1')); // then taken once unmasked
    EXPECT_DOUBLE_EQ(o.data_ns[0], 5'000 + 3); // woken at the raise; its block (mov, str, msr) counted first
}

TEST(A64Core, GenericTimerCountsSimulatedTime) {
    A64_OR_SKIP();
    const std::vector<std::uint32_t> program = {
        0xd2a12000, // 0:  mov x0, #0x9000000
        0xd53be001, // 4:  mrs x1, cntfrq_el0
        0xb9000c01, // 8:  str w1, [x0, #12]
        0xd53be042, // c:  mrs x2, cntvct_el0
        0xb9000c02, // 10: str w2, [x0, #12]
        0xd2807d03, // 14: mov x3, #1000
        0xf1000463, // 18: subs x3, x3, #1
        0x54ffffe1, // 1c: b.ne 18
        0xd53be042, // 20: mrs x2, cntvct_el0
        0xb9000c02, // 24: str w2, [x0, #12]
        0xd2800100, // 28: mov x0, #0x8
        0xf2b08000, // 2c: movk x0, #0x8400, lsl #16
        0xd4000002, // 30: hvc #0
    };
    UARTVP_SIM_TEST();
    A64_OR_SKIP();
    rig r("rig", {words(ram, program)}, true);
    sc_start(sc_time(1, SC_MS));
    ASSERT_EQ(r.core->stop_reason(), cpu::a64_stop::system_off);
    ASSERT_EQ(r.device.log.size(), 3u);
    EXPECT_EQ(r.device.log[0].value, 62'500'000u);
    // Each count is the core's time (its block counted) at 62.5 MHz: 16 ns a tick.
    for (unsigned i = 1; i < 3; ++i) {
        const double t_ns = r.device.log[i].at.to_seconds() * 1e9; // the store after the mrs
        EXPECT_EQ(r.device.log[i].value, static_cast<std::uint32_t>(t_ns / 16)) << i;
    }
    EXPECT_GT(r.device.log[2].value - r.device.log[1].value, 2000u / 16);
}

TEST(A64Core, WfiThatNothingWakesHalts) {
    A64_OR_SKIP();
    const outcome o = run_child({words(ram,
                                       {
                                           0xd2a12000, // mov x0, #0x9000000
                                           0x52800d01, // mov w1, #'h'
                                           0xb9000001, // str w1, [x0]
                                           0xd5034fdf, // msr daifset, #0xf
                                           0xd503207f, // wfi
                                           0x17ffffff, // b wfi
                                       })},
                                true);
    EXPECT_EQ(o.stop, cpu::a64_stop::halted);
    EXPECT_EQ(o.n_data, 1u);
}

TEST(A64Core, BusErrorStopsTheCoreWithTheAccessNamed) {
    A64_OR_SKIP();
    UARTVP_SIM_TEST();
    rig r("rig", {words(ram, {0xd2a12000 /* mov x0, #0x9000000 */, 0xb9410001 /* ldr w1, [x0, #0x100] */})},
          true);
    sc_start(sc_time(1, SC_MS));
    EXPECT_EQ(r.core->stop_reason(), cpu::a64_stop::fault);
    EXPECT_NE(r.core->fault().find("read of 4 bytes at 0x9000100"), std::string::npos) << r.core->fault();
}

TEST(A64Core, UndefinedInstructionStopsTheCoreWithItsAddress) {
    A64_OR_SKIP();
    UARTVP_SIM_TEST();
    rig r("rig", {words(ram, {0xd2a12000 /* mov x0, #0x9000000 */, 0x00000000 /* udf #0 */})}, true);
    sc_start(sc_time(1, SC_MS));
    EXPECT_EQ(r.core->stop_reason(), cpu::a64_stop::fault);
    EXPECT_NE(r.core->fault().find("undefined instruction 0x0) at pc 0x40000004"), std::string::npos)
        << r.core->fault();
}

// ---- ELF files

std::string write_elf(const std::string& name, std::uint16_t type, std::uint16_t machine, std::uint64_t paddr,
                      std::uint64_t entry) {
    std::vector<std::uint8_t> f(64 + 56 + 8, 0);
    const auto put = [&](std::size_t at, std::uint64_t v, unsigned n) {
        for (unsigned i = 0; i < n; ++i)
            f[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
    };
    std::memcpy(f.data(),
                "\x7f"
                "ELF",
                4);
    f[4] = 2; // ELFCLASS64
    f[5] = 1; // little-endian
    f[6] = 1;
    put(16, type, 2);
    put(18, machine, 2);
    put(20, 1, 4);
    put(24, entry, 8);
    put(32, 64, 8); // e_phoff
    put(52, 64, 2);
    put(54, 56, 2);
    put(56, 1, 2);
    put(64, 1, 4);       // PT_LOAD
    put(64 + 8, 120, 8); // p_offset
    put(64 + 16, paddr, 8);
    put(64 + 24, paddr, 8);
    put(64 + 32, 8, 8);
    put(64 + 40, 16, 8);
    put(120, 0xd503207fd503207full, 8);
    const std::string path = ::testing::TempDir() + name;
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(f.data()), f.size());
    return path;
}

TEST(Elf, ReadsAnAarch64ExecutableIntoRam) {
    const auto img = cpu::read_elf(write_elf("ok.elf", 2, 183, ram + 0x80000, ram + 0x80000), ram, 128 << 20);
    EXPECT_EQ(img.entry, ram + 0x80000);
    ASSERT_EQ(img.segments.size(), 1u);
    EXPECT_EQ(img.segments[0].data.size(), 8u);
    EXPECT_EQ(img.segments[0].mem_size, 16u);
}

TEST(Elf, RefusesOtherMachinesTypesAndSegmentsOutsideRam) {
    const auto why = [](const std::string& path) {
        try {
            cpu::read_elf(path, ram, 128 << 20);
        } catch (const cpu::elf_error& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(why(write_elf("x86.elf", 2, 62, ram, ram)).find("not an aarch64 ELF file (e_machine 62)"),
              std::string::npos);
    EXPECT_NE(why(write_elf("dyn.elf", 3, 183, ram, ram)).find("not an executable"), std::string::npos);
    EXPECT_NE(why(write_elf("out.elf", 2, 183, 0x1000, 0x1000)).find("outside RAM"), std::string::npos);
    EXPECT_NE(why(write_elf("end.elf", 2, 183, ram + (128 << 20) - 8, ram)).find("outside RAM"),
              std::string::npos);
    std::ofstream(::testing::TempDir() + "text.elf") << "hello";
    EXPECT_NE(why(::testing::TempDir() + "text.elf").find("not an ELF file"), std::string::npos);
    EXPECT_NE(why(::testing::TempDir() + "missing.elf").find("cannot open"), std::string::npos);
}

} // namespace
