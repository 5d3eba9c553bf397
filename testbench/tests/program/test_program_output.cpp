// SPDX-License-Identifier: Apache-2.0
// What the program prints for the people who read it: compare's table once for every scenario and
// profile, columns that fit the longest name, the help with typed values, defaults and examples, a
// plugin variant named with the wrong scenario, and --csv.
#include <set>
#include <sstream>

#include "program_runner.h"

using namespace uartvp::test;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

struct listed_scenario {
    std::string name;
    std::vector<std::string> variants, profiles;
};

// The scenarios, variants and profiles as `uartvp list` shows them.
std::vector<listed_scenario> listed() {
    const result r = run_uartvp("list");
    EXPECT_EQ(r.code, 0) << r.err;
    std::vector<listed_scenario> out;
    std::vector<std::string>* into = nullptr;
    for (const std::string& l : lines_of(r.out)) {
        if (l == "--set keys:") break;
        if (!l.empty() && l[0] != ' ') {
            out.push_back({l, {}, {}});
            into = nullptr;
        } else if (l == "  variants:") {
            into = &out.back().variants;
        } else if (l == "  profiles:") {
            into = &out.back().profiles;
        } else if (into && l.rfind("    ", 0) == 0) {
            into->push_back(l.substr(4, l.find(' ', 4) - 4));
        }
    }
    return out;
}

// Where each line's text after its name begins (the description column), for the lines under `label`.
std::set<std::size_t> description_columns(const std::string& text) {
    std::set<std::size_t> cols;
    bool in_list = false;
    for (const std::string& l : lines_of(text)) {
        if (l == "  variants:" || l == "  profiles:") {
            in_list = true;
            continue;
        }
        if (l.rfind("    ", 0) != 0) {
            in_list = false;
            continue;
        }
        if (!in_list) continue;
        const std::size_t name_end = l.find(' ', 4);
        cols.insert(l.find_first_not_of(' ', name_end));
    }
    return cols;
}

} // namespace

// Every scenario on every profile, two variants: each line of the table comes once (the RPi profile's
// seed table after the rows used to make compare print the whole table twice).
TEST(ProgramOutput, CompareprintsItsHeaderAndTableOnceForEveryScenarioAndProfile) {
    const std::vector<listed_scenario> all = listed();
    ASSERT_EQ(all.size(), 6u);
    for (const listed_scenario& s : all) {
        ASSERT_GE(s.variants.size(), 1u) << s.name;
        for (const std::string& p : s.profiles) {
            // The variants that have a meaning on the profile: compare leaves the others out. Two where
            // there are (scenario firmware has one).
            const std::string args = "compare " + s.name + " --profile " + p + " --variants " +
                                     s.variants[0] + (s.variants.size() > 1 ? "," + s.variants[1] : "") +
                                     (s.name == "boot-console" ? "" : " --payload-bytes 400");
            const result r = run_uartvp(args);
            ASSERT_TRUE(r.code == 0 || r.code == 1) << args << ": " << r.err;
            std::set<std::string> seen;
            for (const std::string& l : lines_of(r.out))
                if (!l.empty())
                    EXPECT_TRUE(seen.insert(l).second) << args << ": printed twice: " << l << "\n" << r.out;
            EXPECT_EQ(r.out.find(s.name + " on profile " + p), r.out.rfind(s.name + " on profile " + p))
                << r.out;
            EXPECT_NE(r.out.find(s.name + " on profile " + p), std::string::npos) << args << ": " << r.out;
        }
    }
}

// The rows of a table come as the runs end, the seed table after the last: on rpi3b, in that order.
TEST(ProgramOutput, CompareOnRpi3bPrintsTheSeedTableOnceAfterEveryRow) {
    const result r = run_uartvp("compare boot-console --profile rpi3b --variants legacy,merged");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto legacy = r.out.find("\nlegacy "), merged = r.out.find("\nmerged ");
    const auto seed = r.out.find("seed probe s");
    ASSERT_NE(seed, std::string::npos) << r.out;
    EXPECT_LT(legacy, merged);
    EXPECT_LT(merged, seed);
    EXPECT_EQ(seed, r.out.rfind("seed probe s"));
}

// `list`: one description column for every variant and profile, whatever the longest name
// (console-qdf2400-e44 is longer than the column used to be).
TEST(ProgramOutput, ListColumnsFitTheLongestName) {
    const result r = run_uartvp("list");
    ASSERT_EQ(r.code, 0);
    ASSERT_NE(r.out.find("console-qdf2400-e44"), std::string::npos);
    EXPECT_EQ(description_columns(r.out).size(), 1u) << r.out;
    EXPECT_NE(r.out.find("payload without --payload or --payload-bytes: a generated boot log of 4096 bytes"),
              std::string::npos)
        << "each scenario names its default payload: " << r.out;
}

// compare's variant column fits the longest name: every row's second column ends where the header's
// "sim ms" ends.
TEST(ProgramOutput, CompareColumnsFitTheLongestVariantName) {
    const result r = run_uartvp("compare earlycon-pl011 --profile vm --payload-bytes 200 --variants "
                                "v0,console-qdf2400-e44");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::vector<std::string> ls = lines_of(r.out);
    const auto header =
        std::find_if(ls.begin(), ls.end(), [](const std::string& l) { return l.rfind("variant", 0) == 0; });
    ASSERT_NE(header, ls.end()) << r.out;
    const std::size_t end = header->find("sim ms") + 6;
    for (auto it = header + 1; it != ls.end() && !it->empty() && it->rfind("variant", 0) != 0; ++it) {
        const std::size_t name_end = it->find(' ');
        const std::size_t num_end = it->find(' ', it->find_first_not_of(' ', name_end));
        EXPECT_EQ(num_end, end) << *it << "\n" << r.out;
    }
}

