// SPDX-License-Identifier: Apache-2.0
// The aarch64 core as a user runs it: scenario firmware with the project's images (sw/firmware) and bad
// ones, earlycon-pl011's -a64 variants against the instruction stub's (their access traces, folded), fast
// against reference mode, and the same images on QEMU's virt machine (the bytes each PL011 sent). Skips,
// saying why, where the add-on, the images or QEMU are missing.
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "program_runner.h"

namespace {

using uartvp::test::result;
using uartvp::test::run_json;
using uartvp::test::run_uartvp;
using uartvp::test::slurp;

const std::string fw = UARTVP_FIRMWARE_DIR;

bool exists(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0;
}

// The add-on and the images, or the reason to skip.
std::string missing() {
    if (!exists(fw + "/hello.elf")) return "the firmware is not built (no aarch64-linux-gnu-gcc)";
    const result r = run_uartvp("run firmware --elf " + fw + "/hello.elf");
    if (r.code == 2 && r.err.find("add-on") != std::string::npos) return r.err;
    return "";
}

#define FIRMWARE_OR_SKIP()                                                                                   \
    do {                                                                                                     \
        if (const std::string why = missing(); !why.empty()) GTEST_SKIP() << why;                            \
    } while (0)

std::string temp_file(const std::string& name, const std::string& content) {
    const std::string path = ::testing::TempDir() + name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
}

TEST(Firmware, HelloWorldPrintsItsLineAndPowersOff) {
    FIRMWARE_OR_SKIP();
    const auto j = run_json("firmware", "--elf " + fw + "/hello.elf");
    EXPECT_EQ(j["line_text_head"], "Hello from uartvp firmware\r\n");
    EXPECT_EQ(j["bytes_on_line"], 28);
    EXPECT_EQ(j["a64_stop"], "system_off");
    EXPECT_EQ(j["outcome"], "clean");
    EXPECT_GT(j["instructions"].get<std::uint64_t>(), 1000u);
    EXPECT_GT(j["cpu_busy_ns"].get<double>(), 0);
    EXPECT_GT(j["mmio_writes"].get<std::uint64_t>(), 28u);
    EXPECT_EQ(j["params"]["cpi"], 1);
}

TEST(Firmware, BadImagesAndOptionsAreRefusedWithTheReason) {
    FIRMWARE_OR_SKIP();
    const auto refused = [](const std::string& args, const std::string& why) {
        const result r = run_uartvp(args);
        EXPECT_EQ(r.code, 2) << args << ": " << r.err;
        EXPECT_NE(r.err.find(why), std::string::npos) << args << ": " << r.err;
    };
    refused("run firmware --elf /bin/true", "not an aarch64 ELF file");
    refused("run firmware --elf " + temp_file("notes.txt", "not an image"), "not an ELF file");
    refused("run firmware --elf /nonexistent.elf", "cannot open");
    refused("run earlycon-pl011 --elf " + fw + "/hello.elf", "runs no firmware image");
    refused("run firmware --elf " + fw + "/hello.elf --set relax_cycles=3", "relax_cycles");
    refused("run earlycon-pl011 --variant v0 --set cpi=2", "apply to the aarch64 core's variants");
    refused("run earlycon-pl011 --variant v2 --set a64_fast_forward=0",
            "apply to the aarch64 core's variants");
    refused("run earlycon-pl011 --variant v0-a64 --set cores=2", "one aarch64 core");
    refused("run earlycon-pl011 --variant v1-a64 --set relax_cycles=9", "yield instruction");
    refused("run tty-paste --bus-log /tmp/x.log", "does not log its bus");
    refused("run earlycon-pl011 --variant v0-a64 --vcd /tmp/x.vcd --vcd-rtl", "no RTL trace");
}

TEST(Firmware, EchoReturnsThePasteByteForByteInBothModes) {
    FIRMWARE_OR_SKIP();
    std::string paste;
    for (int i = 0; i < 600; ++i)
        paste += static_cast<char>(i % 251 == 4 ? 5 : i % 251); // every byte value but EOT
    const std::string in = temp_file("echo-in.bin", paste + "\x04" + "after the end");
    const auto fast = run_json("firmware", "--elf " + fw + "/echo.elf --payload " + in);
    const auto ref = run_json("firmware", "--elf " + fw + "/echo.elf --payload " + in + " --mode reference");
    EXPECT_EQ(fast["a64_stop"], "system_off");
    EXPECT_EQ(fast["bytes_on_line"], 600);
    std::string shown; // as line_text shows bytes outside ASCII
    for (char c : paste)
        shown += static_cast<unsigned char>(c) < 0x80 ? c : '?';
    EXPECT_EQ(fast["line_text"], shown);
    EXPECT_GT(fast["interrupts"].get<std::uint64_t>(), 10u);
    for (const char* k : {"sim_time_ns", "instructions", "mmio_reads", "mmio_writes", "interrupts",
                          "bytes_on_line", "line_idle_ns", "irq_off_total_ns"})
        EXPECT_EQ(fast[k], ref[k]) << k;
    EXPECT_LT(fast["transactions"], ref["transactions"]);
}

// The 8250 early console compiled (serial_putc waiting for THRE|TEMT per byte, and the FIFO write of up to
// 16 bytes per THRE) on the platform's 16550: the same built-in boot log, sooner through the FIFO.
TEST(Firmware, EarlyConsoleOn8250SendsTheLogAndTheFifoWriteIsFaster) {
    FIRMWARE_OR_SKIP();
    const auto putc = run_json("firmware", "--elf " + fw + "/earlycon-8250.elf");
    const auto fifo = run_json("firmware", "--elf " + fw + "/earlycon-8250-fifo.elf");
    for (const auto* j : {&putc, &fifo}) {
        EXPECT_EQ((*j)["a64_stop"], "system_off");
        EXPECT_EQ((*j)["bytes_on_line"], 0) << "nothing on the PL011";
        EXPECT_EQ((*j)["uart16550_bytes_on_line"], 314);
    }
    EXPECT_EQ(putc["uart16550_text_head"], fifo["uart16550_text_head"]);
    EXPECT_EQ(putc["uart16550_text_head"].get<std::string>().rfind("[    0.000000] Booting Linux", 0), 0u);
    EXPECT_LT(fifo["sim_time_ns"].get<double>(), putc["sim_time_ns"].get<double>() * 0.95);
}

// --vcd: the core (IRQs off, handlers, wfi, polling, the bus), both UARTs and the lines; the same
// results as without, and the same waves from run to run.
TEST(Firmware, WavesShowTheCoreTheBusAndBothUartsAndChangeNoResult) {
    FIRMWARE_OR_SKIP();
    const std::string in = temp_file("waves-in.txt", std::string(300, 'w') + "\x04");
    const std::string dir = ::testing::TempDir();
    const std::string args = "--elf " + fw + "/echo.elf --payload " + in;
    const auto plain = run_json("firmware", args);
    const auto a = run_json("firmware", args + " --vcd " + dir + "fw-a.vcd");
    run_json("firmware", args + " --vcd " + dir + "fw-b.vcd");
    for (const char* k :
         {"sim_time_ns", "instructions", "mmio_reads", "interrupts", "line_text", "irq_off_total_ns"})
        EXPECT_EQ(a[k], plain[k]) << k;
    const std::string vcd = slurp(dir + "fw-a.vcd");
    EXPECT_EQ(vcd, slurp(dir + "fw-b.vcd")) << "waves differ from run to run";
    for (const char* v : {"irqs_off", "in_hardirq", "wfi", "polling", "addr", "read", "write",
                          "tx_fifo_level", "busy", "thre", "temt", "txd", "rxd"})
        EXPECT_NE(vcd.find(std::string(" ") + v + " "), std::string::npos) << v;
    EXPECT_NE(slurp(dir + "fw-a.gtkw").find("UART0"), std::string::npos);
    // The -a64 variants of earlycon-pl011 write the same groups, their results unchanged by them.
    const auto e = run_json("earlycon-pl011", "--variant v0-a64 --payload-bytes 400 --vcd " + dir +
                                                  "e.vcd --trace " + dir + "e.json");
    const auto e0 = run_json("earlycon-pl011", "--variant v0-a64 --payload-bytes 400");
    EXPECT_EQ(e["sim_time_ns"], e0["sim_time_ns"]);
    EXPECT_EQ(e["outcome"], "clean");
    EXPECT_NE(slurp(dir + "e.vcd").find(" polling "), std::string::npos);
    EXPECT_NE(slurp(dir + "fw-a.regs.txt").find("UART0 FR"), std::string::npos);
}

// --trace: the core's IRQs-off windows, handlers, wfi and polling spans on a track of its own.
TEST(Firmware, TimelineShowsTheCoresSpans) {
    FIRMWARE_OR_SKIP();
    const std::string in = temp_file("trace-in.txt", std::string(200, 't') + "\x04");
    const std::string trace = ::testing::TempDir() + "fw.json";
    const auto j = run_json("firmware", "--elf " + fw + "/echo.elf --payload " + in + " --trace " + trace);
    const auto t = nlohmann::json::parse(slurp(trace));
    std::map<std::string, int> spans;
    for (const auto& e : t["traceEvents"])
        if (e.value("ph", "") == "X") ++spans[e["name"].get<std::string>()];
    EXPECT_EQ(spans["irq"], j["interrupts"].get<int>());
    EXPECT_GT(spans["wfi"], 0);
    EXPECT_GT(spans["irqs off"], 0);
}

// --terminal stdio: what is typed goes into RXD, the echo comes back on standard output, and ctrl-D
// (the image's end of input) powers it off.
TEST(Firmware, TerminalTypesIntoTheEchoAndShowsItsAnswer) {
    FIRMWARE_OR_SKIP();
    const std::string json = ::testing::TempDir() + "term.json";
    const result r = uartvp::test::run_command("(printf 'typed into the echo\\004'; sleep 1) | " +
                                               std::string(UARTVP_BIN) + " run firmware --elf " + fw +
                                               "/echo.elf --terminal stdio --json " + json);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "typed into the echo");
    const auto j = nlohmann::json::parse(slurp(json));
    EXPECT_EQ(j["outcome"], "interactive");
    EXPECT_EQ(j["a64_stop"], "system_off");
    EXPECT_EQ(j["terminal"]["bytes_typed"], 20);
}

