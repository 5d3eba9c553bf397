// SPDX-License-Identifier: Apache-2.0
#pragma once
// An aarch64 firmware image from an ELF file: what a loader puts into RAM (its PT_LOAD segments, at
// their physical addresses, as QEMU's -kernel does for an ELF) and where it starts. Only what a
// bare-metal executable needs: no relocation, no dynamic linking.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace uartvp::cpu {

// The file is not an image the core can run; what() says why, in one line naming the file.
struct elf_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct elf_image {
    struct segment {
        std::uint64_t addr = 0;         // physical address (p_paddr)
        std::vector<std::uint8_t> data; // the file's bytes (p_filesz)
        std::uint64_t mem_size = 0;     // p_memsz: the rest, past data, is zero (.bss)
    };
    std::uint64_t entry = 0;
    std::vector<segment> segments;
};

// Reads `path`: a little-endian ELF64 executable (ET_EXEC) for aarch64 whose loadable segments and entry
// lie in RAM [ram_base, ram_base + ram_size). Throws elf_error otherwise.
elf_image read_elf(const std::string& path, std::uint64_t ram_base, std::uint64_t ram_size);

} // namespace uartvp::cpu