// The help: `uartvp` as the program's name, typed values, the defaults (the payloads named), the
// subcommands each with a line, and three examples per subcommand.
TEST(ProgramOutput, HelpNamesTheProgramTypesDefaultsAndExamples) {
    const result top = run_uartvp("--help");
    ASSERT_EQ(top.code, 0);
    EXPECT_NE(top.out.find("Usage: uartvp "), std::string::npos) << top.out;
    EXPECT_EQ(top.out.find(UARTVP_BIN), std::string::npos) << "not the build's path: " << top.out;
    for (const char* cmd : {"list", "run", "compare", "sweep"})
        EXPECT_NE(top.out.find(std::string("uartvp ") + cmd + " --help"), std::string::npos) << cmd;
    const result run = run_uartvp("run --help");
    ASSERT_EQ(run.code, 0);
    for (const char* typed : {"--payload-bytes N", "--set KEY=VALUE", "--json FILE", "--mode fast|reference",
                              "--terminal stdio|pty|tcp:PORT", "earlycon-pl011 4096", "console-8250 2500",
                              "boot-console the profile's calibrated boot"})
        EXPECT_NE(run.out.find(typed), std::string::npos) << typed << "\n" << run.out;
    EXPECT_EQ(run.out.find("TEXT"), std::string::npos) << run.out;
    for (const char* cmd : {"run", "compare", "sweep", "list"}) {
        const result h = run_uartvp(std::string(cmd) + " --help");
        ASSERT_EQ(h.code, 0) << cmd;
        std::size_t examples = 0;
        for (const std::string& l : lines_of(h.out))
            if (l.rfind(std::string("  uartvp ") + cmd, 0) == 0) ++examples;
        EXPECT_GE(examples, 3u) << cmd << "\n" << h.out;
        EXPECT_EQ(h.out.find("TEXT"), std::string::npos) << cmd << "\n" << h.out;
    }
}

// --csv: one row a run, the result fields as columns (nested ones with dots), quoted as RFC 4180
// wants; compare's and sweep's rows are the same runs as their JSON.
TEST(ProgramOutput, CsvHasARowPerRunWithTheResultFieldsAsColumns) {
    char tmpl[] = "/tmp/uartvp-csv-XXXXXX";
    const std::string dir = mkdtemp(tmpl);
    const result c =
        run_uartvp("compare earlycon-pl011 --profile vm --payload-bytes 200 --variants v0,v1 --csv " + dir +
                   "/c.csv --json " + dir + "/c.json");
    ASSERT_EQ(c.code, 0) << c.err;
    const std::vector<std::string> rows = lines_of(slurp(dir + "/c.csv"));
    ASSERT_EQ(rows.size(), 3u);
    const std::string& head = rows[0];
    for (const char* col : {"scenario", "variant", "sim_time_ns", "mmio_reads", "params.baud", "peak_rss_mb"})
        EXPECT_NE(("," + head + "\r").find("," + std::string(col) + ","), std::string::npos)
            << col << ": " << head;
    EXPECT_EQ(head.find("per_core"), std::string::npos) << "lists have no cell";
    nlohmann::json j;
    std::ifstream(dir + "/c.json") >> j;
    const auto column = [&](const std::string& name) {
        std::istringstream in(head);
        std::size_t i = 0;
        for (std::string c; std::getline(in, c, ','); ++i)
            if (c == name || c == name + "\r") return i;
        return std::string::npos;
    };
    const auto cell = [](const std::string& row, std::size_t i) {
        std::istringstream in(row);
        std::string c;
        for (std::size_t k = 0; k <= i; ++k)
            std::getline(in, c, ',');
        return c;
    };
    const std::size_t reads = column("mmio_reads");
    ASSERT_NE(reads, std::string::npos);
    EXPECT_EQ(cell(rows[1], reads), std::to_string(j["runs"][0]["mmio_reads"].get<std::uint64_t>()));
    EXPECT_EQ(cell(rows[2], reads), std::to_string(j["runs"][1]["mmio_reads"].get<std::uint64_t>()));
    EXPECT_EQ(cell(rows[2], column("variant")), "v1");

    const result s = run_uartvp(
        "sweep tty-paste --variants read --payload-bytes 100 --set hog_us=0,50 --csv " + dir + "/s.csv");
    ASSERT_EQ(s.code, 0) << s.err;
    const std::vector<std::string> srows = lines_of(slurp(dir + "/s.csv"));
    ASSERT_EQ(srows.size(), 3u);
    EXPECT_NE(srows[0].find("sweep.set.hog_us"), std::string::npos) << srows[0];
    EXPECT_EQ(srows[0].rfind("scenario,variant,profile,payload,sweep.", 0), 0u)
        << "what names a run first: " << srows[0];
    EXPECT_EQ(srows[1].rfind("tty-paste,read,hw,generated:100,", 0), 0u)
        << "strings are cells too: " << srows[1];

    // Bad --csv: exit 2, nothing written.
    EXPECT_EQ(run_uartvp("compare earlycon-pl011 --csv " + dir + "/nodir/c.csv").code, 2);
    const result same = run_uartvp("compare earlycon-pl011 --csv " + dir + "/x --json " + dir + "/x");
    EXPECT_EQ(same.code, 2);
    EXPECT_NE(same.err.find("same file"), std::string::npos) << same.err;
    EXPECT_EQ(run_uartvp("sweep earlycon-pl011 --csv -").code, 2);
    EXPECT_FALSE(std::ifstream(dir + "/x").good());
    std::system(("rm -rf " + dir).c_str());
}