// The access trace of a --bus-log: "R|W address size [value]" per access, each run of reads of one
// register folded into one (a polling loop's iterations are what may differ), write values kept.
std::vector<std::string> folded(const std::string& log) {
    std::vector<std::string> out;
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);) {
        std::istringstream f(line);
        std::string t, rw, addr, size, value;
        f >> t >> rw >> addr >> size >> value;
        const std::string key = rw == "R" ? "R " + addr + " " + size : "W " + addr + " " + size + " " + value;
        if (rw == "R" && !out.empty() && out.back() == key) continue;
        out.push_back(key);
    }
    return out;
}

TEST(Firmware, CompiledEarlyconMakesTheStubsAccessesInOrder) {
    FIRMWARE_OR_SKIP();
    const std::string payload =
        temp_file("boot.log", "[    0.000000] Booting Linux\n\nprintk: bootconsole [pl11] enabled\n"
                              "a line of forty characters, give or take\n");
    for (const std::string v : {"v0", "v1", "v2"}) {
        const std::string stub_log = ::testing::TempDir() + v + ".bus",
                          a64_log = ::testing::TempDir() + v + "-a64.bus";
        const auto stub = run_json("earlycon-pl011", "--variant " + v + " --mode reference --payload " +
                                                         payload + " --bus-log " + stub_log);
        const auto a64 = run_json("earlycon-pl011", "--variant " + v + "-a64 --mode reference --payload " +
                                                        payload + " --bus-log " + a64_log);
        const auto s = folded(slurp(stub_log)), a = folded(slurp(a64_log));
        ASSERT_GT(s.size(), 100u) << v;
        EXPECT_EQ(a, s) << v << ": the folded access traces differ";
        EXPECT_EQ(a64["bytes_on_line"], stub["bytes_on_line"]) << v;
        EXPECT_EQ(a64["outcome"], "clean") << v;
        // The same writes; every read the stub made, the compiled loop made too (or more: its instructions
        // take time, so a loop may run once more).
        EXPECT_EQ(a64["mmio_writes"].get<std::uint64_t>(), stub["mmio_writes"].get<std::uint64_t>() + 5)
            << v << " (the firmware task's five set-up writes count on the core, not on the boot task)";
        EXPECT_GT(a64["instructions_ns"].get<double>(), 0) << v;
    }
}

