// Gossip simulator parameters: names, validation, recorded times.
#include <cmath>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "simulation/gossip_sim_internal.hpp"

namespace netdp {

namespace {
constexpr std::int64_t kMaxRuns = std::int64_t{1} << 32;  // the run field of the Philox subsequence
constexpr int kMaxRounds = 1 << 24;                       // its round field (er-per-round, dropout)
}  // namespace

GossipProtocol parse_gossip_protocol(std::string_view text) {
  if (text == "sync") return GossipProtocol::sync;
  if (text == "accelerated") return GossipProtocol::accelerated;
  if (text == "randomized") return GossipProtocol::randomized;
  if (text == "er-per-round") return GossipProtocol::er_per_round;
  if (text == "dropout") return GossipProtocol::dropout;
  if (text == "dropout-er") return GossipProtocol::dropout_er;
  if (text == "sequence") return GossipProtocol::sequence;
  throw InvalidParameter(
      "protocol",
      "protocol: expected sync, accelerated, randomized, er-per-round, dropout, dropout-er or sequence, "
      "got '" +
          std::string(text) + "'");
}

std::string to_string(GossipProtocol p) {
  switch (p) {
    case GossipProtocol::sync:
      return "sync";
    case GossipProtocol::accelerated:
      return "accelerated";
    case GossipProtocol::randomized:
      return "randomized";
    case GossipProtocol::er_per_round:
      return "er-per-round";
    case GossipProtocol::sequence:
      return "sequence";
    case GossipProtocol::dropout_er:
      return "dropout-er";
    default:
      return "dropout";
  }
}

bool fixed_matrix(GossipProtocol p) {
  return p == GossipProtocol::sync || p == GossipProtocol::accelerated;
}

InitSpec parse_init_spec(std::string_view text) {
  if (text == "zero") return {InitKind::zero, ""};
  if (text == "normal") return {InitKind::normal, ""};
  if (text == "uniform") return {InitKind::uniform, ""};
  if (text.starts_with("file:") && text.size() > 5) return {InitKind::file, std::string(text.substr(5))};
  throw InvalidParameter(
      "init", "init: expected zero, normal, uniform or file:PATH, got '" + std::string(text) + "'");
}

std::string to_string(const InitSpec& spec) {
  switch (spec.kind) {
    case InitKind::zero:
      return "zero";
    case InitKind::normal:
      return "normal";
    case InitKind::uniform:
      return "uniform";
    default:
      return "file:" + spec.path;
  }
}

void validate(const GossipSimParams& p, node_t n) {
  auto bad = [](const char* parameter, const std::string& what) { throw InvalidParameter(parameter, what); };
  if (p.steps < 1) bad("steps", "steps must be >= 1, got " + std::to_string(p.steps));
  if (!fixed_matrix(p.protocol) && p.protocol != GossipProtocol::randomized && p.steps > kMaxRounds)
    bad("steps",
        "steps: at most 2^24 rounds for " + to_string(p.protocol) + ", got " + std::to_string(p.steps));
  if (p.runs < 1 || p.runs > kMaxRuns)
    bad("runs", "runs must be in [1, 2^32], got " + std::to_string(p.runs));
  if (p.dim < 1) bad("dim", "dim must be >= 1, got " + std::to_string(p.dim));
  if (!(p.sigma >= 0.0) || !std::isfinite(p.sigma))
    bad("sigma", "sigma must be a finite number >= 0, got " + format_double(p.sigma));
  if (p.protocol == GossipProtocol::dropout_er && !(p.edge_probability >= 0.0 && p.edge_probability <= 1.0))
    bad("er-p", "er-p: the dropout-er edge probability p must be in [0, 1], got " +
                    format_double(p.edge_probability));
  if (!(p.edge_probability >= 0.0 && p.edge_probability <= 1.0))
    bad("er-c", "er-c: the er-per-round edge probability q = c ln(n)/n must be in [0, 1], got " +
                    format_double(p.edge_probability) + " (lower er-c)");
  if (!(p.dropout >= 0.0 && p.dropout <= 1.0))
    bad("dropout", "dropout must be in [0, 1], got " + format_double(p.dropout));
  if (!(p.spectral_gap >= 0.0 && p.spectral_gap <= 2.0))
    throw InvalidInput("spectral gap must be in [0, 2], got " + format_double(p.spectral_gap));
  if (p.record_every < 1)
    bad("record-every", "record-every must be >= 1, got " + std::to_string(p.record_every));
  if (p.batch_runs < 0) bad("batch-runs", "batch-runs must be >= 0, got " + std::to_string(p.batch_runs));
  if (p.memory_limit < 0) bad("memory-limit", "memory-limit must be >= 0");
  if (p.clip_start && p.device.kind == DeviceKind::cuda)
    bad("clip-start", "clip-start runs on the CPU only, not on device cuda; use device cpu or auto");
  if (n < 1) throw InvalidInput("gossip-sim: the graph has no nodes");
  if (p.protocol == GossipProtocol::sequence) {
    if (!p.sequence || p.sequence->empty())
      bad("sequence", "sequence PATH is required by protocol sequence (no matrices given)");
    for (std::size_t t = 0; t < p.sequence->size(); ++t)
      if ((*p.sequence)[t].w.n != n || (*p.sequence)[t].graph.n != n)
        bad("sequence",
            "sequence: matrix " + std::to_string(t) + " is " + std::to_string((*p.sequence)[t].w.n) + " x " +
                std::to_string((*p.sequence)[t].w.n) + " but the graph has " + std::to_string(n) + " nodes");
  }
  // Every protocol has a CUDA path (kernels/cuda/gossip_sim*.cu); whether a device answers is checked when
  // the device is resolved, and device cuda with privacy is refused by the job (gossip_sim_job.cpp).
}

namespace gossip_sim_detail {

std::vector<int> recorded_times(int steps, int every) {
  std::vector<int> t;
  for (std::int64_t s = 0; s < steps; s += every) t.push_back(static_cast<int>(s));
  t.push_back(steps);
  return t;
}

}  // namespace gossip_sim_detail

}  // namespace netdp
