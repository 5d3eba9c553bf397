// SPDX-License-Identifier: Apache-2.0
#include <uartvp/cpu/elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace uartvp::cpu {

namespace {

// The ELF64 fields read here (System V ABI, little-endian only).
constexpr unsigned ei_class = 4, ei_data = 5;
constexpr unsigned elfclass64 = 2, elfdata2lsb = 1;
constexpr unsigned et_exec = 2, et_dyn = 3, et_rel = 1;
constexpr unsigned em_aarch64 = 183;
constexpr std::uint32_t pt_load = 1;

std::string hex(std::uint64_t v) {
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}

template <class T> T get(const std::vector<std::uint8_t>& b, std::uint64_t at) {
    T v{};
    std::memcpy(&v, b.data() + at, sizeof v); // the host is little-endian, as the file must be
    return v;
}

} // namespace

elf_image read_elf(const std::string& path, std::uint64_t ram_base, std::uint64_t ram_size) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw elf_error(path + ": cannot open");
    const std::vector<std::uint8_t> b{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const auto fail = [&](const std::string& why) { throw elf_error(path + ": " + why); };
    if (b.size() < 64 || std::memcmp(b.data(),
                                     "\x7f"
                                     "ELF",
                                     4) != 0)
        fail("not an ELF file");
    if (b[ei_class] != elfclass64) fail("not a 64-bit ELF file (aarch64 needs ELFCLASS64)");
    if (b[ei_data] != elfdata2lsb) fail("not a little-endian ELF file");
    const auto type = get<std::uint16_t>(b, 16);
    const auto machine = get<std::uint16_t>(b, 18);
    if (machine != em_aarch64) fail("not an aarch64 ELF file (e_machine " + std::to_string(machine) + ")");
    if (type != et_exec)
        fail(std::string("not an executable (") +
             (type == et_dyn   ? "a shared object or PIE"
              : type == et_rel ? "a relocatable object"
                               : "ELF type " + std::to_string(type)) +
             "): link it at a fixed address");
    elf_image img;
    img.entry = get<std::uint64_t>(b, 24);
    const auto phoff = get<std::uint64_t>(b, 32);
    const auto phentsize = get<std::uint16_t>(b, 54);
    const auto phnum = get<std::uint16_t>(b, 56);
    if (phentsize < 56 || phoff > b.size() || phnum > (b.size() - phoff) / phentsize)
        fail("program headers outside the file");
    const std::uint64_t ram_end = ram_base + ram_size;
    for (unsigned i = 0; i < phnum; ++i) {
        const std::uint64_t h = phoff + std::uint64_t(i) * phentsize;
        if (get<std::uint32_t>(b, h) != pt_load) continue;
        const auto offset = get<std::uint64_t>(b, h + 8);
        const auto paddr = get<std::uint64_t>(b, h + 24);
        const auto filesz = get<std::uint64_t>(b, h + 32);
        const auto memsz = get<std::uint64_t>(b, h + 40);
        if (memsz == 0) continue;
        if (filesz > memsz) fail("segment " + std::to_string(i) + " has more file bytes than memory bytes");
        if (offset > b.size() || filesz > b.size() - offset)
            fail("segment " + std::to_string(i) + " lies past the end of the file");
        if (paddr < ram_base || paddr >= ram_end || memsz > ram_end - paddr)
            fail("segment " + std::to_string(i) + " at " + hex(paddr) + " (" + std::to_string(memsz) +
                 " bytes) lies outside RAM [" + hex(ram_base) + ", " + hex(ram_end) + ")");
        elf_image::segment s;
        s.addr = paddr;
        s.data.assign(b.begin() + static_cast<std::ptrdiff_t>(offset),
                      b.begin() + static_cast<std::ptrdiff_t>(offset + filesz));
        s.mem_size = memsz;
        img.segments.push_back(std::move(s));
    }
    if (img.segments.empty()) fail("no loadable segment");
    if (img.entry < ram_base || img.entry >= ram_end || img.entry % 4 != 0)
        fail("entry point " + hex(img.entry) + " is not an instruction in RAM");
    return img;
}

} // namespace uartvp::cpu
