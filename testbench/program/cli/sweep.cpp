// SPDX-License-Identifier: Apache-2.0
#include "cli/sweep.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli/csv.h"
#include "cli/jobs.h"
#include "cli/outputs.h"
#include "cli/params.h"
#include "cli/payload.h"
#include "cli/progress.h"
#include "cli/stop.h"
#include "scenarios/scenario.h"

namespace uartvp::program {

namespace {

constexpr int exit_ok = 0, exit_difference = 1;
constexpr const char* manifest_name = "sweep.json";

std::string result_name(std::size_t i) {
    return fmt::format("run-{:05}.json", i);
}

std::string absolute(const std::string& path) {
    char* real = realpath(path.c_str(), nullptr);
    if (!real) throw usage_error(shown(path) + ": no such file or directory");
    std::string r = real;
    std::free(real);
    return r;
}

// The directory of `path` as an absolute path (it must exist), and the name in it.
std::pair<std::string, std::string> split_path(const std::string& path) {
    return {absolute(outputs::dir_of(path)), outputs::name_of(path)};
}

std::string quoted(const std::string& s) {
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                          "_-+=.,/:@%") == std::string::npos)
        return s;
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

nlohmann::json point_json(const sweep_point& p, std::size_t index) {
    nlohmann::json set = nlohmann::json::object();
    for (const auto& [k, v] : p.sets)
        set[k] = v;
    return {{"index", index},
            {"variant", p.variant},
            {"profile", p.profile},
            {"payload_bytes",
             p.payload_bytes.empty() ? nlohmann::json() : nlohmann::json(std::stoull(p.payload_bytes))},
            {"set", set}};
}

sweep_point point_from_json(const nlohmann::json& j) {
    sweep_point p;
    p.variant = j.at("variant").get<std::string>();
    p.profile = j.at("profile").get<std::string>();
    if (!j.at("payload_bytes").is_null())
        p.payload_bytes = std::to_string(j["payload_bytes"].get<std::uint64_t>());
    for (const auto& [k, v] : j.at("set").items())
        p.sets.emplace_back(k, v.get<std::string>());
    return p;
}

std::vector<std::string> run_args(const std::string& self, const std::string& scenario, const sweep_point& p,
                                  const sweep_options& o, const std::string& out) {
    std::vector<std::string> a{self, "run", scenario, "--variant", p.variant, "--profile", p.profile};
    if (!o.payload_file.empty()) a.insert(a.end(), {"--payload", o.payload_file});
    if (!p.payload_bytes.empty()) a.insert(a.end(), {"--payload-bytes", p.payload_bytes});
    for (const auto& [k, v] : p.sets)
        a.insert(a.end(), {"--set", k + "=" + v});
    a.insert(a.end(), {"--mode", o.mode});
    if (o.expect_loss) a.push_back("--expect-loss");
    for (const std::string& f : o.plugins)
        a.insert(a.end(), {"--plugin", f});
    a.insert(a.end(), {"--quiet", "--json", out});
    return a;
}

// The cross product, in a fixed order: profile, payload size, each --set key as given, variant last.
std::vector<sweep_point> points(const scenario_def& s, const sweep_options& o) {
    std::vector<std::string> variants = o.variants, profiles = o.profiles, sizes = o.payload_bytes;
    if (variants.empty())
        for (const named& v : s.variants)
            variants.push_back(v.name);
    if (profiles.empty()) profiles.push_back(s.default_profile);
    if (sizes.empty()) sizes.push_back("");
    std::vector<std::pair<std::string, std::vector<std::string>>> keys;
    std::set<std::string> seen;
    for (const std::string& kv : o.sets) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw usage_error("--set " + shown(kv) + ": expected KEY=A,B,...");
        const std::string key = kv.substr(0, eq);
        if (!seen.insert(key).second) throw usage_error("--set " + shown(key) + " given twice");
        keys.emplace_back(key, split_list(kv.substr(eq + 1), "--set " + key));
    }
    for (const auto* list : {&variants, &profiles, &sizes}) {
        std::set<std::string> once(list->begin(), list->end());
        if (once.size() != list->size()) throw usage_error("a value is listed twice in a sweep list");
    }
    std::vector<sweep_point> out;
    std::vector<std::size_t> at(keys.size(), 0);
    for (const std::string& prof : profiles)
        for (const std::string& n : sizes)
            for (bool more = true; more;) {
                for (const std::string& v : variants) {
                    // Every variant by default: those without a meaning on this profile are left out
                    // (named in a list, they are refused when checked).
                    if (o.variants.empty() && s.variant_refusal && s.variant_refusal(v, prof)) continue;
                    sweep_point p{v, prof, n, {}};
                    for (std::size_t k = 0; k < keys.size(); ++k)
                        p.sets.emplace_back(keys[k].first, keys[k].second[at[k]]);
                    out.push_back(p);
                }
                // The next combination of --set values, the last key fastest.
                more = false;
                for (std::size_t k = keys.size(); k-- > 0;) {
                    if (++at[k] < keys[k].second.size()) {
                        more = true;
                        break;
                    }
                    at[k] = 0;
                }
            }
    if (out.size() > 100000)
        throw usage_error(fmt::format("the sweep has {} runs: at most 100000", out.size()));
    return out;
}

