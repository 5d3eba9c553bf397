// SPDX-License-Identifier: Apache-2.0
// printk as the kernel model runs it, behaviour by behaviour: the ring buffer and its records, the
// prefix, log_buf_len and the dropped marker, vprintk_emit's flush types, the legacy console_unlock loop
// (IRQs off per record) and its spinning handover, nbcon ownership (priorities, handover, the replay of
// an interrupted record), the atomic flush (IRQs off across the backlog, stop_seq fixed at entry), the
// printer kthread (one record at a time under the device lock, woken through irq_work), and
// register_console with boot consoles and their handover. The consoles here are fakes that cost a
// fixed time per character: no UART.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <uartvp/cpu/kernel.h>
#include <uartvp/cpu/machine.h>

#include "kernel/printk/printk.h"
#include "kernel_bench.h"
#include "sim_main.h"

using namespace uartvp;
using namespace uartvp::kapi;
using namespace uartvp::sw;
using namespace sc_core;
using namespace uartvp::test::kernel_bench;

namespace {

double to_us(const sc_time& t) {
    return t.to_seconds() * 1e6;
}

struct bench : sc_module {
    cpu::machine m;
    no_bus bus{"bus"};
    explicit bench(unsigned cores)
        : sc_module("bench")
        , m("machine", cores, timing()) {
        for (auto& c : m.cores)
            c->bus.bind(bus.target);
    }
};

// A console that takes `ns_per_char` per character written and keeps what it wrote.
struct fake_console {
    console con;
    std::string out;
    unsigned long ns_per_char = 1000;
    spinlock lock;
    bool per_char_unsafe = false; // write_atomic in one unsafe section per character (else per record)

    fake_console(const std::string& name, int index, bool nbcon, unsigned flags = CON_PRINTBUFFER) {
        con.name = name;
        con.index = index;
        con.flags = flags | (nbcon ? CON_NBCON : 0);
        con.data = this;
        if (!nbcon) {
            con.write = [this](console&, std::string_view s) { put(s); };
            return;
        }
        con.write_atomic = [this](console&, nbcon_write_context& w) {
            if (per_char_unsafe) {
                for (char ch : w.outbuf) {
                    if (!nbcon_enter_unsafe(w)) return;
                    put(std::string_view(&ch, 1));
                    if (!nbcon_exit_unsafe(w)) return;
                }
                return;
            }
            if (!nbcon_enter_unsafe(w)) return;
            put(w.outbuf);
            nbcon_exit_unsafe(w);
        };
        con.write_thread = con.write_atomic;
        con.device_lock = [this](console&, irqflags& f) { spin_lock_irqsave(lock, f); };
        con.device_unlock = [this](console&, irqflags f) { spin_unlock_irqrestore(lock, f); };
    }
    void put(std::string_view s) {
        for (char ch : s) {
            ndelay(ns_per_char);
            cpu::core::current().sync();
            out += ch;
        }
    }
};

printk_config cfg(printk_variant v = printk_variant::merged) {
    printk_config c;
    c.variant = v;
    c.kthread_cpu = 0;
    return c;
}

std::size_t count(const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1))
        ++n;
    return n;
}

} // namespace

// ---- records, prefix, ring buffer (no simulation)

TEST(PrintkRecord, PrefixIsFiveDigitSecondsAndMicrosecondsOnEveryLine) {
    printk_info r;
    r.ts_nsec = 1'234'567'891ull;
    r.text = "first\nsecond";
    EXPECT_EQ(print_time(r.ts_nsec), "[    1.234567] ");
    EXPECT_EQ(record_print_text(r, true), "[    1.234567] first\n[    1.234567] second\n");
    EXPECT_EQ(record_print_text(r, false), "first\nsecond\n");
    r.ts_nsec = 123'456ull * 1'000'000'000ull;
    EXPECT_EQ(print_time(r.ts_nsec), "[123456.000000] ");
}

