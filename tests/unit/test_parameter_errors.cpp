// The library below the registry names parameters, not command-line flags (docs/design_models.md "Values and
// errors"): a bad value given to a library entry point throws InvalidParameter whose parameter() is the
// registry's name of that parameter ("t-start", "batch-runs") and whose message starts with it and spells no
// "--flag". The CLI adds the "--" (src/cli/main.cpp); a study shows the key.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "netdp/accounting/coalition.hpp"
#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/accounting/walk_loss.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"
#include "netdp/jobs/model.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "netdp/simulation/gossip_sim_privacy.hpp"
#include "netdp/simulation/muffliato_gd.hpp"
#include "netdp/simulation/walk_sim.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

struct Case {
  std::string what;            // for the failure message
  std::function<void()> call;  // a library call with one bad value
  std::string parameter;       // the parameter it must name
  std::string model;           // the registry model that has a parameter of that name
};

/// Runs every case: InvalidParameter naming `parameter`, a message that starts with it and has no "--", and
/// the name is one of the model's registry parameters.
void expect_parameter_errors(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    try {
      c.call();
      ADD_FAILURE() << "no error";
    } catch (const InvalidParameter& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.parameter(), c.parameter) << message;
      EXPECT_EQ(message.rfind(c.parameter, 0), 0u) << message;
      EXPECT_EQ(message.find("--"), std::string::npos) << message;
      EXPECT_FALSE(e.detail().empty()) << message;
      const jobs::Model* model = jobs::find_model(c.model);
      ASSERT_NE(model, nullptr) << c.model;
      EXPECT_NE(model->find(c.parameter), nullptr) << c.model << " has no parameter " << c.parameter;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not an InvalidParameter: " << e.what();
    }
  }
}

TEST(ParameterErrors, GossipLossParams) {
  auto with = [](auto change) {
    GossipLossParams p;
    change(p);
    return [p] { validate(p, 8); };
  };
  expect_parameter_errors({
      {"alpha 1", with([](auto& p) { p.alpha = 1; }), "alpha", "gossip-loss"},
      {"sigma 0", with([](auto& p) { p.sigma = 0; }), "sigma", "gossip-loss"},
      {"sensitivity -1", with([](auto& p) { p.sensitivity = -1; }), "sensitivity", "gossip-loss"},
      {"steps 0", with([](auto& p) { p.steps = 0; }), "steps", "gossip-loss"},
      {"t-start 2", with([](auto& p) { p.t_start = 2; }), "t-start", "gossip-loss"},
      {"source 8", with([](auto& p) { p.source = 8; }), "source", "gossip-loss"},
      {"tile-sources -1", with([](auto& p) { p.tile_sources = -1; }), "tile-sources", "gossip-loss"},
      {"memory-limit -1", with([](auto& p) { p.memory_limit = -1; }), "memory-limit", "gossip-loss"},
      {"device tpu", [] { parse_device_spec("tpu"); }, "device", "gossip-loss"},
  });
}

TEST(ParameterErrors, WalkLossParams) {
  auto with = [](auto change) {
    WalkLossParams p;
    change(p);
    return [p] { validate(p, 8); };
  };
  expect_parameter_errors({
      {"alpha 0.5", with([](auto& p) { p.alpha = 0.5; }), "alpha", "walk-loss"},
      {"sigma -1", with([](auto& p) { p.sigma = -1; }), "sigma", "walk-loss"},
      {"steps 0", with([](auto& p) { p.steps = 0; }), "steps", "walk-loss"},
      {"contributions -1", with([](auto& p) { p.contributions = -1; }), "contributions", "walk-loss"},
      {"source -1", with([](auto& p) { p.source = -1; }), "source", "walk-loss"},
      {"method closed", [] { parse_walk_loss_method("closed"); }, "method", "walk-loss"},
      {"sender spotted", [] { parse_sender_view("spotted"); }, "sender", "walk-loss"},
      {"colluders 8 of 8", [] { WorstCoalition(8, 8); }, "colluders", "walk-loss"},
  });
}

