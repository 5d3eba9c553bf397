// SPDX-License-Identifier: Apache-2.0
#include "cli/outputs.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "cli/params.h"
#include "cli/stop.h"

namespace uartvp::program::outputs {

namespace {

struct pending {
    std::string tmp, path;
};

std::mutex g_lock;
std::vector<pending> g_pending;

std::size_t name_max(const std::string& dir) {
    const long n = pathconf(dir.c_str(), _PC_NAME_MAX);
    return n > 0 ? static_cast<std::size_t>(n) : NAME_MAX;
}

} // namespace

std::string path_problem(const std::string& path, const std::string& what) {
    const std::string name0 = name_of(path);
    if (path.empty() || name0.empty() || name0 == "." || name0 == "..")
        return what + ": expected a file name";
    if (path.size() >= PATH_MAX)
        return what + ": the path is longer than " + std::to_string(PATH_MAX - 1) + " bytes";
    const std::string dir = dir_of(path), name = name_of(path);
    struct stat st {};
    if (stat(dir.c_str(), &st) != 0)
        return what + ": cannot write in " + shown(dir) + ": " + std::strerror(errno);
    if (!S_ISDIR(st.st_mode)) return what + ": cannot write in " + shown(dir) + ": not a directory";
    if (access(dir.c_str(), W_OK | X_OK) != 0)
        return what + ": cannot write in " + shown(dir) + ": " + std::strerror(errno);
    const std::size_t max = name_max(dir);
    if (name.size() > max)
        return what + ": the file name " + shown(name) + " is longer than " + std::to_string(max) + " bytes";
    if (stat(path.c_str(), &st) == 0) {
        if (!S_ISREG(st.st_mode)) return what + ": " + shown(path) + " is not a file";
    } else if (errno != ENOENT) {
        return what + ": cannot write " + shown(path) + ": " + std::strerror(errno);
    }
    // What the checks above cannot see (a read-only file system, say): create the temporary once.
    const std::string probe = dir + "/.uartvp-probe." + std::to_string(getpid());
    const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return what + ": cannot write in " + shown(dir) + ": " + std::strerror(errno);
    close(fd);
    unlink(probe.c_str());
    return "";
}

std::string temporary(const std::string& path) {
    const std::string dir = dir_of(path), name = name_of(path);
    static unsigned count = 0;
    std::lock_guard<std::mutex> l(g_lock);
    const std::string tag = ".tmp" + std::to_string(getpid()) + "-" + std::to_string(count++);
    const std::size_t max = name_max(dir);
    // "." + name + tag, the name cut so that the whole fits.
    const std::size_t room = max > tag.size() + 1 ? max - tag.size() - 1 : 0;
    const std::string tmp = (dir == "." && path.find('/') == std::string::npos ? "" : dir + "/") + "." +
                            name.substr(0, room) + tag;
    g_pending.push_back({tmp, path});
    return tmp;
}

void commit() {
    std::lock_guard<std::mutex> l(g_lock);
    // A stop that came before this point wins: nothing is put in place.
    stop::check();
    for (std::size_t i = 0; i < g_pending.size(); ++i)
        if (std::rename(g_pending[i].tmp.c_str(), g_pending[i].path.c_str()) != 0) {
            const std::string why = "cannot write " + shown(g_pending[i].path) + ": " + std::strerror(errno);
            for (std::size_t k = i; k < g_pending.size(); ++k)
                unlink(g_pending[k].tmp.c_str());
            g_pending.clear();
            throw std::runtime_error(why);
        }
    g_pending.clear();
}

void discard() {
    std::lock_guard<std::mutex> l(g_lock);
    for (const pending& p : g_pending)
        unlink(p.tmp.c_str());
    g_pending.clear();
}

std::string dir_of(const std::string& p) {
    const auto s = p.rfind('/');
    return s == std::string::npos ? "." : s == 0 ? "/" : p.substr(0, s);
}
std::string name_of(const std::string& p) {
    const auto s = p.rfind('/');
    return s == std::string::npos ? p : p.substr(s + 1);
}

std::string absolute(const std::string& p) {
    char* real = realpath(dir_of(p).c_str(), nullptr);
    const std::string dir = real ? real : dir_of(p);
    std::free(real);
    return (dir == "/" ? "" : dir) + "/" + name_of(p);
}

} // namespace uartvp::program::outputs