TEST(Firmware, EarlyconFastForwardEqualsReferenceMode) {
    FIRMWARE_OR_SKIP();
    for (const std::string v : {"v0-a64", "v2-a64"}) {
        const auto fast = run_json("earlycon-pl011", "--variant " + v + " --payload-bytes 3000");
        const auto ref =
            run_json("earlycon-pl011", "--variant " + v + " --payload-bytes 3000 --mode reference");
        for (const char* k : {"sim_time_ns", "line_idle_ns", "instructions", "mmio_reads", "mmio_writes",
                              "bytes_on_line", "irq_off_total_ns", "tx_fifo_max"})
            EXPECT_EQ(fast[k], ref[k]) << v << " " << k;
        EXPECT_GT(fast["host"]["a64_fast_forwards"].get<std::uint64_t>(), 0u) << v;
        EXPECT_LT(fast["transactions"].get<std::uint64_t>() * 10, ref["transactions"].get<std::uint64_t>())
            << v;
        // The loops executed one by one in fast mode (the RTL still skipping its idle cycles): the same.
        const auto literal =
            run_json("earlycon-pl011", "--variant " + v + " --payload-bytes 3000 --set a64_fast_forward=0");
        for (const char* k : {"sim_time_ns", "instructions", "mmio_reads", "mmio_writes", "bytes_on_line"})
            EXPECT_EQ(literal[k], fast[k]) << v << " " << k;
        EXPECT_EQ(literal["host"]["a64_fast_forwards"], 0) << v;
    }
}

