#include "cli/staged_out.hpp"

#include <fcntl.h>
#include <signal.h>  // kill
#include <stdio.h>   // renameat2, RENAME_EXCHANGE
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"

namespace netdp::cli {

namespace fs = std::filesystem;

namespace {

// What remove_staging_now() removes, stored before a signal can need it (no allocation in the handler).
constexpr std::size_t kPathBytes = 4096;
char staging_path[kPathBytes];
char lock_path[kPathBytes];
volatile sig_atomic_t staging_listed = 0;
volatile sig_atomic_t lock_listed = 0;

void list_path(char (&slot)[kPathBytes], volatile sig_atomic_t& listed, const fs::path& path) {
  listed = 0;
  const std::string& text = path.native();
  if (text.size() >= kPathBytes) return;  // left to the next run of the same --out
  std::memcpy(slot, text.c_str(), text.size() + 1);
  listed = 1;
}

/// The names DIR/manifest.json lists under "files" (a study's under "outputs" too).
std::set<std::string> listed_files(const fs::path& dir) {
  std::set<std::string> names;
  std::ifstream in(dir / "manifest.json");
  const auto manifest = nlohmann::json::parse(in, nullptr, false);
  if (!manifest.is_object()) return names;
  for (const char* key : {"files", "outputs"})
    if (manifest.contains(key) && manifest[key].is_array())
      for (const auto& name : manifest[key])
        if (name.is_string()) names.insert(name.get<std::string>());
  return names;
}

/// A study's results directory (netdp run): its study.toml, or a manifest written by the study runner
/// (src/study/study_output.cpp, "tool": "netdp run").
bool holds_study(const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir / "study.toml", ec)) return true;
  std::ifstream in(dir / "manifest.json");
  const auto manifest = nlohmann::json::parse(in, nullptr, false);
  return manifest.is_object() && manifest.value("tool", "") == "netdp run";
}

/// Moves into `to` what in `from` is not the output of `from`'s run: entries its manifest does not list
/// (the user's own files, which a rerun leaves alone: docs/outputs.md §1.1), other than that manifest and
/// leftover temporaries, and absent from `to`.
void carry_foreign(const fs::path& from, const fs::path& to) {
  const std::set<std::string> outputs = listed_files(from);
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(from, ec))
    names.push_back(entry.path().filename().string());
  for (const auto& name : names) {
    if (name == "manifest.json" || outputs.count(name) || is_leftover_temporary(name) ||
        fs::exists(fs::symlink_status(to / name, ec)))
      continue;
    fs::rename(from / name, to / name, ec);
  }
}

/// A staging or set-aside directory no run will publish: what it holds for `target` (carried before a
/// publication that did not finish) goes back, the rest is removed.
void dispose(const fs::path& dir, const fs::path& target) {
  std::error_code ec;
  if (fs::exists(dir / "manifest.json", ec) && fs::is_directory(target, ec)) carry_foreign(dir, target);
  fs::remove_all(dir, ec);
}

bool process_alive(long pid) {
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

/// The pid in `name` after `prefix` (-1 when the rest is not a number).
long pid_after(const std::string& name, const std::string& prefix) {
  if (!name.starts_with(prefix) || name.size() == prefix.size() || name.size() > prefix.size() + 18)
    return -1;
  const std::string digits = name.substr(prefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return -1;
  return std::stol(digits);
}

/// What a killed run of the same --out left beside it (docs/reliability.md §3): its staging directory
/// (removed, with the user's files it was carrying put back) and a result it had set aside (put back when
/// --out is missing, else removed).
void remove_leftovers(const fs::path& target) {
  const std::string name = target.filename().string();
  const std::string staging = "." + name + ".tmp-", aside = "." + name + ".old-";
  std::error_code ec;
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(target.parent_path(), ec)) found.push_back(entry.path());
  for (const auto& path : found) {
    const std::string entry = path.filename().string();
    const long staging_pid = pid_after(entry, staging), aside_pid = pid_after(entry, aside);
    const long pid = std::max(staging_pid, aside_pid);
    if (pid < 0 || pid == ::getpid() || process_alive(pid) || !fs::is_directory(path, ec)) continue;
    if (aside_pid >= 0 && !fs::exists(target, ec))
      fs::rename(path, target, ec);
    else
      dispose(path, target);
  }
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

StagedOut::StagedOut(const fs::path& out) {
  std::error_code ec;
  target_ = fs::absolute(out, ec).lexically_normal();
  if (target_.filename().empty()) target_ = target_.parent_path();  // "run/"
  if (fs::exists(target_, ec)) {
    if (!fs::is_directory(target_, ec))
      throw InvalidParameter("out", "out " + out.string() + " exists and is not a directory");
    if (holds_study(target_))
      throw InvalidParameter("out", "out " + out.string() +
                                        " holds a study's results (netdp run): a single command does not "
                                        "replace them; give another --out");
    if (auto real = fs::canonical(target_, ec); !ec) target_ = real;  // a link: replace what it points to
  }
  // The working directory, one above it, or / cannot be renamed away: written in place as before (the
  // earlier run's files go at this run's first file, docs/outputs.md §1.1).
  const fs::path cwd = fs::current_path(ec);
  const auto inside = std::mismatch(target_.begin(), target_.end(), cwd.begin(), cwd.end()).first;
  if (target_.parent_path() == target_ || inside == target_.end()) {
    in_place_ = true;
    staging_ = out;
    return;
  }
  const fs::path parent = target_.parent_path();
  const std::string name = target_.filename().string(), pid = std::to_string(::getpid());
  try {
    if (!fs::exists(parent, ec)) {
      created_ = parent;  // the outermost missing one, removed again unless the run succeeds
      while (created_.has_parent_path() && created_.parent_path() != created_ &&
             !fs::exists(created_.parent_path(), ec))
        created_ = created_.parent_path();
      fs::create_directories(parent, ec);
      if (ec) throw InvalidInput("cannot create output directory " + parent.string() + ": " + ec.message());
    }
    lock_ = parent / ("." + name + ".lock");
    // flock, not the file's existence: a killed holder's lock goes with its process. The holder removes the
    // file when done, so the lock counts only on the file still under that name.
    for (int attempt = 0; attempt < 100 && lock_fd_ < 0; ++attempt) {
      const int fd = ::open(lock_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0)
        throw InvalidInput("cannot create the lock file " + lock_.string() + ": " + std::strerror(errno));
      if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char holder[24] = {};
        const auto bytes = ::pread(fd, holder, sizeof holder - 1, 0);
        ::close(fd);
        std::string who = bytes > 0 ? std::string(holder, static_cast<std::size_t>(bytes)) : "";
        who.erase(std::remove(who.begin(), who.end(), '\n'), who.end());
        throw InvalidParameter("out", "out " + out.string() + " is being written by another netdp process" +
                                          (who.empty() ? "" : " (pid " + who + ")") +
                                          "; wait for it to finish or give another --out");
      }
      struct stat held {};
      struct stat named {};
      if (::fstat(fd, &held) == 0 && ::stat(lock_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
          held.st_dev == named.st_dev)
        lock_fd_ = fd;
      else
        ::close(fd);  // removed by its holder as we opened it: lock the file now under the name
    }
    if (lock_fd_ < 0) throw std::runtime_error("cannot lock " + lock_.string());
    list_path(lock_path, lock_listed, lock_);
    const std::string text = pid + "\n";
    if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, text.data(), text.size(), 0) < 0)
      throw std::runtime_error("cannot write the lock file " + lock_.string());
    remove_leftovers(target_);
    staging_ = parent / ("." + name + ".tmp-" + pid);
    list_path(staging_path, staging_listed, staging_);
    fs::create_directory(staging_, ec);
    if (ec) throw InvalidInput("cannot create output directory " + staging_.string() + ": " + ec.message());
  } catch (...) {
    release();
    throw;
  }
}

