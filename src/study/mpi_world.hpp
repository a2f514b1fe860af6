#pragma once
#include <functional>

// The MPI job a study runs in (docs/study.md "Clusters"): a single process unless netdp was started by an
// MPI launcher (mpirun / srun) in a build with MPI, so plain runs never touch MPI.
namespace netdp::study {

class MpiWorld {
 public:
  MpiWorld();
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // among the ranks on this machine: picks the local GPU
  int local_size() const { return local_size_; }
  void barrier() const;
  /// A barrier that calls `while_waiting` about every 100 ms until every rank has reached it (rank 0 keeps
  /// its progress line going while the others finish their units); a plain return without MPI.
  void wait_all(const std::function<void()>& while_waiting) const;
  long long sum(long long value) const;
  int max(int value) const;

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  bool initialised_ = false;
};

}  // namespace netdp::study