TEST(PrintkRingbuffer, SequenceNumbersAndOverwriteOfTheOldestWhenLogBufLenIsFull) {
    printk_ringbuffer rb(10 * (printk_ringbuffer::block_header + 4));
    for (int i = 0; i < 25; ++i) {
        printk_info r;
        r.text = "r" + std::to_string(i % 10) + "xx";
        EXPECT_EQ(rb.store(r), static_cast<std::uint64_t>(i));
    }
    EXPECT_EQ(rb.next_seq(), 25u);
    EXPECT_EQ(rb.first_seq(), 15u); // ten fit
    printk_info got;
    ASSERT_TRUE(rb.read_valid(3, &got)); // overwritten: the oldest that is still there
    EXPECT_EQ(got.seq, 15u);
    EXPECT_FALSE(rb.read_valid(25));
    EXPECT_EQ(dropped_marker(15), "** 15 printk messages dropped **\n");
}

TEST(PrintkRingbuffer, RecordTextIsCutAtRecordMax) {
    printk_ringbuffer rb(1u << 16);
    printk_info r;
    r.text = std::string(3000, 'x');
    rb.store(r);
    printk_info got;
    ASSERT_TRUE(rb.read_valid(0, &got));
    EXPECT_EQ(got.text.size(), PRINTKRB_RECORD_MAX);
}

// ---- vprintk_emit and the legacy loop

TEST(PrintkLegacy, TimestampIsTakenAtStoreTimeNotAtPrintTime) {
    UARTVP_SIM_TEST();
    bench b(1);
    printk_init(cfg());
    fake_console fc("ttyS", 0, false);
    fc.ns_per_char = 10'000; // 10 us per character
    b.m.cpu(0).create_task("boot", [&] {
        udelay(100);
        pr_info("one");
        pr_info("two");
        register_console(fc.con);
        udelay(5);
        pr_info("three");
    });
    sc_start(ms(100));
    // "one" and "two" were stored at 100 us, before any console; "three" after the replay.
    EXPECT_EQ(fc.out.substr(0, 40), "[    0.000100] one\n[    0.000100] two\n[ ");
    printk_info three;
    ASSERT_TRUE(printk_rb().read_valid(3, &three));
    EXPECT_EQ(three.text, "three");
    EXPECT_GT(three.ts_nsec, 100'000u + 3 * 19 * 10'000u); // after the replay of 3 records
}

TEST(PrintkLegacy, ConsoleUnlockTurnsIrqsOffOnePrintedRecordAtATime) {
    UARTVP_SIM_TEST();
    bench b(1);
    printk_init(cfg());
    fake_console fc("ttyS", 0, false);
    fc.ns_per_char = 1000;
    b.m.cpu(0).create_task("boot", [&] {
        for (int i = 0; i < 20; ++i)
            pr_info("record number " + std::to_string(100 + i)); // 18 characters + prefix 15 + \n = 34
        register_console(fc.con);
    });
    sc_start(ms(100));
    const cpu::core_stats& s = b.m.cpu(0).stats();
    EXPECT_EQ(count(fc.out, "record number"), 20u);
    EXPECT_NE(fc.out.find("printk: legacy console [ttyS0] enabled"), std::string::npos);
    // The longest window is one record (the enabled line: 54 characters), not the backlog (700).
    EXPECT_LE(to_us(s.irq_off_max), 60.0);
    EXPECT_GE(to_us(s.irq_off_total), 20 * 34.0);
    EXPECT_GE(s.irq_off_windows, 21u);
}

