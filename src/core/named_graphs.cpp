// Small social networks used in the figures (docs/math.md §2.5), numbered as networkx numbers them so results can
// be compared node by node with the reference code.
#include <array>
#include <utility>
#include <vector>

#include "netdp/core/graph_generators.hpp"

namespace netdp {

// Padgett's Florentine marriage network (nx.florentine_families_graph()). Node ids follow networkx's node
// order:
//  0 Acciaiuoli   1 Medici    2 Castellani  3 Peruzzi   4 Strozzi   5 Barbadori  6 Ridolfi  7 Tornabuoni
//  8 Albizzi      9 Salviati 10 Pazzi      11 Bischeri 12 Guadagni 13 Ginori    14 Lamberteschi
Graph florentine_families_graph() {
  static constexpr std::array<std::pair<node_t, node_t>, 20> kMarriages{{
      {0, 1},  {1, 5}, {1, 6},  {1, 7}, {1, 8},  {1, 9},  {2, 3},  {2, 4},  {2, 5},   {3, 4},
      {3, 11}, {4, 6}, {4, 11}, {6, 7}, {7, 12}, {8, 13}, {8, 12}, {9, 10}, {11, 12}, {12, 14},
  }};
  return graph_from_edges(15, kMarriages);
}

// Davis's Southern Women (nx.davis_southern_women_graph()): women 0..17 in networkx's order, then events
// E1..E14 as nodes 18..31. Women:
//  0 Evelyn Jefferson   1 Laura Mandeville   2 Theresa Anderson   3 Brenda Rogers     4 Charlotte McDowd
//  5 Frances Anderson   6 Eleanor Nye        7 Pearl Oglethorpe   8 Ruth DeSand       9 Verne Sanderson
// 10 Myra Liddel       11 Katherina Rogers  12 Sylvia Avondale   13 Nora Fayette     14 Helen Lloyd
// 15 Dorothy Murchison 16 Olivia Carleton   17 Flora Price
Graph southern_women_graph() {
  constexpr node_t kWomen = 18, kEvents = 14;
  // Events (1-based, E1..E14) each woman attended; 89 attendances in all.
  static const std::vector<std::vector<int>> kAttended = {
      {1, 2, 3, 4, 5, 6, 8, 9},
      {1, 2, 3, 5, 6, 7, 8},
      {2, 3, 4, 5, 6, 7, 8, 9},
      {1, 3, 4, 5, 6, 7, 8},
      {3, 4, 5, 7},
      {3, 5, 6, 8},
      {5, 6, 7, 8},
      {6, 8, 9},
      {5, 7, 8, 9},
      {7, 8, 9, 12},
      {8, 9, 10, 12},
      {8, 9, 10, 12, 13, 14},
      {7, 8, 9, 10, 12, 13, 14},
      {6, 7, 9, 10, 11, 12, 13, 14},
      {7, 8, 10, 11, 12},
      {8, 9},
      {9, 11},
      {9, 11},
  };
  std::vector<std::pair<node_t, node_t>> edges;
  for (node_t woman = 0; woman < kWomen; ++woman)
    for (int event : kAttended[woman]) edges.emplace_back(woman, kWomen + event - 1);
  return graph_from_edges(kWomen + kEvents, edges);
}

}  // namespace netdp
