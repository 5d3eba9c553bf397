// SPDX-License-Identifier: Apache-2.0
#include <uartvp/vcd2fst_pipe.h>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace uartvp {

std::string vcd2fst_pipe::find() {
    const char* path = std::getenv("PATH");
    const std::string dirs = path ? path : "/usr/bin:/bin";
    for (std::size_t i = 0; i <= dirs.size();) {
        const std::size_t e = std::min(dirs.find(':', i), dirs.size());
        const std::string d = dirs.substr(i, e - i);
        if (!d.empty() && access((d + "/vcd2fst").c_str(), X_OK) == 0) return d + "/vcd2fst";
        i = e + 1;
    }
    return "";
}

vcd2fst_pipe::vcd2fst_pipe(const std::string& fst_path)
    : m_fst(fst_path) {
    // Looked up before forking: the child only execs.
    const std::string exe = find();
    if (exe.empty()) throw std::runtime_error("GTKWave's vcd2fst is not on the PATH");
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("cannot start vcd2fst: no pipe");
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        throw std::runtime_error("cannot start vcd2fst: fork failed");
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_UNBLOCK, &all, nullptr);
        const int null = open("/dev/null", O_WRONLY);
        if (dup2(fds[0], STDIN_FILENO) < 0 || null < 0 || dup2(null, STDOUT_FILENO) < 0 ||
            dup2(null, STDERR_FILENO) < 0)
            _exit(127);
        execl(exe.c_str(), "vcd2fst", "-", m_fst.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    m_pid = pid;
    close(fds[0]);
    m_write_fd = fds[1];
}

vcd2fst_pipe::~vcd2fst_pipe() {
    release_write_end();
    if (!m_pid) return;
    kill(m_pid, SIGKILL);
    while (waitpid(m_pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    std::remove((m_fst + ".hier").c_str()); // vcd2fst's hierarchy, beside its output until it ends
}

std::string vcd2fst_pipe::write_path() const {
    return "/dev/fd/" + std::to_string(m_write_fd);
}

void vcd2fst_pipe::release_write_end() {
    if (m_write_fd >= 0) close(m_write_fd);
    m_write_fd = -1;
}

bool vcd2fst_pipe::wait() {
    release_write_end();
    if (!m_pid) return false;
    int status = 0;
    while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
    m_pid = 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

} // namespace uartvp
