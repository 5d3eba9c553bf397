// SPDX-License-Identifier: Apache-2.0
#pragma once
// A VCD turned into GTKWave's FST as it is written: GTKWave's vcd2fst in a child process reads the VCD
// from a pipe and writes the FST, so no VCD reaches the disk. The child ends with this process.
#include <sys/types.h>

#include <string>

namespace uartvp {

class vcd2fst_pipe {
public:
    // vcd2fst's full path on the PATH, or "" if it is not there.
    static std::string find();
    // Starts vcd2fst writing `fst_path`. Throws std::runtime_error if it cannot be started.
    explicit vcd2fst_pipe(const std::string& fst_path);
    // Kills an unfinished conversion (its output is not wanted) and removes its scratch file.
    ~vcd2fst_pipe();
    vcd2fst_pipe(const vcd2fst_pipe&) = delete;
    vcd2fst_pipe& operator=(const vcd2fst_pipe&) = delete;

    // The pipe's end to write the VCD into, as a path (/dev/fd/N): a writer opens its own descriptor,
    // then release_write_end() closes this one, so that vcd2fst sees the end when the writer closes.
    std::string write_path() const;
    void release_write_end();
    // Waits for vcd2fst once the VCD is complete; false if it failed.
    bool wait();

private:
    std::string m_fst;
    pid_t m_pid = 0;
    int m_write_fd = -1;
};

} // namespace uartvp