std::string shown_point(const sweep_point& p) {
    std::string t = p.variant + " " + p.profile;
    if (!p.payload_bytes.empty()) t += " " + p.payload_bytes + " B";
    for (const auto& [k, v] : p.sets)
        t += " " + k + "=" + v;
    return t;
}

// The table's rows, one a run.
struct table {
    std::vector<std::string> keys;
    std::size_t vw = 8, pw = 7;
    std::string header() const {
        std::string h =
            fmt::format("{:>5} {:<{}} {:<{}} {:>9}", "#", "variant", vw, "profile", pw, "payload");
        for (const std::string& k : keys)
            h += fmt::format(" {:>12}", k);
        return h + fmt::format(" {:>12} {:>7} {:>7} {:>14} {:>7}\n", "sim ms", "lost", "rx lost", "outcome",
                               "wall s");
    }
    std::string row(const sweep_point& p, std::size_t i, const nlohmann::json& r) const {
        std::string t = fmt::format("{:>5} {:<{}} {:<{}} {:>9}", i, p.variant, vw, p.profile, pw,
                                    p.payload_bytes.empty() ? "-" : p.payload_bytes);
        for (const auto& [k, v] : p.sets)
            t += fmt::format(" {:>12}", v);
        return t + fmt::format(" {:>12.3f} {:>7} {:>7} {:>14} {:>7.2f}\n", r.value("sim_time_ns", 0.0) / 1e6,
                               r.value("lost_bytes", std::uint64_t{0}),
                               r.value("rx_lost_bytes", std::uint64_t{0}),
                               r.value("outcome", std::string("?")), r.value("wall_s", 0.0));
    }
};

table make_table(const std::vector<sweep_point>& pts) {
    table t;
    if (!pts.empty())
        for (const auto& kv : pts.front().sets)
            t.keys.push_back(kv.first);
    for (const sweep_point& p : pts) {
        t.vw = std::max(t.vw, p.variant.size());
        t.pw = std::max(t.pw, p.profile.size());
    }
    return t;
}

int code_of(const nlohmann::json& r) {
    const std::string outcome = r.value("outcome", std::string());
    return outcome == "difference" ? exit_difference : exit_ok;
}

