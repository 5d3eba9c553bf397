// SPDX-License-Identifier: Apache-2.0
// The --set keys against their table (params.cpp): the unknown-key message names exactly the table's
// keys, `uartvp list` describes each, a run's JSON `params` holds exactly the keys its scenario and
// profile take, and every other key is refused with exit 2.
#include <algorithm>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/params.h"
#include "program_runner.h"
#include "scenarios/scenario.h"

using namespace uartvp::test;
using uartvp::program::key_def;
using uartvp::program::keys;
using uartvp::program::scenarios;

namespace {

std::vector<std::string> table_names() {
    std::vector<std::string> names;
    for (const key_def& k : keys())
        names.push_back(k.name);
    return names;
}

// A short run of each scenario: the payload its tests use.
std::string short_payload(const std::string& scenario) {
    return scenario == "boot-console" ? "--payload-bytes 3000" : "--payload-bytes 300";
}

TEST(Keys, EachNamedOnceAndWithItsUnit) {
    std::set<std::string> seen;
    // The unit a name ends in: cpu_hz, hog_period_us, paste_kbps; baud is its own.
    const std::map<std::string, std::string> suffix{
        {"Hz", "hz"},       {"ns", "ns"},     {"us", "us"},         {"ms", "ms"},
        {"bytes", "bytes"}, {"KB/s", "kbps"}, {"cycles", "cycles"}, {"baud", "baud"}};
    for (const key_def& k : keys()) {
        EXPECT_TRUE(seen.insert(k.name).second) << k.name << " twice";
        EXPECT_FALSE(k.description.empty()) << k.name;
        EXPECT_FALSE(k.scope.empty()) << k.name;
        if (k.unit.empty()) continue;
        ASSERT_TRUE(suffix.count(k.unit)) << k.name << ": unit " << k.unit;
        const std::string& u = suffix.at(k.unit);
        EXPECT_TRUE(k.name == u ||
                    (k.name.size() > u.size() + 1 &&
                     k.name.compare(k.name.size() - u.size() - 1, std::string::npos, "_" + u) == 0))
            << k.name << " does not end in its unit " << k.unit;
    }
}

// The scopes name scenarios and profiles that exist; a key every run refuses would be dead.
TEST(Keys, ScopesNameScenariosAndProfilesThatExist) {
    for (const key_def& k : keys())
        for (const uartvp::program::key_scope& s : k.scope) {
            const uartvp::program::scenario_def* def = uartvp::program::find_scenario(s.scenario);
            ASSERT_NE(def, nullptr) << k.name << ": " << s.scenario;
            for (const std::string& p : s.profiles)
                EXPECT_TRUE(std::any_of(def->profiles.begin(), def->profiles.end(),
                                        [&](const auto& d) { return d.name == p; }))
                    << k.name << ": " << s.scenario << " has no profile " << p;
        }
}

TEST(Keys, UnknownKeyMessageNamesExactlyTheTablesKeys) {
    const result r = run_uartvp("run earlycon-pl011 --set nosuch=1");
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    const std::string lead = "unknown key (known: ";
    const auto at = r.err.find(lead);
    ASSERT_NE(at, std::string::npos) << r.err;
    const auto end = r.err.find(')', at);
    ASSERT_NE(end, std::string::npos) << r.err;
    std::vector<std::string> named;
    std::istringstream in(r.err.substr(at + lead.size(), end - at - lead.size()));
    for (std::string w; std::getline(in, w, ',');)
        named.push_back(w.substr(w.find_first_not_of(' ')));
    EXPECT_EQ(named, table_names());
}

TEST(Keys, ListDescribesEachKey) {
    const result r = run_uartvp("list");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto at = r.out.find("--set keys:\n");
    ASSERT_NE(at, std::string::npos);
    const std::string section = r.out.substr(at);
    EXPECT_EQ(lines(section), 1 + static_cast<int>(keys().size())) << "one line per key:\n" << section;
    // One description column, fitting the longest key's name.
    std::size_t width = 18;
    for (const key_def& k : keys())
        width = std::max(width, k.name.size());
    for (const key_def& k : keys()) {
        std::string line = "    " + k.name;
        line.resize(4 + width, ' ');
        line += " " + k.description + "\n";
        EXPECT_NE(section.find(line), std::string::npos) << k.name << ": not in the list as\n" << line;
    }
}

// Every profile of every scenario: its JSON `params` holds the keys the table says it takes and none
// of the others; each other key, given, is refused with exit 2 and one line that names it.
TEST(Keys, EachRunShowsTheKeysItTakesAndRefusesTheOthers) {
    for (const uartvp::program::scenario_def& s : scenarios())
        for (const uartvp::program::profile_def& p : s.profiles) {
            const std::string where = s.name + " --profile " + p.name;
            const nlohmann::json j = run_json(s.name, "--profile " + p.name + " " + short_payload(s.name));
            ASSERT_TRUE(j.contains("params")) << where;
            for (const key_def& k : keys()) {
                const bool takes = k.takes(s.name, p.name);
                EXPECT_EQ(j["params"].contains(k.name), takes) << where << ": " << k.name;
                if (takes) continue;
                const std::string value = k.default_value.empty() ? "1" : k.default_value;
                const result r = run_uartvp("run " + where + " --set " + k.name + "=" + value);
                EXPECT_EQ(r.code, 2) << where << " --set " << k.name << ": " << r.err;
                EXPECT_EQ(lines(r.err), 1) << where << ": " << r.err;
                EXPECT_NE(r.err.find("--set " + k.name), std::string::npos) << where << ": " << r.err;
            }
        }
}

} // namespace

// libsystemc refers to sc_main; this test links the program's library, never calls it.
extern "C" int sc_main(int, char**) {
    return 1;
}