TEST(PrintkLegacy, ADroppedMarkerPrecedesTheFirstRecordAfterAnOverwrite) {
    UARTVP_SIM_TEST();
    bench b(1);
    printk_config c = cfg();
    c.log_buf_len = 8 * (printk_ringbuffer::block_header + 8);
    printk_init(c);
    fake_console fc("ttyS", 0, false);
    b.m.cpu(0).create_task("boot", [&] {
        for (int i = 0; i < 20; ++i)
            pr_info("rec " + std::to_string(100 + i)); // 7 characters
        register_console(fc.con);
    });
    sc_start(ms(100));
    // 20 records and "enabled" (36 characters, two slots' worth) in room for eight of 8 bytes.
    EXPECT_EQ(fc.out.rfind("** ", 0), 0u) << fc.out;
    EXPECT_EQ(count(fc.out, "printk messages dropped"), 1u);
    EXPECT_EQ(fc.out.find("rec 100"), std::string::npos);
    EXPECT_NE(fc.out.find("rec 119"), std::string::npos);
}

TEST(PrintkLegacy, APrintkOnAnotherCpuSpinsForTheRecordAndTakesOverTheBacklog) {
    UARTVP_SIM_TEST();
    bench b(2);
    printk_init(cfg());
    fake_console fc("ttyS", 0, false);
    fc.ns_per_char = 1000;
    sc_time cpu0_done, cpu1_done;
    b.m.cpu(0).create_task("boot", [&] {
        for (int i = 0; i < 50; ++i)
            pr_info("backlog " + std::to_string(100 + i));
        register_console(fc.con); // prints the backlog from here
        cpu0_done = now_local();
    });
    b.m.cpu(1).create_task("other", [&] {
        udelay(200); // in the middle of the backlog
        pr_info("from cpu1");
        cpu1_done = now_local();
    });
    sc_start(ms(100));
    const auto& printed = printk_printed(fc.con);
    ASSERT_EQ(printed.size(), 52u); // the backlog, enabled, cpu1's record: each once, in order
    for (std::size_t i = 0; i < printed.size(); ++i)
        EXPECT_EQ(printed[i].seq, i);
    // CPU1 took console_lock over at the end of the record it spun for: CPU0 returned then, CPU1
    // printed the rest.
    EXPECT_LT(cpu0_done, us(260));
    EXPECT_GT(cpu1_done, us(1000));
    EXPECT_GT(to_us(b.m.cpu(1).stats().irq_off_max), 0.0); // it spun with IRQs off
}

// console_flush_all with console_lock() held (may schedule): cond_resched() after each console that
// printed a record, not once per round over the consoles. A task woken with need_resched meanwhile runs
// between the first boot console's record and the second's.
TEST(PrintkLegacy, TheLegacyLoopReschedulesAfterEachConsolesRecord) {
    UARTVP_SIM_TEST();
    bench b(1);
    printk_init(cfg(printk_variant::v6_16));
    fake_console e1("earlya", 0, false, CON_BOOT | CON_PRINTBUFFER);
    fake_console e2("earlyb", 0, false, CON_BOOT | CON_PRINTBUFFER);
    bool ran = false, first_had_it = false, second_had_it = true;
    b.m.cpu(0).create_task("boot", [&] {
        register_console(e1.con);
        register_console(e2.con);
        console_lock();
        pr_info("the record");
        task_struct* hi = kthread_run_on_cpu(
            [&](void*) {
                ran = true;
                first_had_it = e1.out.find("the record") != std::string::npos;
                second_had_it = e2.out.find("the record") != std::string::npos;
                return 0;
            },
            nullptr, 0, "hi");
        sched_set_normal(hi, -10); // an earlier deadline: need_resched
        console_unlock();
    });
    sc_start(ms(100));
    ASSERT_TRUE(ran);
    EXPECT_TRUE(first_had_it);
    EXPECT_FALSE(second_had_it) << "the switch came only after both consoles printed";
    EXPECT_NE(e2.out.find("the record"), std::string::npos);
}