StagedOut::~StagedOut() {
  release();
}

void StagedOut::release() noexcept {
  if (in_place_) return;
  std::error_code ec;
  if (!published_ && !staging_.empty()) {
    staging_listed = 0;
    try {
      dispose(staging_, target_);
    } catch (...) {  // what stays is removed by the next run of the same --out
    }
  }
  if (lock_fd_ >= 0) {
    lock_listed = 0;
    fs::remove(lock_, ec);  // before the lock goes: a writer after us then creates its own file
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
  // Parents this run created go again, each only if empty (another writer may have come to use them).
  if (!created_.empty())
    for (fs::path dir = target_.parent_path(); fs::remove(dir, ec) && dir != created_;)
      dir = dir.parent_path();
}

void StagedOut::publish() {
  if (in_place_) {
    published_ = true;
    return;
  }
  // From here a signal leaves the staging directory as SIGKILL would (the next run of the same --out tidies
  // it): the user's files carried into it must not be removed with it. Masking the signals would not do, as
  // any of the process's threads may take them.
  staging_listed = 0;
  std::error_code ec;
  fs::path old;  // the earlier result, once out of the way
  if (!fs::exists(target_, ec)) {
    fs::rename(staging_, target_);
  } else {
    carry_foreign(target_, staging_);
    // At every instant --out names a whole result, the earlier or this one (docs/reliability.md §3).
    const int failed =
        ::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0 ? 0 : errno;
    if (failed == 0) {
      old = staging_;
    } else if (failed == EINVAL || failed == ENOSYS || failed == EOPNOTSUPP) {
      // A file system without the exchange: --out is missing between two renames, and a run killed there
      // has its set-aside result put back by the next run (remove_leftovers).
      old =
          target_.parent_path() / ("." + target_.filename().string() + ".old-" + std::to_string(::getpid()));
      fs::rename(target_, old);
      fs::rename(staging_, target_, ec);
      if (ec) {
        fs::rename(old, target_);
        throw fs::filesystem_error("cannot replace the output directory", staging_, target_, ec);
      }
    } else {
      throw fs::filesystem_error("cannot replace the output directory", staging_, target_,
                                 std::error_code(failed, std::generic_category()));
    }
  }
  published_ = true;
  sync_directory(target_.parent_path());
  if (!old.empty()) fs::remove_all(old, ec);
}

void remove_staging_now() noexcept {
  if (staging_listed) {
    const int fd = ::open(staging_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
      // getdents64 over the directory until a pass removes nothing (a run writes plain files only).
      alignas(8) char buffer[8192];
      for (bool removed = true; removed;) {
        removed = false;
        ::lseek(fd, 0, SEEK_SET);
        const long bytes = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
        for (long at = 0; at < bytes;) {
          unsigned short length = 0;  // struct linux_dirent64: d_reclen at byte 16, d_name at 19
          std::memcpy(&length, buffer + at + 16, sizeof length);
          const char* entry = buffer + at + 19;
          if (std::strcmp(entry, ".") != 0 && std::strcmp(entry, "..") != 0 && ::unlinkat(fd, entry, 0) == 0)
            removed = true;
          at += length;
        }
      }
      ::close(fd);
    }
    ::rmdir(staging_path);
  }
  if (lock_listed) ::unlink(lock_path);
}

}  // namespace netdp::cli
