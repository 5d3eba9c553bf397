// SPDX-License-Identifier: Apache-2.0
// The waveform and timeline writers on their own, without a model: the GTKWave save file (groups
// closed by name, formats, translated rows, the zoom), translate filters, and the Trace Event writer
// (exact times, JSON strings, a failed write reported).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <systemc>
#include <uartvp/gtkw_save.h>
#include <uartvp/trace_event_writer.h>
#include <uartvp/vcd2fst_pipe.h>

#include "sim_main.h"

using namespace uartvp;
using namespace sc_core;

namespace {
std::string slurp(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}
std::string scratch(const std::string& name) {
    return testing::TempDir() + "uartvp_waves_writers_" + name;
}
} // namespace

TEST(GtkwSave, GroupsEndWithTheirNameAndEachFormatHasItsFlags) {
    gtkw_save s;
    s.begin_group("CPU");
    s.signal(gtkw_save::format::bit, "cpu0.irqs_off");
    s.translated(gtkw_save::format::dec, 1, "/abs/tasks.txt", "cpu0.task[15:0]");
    s.begin_group("Inner");
    s.signal(gtkw_save::format::hex, "bus.addr[63:0]");
    s.end_group();
    s.signal(gtkw_save::format::analog, "uart0.level[31:0]");
    s.end_group();
    const std::string path = scratch("groups.gtkw");
    ASSERT_TRUE(s.write(path, "/abs/run.vcd", "/abs/run.gtkw", 40 * 10 * 1e12 / 115200));
    const std::string g = slurp(path);
    EXPECT_NE(g.find("[dumpfile] \"/abs/run.vcd\"\n[savefile] \"/abs/run.gtkw\"\n"), std::string::npos);
    // 40 characters of 10 bits at 115200 baud over 1300 pixels: 2.67 us per pixel, 2^22 ps: zoom -30.
    EXPECT_NE(g.find("\n*-30.000000 "), std::string::npos) << g;
    EXPECT_NE(g.find("@800200\n-CPU\n@28\ncpu0.irqs_off\n@2024\n^1 /abs/tasks.txt\ncpu0.task[15:0]\n"
                     "@800200\n-Inner\n@22\nbus.addr[63:0]\n@1000200\n-Inner\n"
                     "@8024\nuart0.level[31:0]\n@20000\n-\n@20000\n-\n@1000200\n-CPU\n"),
              std::string::npos)
        << g;
    std::remove(path.c_str());
}

TEST(GtkwSave, TranslateFilterIsOneValueAndNamePerLine) {
    const std::string path = scratch("filter.txt");
    ASSERT_TRUE(write_translate_filter(path, {{"0", "(idle)"}, {"1", "boot"}}));
    EXPECT_EQ(slurp(path), "0 (idle)\n1 boot\n");
    std::remove(path.c_str());
    EXPECT_FALSE(write_translate_filter("/nonexistent-dir/filter.txt", {{"0", "x"}}));
}

TEST(TraceEventWriter, TimesAreExactAndSpansThatTouchTouch) {
    UARTVP_SIM_TEST(); // sc_time needs the kernel's time resolution: 1 ps
    const std::string path = scratch("trace.json");
    {
        trace_event_writer w(path, "p \"q\"");
        EXPECT_EQ(w.time(sc_time(1, SC_US)), "1");
        EXPECT_EQ(w.time(sc_time(0.5, SC_US)), "0.5");
        // 1 ps is 1.048576 units of 2^-20 us: rounded to 1 unit, written exactly.
        EXPECT_EQ(w.time(sc_time(1, SC_PS)), "0.00000095367431640625");
        w.thread(3, "cpu3", 3);
        w.complete(3, "a", "task", sc_time(1, SC_US), sc_time(2, SC_US));
        w.complete(3, "b", "task", sc_time(2, SC_US), sc_time(1, SC_US), "{\"k\":1}"); // end before start: 0
        w.counter("level", sc_time(3, SC_US), "{\"level\":4}");
        w.instant('g', 0, "lost byte", "difference", sc_time(4, SC_US), "{}");
        EXPECT_TRUE(w.close());
    }
    const std::string t = slurp(path);
    EXPECT_EQ(t, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
                 "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"p \\\"q\\\"\"}},\n"
                 "{\"ph\":\"M\",\"pid\":1,\"tid\":3,\"name\":\"thread_name\",\"args\":{\"name\":\"cpu3\"}},\n"
                 "{\"ph\":\"M\",\"pid\":1,\"tid\":3,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":3}},\n"
                 "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"name\":\"a\",\"cat\":\"task\",\"ts\":1,\"dur\":1},\n"
                 "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"name\":\"b\",\"cat\":\"task\",\"ts\":2,\"dur\":0,\"args\":{\"k\":1}},\n"
                 "{\"ph\":\"C\",\"pid\":1,\"name\":\"level\",\"ts\":3,\"args\":{\"level\":4}},\n"
                 "{\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,\"name\":\"lost byte\",\"cat\":\"difference\",\"ts\":4,"
                 "\"args\":{}}\n]}\n");
    std::remove(path.c_str());
}

TEST(TraceEventWriter, InvalidUtf8IsReplacedNotRefused) {
    EXPECT_EQ(trace_event_writer::json_string("a\xff" "b\n"), "\"a\xEF\xBF\xBD" "b\\n\"");
}

TEST(TraceEventWriter, AFailedWriteIsReportedAtClose) {
    UARTVP_SIM_TEST();
    trace_event_writer w("/dev/full", "p");
    for (int i = 0; i < 10000; ++i)
        w.complete(0, "x", "task", SC_ZERO_TIME, sc_time(1, SC_NS));
    EXPECT_FALSE(w.close());
    EXPECT_THROW(trace_event_writer("/nonexistent-dir/t.json", "p"), std::runtime_error);
}

TEST(Vcd2fstPipe, FindsVcd2fstOnThePathOrNothing) {
    const std::string found = vcd2fst_pipe::find();
    if (found.empty()) GTEST_SKIP() << "vcd2fst is not on the PATH";
    EXPECT_EQ(found.substr(found.size() - 8), "/vcd2fst");
}