// JSON Lines to --json (a file written whole, or standard output).
class lines_output {
public:
    explicit lines_output(const std::string& path)
        : m_path(path) {
        if (m_path.empty() || m_path == "-") return;
        m_tmp = outputs::temporary(m_path);
        m_f.open(m_tmp);
        if (!m_f) throw std::runtime_error("cannot write " + shown(m_path));
    }
    bool to_stdout() const { return m_path == "-"; }
    void add(const nlohmann::json& j) {
        const std::string line = j.dump() + "\n";
        if (to_stdout()) {
            progress::print(stdout, line);
            if (std::ferror(stdout)) throw std::runtime_error("cannot write standard output");
        } else if (!m_path.empty()) {
            m_f << line;
        }
    }
    void close() {
        if (!m_f.is_open()) return;
        m_f.close();
        if (!m_f) throw std::runtime_error("cannot write " + shown(m_path));
    }

private:
    std::string m_path, m_tmp;
    std::ofstream m_f;
};

// --json and --csv: files of their own (--json may be standard output).
void check_sweep_outputs(const sweep_options& o) {
    if (!o.json.empty() && o.json != "-")
        if (const std::string why = outputs::path_problem(o.json, "--json " + shown(o.json)); !why.empty())
            throw usage_error(why);
    check_csv_path(o.csv);
    if (!o.json.empty() && !o.csv.empty() && outputs::absolute(o.json) == outputs::absolute(o.csv))
        throw usage_error("--json and --csv name the same file " + shown(o.csv));
}

nlohmann::json read_result(const std::string& path) {
    std::ifstream f(path);
    if (!f) return nullptr;
    try {
        nlohmann::json j;
        f >> j;
        return j;
    } catch (const nlohmann::json::exception&) {
        return nullptr;
    }
}

nlohmann::json line_of(const nlohmann::json& result, const sweep_point& p, std::size_t i) {
    nlohmann::json j = result;
    j["sweep"] = point_json(p, i);
    return j;
}

// What a run of `p` would write as its parameters and payload: the profile applied, then each --set
// value parsed as `run` parses it, so that "2500" and "2500.0" match and a changed value does not.
struct expected_run {
    nlohmann::json params; // the --set keys' values and the mode
    std::string payload;   // the result's "payload": a file, "generated:N", or "calibrated:PROFILE"
};

expected_run expect(const scenario_def& s, const nlohmann::json& manifest, const sweep_point& p) {
    params prm;
    prm.scenario = s.name;
    prm.profile = p.profile;
    for (const profile_def& d : s.profiles)
        if (d.name == p.profile) d.apply(prm);
    expected_run e;
    e.params = nlohmann::json::object();
    e.params["mode"] = manifest.at("mode").get<std::string>();
    for (const auto& [k, v] : p.sets) {
        if (auto err = prm.set(k, v)) throw usage_error("--collect: the manifest's --set: " + *err);
        e.params[k] = prm.to_json().at(k);
    }
    e.payload = payload_source(manifest.at("payload_file").get<std::string>(),
                               p.payload_bytes.empty() ? 0 : std::stoull(p.payload_bytes),
                               s.default_payload_bytes, p.profile);
    return e;
}

// Why result `r` is not the result of the job that ran point `p` (one clause per difference), or "".
std::string staleness(const nlohmann::json& r, const sweep_point& p, const expected_run& e,
                      bool expect_loss) {
    std::string why;
    const auto differs = [&why](const std::string& what, const nlohmann::json& got,
                                const nlohmann::json& want) {
        if (got != want)
            why += fmt::format("{}{} is {} in the result, {} in the job", why.empty() ? "" : "; ", what,
                               got.is_null() ? "missing" : got.dump(), want.dump());
    };
    differs("variant", r.value("variant", nlohmann::json()), p.variant);
    differs("profile", r.value("profile", nlohmann::json()), p.profile);
    differs("payload", r.value("payload", nlohmann::json()), e.payload);
    differs("expect_loss", r.value("expect_loss", nlohmann::json()), expect_loss);
    const nlohmann::json got = r.value("params", nlohmann::json::object());
    for (const auto& [k, v] : e.params.items())
        differs(k == "mode" ? std::string("mode") : "--set " + k, got.value(k, nlohmann::json()), v);
    return why;
}

