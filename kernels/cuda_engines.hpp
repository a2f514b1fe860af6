#pragma once
// The one list of what crosses the boundary between netdp and its CUDA module (docs/cuda_loader.md "The
// interface"). Everything else is generated from it: the module's table (kernels/cuda_module.hpp), the
// loader's forwarders (kernels/cuda_loader.cpp), the "built without CUDA" stubs (kernels/stubs/), the table
// the module fills (kernels/cuda/module_entry.cpp) and the signature that refuses a module of another build
// (kernels/cuda_signature.hpp).
//
// Adding an engine: declare it in its *_kernels.hpp, add one X line below (the name, the return type and the
// parameter types exactly as declared; cuda_module.hpp checks them against the declaration), write it in
// kernels/cuda/. A struct, engine class or enumeration it passes that is not listed yet goes into
// NETDP_CUDA_LAYOUTS, NETDP_CUDA_INTERFACES or NETDP_CUDA_ENUMS (cuda_signature.hpp makes the signature of
// them).
#include <cstddef>
#include <cstdint>
#include <memory>

#include "gossip_loss_kernels.hpp"
#include "gossip_loss_sequence_kernels.hpp"
#include "gossip_sim_kernels.hpp"
#include "gossip_view_kernels.hpp"
#include "walk_loss_kernels.hpp"
#include "walk_sim_kernels.hpp"

// X(name, return type, parameter types...): the engines, the functions netdp calls on a device.
#define NETDP_CUDA_ENGINES(X)                                                                               \
  X(gossip_loss_cuda, std::unique_ptr<GossipLossCudaEngine>, const GossipLossProblem&, int, node_t, node_t, \
    std::int64_t, std::int64_t, LossRowSink&)                                                               \
  X(gossip_loss_sequence_cuda, CudaSequenceRun, const SequenceProblem&, int, std::int64_t, double*)         \
  X(gossip_sim_cuda, std::unique_ptr<GossipSimCudaEngine>, const GossipSimProblem&, int, std::int64_t,      \
    std::int64_t, std::int64_t)                                                                             \
  X(gossip_sim_varying_cuda, std::unique_ptr<GossipSimCudaEngine>, const GossipSimVaryingProblem&, int,     \
    std::int64_t, std::int64_t, std::int64_t)                                                               \
  X(walk_loss_cuda, std::unique_ptr<WalkLossCudaEngine>, const WalkLossProblem&,                            \
    const WalkChebyshevExpansion*, int, node_t, node_t, std::int64_t, std::int64_t, LossRowSink&)           \
  X(walk_sim_cuda, std::unique_ptr<WalkPlainCudaEngine>, const WalkTables&, const WalkRunSpec&, int,        \
    std::int64_t, std::int64_t, double)                                                                     \
  X(walk_steps_cuda, std::unique_ptr<WalkStepCudaEngine>, const WalkTables&, const WalkRunSpec&, int, bool) \
  X(walk_sim_accounted_cuda, std::unique_ptr<WalkAccountedCudaEngine>, const WalkTables&,                   \
    const WalkRunSpec&, int, std::int64_t, std::int64_t, double, const WalkAccountingInputs&)               \
  X(gossip_view_sequence_cuda, CudaSequenceViewRun, const SequenceViewProblem&, int, std::int64_t, double*, \
    GossipViewObserver*)                                                                                    \
  X(gossip_view_cuda, std::unique_ptr<GossipViewCudaEngine>, const GossipViewProblem&, int,                 \
    const std::int32_t*, std::int64_t, std::int64_t, std::int64_t)