// While a boot console is registered the legacy loop prints the nbcon console too
// (nbcon_legacy_emit_next_record), from printk with spinning enabled as for a legacy record: a printk
// on another CPU during the nbcon console's "enabled" record (159 to 208 us) spins for it and takes
// console_lock over at its end. The boot console is gone by then, so the records after it wait for the
// next printk's atomic flush.
TEST(PrintkLegacy, APrintkOnAnotherCpuTakesOverFromAnNbconRecordInTheLegacyLoop) {
    UARTVP_SIM_TEST();
    bench b(2);
    printk_init(cfg(printk_variant::v6_16));
    fake_console early("early", 0, false, CON_BOOT | CON_PRINTBUFFER);
    fake_console real("ttyAMA", 0, true);
    early.ns_per_char = real.ns_per_char = 1000;
    sc_time cpu0_back, cpu1_done;
    b.m.cpu(0).create_task("boot", [&] {
        register_console(early.con);
        udelay(100);
        register_console(real.con);
        cpu0_back = now_local();
        udelay(100);
        pr_info("later");
    });
    b.m.cpu(1).create_task("other", [&] {
        udelay(180);
        pr_info("from cpu1");
        cpu1_done = now_local();
    });
    sc_start(ms(100));
    EXPECT_EQ(b.m.cpu(1).stats().irq_off_max, us(28)) << "spun for the rest of the nbcon record";
    EXPECT_EQ(cpu0_back, us(208)) << "CPU0 handed console_lock over at the record's end";
    EXPECT_EQ(cpu1_done, us(208));
    const auto& printed = printk_printed(real.con);
    ASSERT_EQ(printed.size(), 4u); // enabled, from cpu1, bootconsole disabled, later: once each, in order
    for (std::size_t i = 0; i < printed.size(); ++i)
        EXPECT_EQ(printed[i].seq, i + 1);
}

// ---- nbcon: the atomic flush, ownership, the kthread

TEST(PrintkNbcon, WithoutAKthreadTheRegistrationReplaysTheWholeLogWithIrqsOff) {
    UARTVP_SIM_TEST();
    bench b(2);
    printk_init(cfg(printk_variant::v6_16));
    fake_console fc("ttyAMA", 0, true);
    sc_time reg_start, reg_end;
    b.m.cpu(1).create_task("boot", [&] {
        printk_set_kthreads_ready();
        for (int i = 0; i < 40; ++i)
            pr_info("backlog " + std::to_string(100 + i)); // 11 + 16 = 27 characters each
        reg_start = now_local();
        register_console(fc.con);
        reg_end = now_local();
    });
    sc_start(ms(100));
    EXPECT_EQ(count(fc.out, "backlog"), 40u);
    EXPECT_NE(fc.out.find("printk: console [ttyAMA0] enabled"), std::string::npos);
    // One IRQs-off window over the whole replay (40 x 27 + the enabled line), then the kthread.
    EXPECT_GE(to_us(b.m.cpu(1).stats().irq_off_max), 40 * 27.0);
    EXPECT_GE(to_us(reg_end - reg_start), 40 * 27.0);
    EXPECT_TRUE(printk_kthreads_running()); // made after "enabled"
    ASSERT_NE(fc.con.kthread, nullptr);
    EXPECT_EQ(fc.con.kthread->name, "pr/ttyAMA0");
    EXPECT_EQ(fc.con.kthread->nice, -20);
}

