// SPDX-License-Identifier: Apache-2.0
#include "cli/csv.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/core.h>

#include "cli/outputs.h"
#include "cli/params.h"

namespace uartvp::program {

namespace {

void flatten(const nlohmann::json& j, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
    for (const auto& [k, v] : j.items()) {
        const std::string name = prefix + k;
        if (v.is_object())
            flatten(v, name + ".", out);
        else if (v.is_string())
            out.emplace_back(name, v.get<std::string>());
        else if (v.is_boolean())
            out.emplace_back(name, v.get<bool>() ? "true" : "false");
        else if (v.is_number_float())
            out.emplace_back(name, fmt::format("{}", v.get<double>())); // shortest round-trip form
        else if (v.is_number())
            out.emplace_back(name, v.dump());
        else if (v.is_null())
            out.emplace_back(name, "");
        // arrays: no single cell
    }
}

std::string cell(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

} // namespace

std::string csv_of(const std::vector<nlohmann::json>& runs) {
    std::vector<std::string> columns;
    std::map<std::string, std::size_t> index;
    std::vector<std::map<std::string, std::string>> rows;
    for (const nlohmann::json& r : runs) {
        std::vector<std::pair<std::string, std::string>> cells;
        flatten(r, "", cells);
        std::map<std::string, std::string> row;
        for (auto& [k, v] : cells) {
            if (index.emplace(k, columns.size()).second) columns.push_back(k);
            row[k] = std::move(v);
        }
        rows.push_back(std::move(row));
    }
    // What names a run first, then the sweep's point, then the rest by name.
    const auto rank = [](const std::string& c) {
        static const std::vector<std::string> first{"scenario", "variant", "profile", "payload"};
        const auto it = std::find(first.begin(), first.end(), c);
        if (it != first.end()) return static_cast<int>(it - first.begin());
        return c.rfind("sweep.", 0) == 0 ? 10 : 20;
    };
    std::stable_sort(columns.begin(), columns.end(),
                     [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
    std::string out;
    for (std::size_t i = 0; i < columns.size(); ++i)
        out += (i ? "," : "") + cell(columns[i]);
    out += "\r\n";
    for (const auto& row : rows) {
        for (std::size_t i = 0; i < columns.size(); ++i) {
            const auto it = row.find(columns[i]);
            out += (i ? "," : "") + (it == row.end() ? std::string() : cell(it->second));
        }
        out += "\r\n";
    }
    return out;
}

void check_csv_path(const std::string& path) {
    if (path.empty()) return;
    if (path == "-") throw usage_error("--csv -: the CSV goes to a file (standard output is the table's)");
    if (const std::string why = outputs::path_problem(path, "--csv " + shown(path)); !why.empty())
        throw usage_error(why);
}

void write_csv(const std::string& path, const std::vector<nlohmann::json>& runs) {
    if (path.empty()) return;
    const std::string tmp = outputs::temporary(path);
    std::ofstream f(tmp, std::ios::binary);
    f << csv_of(runs);
    f.close();
    if (!f) throw std::runtime_error("cannot write " + shown(path));
}

} // namespace uartvp::program
