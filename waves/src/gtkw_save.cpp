// SPDX-License-Identifier: Apache-2.0
#include <uartvp/gtkw_save.h>

#include <cmath>
#include <fstream>

namespace uartvp {

namespace {
// GTKWave trace flags (analyzer.h): right-justified binary, hex, decimal; analog step; group markers;
// translated through a filter file (TR_FTRANSLATED).
constexpr const char* f_bit = "@28";
constexpr const char* f_hex = "@22";
constexpr const char* f_dec = "@24";
constexpr const char* f_hex_named = "@2022";
constexpr const char* f_dec_named = "@2024";
constexpr const char* f_analog = "@8024";
constexpr const char* f_stretch = "@20000";
constexpr const char* f_group_begin = "@800200";
constexpr const char* f_group_end = "@1000200";
} // namespace

void gtkw_save::add(const char* flags, const std::string& row) {
    m_rows.push_back(flags);
    m_rows.push_back(row);
}

void gtkw_save::begin_group(const std::string& name) {
    add(f_group_begin, "-" + name);
    m_open.push_back(name);
}

void gtkw_save::end_group() {
    // The end marker repeats the innermost open group's name, as GTKWave writes it.
    if (m_open.empty()) return;
    add(f_group_end, "-" + m_open.back());
    m_open.pop_back();
}

void gtkw_save::signal(format f, const std::string& name) {
    switch (f) {
    case format::bit:
        add(f_bit, name);
        break;
    case format::hex:
        add(f_hex, name);
        break;
    case format::dec:
        add(f_dec, name);
        break;
    case format::analog:
        add(f_analog, name);
        // Two blank rows give the analog trace some height.
        add(f_stretch, "-");
        add(f_stretch, "-");
        break;
    }
}

void gtkw_save::translated(format f, int filter, const std::string& filter_path, const std::string& name) {
    m_rows.push_back(f == format::hex ? f_hex_named : f_dec_named);
    m_rows.push_back("^" + std::to_string(filter) + " " + filter_path);
    m_rows.push_back(name);
}

bool gtkw_save::write(const std::string& path, const std::string& dumpfile, const std::string& savefile,
                      double window_ps) const {
    std::ofstream g(path);
    g << "[*] uartvp waves: gtkwave NAME.gtkw\n"
      << "[dumpfile] \"" << dumpfile << "\"\n"
      << "[savefile] \"" << savefile << "\"\n"
      << "[timestart] 0\n[size] 1600 900\n[pos] -1 -1\n"
      // GTKWave's zoom: -(log2 of ps per pixel) - 8, over the 1300 pixels the waves get.
      << "*" << -std::ceil(std::log2(window_ps / 1300)) - 8 << ".000000 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n"
      << "[sst_width] 250\n[signals_width] 300\n[sst_expanded] 1\n[sst_vpaned_height] 300\n";
    for (const std::string& l : m_rows)
        g << l << "\n";
    g << "[pattern_trace] 1\n[pattern_trace] 0\n";
    g.close();
    return static_cast<bool>(g);
}

bool write_translate_filter(const std::string& path,
                            const std::vector<std::pair<std::string, std::string>>& entries) {
    std::ofstream f(path);
    for (const auto& [value, name] : entries)
        f << value << " " << name << "\n";
    f.close();
    return static_cast<bool>(f);
}

} // namespace uartvp
