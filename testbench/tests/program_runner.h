#pragma once
// Runs the uartvp program (UARTVP_BIN) as a user would, for tests: exit code, stdout, stderr, JSON.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace uartvp::test {

struct result {
    int code;
    std::string out, err;
};

inline std::string slurp(const std::string& path) {
    std::ifstream f(path);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

// Runs a shell command line, capturing exit code, stdout and stderr.
inline result run_command(const std::string& command) {
    char dir[] = "/tmp/uartvp-test-XXXXXX";
    const std::string d = mkdtemp(dir);
    const std::string cmd = command + " >" + d + "/out 2>" + d + "/err";
    const int st = std::system(cmd.c_str());
    result r{WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(d + "/out"), slurp(d + "/err")};
    std::remove((d + "/out").c_str());
    std::remove((d + "/err").c_str());
    rmdir(d.c_str());
    return r;
}

inline result run_uartvp(const std::string& args) { return run_command(std::string(UARTVP_BIN) + " " + args); }

// `uartvp run SCENARIO ARGS --json F`, expecting `expect_code`; returns the JSON.
inline nlohmann::json run_json(const std::string& scenario, const std::string& args, int expect_code = 0) {
    char tmpl[] = "/tmp/uartvp-json-XXXXXX";
    const int fd = mkstemp(tmpl);
    close(fd);
    const result r = run_uartvp("run " + scenario + " " + args + " --json " + tmpl);
    EXPECT_EQ(r.code, expect_code) << args << ": " << r.err;
    nlohmann::json j;
    std::ifstream f(tmpl);
    if (f.peek() != std::ifstream::traits_type::eof()) f >> j;
    std::remove(tmpl);
    return j;
}

inline int lines(const std::string& s) {
    return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

inline void expect_usage_error(const std::string& args, const std::string& names) {
    const result r = run_uartvp(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(lines(r.err), 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find(names), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.err.find("SystemC"), std::string::npos) << "no SystemC banner: " << r.err;
}

} // namespace uartvp::test
