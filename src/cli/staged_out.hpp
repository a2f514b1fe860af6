#pragma once
// A single command's --out replaced only on success (docs/outputs.md §1.1, docs/reliability.md §3): the run
// writes into a sibling `.NAME.tmp-PID`, which replaces NAME when the run succeeds; a lock file `.NAME.lock`
// beside it keeps a second writer out meanwhile.
#include <filesystem>

namespace netdp::cli {

class StagedOut {
 public:
  /// Takes the lock (a second writer is refused, exit 2, naming the holder's pid), refuses a study's
  /// directory, removes what a killed run of the same --out left, and creates the staging directory (with the
  /// missing parents of `out`).
  explicit StagedOut(const std::filesystem::path& out);
  /// Unpublished (failure, refusal, exception): removes the staging directory and the parents it created; the
  /// earlier result is as it was. Then removes the lock file and releases the lock.
  ~StagedOut();
  StagedOut(const StagedOut&) = delete;
  StagedOut& operator=(const StagedOut&) = delete;

  /// Where the run writes (`out` itself when it cannot be renamed: the working directory or one above it).
  const std::filesystem::path& staging() const { return staging_; }
  /// Puts the staging directory in place of `out` (an atomic exchange where the file system has one), keeping
  /// the files of `out` that its manifest did not list, and removes the earlier result.
  void publish();

 private:
  void release() noexcept;
  std::filesystem::path target_, staging_, lock_, created_;
  int lock_fd_ = -1;
  bool in_place_ = false, published_ = false;
};

/// For a signal handler: removes the staging directory of this process and its lock file (async-signal-safe:
/// getdents64, unlinkat, rmdir over paths stored beforehand). The earlier result is untouched.
void remove_staging_now() noexcept;

}  // namespace netdp::cli