// vprintk_store reserves the record halfway through its store (store_ns 10 us here) and commits it at
// the end; in between the record has its sequence number but cannot be read. CPU0's record, reserved
// just before the replay's flush took stop_seq (prb_next_reserve_seq) and committed just after, is
// printed in that batch: one IRQs-off window over the backlog, "enabled" and it. (Stored all at once,
// it fell after stop_seq and came in a second batch.)
TEST(PrintkNbcon, ARecordReservedBeforeTheFlushEntryIsInItsBatch) {
    UARTVP_SIM_TEST();
    bench b(2);
    printk_config c = cfg(printk_variant::v6_16);
    c.store_ns = 10'000;
    printk_init(c);
    fake_console fc("ttyAMA", 0, true);
    b.m.cpu(1).create_task("boot", [&] {
        for (int i = 0; i < 40; ++i)
            pr_info("backlog " + std::to_string(100 + i)); // 10 us each: "enabled" stored at 400 us
        register_console(fc.con);
    });
    b.m.cpu(0).create_task("other", [&] {
        udelay(405); // reserved at 410 us, committed at 415 us
        pr_info("from cpu0");
    });
    sc_start(ms(100));
    const cpu::core_stats& s1 = b.m.cpu(1).stats();
    EXPECT_EQ(s1.irq_off_windows, 42u) << "40 stores, \"enabled\"'s store, one batch";
    EXPECT_EQ(s1.irq_off_max, us(1154));
    const auto& printed = printk_printed(fc.con);
    ASSERT_EQ(printed.size(), 42u);
    for (std::size_t i = 0; i < printed.size(); ++i)
        EXPECT_EQ(printed[i].seq, i);
    EXPECT_NE(printed.back().text.find("from cpu0"), std::string::npos);
}

TEST(PrintkNbcon, StopSeqIsFixedAtEntryRecordsFromOtherCpusComeInASecondBatch) {
    UARTVP_SIM_TEST();
    bench b(2);
    printk_init(cfg(printk_variant::v6_16));
    fake_console fc("ttyAMA", 0, true);
    sc_time other_ret;
    b.m.cpu(1).create_task("boot", [&] {
        for (int i = 0; i < 40; ++i)
            pr_info("backlog " + std::to_string(100 + i));
        register_console(fc.con);
    });
    b.m.cpu(0).create_task("other", [&] {
        udelay(300); // during CPU1's replay
        pr_info("late record from cpu0");
        other_ret = now_local();
    });
    sc_start(ms(100));
    // CPU0's NORMAL printk found the console owned at NORMAL: -EPERM, it returned at once.
    EXPECT_LT(other_ret, us(301));
    EXPECT_EQ(b.m.cpu(0).stats().irq_off_max, SC_ZERO_TIME);
    // CPU1 printed it, after its first batch (IRQs on for an instant between the two).
    const auto& printed = printk_printed(fc.con);
    ASSERT_EQ(printed.size(), 42u);
    EXPECT_NE(printed.back().text.find("late record from cpu0"), std::string::npos);
    EXPECT_GE(b.m.cpu(1).stats().irq_off_windows, 2u);
    EXPECT_GE(to_us(b.m.cpu(1).stats().irq_off_max), 40 * 27.0);
}

TEST(PrintkNbcon, MergedFixTheKthreadPrintsTheBacklogOneRecordAtATimeWhileTheBootGoesOn) {
    UARTVP_SIM_TEST();
    bench b(2);
    printk_init(cfg(printk_variant::merged));
    fake_console fc("ttyAMA", 0, true);
    sc_time reg_start, reg_end;
    b.m.cpu(1).create_task("boot", [&] {
        printk_set_kthreads_ready();
        for (int i = 0; i < 40; ++i)
            pr_info("backlog " + std::to_string(100 + i));
        reg_start = now_local();
        register_console(fc.con);
        reg_end = now_local();
    });
    sc_start(ms(100));
    EXPECT_EQ(count(fc.out, "backlog"), 40u);
    EXPECT_LT(to_us(reg_end - reg_start), 1.0); // registration does not wait for the console
    EXPECT_EQ(b.m.cpu(1).stats().irq_off_max, SC_ZERO_TIME);
    // pr/ttyAMA0 on CPU0: IRQs off per record (device lock), the longest the enabled line (49).
    EXPECT_LE(to_us(b.m.cpu(0).stats().irq_off_max), 50.0);
    EXPECT_GE(b.m.cpu(0).stats().irq_off_windows, 41u);
    bool found = false;
    for (const auto& t : b.m.cpu(0).tasks())
        found |= t.name == "pr/ttyAMA0";
    EXPECT_TRUE(found);
}