// ---- against QEMU's virt machine

const std::string qemu_script = UARTVP_SOURCE_DIR "/scripts/run-firmware-qemu";

// The bytes the PL011 sent on QEMU (its status, or -1 when QEMU is missing).
std::string on_qemu(const std::string& elf, const std::string& args, int& status) {
    const std::string out = ::testing::TempDir() + "qemu.out";
    std::remove(out.c_str());
    const result r = uartvp::test::run_command(qemu_script + " --output " + out + " " + args + " " + elf);
    status = r.code;
    return slurp(out);
}

bool have_qemu() {
    return uartvp::test::run_command("command -v qemu-system-aarch64").code == 0;
}

TEST(Firmware, SameBytesAsQemuVirt) {
    FIRMWARE_OR_SKIP();
    if (!have_qemu())
        GTEST_SKIP() << "qemu-system-aarch64 is not installed (apt-get install qemu-system-arm)";
    std::string boot;
    for (int i = 0; i < 40; ++i)
        boot += "[    " + std::to_string(i) + ".000000] line " + std::to_string(i) + " of the boot log\n";
    const std::string payload = temp_file("qemu-boot.log", boot);
    std::string paste;
    for (int i = 0; i < 500; ++i)
        paste += static_cast<char>('!' + i % 90);
    const std::string input = temp_file("qemu-in.txt", paste + "\x04");
    struct image {
        std::string elf, qemu_args, uartvp_args;
    };
    const std::vector<image> images = {
        {"hello", "", ""},
        {"timer", "", ""},
        {"compute", "", ""},
        {"earlycon-v0", "--payload " + payload, ""},
        {"earlycon-v2", "--payload " + payload, ""},
        {"echo", "--input " + input, "--payload " + input},
    };
    for (const image& i : images) {
        int status = 0;
        const std::string qemu = on_qemu(fw + "/" + i.elf + ".elf", i.qemu_args, status);
        ASSERT_EQ(status, 0) << i.elf << " on QEMU";
        std::string uartvp_text;
        if (i.elf.rfind("earlycon", 0) == 0) {
            // The earlycon images take their boot log from the mailbox: earlycon-pl011's -a64 variants.
            const auto j =
                run_json("earlycon-pl011", "--variant " + i.elf.substr(9) + "-a64 --payload " + payload);
            EXPECT_EQ(j["outcome"], "clean") << i.elf;
            uartvp_text = boot;
            std::string crlf;
            for (char c : uartvp_text) {
                if (c == '\n') crlf += '\r';
                crlf += c;
            }
            EXPECT_EQ(qemu, crlf) << i.elf;
            continue;
        }
        const auto j = run_json("firmware", "--elf " + fw + "/" + i.elf + ".elf " + i.uartvp_args);
        EXPECT_EQ(j["a64_stop"], "system_off") << i.elf;
        EXPECT_EQ(j["bytes_on_line"].get<std::size_t>(), qemu.size()) << i.elf;
        EXPECT_EQ(j["line_text"].get<std::string>(), qemu) << i.elf;
    }
}

} // namespace