// S(struct, M(member) M(member) ...): every struct whose bytes one side writes and the other reads (the
// engines' parameters, what their engines' methods take and return, and the structs these point to), each
// member once. The signature carries the size and alignment of each and the offset and size of each member,
// so a module compiled against another layout is refused instead of misreading memory.
#define NETDP_CUDA_LAYOUTS(S, M)                                                                           \
  S(GraphView, M(n) M(offsets) M(adjacency))                                                               \
  S(CsrView, M(n) M(offsets) M(columns) M(values))                                                         \
  S(RoundView, M(w) M(graph))                                                                              \
  S(GossipLossProblem, M(graph) M(w) M(t_start) M(steps) M(scale) M(cap_ldp) M(dense))                     \
  S(CudaGossipLossRun, M(norms_tile) M(tile_sources) M(tiles) M(device_bytes))                             \
  S(SequenceProblem,                                                                                       \
    M(kind) M(n) M(steps) M(rounds) M(activations) M(t_start) M(gossip_steps) M(first) M(count))           \
  S(CudaSequenceRun, M(device_bytes))                                                                      \
  S(SequenceViewProblem,                                                                                   \
    M(schedule) M(knows_noise) M(floor) M(source) M(observers) M(count) M(capacities) M(width_capacity))   \
  S(CudaSequenceViewRun, M(device_bytes) M(batches))                                                       \
  S(GossipSimProblem,                                                                                      \
    M(w) M(accelerated) M(dense) M(steps) M(dim) M(sigma) M(gamma) M(seed) M(x) M(xbar) M(times))          \
  S(GossipSimBatchErrors, M(truth) M(noisy))                                                               \
  S(CudaGossipSimRun, M(batch_runs) M(batches) M(device_bytes))                                            \
  S(GossipSimVaryingProblem,                                                                               \
    M(protocol) M(n) M(steps) M(dim) M(sigma) M(seed) M(x) M(xbar) M(times) M(rounds) M(graph) M(dropout)  \
        M(cumulative) M(edge_nodes) M(edge_probability))                                                   \
  S(WalkLossProblem,                                                                                       \
    M(graph) M(w) M(method) M(sender_known) M(steps) M(constant) M(scale) M(clip) M(clip_level))           \
  S(WalkChebyshevExpansion, M(lo) M(hi) M(coefficients))                                                   \
  S(CudaWalkLossRun, M(tile_sources) M(tiles) M(device_bytes) M(eigen_seconds))                            \
  S(WalkTables, M(kind) M(n) M(offsets) M(targets) M(thresholds))                                          \
  S(WalkRunSpec, M(seed) M(steps) M(runs) M(batch_runs) M(per_walk_start) M(start_node) M(eps0) M(delta))  \
  S(WalkVisitTallies, M(visits) M(returns) M(return_time_sum) M(hits) M(hitting_time_sum) M(return_counts) \
                          M(hitting_counts) M(visit_counts) M(above_nv))                                   \
  S(WalkSimCudaRun, M(batch_runs) M(batches) M(device_bytes))                                              \
  S(walk::WalkStepSummary, M(end) M(start_visits) M(first_return))                                         \
  S(walk::EpsTerms, M(eps) M(square) M(first))                                                             \
  S(walk::CycleTerms, M(zero) M(one) M(two))                                                               \
  S(walk::PairLosses, M(count) M(sum) M(compensation) M(min) M(max))                                       \
  S(WalkAccountingInputs, M(table_lengths) M(table) M(gaussian) M(known) M(eps0) M(delta) M(utility)       \
                              M(sigma_loc) M(values) M(log_base))                                          \
  S(WalkAccountedBatch, M(first) M(count) M(cycles) M(shared) M(pairs) M(truth) M(noise) M(noises))        \
  S(WalkSketchBins, M(first_bin) M(counts) M(zero))                                                        \
  S(GossipViewProblem, M(n) M(w_offsets) M(w_columns) M(w_values) M(g_offsets) M(g_adjacency) M(t_start)   \
                           M(steps) M(knows_noise) M(use_balls))                                           \
  S(GossipViewObserver, M(rank) M(dropped) M(smallest_kept) M(below_floor))                                \
  S(CudaGossipViewRun, M(batch_observers) M(batches) M(device_bytes))

// P(class, F(method) F(method) ...): the polymorphic classes whose virtual methods one side calls and the
// other defines (the engines the module returns, the sink netdp hands it), every virtual method but the
// destructor in declaration order (their order in the vtable). The signature carries each class's size and
// each method's type; a reordering of the declarations is not seen, so keep this list in their order.
#define NETDP_CUDA_INTERFACES(P, F)                                    \
  P(LossRowSink, F(consume))                                           \
  P(GossipLossCudaEngine, F(plan) F(add_norms) F(loss_rows) F(finish)) \
  P(GossipSimCudaEngine, F(plan) F(run_batch))                         \
  P(GossipViewCudaEngine, F(plan) F(run_batch))                        \
  P(WalkLossCudaEngine, F(plan) F(loss_rows) F(finish))                \
  P(WalkPlainCudaEngine, F(plan) F(run_batch) F(finish))               \
  P(WalkStepCudaEngine, F(plan) F(run_batch) F(visits))                \
  P(WalkAccountedCudaEngine, F(plan) F(missing_cycle_lengths) F(set_cycle_terms) F(run_batch) F(finish))