TEST(PrintkNbcon, ASleepingKthreadIsWokenThroughIrqWorkByALaterPrintk) {
    UARTVP_SIM_TEST();
    bench b(2);
    printk_init(cfg(printk_variant::merged));
    fake_console fc("ttyAMA", 0, true);
    b.m.cpu(1).create_task("boot", [&] {
        printk_set_kthreads_ready();
        register_console(fc.con);
        msleep(20); // the kthread printed "enabled" and sleeps
        pr_info("later");
    });
    sc_start(ms(100));
    EXPECT_NE(fc.out.find("later"), std::string::npos);
    EXPECT_TRUE(printk_all_printed());
}

TEST(PrintkNbcon, PendingStartOffloadsWhileTheFirstKthreadIsPending) {
    UARTVP_SIM_TEST();
    bench b(2);
    printk_init(cfg(printk_variant::pending_start));
    fake_console fc("ttyAMA", 0, true);
    sc_time reg_start, reg_end;
    b.m.cpu(1).create_task("boot", [&] {
        printk_set_kthreads_ready();
        for (int i = 0; i < 40; ++i)
            pr_info("backlog " + std::to_string(100 + i));
        reg_start = now_local();
        register_console(fc.con);
        reg_end = now_local();
        EXPECT_FALSE(printk_kthreads_pending_start()); // cleared once the kthread runs
    });
    sc_start(ms(100));
    EXPECT_EQ(count(fc.out, "backlog"), 40u);
    EXPECT_LT(to_us(reg_end - reg_start), 1.0);
    EXPECT_LE(to_us(b.m.cpu(0).stats().irq_off_max), 50.0);
}

TEST(PrintkNbcon, EmergencyPrintkFlushesAtomicallyEvenWhileKthreadsRun) {
    UARTVP_SIM_TEST();
    bench b(2);
    printk_init(cfg(printk_variant::merged));
    fake_console fc("ttyAMA", 0, true);
    bool normal_offload = false, emergency_atomic = false;
    sc_time em_start, em_end;
    b.m.cpu(1).create_task("boot", [&] {
        printk_set_kthreads_ready();
        register_console(fc.con);
        msleep(20);
        normal_offload = printk_get_console_flush_type().nbcon_offload;
        nbcon_cpu_emergency_enter();
        emergency_atomic = printk_get_console_flush_type().nbcon_atomic;
        em_start = now_local();
        pr_err("WARNING: something at somewhere"); // printed here, not by the kthread
        em_end = now_local();
        nbcon_cpu_emergency_exit();
    });
    sc_start(ms(100));
    EXPECT_TRUE(normal_offload);
    EXPECT_TRUE(emergency_atomic);
    EXPECT_GE(to_us(em_end - em_start), 40.0); // 15 + 31 + 1 characters at 1 us
    EXPECT_GE(to_us(b.m.cpu(1).stats().irq_off_max), 40.0);
}

// The printer kthread wakes whenever a record waits, whoever owns the console
// (nbcon_kthread_should_wakeup, v6.16): when an emergency printk on CPU1 takes the console over in the
// middle of the kthread's backlog, the kthread keeps retrying on CPU0 (its core busy, not asleep)
// until the emergency flush has printed everything and released the console.
TEST(PrintkNbcon, TheKthreadRetriesWhileAnAtomicOwnerPrints) {
    UARTVP_SIM_TEST();
    bench b(2);
    printk_init(cfg(printk_variant::merged));
    fake_console fc("ttyAMA", 0, true);
    sc_time em_start, em_end;
    b.m.cpu(1).create_task("boot", [&] {
        printk_set_kthreads_ready();
        register_console(fc.con);
        for (int i = 0; i < 40; ++i)
            pr_info("backlog " + std::to_string(100 + i)); // 27 characters each, for the kthread
        udelay(200);
        nbcon_cpu_emergency_enter();
        em_start = now_local();
        pr_err("WARNING: something at somewhere");
        em_end = now_local();
        nbcon_cpu_emergency_exit();
    });
    sc_start(ms(100));
    const auto& printed = printk_printed(fc.con);
    ASSERT_EQ(printed.size(), 42u); // enabled, the backlog, the warning: once each, in order
    for (std::size_t i = 0; i < printed.size(); ++i)
        EXPECT_EQ(printed[i].seq, i);
    EXPECT_GT(em_end - em_start, us(700)) << "the emergency flush printed most of the backlog";
    const cpu::task_stats& kt = b.m.cpu(0).tasks().at(fc.con.kthread->index);
    // Busy from the start of its backlog to the emergency flush's release: printing, then retrying.
    EXPECT_EQ(kt.cpu_time, em_end);
    EXPECT_EQ(b.m.cpu(0).stats().busy, em_end);
}