int collect(const sweep_options& o) {
    const std::string dir = absolute(o.collect);
    const nlohmann::json manifest = read_result(dir + "/" + manifest_name);
    if (manifest.is_null() || !manifest.contains("points"))
        throw usage_error("--collect " + shown(o.collect) + ": no " + manifest_name +
                          " there (the directory of an --emit-jobs file)");
    if (!manifest.contains("mode") || !manifest.contains("payload_file") || !manifest.contains("expect_loss"))
        throw usage_error("--collect " + shown(o.collect) + ": " + manifest_name +
                          " does not name the jobs' mode and payload (an older uartvp wrote it): emit the "
                          "jobs again");
    if (o.json.empty() && o.csv.empty())
        throw usage_error("--collect DIR goes with --json FILE or --csv FILE (where the runs go)");
    check_sweep_outputs(o);
    const std::string scenario = manifest.value("scenario", std::string());
    const scenario_def* s = find_scenario(scenario);
    if (!s) throw usage_error("--collect: the manifest's scenario " + shown(scenario) + " is unknown");
    std::vector<sweep_point> pts;
    for (const nlohmann::json& p : manifest["points"])
        pts.push_back(point_from_json(p));
    const table tab = make_table(pts);
    std::string summary =
        scenario + ": " + std::to_string(pts.size()) + " runs collected from " + dir + "\n" + tab.header();
    int worst = exit_ok;
    std::vector<nlohmann::json> lines;
    // Every result checked before anything is written: each one missing or stale is named.
    std::size_t bad = 0;
    const bool expect_loss = manifest["expect_loss"].get<bool>();
    for (std::size_t i = 0; i < pts.size(); ++i) {
        const std::string file = dir + "/" + result_name(i);
        const nlohmann::json r = read_result(file);
        std::string why;
        if (r.is_null())
            why = "no result (run its job, line " + std::to_string(i + 1) + " of the jobs file)";
        else
            why = staleness(r, pts[i], expect(*s, manifest, pts[i]), expect_loss);
        if (!why.empty()) {
            ++bad;
            progress::print(stderr, fmt::format("uartvp: --collect: run {} ({}), {}: {}\n", i,
                                                shown_point(pts[i]), file, why));
            continue;
        }
        lines.push_back(line_of(r, pts[i], i));
        summary += tab.row(pts[i], i, r);
        worst = std::max(worst, code_of(r));
    }
    if (bad)
        throw usage_error(fmt::format("--collect: {} of {} results missing or stale (each named above): run "
                                      "their jobs again",
                                      bad, pts.size()));
    lines_output out(o.json);
    std::FILE* text = out.to_stdout() ? stderr : stdout;
    for (const nlohmann::json& l : lines)
        out.add(l);
    out.close();
    write_csv(o.csv, lines);
    progress::print(text, summary);
    outputs::commit();
    return worst;
}

int emit_jobs(const sweep_options& o, const std::string& self, const std::vector<sweep_point>& pts) {
    if (const std::string why = outputs::path_problem(o.emit_jobs, "--emit-jobs " + shown(o.emit_jobs));
        !why.empty())
        throw usage_error(why);
    const auto [dir, name] = split_path(o.emit_jobs);
    std::string cmds;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        std::string line;
        for (const std::string& a : run_args(self, o.scenario, pts[i], o, dir + "/" + result_name(i)))
            line += (line.empty() ? "" : " ") + quoted(a);
        cmds += line + "\n";
    }
    nlohmann::json list = nlohmann::json::array();
    for (std::size_t i = 0; i < pts.size(); ++i)
        list.push_back(point_json(pts[i], i));
    const nlohmann::json manifest = {{"schema_version", json_schema_version},
                                     {"scenario", o.scenario},
                                     {"jobs", dir + "/" + name},
                                     {"mode", o.mode},
                                     {"payload_file", o.payload_file},
                                     {"expect_loss", o.expect_loss},
                                     {"points", list}};
    for (const auto& [path, text] : {std::pair<std::string, std::string>{dir + "/" + name, cmds},
                                     {dir + "/" + manifest_name, manifest.dump(1) + "\n"}}) {
        const std::string tmp = outputs::temporary(path);
        std::ofstream f(tmp);
        f << text;
        f.close();
        if (!f) throw std::runtime_error("cannot write " + shown(path));
    }
    outputs::commit();
    progress::print(stdout, fmt::format("{}: {} jobs in {}, results to {}/run-NNNNN.json; then: uartvp sweep "
                                        "--collect {} --json FILE\n",
                                        o.scenario, pts.size(), dir + "/" + name, dir, dir));
    return exit_ok;
}

} // namespace

