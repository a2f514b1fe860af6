#pragma once
// What the CUDA twins of the accountants on schedules share (gossip_loss_sequence_cuda.cu,
// gossip_view_sequence_cuda.cu, muffliato_view_cuda.cu): each distinct round's W_t and E_t uploaded once (a
// constant schedule views one round `steps` times), and the slot size of a batch of bases.
#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "common/gossip_loss_sequence_bodies.hpp"
#include "common/gossip_view_sequence_bodies.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/runtime_check.hpp"
#include "gossip_loss_sequence_kernels.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels {
namespace {

using cuda::DeviceBuffer;

/// The largest of `count` basis capacities (at least 1): the slot size of a batch of observers.
inline std::int64_t largest_capacity(const std::int64_t* capacities, std::int64_t count) {
  std::int64_t r = 1;
  for (std::int64_t i = 0; i < count; ++i) r = capacities[i] > r ? capacities[i] : r;
  return r;
}

/// One round's W_t and E_t on the device.
struct DeviceRound {
  DeviceBuffer<offset_t> w_offsets, g_offsets;
  DeviceBuffer<node_t> w_columns, g_adjacency;
  DeviceBuffer<double> w_values;
  bool has_edges = false;

  DeviceRound(const RoundView& r, cudaStream_t stream)
      : w_offsets(r.w.offsets.size()),
        g_offsets(r.graph.offsets.size()),
        w_columns(r.w.columns.size()),
        g_adjacency(r.graph.adjacency.size()),
        w_values(r.w.values.size()),
        has_edges(r.graph.num_edges() > 0) {
    w_offsets.upload(r.w.offsets, stream);
    g_offsets.upload(r.graph.offsets, stream);
    w_columns.upload(r.w.columns, stream);
    g_adjacency.upload(r.graph.adjacency, stream);
    w_values.upload(r.w.values, stream);
  }
  sequence::CsrArrays w() const { return {w_offsets.data(), w_columns.data(), w_values.data()}; }
  sequence::CsrArrays graph() const { return {g_offsets.data(), g_adjacency.data(), nullptr}; }
  std::int64_t bytes() const {
    return static_cast<std::int64_t>(w_offsets.bytes() + g_offsets.bytes() + w_columns.bytes() +
                                     g_adjacency.bytes() + w_values.bytes());
  }
};

std::int64_t round_bytes(const RoundView& r) {
  return static_cast<std::int64_t>((r.w.offsets.size() + r.graph.offsets.size()) * sizeof(offset_t) +
                                   (r.w.columns.size() + r.graph.adjacency.size()) * sizeof(node_t) +
                                   r.w.values.size() * sizeof(double));
}

/// The distinct rounds of a synchronous schedule (a constant schedule views one round `steps` times) and the
/// index of each round among them.
struct DistinctRounds {
  DistinctRounds() = default;
  std::vector<std::size_t> first_of;  // per distinct round: the first t that views it
  std::vector<std::size_t> index;     // per t
  explicit DistinctRounds(const SequenceProblem& p) {
    std::map<std::tuple<const void*, const void*, const void*>, std::size_t> seen;
    for (int t = 0; t < p.steps; ++t) {
      const RoundView& r = p.rounds[t];
      const auto key = std::make_tuple(static_cast<const void*>(r.w.offsets.data()),
                                       static_cast<const void*>(r.w.values.data()),
                                       static_cast<const void*>(r.graph.offsets.data()));
      const auto [it, added] = seen.emplace(key, first_of.size());
      if (added) first_of.push_back(static_cast<std::size_t>(t));
      index.push_back(it->second);
    }
  }
};

/// Every distinct round of a schedule on the device, uploaded once; round(t) is round t's.
class DeviceRounds {
 public:
  DeviceRounds(const SequenceProblem& p, const DistinctRounds& distinct, cudaStream_t stream)
      : round_of_(distinct.index) {
    rounds_.reserve(distinct.first_of.size());
    for (std::size_t t : distinct.first_of) rounds_.emplace_back(p.rounds[t], stream);
  }
  const DeviceRound& round(int t) const { return rounds_[round_of_[static_cast<std::size_t>(t)]]; }
  std::int64_t bytes() const {
    std::int64_t bytes = 0;
    for (const DeviceRound& r : rounds_) bytes += r.bytes();
    return bytes;
  }

 private:
  std::vector<DeviceRound> rounds_;
  std::vector<std::size_t> round_of_;
};

/// Every observer's id and capacity, and the slots and states of a batch of their bases (vectors of
/// `length`), on the device: what the exact accountants on schedules grow round by round.
class DeviceBases {
 public:
  DeviceBases(const std::int32_t* observers, const std::int64_t* capacities, std::int64_t count,
              std::int64_t length, double floor, std::int64_t width_capacity, std::int64_t batch,
              cudaStream_t stream)
      : observers_(static_cast<std::size_t>(count)),
        capacities_(static_cast<std::size_t>(count)),
        workspace_(static_cast<std::size_t>(
            batch * gossip_view::slot_doubles(length, largest_capacity(capacities, count), width_capacity))),
        states_(static_cast<std::size_t>(batch)),
        bases_{length,
               nullptr,
               nullptr,
               floor,
               workspace_.data(),
               batch,
               true,
               largest_capacity(capacities, count),
               width_capacity,
               states_.data()} {
    observers_.upload({observers, observers_.size()}, stream);
    capacities_.upload({capacities, capacities_.size()}, stream);
  }
  /// The bases of observers first, first + 1, ... of the list, their states cleared (queued on `stream`).
  gossip_view::SequenceBases batch(std::int64_t first, cudaStream_t stream) const {
    NETDP_CUDA_TRY(cudaMemsetAsync(states_.data(), 0, states_.bytes(), stream));
    gossip_view::SequenceBases bases = bases_;
    bases.observers = observers_.data() + first;
    bases.capacities = capacities_.data() + first;
    return bases;
  }
  std::int64_t bytes() const {
    return static_cast<std::int64_t>(observers_.bytes() + capacities_.bytes() + workspace_.bytes() +
                                     states_.bytes());
  }

 private:
  DeviceBuffer<std::int32_t> observers_;
  DeviceBuffer<std::int64_t> capacities_;
  DeviceBuffer<double> workspace_;
  DeviceBuffer<gossip_view::BasisState> states_;
  gossip_view::SequenceBases bases_;
};

}  // namespace
}  // namespace netdp::kernels