TEST(PrintkNbcon, PanicTakesOverAtTheOwnersNextSafePointAndTheRecordIsReplayed) {
    UARTVP_SIM_TEST();
    bench b(2);
    printk_init(cfg(printk_variant::v6_16));
    fake_console fc("ttyAMA", 0, true);
    fc.per_char_unsafe = true;
    fc.ns_per_char = 10'000;
    b.m.cpu(1).create_task("boot", [&] {
        pr_info(std::string(100, 'a')); // 1.16 ms to print
        register_console(fc.con);
    });
    b.m.cpu(0).create_task("panic", [&] {
        udelay(500); // inside the long record
        printk_set_panic_cpu(0);
        printk(LOGLEVEL_EMERG, "Kernel panic - not syncing: test");
    });
    sc_start(ms(100));
    EXPECT_EQ(count(fc.out, replay_marker), 1u) << fc.out;
    // Cut off at a character, then whole after the marker (printed by the panic CPU).
    const std::size_t marker = fc.out.find(replay_marker);
    ASSERT_NE(marker, std::string::npos);
    EXPECT_EQ(fc.out.rfind("[    0.000000] aaaa", 0), 0u);
    EXPECT_LT(marker, 15u + 100u);
    EXPECT_EQ(
        fc.out.compare(marker + std::strlen(replay_marker), 115, "[    0.000000] " + std::string(100, 'a')),
        0);
    EXPECT_NE(fc.out.find("Kernel panic - not syncing: test"), std::string::npos);
    EXPECT_EQ(fc.con.ownership_lost, 1u);
    const auto& printed = printk_printed(fc.con);
    ASSERT_FALSE(printed.empty());
    EXPECT_TRUE(printed.front().replayed);
}

TEST(PrintkNbcon, ANormalContextCannotTakeOverFromAnEmergencyOwner) {
    UARTVP_SIM_TEST();
    bench b(2);
    printk_init(cfg(printk_variant::v6_16));
    fake_console fc("ttyAMA", 0, true);
    bool normal_got = true, emergency_got = false;
    b.m.cpu(0).create_task("a", [&] {
        nbcon_context em;
        em.con = &fc.con;
        em.prio = nbcon_prio::emergency;
        emergency_got = nbcon_context_try_acquire(em);
        udelay(100);
        nbcon_context_release(em);
    });
    b.m.cpu(1).create_task("b", [&] {
        udelay(10);
        nbcon_context n;
        n.con = &fc.con;
        n.prio = nbcon_prio::normal;
        n.spinwait_max_us = 2000;
        normal_got = nbcon_context_try_acquire(n);
    });
    sc_start(ms(10));
    EXPECT_TRUE(emergency_got);
    EXPECT_FALSE(normal_got);
}

