// SPDX-License-Identifier: Apache-2.0
#pragma once
// The files a run writes (--json, the --vcd files) are written whole or not at all: each is written under
// a temporary name beside it, registered here; commit() renames them all into place once the run has
// succeeded, discard() removes them after a failure or a stop by signal (also from the thread that
// handles signals, hence the lock inside).
#include <string>
#include <vector>

namespace uartvp::program::outputs {

// Why `path` cannot be an output (empty: it can): its directory must exist and be writable, its name
// must fit the file system (NAME_MAX, PATH_MAX), and an existing file of that name must be a regular
// file. `what` starts the message ("--json out.json").
std::string path_problem(const std::string& path, const std::string& what);

// A temporary name for writing `path`, registered for commit() and discard(): hidden, beside it,
// ".NAME.tmpPID-N" (N counts this process's temporaries), NAME cut so that the whole fits NAME_MAX
// even when `path`'s own name is as long as allowed.
std::string temporary(const std::string& path);

// A path's directory ("." without one) and the name in it.
std::string dir_of(const std::string& path);
std::string name_of(const std::string& path);
// The absolute path of a file that need not exist yet (its directory does; else the path as given).
std::string absolute(const std::string& path);

// Renames every registered temporary to its final name, in order. Throws std::runtime_error naming
// the file that failed; the rest are then removed.
void commit();
// Removes every registered temporary (no output is left behind).
void discard();

} // namespace uartvp::program::outputs
