// Graph specs `FAMILY:key=value,...`: every family parses and builds; bad specs throw helpful InvalidInput.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/graph_io.hpp"
#include "netdp/core/graph_spec.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

bool same_graph(const Graph& a, const Graph& b) {
  return a.n == b.n && a.offsets == b.offsets && a.adjacency == b.adjacency;
}

void expect_invalid(const std::string& spec, const std::vector<std::string>& fragments) {
  try {
    make_graph(spec);
    ADD_FAILURE() << "no InvalidInput for '" << spec << "'";
  } catch (const InvalidInput& e) {
    for (const auto& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << "spec '" << spec << "': " << e.what();
  }
}

TEST(GraphSpec, ParsesFamilyAndKeys) {
  GraphSpec s = parse_graph_spec("er:n=2048,c=1,seed=3");
  EXPECT_EQ(s.family, "er");
  EXPECT_EQ(s.text, "er:n=2048,c=1,seed=3");
  EXPECT_EQ(s.params.size(), 3u);
  EXPECT_EQ(s.params.at("n"), "2048");
  EXPECT_EQ(s.params.at("c"), "1");
  EXPECT_EQ(s.params.at("seed"), "3");
  EXPECT_TRUE(parse_graph_spec("florentine").params.empty());
  EXPECT_EQ(parse_graph_spec(" ring : n = 5 ").params.at("n"), "5");
}

TEST(GraphSpec, DeterministicFamiliesMatchTheGenerators) {
  EXPECT_TRUE(same_graph(make_graph("complete:n=7"), complete_graph(7)));
  EXPECT_TRUE(same_graph(make_graph("ring:n=9"), ring_graph(9)));
  EXPECT_TRUE(same_graph(make_graph("path:n=31"), path_graph(31)));
  EXPECT_TRUE(same_graph(make_graph("star:n=11"), star_graph(11)));
  EXPECT_TRUE(same_graph(make_graph("grid:rows=3,cols=5"), grid_graph(3, 5)));
  EXPECT_TRUE(same_graph(make_graph("grid:n=45"), grid_graph(45, 45)));
  EXPECT_TRUE(same_graph(make_graph("hypercube:dim=11"), hypercube_graph(11)));
  EXPECT_TRUE(same_graph(make_graph("exponential:n=12"), exponential_graph(12)));
  EXPECT_TRUE(same_graph(make_graph("florentine"), florentine_families_graph()));
  EXPECT_TRUE(same_graph(make_graph("southern-women"), southern_women_graph()));
  EXPECT_TRUE(same_graph(make_graph("davis"), southern_women_graph()));
}

TEST(GraphSpec, Torus) {
  std::vector<node_t> sides{4, 4, 8}, cube{5, 5, 5}, square{6, 6};
  EXPECT_TRUE(same_graph(make_graph("torus:shape=4x4x8"), torus_graph(sides)));
  EXPECT_TRUE(same_graph(make_graph("torus:side=5,dims=3"), torus_graph(cube)));
  EXPECT_TRUE(same_graph(make_graph("torus:side=6"), torus_graph(square)));  // dims defaults to 2
}

TEST(GraphSpec, RandomFamiliesMatchTheGenerators) {
  // er: c gives p = c ln(n) / n; seed 0 and connected=1 by default.
  const double p = 1.2 * std::log(500.0) / 500;
  EXPECT_TRUE(same_graph(make_graph("er:n=500,c=1.2"), erdos_renyi_graph(500, p, 0, true)));
  EXPECT_TRUE(
      same_graph(make_graph("er:n=100,p=0.02,seed=4,connected=0"), erdos_renyi_graph(100, 0.02, 4, false)));
  EXPECT_TRUE(same_graph(make_graph("er:n=1,c=1"), erdos_renyi_graph(1, 0.0, 0)));
  EXPECT_TRUE(same_graph(make_graph("rgg:n=300,r=0.1,seed=2"), random_geometric_graph(300, 0.1, 2)));
  EXPECT_TRUE(same_graph(make_graph("rgg:n=300,r=0.1"), random_geometric_graph(300, 0.1, 0)));
  EXPECT_TRUE(same_graph(make_graph("regular:n=100,d=3,seed=8"), random_regular_graph(100, 3, 8)));
}

TEST(GraphSpec, FileFamily) {
  netdp::testing::ScratchDir dir;
  // Components {1, 2, 3} and {5, 6} in a 1-based file; a comma not followed by key= stays in the path.
  auto path = dir.write("odd,name.txt", "1 2\n2 3\n5 6\n");
  Graph plain = make_graph("file:" + path);
  EXPECT_EQ(plain.n, 7);
  Graph one = make_graph("file:" + path + ",one-based=1");
  EXPECT_EQ(one.n, 6);
  Graph lcc = make_graph("file:" + path + ",one-based=1,lcc=1");
  EXPECT_EQ(lcc.n, 3);
  EXPECT_EQ(lcc.num_edges(), 2);
  EXPECT_EQ(parse_graph_spec("file:" + path + ",lcc=1").params.at("path"), path);

  auto mtx = dir.write("g.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n");
  EXPECT_TRUE(same_graph(make_graph("file:" + mtx), path_graph(3)));
  expect_invalid("file:" + mtx + ",one-based=1", {"one-based", "Matrix Market"});
  expect_invalid("file:" + (dir / "missing.txt").string(), {"missing.txt"});
  expect_invalid("file:", {"path"});
  expect_invalid("file:" + path + ",weights=1", {"weights", "one-based", "lcc"});
}

TEST(GraphSpec, UnknownFamilyListsTheKnownOnes) {
  expect_invalid("cycle:n=5", {"cycle", "complete", "ring", "hypercube", "er", "rgg", "regular", "florentine",
                               "southern-women", "file"});
  expect_invalid("", {"empty"});
  expect_invalid(":n=5", {"family"});
}

TEST(GraphSpec, UnknownMissingAndRepeatedKeys) {
  expect_invalid("ring:m=5", {"'m'", "ring", "n"});
  expect_invalid("er:n=10,q=0.5", {"'q'", "p", "c", "seed", "connected"});
  expect_invalid("florentine:n=3", {"'n'", "no keys"});
  expect_invalid("ring", {"missing", "'n'"});
  expect_invalid("hypercube:", {"missing", "'dim'"});
  expect_invalid("er:n=10", {"exactly one of p", "c"});
  expect_invalid("er:n=10,p=0.5,c=1", {"exactly one of p", "c"});
  expect_invalid("grid:rows=3", {"missing", "'cols'"});
  expect_invalid("grid:n=3,rows=3", {"either"});
  expect_invalid("torus:shape=4x4,side=3", {"either"});
  expect_invalid("regular:n=10", {"missing", "'d'"});
  expect_invalid("ring:n=5,n=6", {"'n'", "twice"});
}

TEST(GraphSpec, MalformedItemsAndValues) {
  expect_invalid("ring:n=12x", {"n=12x", "integer"});
  expect_invalid("ring:n=", {"'n'", "empty"});
  expect_invalid("ring:n", {"key=value", "'n'"});
  expect_invalid("ring:n=5,", {"empty item"});
  expect_invalid("ring:n=3000000000", {"n=3000000000", "32-bit"});
  expect_invalid("ring:n=1.5", {"n=1.5"});
  expect_invalid("er:n=10,p=half", {"p=half", "number"});
  expect_invalid("er:n=10,p=inf", {"p=inf", "finite"});
  expect_invalid("er:n=10,p=0.5,seed=-1", {"seed=-1"});
  expect_invalid("er:n=10,p=0.5,connected=maybe", {"connected=maybe", "boolean"});
  expect_invalid("er:n=10,c=-1", {"c=-1"});
  expect_invalid("torus:shape=4xx4", {"shape=4xx4"});
  expect_invalid("torus:side=4,dims=0", {"dims=0"});
}

TEST(GraphSpec, GeneratorRangeErrorsComeThrough) {
  expect_invalid("ring:n=0", {"n", "0"});
  expect_invalid("er:n=10,p=1.5", {"p", "1.5"});
  expect_invalid("rgg:n=10,r=0", {"radius"});
  expect_invalid("regular:n=5,d=3", {"even"});
  expect_invalid("hypercube:dim=40", {"dim", "40"});
}

TEST(GraphSpec, HelpMentionsEveryFamily) {
  std::string help = graph_families_help();
  for (const char* family : {"complete", "ring", "path", "star", "grid", "torus", "hypercube", "exponential",
                             "er:", "rgg", "regular", "florentine", "southern-women", "davis", "file"})
    EXPECT_NE(help.find(family), std::string::npos) << family;
}

}  // namespace
}  // namespace netdp
