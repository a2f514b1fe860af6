#include "study/mpi_world.hpp"

#include <chrono>
#include <cstdlib>
#include <initializer_list>
#include <thread>

#ifdef NETDP_HAVE_MPI
#include <mpi.h>
#endif

namespace netdp::study {

namespace {

[[maybe_unused]] bool launched_by_mpi() {  // used in MPI builds only
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
    if (std::getenv(variable)) return true;
  return false;
}

}  // namespace

MpiWorld::MpiWorld() {
#ifdef NETDP_HAVE_MPI
  if (!launched_by_mpi()) return;
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);  // only the main thread calls MPI
    initialised_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
#endif
}

MpiWorld::~MpiWorld() {
#ifdef NETDP_HAVE_MPI
  if (initialised_) MPI_Finalize();
#endif
}

void MpiWorld::barrier() const {
#ifdef NETDP_HAVE_MPI
  if (size_ > 1) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

void MpiWorld::wait_all([[maybe_unused]] const std::function<void()>& while_waiting) const {
#ifdef NETDP_HAVE_MPI
  if (size_ > 1) {
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    int done = 0;
    for (MPI_Test(&request, &done, MPI_STATUS_IGNORE); done == 0;
         MPI_Test(&request, &done, MPI_STATUS_IGNORE)) {
      while_waiting();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
#endif
}

long long MpiWorld::sum(long long value) const {
#ifdef NETDP_HAVE_MPI
  if (size_ > 1) {
    long long total = 0;
    MPI_Allreduce(&value, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return total;
  }
#endif
  return value;
}

int MpiWorld::max(int value) const {
#ifdef NETDP_HAVE_MPI
  if (size_ > 1) {
    int result = 0;
    MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return result;
  }
#endif
  return value;
}

}  // namespace netdp::study