// E(enum, V(enumerator) V(enumerator) ...): the enumerations in those structs, each enumerator once, so that
// the signature carries the value of each.
#define NETDP_CUDA_ENUMS(E, V)                                                     \
  E(WalkKind, V(complete) V(uniform) V(lazy_uniform) V(weighted) V(directed_ring)) \
  E(SequenceKind, V(synchronous) V(randomized) V(muffliato_c9))                    \
  E(VaryingProtocol, V(sequence) V(dropout) V(randomized) V(er_per_round) V(dropout_er))

// Named parameters from a list of types (T0 a0, T1 a1, ...) and the names alone (a0, a1, ...), for the
// forwarders; up to 10 parameters.
#define NETDP_CUDA_COUNT(...) NETDP_CUDA_COUNT_(__VA_ARGS__, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define NETDP_CUDA_COUNT_(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, n, ...) n
#define NETDP_CUDA_CAT(a, b) NETDP_CUDA_CAT_(a, b)
#define NETDP_CUDA_CAT_(a, b) a##b
#define NETDP_CUDA_PARAMS(...) NETDP_CUDA_CAT(NETDP_CUDA_PARAMS_, NETDP_CUDA_COUNT(__VA_ARGS__))(__VA_ARGS__)
#define NETDP_CUDA_ARGS(...) NETDP_CUDA_CAT(NETDP_CUDA_ARGS_, NETDP_CUDA_COUNT(__VA_ARGS__))
#define NETDP_CUDA_PARAMS_1(t0) t0 a0
#define NETDP_CUDA_PARAMS_2(t0, t1) t0 a0, t1 a1
#define NETDP_CUDA_PARAMS_3(t0, t1, t2) t0 a0, t1 a1, t2 a2
#define NETDP_CUDA_PARAMS_4(t0, t1, t2, t3) t0 a0, t1 a1, t2 a2, t3 a3
#define NETDP_CUDA_PARAMS_5(t0, t1, t2, t3, t4) t0 a0, t1 a1, t2 a2, t3 a3, t4 a4
#define NETDP_CUDA_PARAMS_6(t0, t1, t2, t3, t4, t5) t0 a0, t1 a1, t2 a2, t3 a3, t4 a4, t5 a5
#define NETDP_CUDA_PARAMS_7(t0, t1, t2, t3, t4, t5, t6) t0 a0, t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6
#define NETDP_CUDA_PARAMS_8(t0, t1, t2, t3, t4, t5, t6, t7) \
  t0 a0, t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6, t7 a7
#define NETDP_CUDA_PARAMS_9(t0, t1, t2, t3, t4, t5, t6, t7, t8) \
  t0 a0, t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6, t7 a7, t8 a8
#define NETDP_CUDA_PARAMS_10(t0, t1, t2, t3, t4, t5, t6, t7, t8, t9) \
  t0 a0, t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6, t7 a7, t8 a8, t9 a9
#define NETDP_CUDA_ARGS_1 a0
#define NETDP_CUDA_ARGS_2 a0, a1
#define NETDP_CUDA_ARGS_3 a0, a1, a2
#define NETDP_CUDA_ARGS_4 a0, a1, a2, a3
#define NETDP_CUDA_ARGS_5 a0, a1, a2, a3, a4
#define NETDP_CUDA_ARGS_6 a0, a1, a2, a3, a4, a5
#define NETDP_CUDA_ARGS_7 a0, a1, a2, a3, a4, a5, a6
#define NETDP_CUDA_ARGS_8 a0, a1, a2, a3, a4, a5, a6, a7
#define NETDP_CUDA_ARGS_9 a0, a1, a2, a3, a4, a5, a6, a7, a8
#define NETDP_CUDA_ARGS_10 a0, a1, a2, a3, a4, a5, a6, a7, a8, a9
