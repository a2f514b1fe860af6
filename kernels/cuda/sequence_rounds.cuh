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
#include "cuda/base/device_buffer.hpp"
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

}  // namespace
}  // namespace netdp::kernels
