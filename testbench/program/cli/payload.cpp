// SPDX-License-Identifier: Apache-2.0
#include "cli/payload.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/params.h"
#include "workloads/bootlog.h"

namespace uartvp::program {

namespace {

class generated final : public payload_reader {
public:
    explicit generated(std::size_t bytes)
        : m_log(bytes) {}
    bool next(std::string& line) override { return m_log.next(line); }

private:
    sw::boot_log_stream m_log;
};

class from_file final : public payload_reader {
public:
    from_file(std::FILE* f, const std::string& path)
        : m_file(f)
        , m_path(path) {}
    ~from_file() override {
        std::free(m_buf);
        std::fclose(m_file);
    }
    // Reads the first line ahead, so that an empty file is refused before anything runs.
    bool peek() {
        m_have = read(m_ahead);
        return m_have;
    }
    bool next(std::string& line) override {
        if (!m_have) return false;
        line.swap(m_ahead);
        m_have = read(m_ahead);
        return true;
    }
    std::string error() const override { return m_error; }

private:
    bool read(std::string& line) {
        errno = 0;
        const ssize_t n = getline(&m_buf, &m_cap, m_file); // any line length
        if (n < 0) {
            if (std::ferror(m_file))
                m_error = "cannot read payload " + shown(m_path) + ": " + std::strerror(errno ? errno : EIO);
            return false;
        }
        line.assign(m_buf, static_cast<std::size_t>(n));
        return true;
    }
    std::FILE* m_file;
    std::string m_path, m_ahead, m_error;
    char* m_buf = nullptr;
    std::size_t m_cap = 0;
    bool m_have = false;
};

} // namespace

std::unique_ptr<payload_reader> generated_payload(std::size_t bytes) {
    return std::make_unique<generated>(bytes);
}

std::unique_ptr<payload_reader> file_payload(const std::string& path) {
    const std::string name = shown(path);
    // stat() first: opening a FIFO for reading would block until a writer comes, and opening a device
    // may have effects of its own.
    struct stat st {};
    if (stat(path.c_str(), &st) != 0)
        throw usage_error("cannot read payload " + name + ": " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw usage_error("cannot read payload " + name + ": a directory");
    if (!S_ISREG(st.st_mode))
        throw usage_error("payload " + name +
                          " is not a regular file (a FIFO, socket or device is not read)");
    // O_NONBLOCK: should the name be swapped for a FIFO after the check, open() does not block on it.
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) throw usage_error("cannot read payload " + name + ": " + std::strerror(errno));
    struct stat opened {};
    if (fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode) || opened.st_ino != st.st_ino ||
        opened.st_dev != st.st_dev) {
        close(fd);
        throw usage_error("payload " + name + " changed while it was opened");
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    std::FILE* f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        throw usage_error("cannot read payload " + name + ": " + std::strerror(errno));
    }
    auto reader = std::make_unique<from_file>(f, path);
    if (!reader->peek()) {
        const std::string why = reader->error();
        throw usage_error(why.empty() ? "payload " + name + " is empty" : why);
    }
    return reader;
}

std::string payload_source(const std::string& file, std::size_t bytes, std::size_t default_bytes,
                           const std::string& profile) {
    if (!file.empty()) return file;
    if (!bytes && default_bytes == 0) return "calibrated:" + profile;
    return "generated:" + std::to_string(bytes ? bytes : default_bytes);
}

} // namespace uartvp::program
