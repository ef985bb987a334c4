// file.h: reading a .npy file and writing a file atomically, as the t2s tools do.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "libs/runtime/array.h"
#include "libs/runtime/common.h"
#include "libs/runtime/npy.h"

namespace t2s_rt {

namespace detail {

// The largest .npy file read: its data (kMaxDataBytes) and a header. Only devices and FIFOs
// that start like a .npy file come near it; regular files end first.
constexpr int64_t kMaxNpyFileBytes = kMaxDataBytes + (int64_t{1} << 20);

// Reads the file at `path` whole into `*bytes`; returns the error ("cannot read 'PATH': ...")
// or "" on success. Every read error is reported (never taken as the end of the file), and a
// file longer than `max_bytes` is refused once that many bytes are read, so a device or FIFO
// that never ends (/dev/zero) costs at most `max_bytes` of memory. When `magic` is given and the
// file does not start with it, reading stops there and the bytes read so far are returned (the
// caller's parser refuses them): /dev/zero given as a .npy file is refused at once. t2s tools
// read their inputs with it too (libs/cli).
inline std::string read_file(const std::string& path, std::string* bytes,
                             int64_t max_bytes = INT64_MAX, const std::string& magic = "") {
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
    return "cannot read '" + path + "': it is a directory";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "cannot read '" + path + "': " + std::strerror(errno);
  std::string out;
  char chunk[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string error = "cannot read '" + path + "': " + std::strerror(errno);
      ::close(fd);
      return error;
    }
    if (n == 0) break;
    if (static_cast<int64_t>(out.size()) + n > max_bytes) {
      ::close(fd);
      return "cannot read '" + path + "': it is larger than " + std::to_string(max_bytes) +
             " bytes, the limit for this input";
    }
    out.append(chunk, static_cast<size_t>(n));
    const size_t compared = std::min(out.size(), magic.size());
    if (out.compare(0, compared, magic, 0, compared) != 0) break;
  }
  ::close(fd);
  *bytes = std::move(out);
  return "";
}

// Writes `bytes` to the file descriptor `fd` whole; returns errno's text or "".
inline std::string write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::strerror(errno);
    }
    done += static_cast<size_t>(n);
  }
  return "";
}

// One output of a run, written in two steps so that several outputs succeed or fail together:
// prepare_write puts the bytes in a temporary file next to the destination (or, for a device or
// FIFO, only checks it can be opened), commit_write renames it into place (or writes through),
// discard_write removes what prepare_write made.
struct PreparedWrite {
  std::string given;  // the path as given (messages)
  std::string path;   // the destination (a symbolic link's target)
  std::string temp;   // the temporary file; empty when writing through
  std::string bytes;  // kept for a write-through
};

inline void discard_write(PreparedWrite& w) {
  if (!w.temp.empty()) ::unlink(w.temp.c_str());
  w.temp.clear();
}

// Respects what is already at `given`: a symbolic link is followed (its target is written), a
// device, FIFO or socket is written through (never replaced by a regular file), a directory, a
// read-only file or a dangling link is refused, and a replaced file keeps its permissions.
// Returns the error ("cannot write 'PATH': ...") or "".
inline std::string prepare_write(const std::string& given, const std::string& bytes,
                                 PreparedWrite* w) {
  w->given = given;
  w->path = given;
  w->temp.clear();
  w->bytes.clear();
  struct stat info;
  bool exists = lstat(w->path.c_str(), &info) == 0;
  if (exists && S_ISLNK(info.st_mode)) {
    char* target = realpath(given.c_str(), nullptr);
    if (target == nullptr)
      return "cannot write '" + given + "': it is a symbolic link to a missing file";
    w->path = target;
    std::free(target);
    exists = lstat(w->path.c_str(), &info) == 0;
  }
  if (exists && S_ISDIR(info.st_mode)) return "cannot write '" + given + "': it is a directory";
  if (exists && !S_ISREG(info.st_mode)) {
    if (::access(w->path.c_str(), W_OK) != 0)
      return "cannot write '" + given + "': " + std::strerror(errno);
    w->bytes = bytes;
    return "";
  }
  if (exists && (info.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0)
    return "cannot write '" + given + "': it is read-only";
  std::string temp = w->path + ".tmp.XXXXXX";
  int fd = mkstemp(&temp[0]);
  if (fd < 0) return "cannot write '" + given + "': " + std::strerror(errno);
  std::string reason = write_all(fd, bytes);
  // mkstemp creates 0600: a new output is an ordinary file, readable as the umask allows; a
  // replaced one keeps its permissions.
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, exists ? (info.st_mode & 07777) : (0666 & ~mask));
  if (::close(fd) != 0 && reason.empty()) reason = std::strerror(errno);
  if (!reason.empty()) {
    ::unlink(temp.c_str());
    return "cannot write '" + given + "': " + reason;
  }
  w->temp = temp;
  return "";
}

inline std::string commit_write(PreparedWrite& w) {
  if (w.temp.empty()) {  // a device or FIFO: write through
    int fd = ::open(w.path.c_str(), O_WRONLY | O_NOCTTY);
    if (fd < 0) return "cannot write '" + w.given + "': " + std::strerror(errno);
    std::string reason = write_all(fd, w.bytes);
    if (::close(fd) != 0 && reason.empty()) reason = std::strerror(errno);
    return reason.empty() ? "" : "cannot write '" + w.given + "': " + reason;
  }
  if (std::rename(w.temp.c_str(), w.path.c_str()) != 0) {
    std::string reason = std::strerror(errno);
    discard_write(w);
    return "cannot write '" + w.given + "': " + reason;
  }
  w.temp.clear();
  return "";
}

// Writes `bytes` to `path` through a temporary file in the same directory renamed into place
// (prepare_write, commit_write); returns the error or "" on success, leaving no partial file.
// t2s tools write their outputs with it too (libs/cli).
inline std::string try_write_file_atomically(const std::string& path, const std::string& bytes) {
  PreparedWrite w;
  std::string error = prepare_write(path, bytes, &w);
  if (error.empty()) error = commit_write(w);
  return error;
}

}  // namespace detail

// Reads a .npy file; fail()s with a message naming the file on any problem.
inline Array read_npy_file(const std::string& path) {
  std::string bytes;
  std::string error = detail::read_file(path, &bytes, detail::kMaxNpyFileBytes, "\x93NUMPY");
  if (!error.empty()) fail(error);
  try {
    return detail::parse_npy(bytes, path);
  } catch (const detail::NpyError& e) {
    fail(e.message);
  }
}

// Writes `bytes` to `path` atomically (detail::try_write_file_atomically); fail()s on error.
inline void write_file_atomically(const std::string& path, const std::string& bytes) {
  std::string error = detail::try_write_file_atomically(path, bytes);
  if (!error.empty()) fail(error);
}

// The rules other layers call (libs/exec, libs/cli, the OpenCL executor): their public names.
using detail::commit_write;
using detail::discard_write;
using detail::kMaxNpyFileBytes;
using detail::prepare_write;
using detail::PreparedWrite;
using detail::read_file;
using detail::try_write_file_atomically;

}  // namespace t2s_rt
