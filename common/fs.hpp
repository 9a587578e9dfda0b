// common/fs.hpp: small file-system primitives with the durability rules of
// docs/rules.md, Durable writes: temp (0600) → fsync → rename → fsync(dir).
// Every write, fsync and rename here goes through common/io_fault.hpp, a
// test seam that does nothing unless the broker was started armed.
// Runs in: broker (and any process that keeps files). Never: follows a
// symlink when it creates a file (O_NOFOLLOW|O_EXCL on the temp file);
// never syncs a file again after its fsync failed.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "common/errors.hpp"

namespace signaltty::fs {

Status write_file_durable(const std::string& path, std::string_view contents, mode_t mode = 0600);
// Same steps without the fsyncs (snapshot tails, docs/rules.md "Durable writes").
Status write_file_atomic(const std::string& path, std::string_view contents, mode_t mode = 0600);
// `for_file` names the file whose rename or creation this makes durable
// (counted by common/io_fault.hpp, named in the error).
Status fsync_dir(const std::string& dir, std::string_view for_file = {});
// Writes all of `data` to `fd` (EINTR and short writes retried); IO_ERROR
// naming `path` otherwise. A write failure is never retried.
Status write_all(int fd, std::string_view data, const std::string& path);
// Reads a whole regular file up to max_bytes (IO_ERROR beyond, or if missing).
Result<std::string> read_file(const std::string& path, std::size_t max_bytes);
bool exists(const std::string& path);
std::string dirname(const std::string& path);
std::string join(std::string_view dir, std::string_view name);

}  // namespace signaltty::fs