// A console released after an unsafe hostile takeover is free but stays unsafe: a direct acquire gets
// -EBUSY and waiting for a handover cannot help (nbcon_context_try_acquire_direct/_handover); only a
// panic context allowed an unsafe takeover gets it.
TEST(PrintkNbcon, AFreeConsoleLeftUnsafeByAHostileTakeoverIsBusy) {
    UARTVP_SIM_TEST();
    bench b(2);
    printk_init(cfg(printk_variant::v6_16));
    fake_console fc("ttyAMA", 0, true);
    bool normal_got = true, emergency_got = true, panic_got = false;
    b.m.cpu(1).create_task("a", [&] {
        fc.con.state.unsafe = fc.con.state.unsafe_takeover = true; // as nbcon_context_release leaves it
        nbcon_context n;
        n.con = &fc.con;
        n.prio = nbcon_prio::normal;
        n.spinwait_max_us = 1000;
        normal_got = nbcon_context_try_acquire(n);
        nbcon_context em;
        em.con = &fc.con;
        em.prio = nbcon_prio::emergency;
        em.spinwait_max_us = 1000;
        emergency_got = nbcon_context_try_acquire(em);
        nbcon_context pc;
        pc.con = &fc.con;
        pc.prio = nbcon_prio::panic;
        pc.allow_unsafe_takeover = true;
        panic_got = nbcon_context_try_acquire(pc);
    });
    sc_start(ms(10));
    EXPECT_FALSE(normal_got);
    EXPECT_FALSE(emergency_got);
    EXPECT_TRUE(panic_got);
    EXPECT_EQ(fc.con.state.prio, nbcon_prio::panic);
}

// ---- register_console and boot consoles

TEST(PrintkRegister, ABootConsoleHandsOverWithoutAReplayAndIsUnregistered) {
    UARTVP_SIM_TEST();
    bench b(1);
    printk_init(cfg(printk_variant::merged));
    fake_console boot("early", 0, false, CON_BOOT | CON_PRINTBUFFER);
    fake_console real("ttyAMA", 0, true);
    b.m.cpu(0).create_task("boot", [&] {
        pr_info("before any console");
        register_console(boot.con);
        printk_set_kthreads_ready(); // a boot console remains: no kthread yet
        EXPECT_FALSE(printk_kthreads_running());
        pr_info("while the boot console prints");
        register_console(real.con);
        EXPECT_TRUE(printk_kthreads_running()); // the boot console is gone
        pr_info("after the handover");
        register_console(boot.con); // too late
        msleep(10);
    });
    sc_start(ms(100));
    EXPECT_NE(boot.out.find("before any console"), std::string::npos); // replayed on the boot console
    EXPECT_NE(boot.out.find("printk: legacy bootconsole [early0] enabled"), std::string::npos);
    EXPECT_NE(boot.out.find("printk: legacy bootconsole [early0] disabled"), std::string::npos);
    EXPECT_EQ(boot.out.find("after the handover"), std::string::npos);
    // The real console starts at its own "enabled": CON_PRINTBUFFER was cleared.
    EXPECT_EQ(real.out.find("before any console"), std::string::npos);
    EXPECT_EQ(real.out.find("[", 0), 0u);
    EXPECT_NE(real.out.find("printk: console [ttyAMA0] enabled"), std::string::npos);
    EXPECT_NE(real.out.find("after the handover"), std::string::npos);
    EXPECT_NE(real.out.find("Too late to register bootconsole early0"), std::string::npos);
}

TEST(PrintkRegister, AConsoleNotPreferredIsNotEnabled) {
    UARTVP_SIM_TEST();
    bench b(1);
    printk_config c = cfg();
    c.preferred = "ttyAMA0";
    printk_init(c);
    fake_console other("ttyS", 0, false);
    fake_console want("ttyAMA", 0, true);
    b.m.cpu(0).create_task("boot", [&] {
        printk_set_kthreads_ready();
        register_console(other.con);
        register_console(want.con);
        msleep(10);
    });
    sc_start(ms(100));
    EXPECT_TRUE(other.out.empty());
    EXPECT_FALSE(other.con.registered);
    EXPECT_TRUE(want.con.registered);
    EXPECT_NE(want.out.find("enabled"), std::string::npos);
}