TEST(ParameterErrors, WalkSimParams) {
  auto with = [](auto change) {
    WalkSimParams p;
    p.steps = 10;
    change(p);
    return [p] { validate(p, 10); };
  };
  expect_parameter_errors({
      {"steps 0", with([](auto& p) { p.steps = 0; }), "steps", "walk-sim"},
      {"runs 0", with([](auto& p) { p.runs = 0; }), "runs", "walk-sim"},
      {"eps0 0", with([](auto& p) { p.eps0 = 0; }), "eps0", "walk-sim"},
      {"delta 1", with([](auto& p) { p.delta = 1; }), "delta", "walk-sim"},
      {"delta 0.2 over 10 steps", with([](auto& p) { p.delta = 0.2; }), "delta", "walk-sim"},
      {"start node:10", with([](auto& p) {
         p.start = {StartKind::node, 10};
       }),
       "start", "walk-sim"},
      {"quantiles 1.5", with([](auto& p) {
         p.quantiles = {0.5, 1.5};
       }),
       "quantiles", "walk-sim"},
      {"batch-runs -1", with([](auto& p) { p.batch_runs = -1; }), "batch-runs", "walk-sim"},
      {"save-paths too large", with([](auto& p) {
         p.save_paths = true;
         p.runs = 1'000'000;
       }),
       "save-paths", "walk-sim"},
      {"save-paths on cuda", with([](auto& p) {
         p.save_paths = true;
         p.device = parse_device_spec("cuda");
       }),
       "save-paths", "walk-sim"},
      {"bookkeeping reference on cuda", with([](auto& p) {
         p.bookkeeping = WalkBookkeeping::reference;
         p.device = parse_device_spec("cuda");
       }),
       "bookkeeping", "walk-sim"},
      {"mechanism bogus", [] { parse_walk_mechanism("bogus"); }, "mechanism", "walk-sim"},
      {"view sideways", [] { parse_walk_view("sideways"); }, "view", "walk-sim"},
      {"bookkeeping bogus", [] { parse_walk_bookkeeping("bogus"); }, "bookkeeping", "walk-sim"},
      {"start somewhere", [] { parse_walk_start("somewhere"); }, "start", "walk-sim"},
      {"weights bogus", [] { parse_walk_weights("bogus"); }, "weights", "walk-sim"},
      {"weights directed-ring off the ring", [] { make_walk_model("path:n=5", "directed-ring"); }, "weights",
       "walk-sim"},
  });
}

TEST(ParameterErrors, GossipSimParams) {
  auto with = [](auto change) {
    GossipSimParams p;
    change(p);
    return [p] { validate(p, 8); };
  };
  expect_parameter_errors({
      {"steps 0", with([](auto& p) { p.steps = 0; }), "steps", "gossip-sim"},
      {"steps 2^25 for dropout", with([](auto& p) {
         p.protocol = GossipProtocol::dropout;
         p.steps = 1 << 25;
       }),
       "steps", "gossip-sim"},
      {"runs 0", with([](auto& p) { p.runs = 0; }), "runs", "gossip-sim"},
      {"dim 0", with([](auto& p) { p.dim = 0; }), "dim", "gossip-sim"},
      {"sigma -1", with([](auto& p) { p.sigma = -1; }), "sigma", "gossip-sim"},
      {"q above 1", with([](auto& p) { p.edge_probability = 2; }), "er-c", "gossip-sim"},
      {"dropout 1.5", with([](auto& p) { p.dropout = 1.5; }), "dropout", "gossip-sim"},
      {"record-every 0", with([](auto& p) { p.record_every = 0; }), "record-every", "gossip-sim"},
      {"batch-runs -1", with([](auto& p) { p.batch_runs = -1; }), "batch-runs", "gossip-sim"},
      {"memory-limit -1", with([](auto& p) { p.memory_limit = -1; }), "memory-limit", "gossip-sim"},
      {"sequence without matrices", with([](auto& p) { p.protocol = GossipProtocol::sequence; }), "sequence",
       "gossip-sim"},
      {"protocol push-sum", [] { parse_gossip_protocol("push-sum"); }, "protocol", "gossip-sim"},
      {"init ones", [] { parse_init_spec("ones"); }, "init", "gossip-sim"},
      {"init file missing",
       [] {
         GossipSimParams p;
         p.init = parse_init_spec("file:/nonexistent/netdp-init.txt");
         initial_values(4, p);
       },
       "init", "gossip-sim"},
      {"sequence list missing", [] { load_gossip_sequence("/nonexistent/netdp-list.txt", 4); }, "sequence",
       "gossip-sim"},
      {"steps auto for dropout",
       [] {
         GossipBoundInputs in;
         in.protocol = GossipProtocol::dropout;
         in.n = 8;
         in.sigma = 1;
         in.gap = 0.5;
         gossip_sim_stopping_time(in);
       },
       "steps", "gossip-sim"},
  });
  // The privacy pass: sigma > 0, then the pairwise accountant's parameters under gossip-sim's names.
  auto privacy = [](auto change) {
    GossipSimParams p;
    GossipPrivacyParams q;
    change(p, q);
    return [p, q] { validate(q, p, 8); };
  };
  expect_parameter_errors({
      {"privacy with sigma 0", privacy([](auto& p, auto&) { p.sigma = 0; }), "sigma", "gossip-sim"},
      {"alpha 1", privacy([](auto&, auto& q) { q.alpha = 1; }), "alpha", "gossip-sim"},
      {"t-start 2", privacy([](auto&, auto& q) { q.t_start = 2; }), "t-start", "gossip-sim"},
      {"source 8", privacy([](auto&, auto& q) { q.source = 8; }), "source", "gossip-sim"},
      {"quantiles -0.5", privacy([](auto&, auto& q) { q.quantiles = {-0.5}; }), "quantiles", "gossip-sim"},
  });
}