std::vector<std::string> split_list(const std::string& text, const std::string& what) {
    std::vector<std::string> out;
    std::size_t i = 0;
    for (;;) {
        const std::size_t c = text.find(',', i);
        const std::string item = text.substr(i, c == std::string::npos ? std::string::npos : c - i);
        if (item.empty()) throw usage_error(what + " " + shown(text) + ": an empty item in the list");
        out.push_back(item);
        if (c == std::string::npos) break;
        i = c + 1;
    }
    return out;
}

int cmd_sweep(const sweep_options& o_in, const std::string& self, const point_check& check) {
    if (!o_in.collect.empty()) return collect(o_in);
    sweep_options o = o_in;
    const scenario_def* s = find_scenario(o.scenario);
    if (!s) throw usage_error("unknown scenario '" + shown(o.scenario) + "' (see 'uartvp list')");
    if (!o.payload_file.empty()) o.payload_file = absolute(o.payload_file);
    if (!o.emit_jobs.empty() && (!o.json.empty() || !o.csv.empty()))
        throw usage_error("--emit-jobs writes the jobs instead of running them: --json and --csv go with "
                          "--collect");
    const std::vector<sweep_point> pts = points(*s, o);
    for (const sweep_point& p : pts)
        check(p); // everything is checked before anything runs
    if (!o.emit_jobs.empty()) return emit_jobs(o, self, pts);
    check_sweep_outputs(o);
    stop::check();
    lines_output out(o.json);
    std::FILE* text = out.to_stdout() ? stderr : stdout;
    const table tab = make_table(pts);
    progress::print(text, fmt::format("{}: {} runs, {} at once\n", s->name, pts.size(),
                                      std::min<std::size_t>(o.parallel, pts.size())) +
                              tab.header());
    int worst = exit_ok;
    std::vector<nlohmann::json> lines(pts.size()); // for --csv, in the sweep's order
    const jobs::scratch_dir dir("/tmp/uartvp-sweep-");
    std::vector<std::vector<std::string>> argvs;
    for (std::size_t i = 0; i < pts.size(); ++i)
        argvs.push_back(run_args(self, s->name, pts[i], o, dir.path() + "/" + result_name(i)));
    jobs::run_all(
        argvs, o.parallel,
        [&](std::size_t i, const jobs::outcome& oc) {
            const int status = oc.status;
            if (WIFSIGNALED(status))
                throw std::runtime_error(fmt::format("run {} ({}) was ended by signal {}", i,
                                                     shown_point(pts[i]), WTERMSIG(status)));
            const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
            if (code != exit_ok && code != exit_difference)
                throw std::runtime_error(
                    fmt::format("run {} ({}) failed with exit code {}", i, shown_point(pts[i]), code));
            const nlohmann::json r = read_result(dir.path() + "/" + result_name(i));
            if (r.is_null()) throw std::runtime_error(fmt::format("run {} wrote no result", i));
            worst = std::max(worst, code);
            lines[i] = line_of(r, pts[i], i);
            out.add(lines[i]);
            progress::print(text, tab.row(pts[i], i, r));
        },
        [&](std::size_t done) { progress::status(fmt::format("sweep: {}/{} runs done", done, pts.size())); });
    progress::clear();
    out.close();
    write_csv(o.csv, lines);
    outputs::commit();
    return worst;
}

} // namespace uartvp::program