TEST(ParameterErrors, MuffliatoGdParams) {
  const LocalData data = synthetic_data(Objective::quadratic, 4, 2, 1, 0);
  auto with = [&data](auto change) {
    MuffliatoGdParams p;
    change(p);
    return [p, &data] { validate(p, data); };
  };
  expect_parameter_errors({
      {"steps 0", with([](auto& p) { p.steps = 0; }), "steps", "muffliato-gd"},
      {"gossip-rounds 0", with([](auto& p) { p.gossip_steps = 0; }), "gossip-rounds", "muffliato-gd"},
      {"step-size 0", with([](auto& p) { p.step_size = 0; }), "step-size", "muffliato-gd"},
      {"sigma -1", with([](auto& p) { p.sigma = -1; }), "sigma", "muffliato-gd"},
      {"runs 0", with([](auto& p) { p.runs = 0; }), "runs", "muffliato-gd"},
      {"clip -1", with([](auto& p) { p.clip = -1; }), "clip", "muffliato-gd"},
      {"l2 -1", with([](auto& p) { p.l2 = -1; }), "l2", "muffliato-gd"},
      {"batch 2 of 1 example", with([](auto& p) { p.batch = 2; }), "batch", "muffliato-gd"},
      {"q of 0", with([](auto& p) {
         p.er_per_round = true;
         p.edge_probability = 0;
       }),
       "er-c", "muffliato-gd"},
      {"dim 0", [] { synthetic_data(Objective::quadratic, 4, 0, 1, 0); }, "dim", "muffliato-gd"},
      {"samples 0", [] { synthetic_data(Objective::quadratic, 4, 2, 0, 0); }, "samples", "muffliato-gd"},
      {"data missing", [] { read_csv_data("/nonexistent/netdp-data.csv", Objective::quadratic, 4); }, "data",
       "muffliato-gd"},
  });
}

TEST(ParameterErrors, OutputDirectoryAndDevice) {
  testing::ScratchDir dir;
  const std::string file = dir.write("plain.txt", "not a directory\n");
  expect_parameter_errors({
      {"out is a file", [&] { ResultsDir out(file); }, "out", "gossip-loss"},
      {"device cuda:N without such a device",
       [] {
         resolve_device({DeviceKind::cuda, cuda_device_count() + 1});
       },
       "device", "walk-sim"},
  });
  // An absent device is a DeviceUnavailable (still InvalidInput, exit code 2) that names the device.
  try {
    resolve_device({DeviceKind::cuda, cuda_device_count() + 1});
    ADD_FAILURE() << "no error";
  } catch (const DeviceUnavailable& e) {
    EXPECT_EQ(e.parameter(), "device");
    EXPECT_EQ(std::string(e.what()).rfind("device cuda:", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace netdp
