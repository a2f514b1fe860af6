// Local datasets of Muffliato-GD: synthetic ones drawn from the seed, or the rows of a CSV file split across
// the nodes in file order (docs/muffliato_gd.md "Objectives and data").
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/simulation/convex_models.hpp"

namespace netdp {

namespace {

/// Standard normals one at a time from a sequential stream of Box-Muller pairs (both members used).
class NormalSource {
 public:
  explicit NormalSource(PhiloxStream& s) : s_(s) {}
  double next() {
    if (has_second_) {
      has_second_ = false;
      return second_;
    }
    const auto [a, b] = s_.next_normal_pair();
    second_ = b;
    has_second_ = true;
    return a;
  }

 private:
  PhiloxStream& s_;
  double second_ = 0;
  bool has_second_ = false;
};

/// A field that is number text but beyond what a double holds (1e400, 1e-400): 1-based, 0 when none.
struct OutOfRange {
  std::size_t field = 0;
  std::string text;
};

/// The numbers of one CSV line (commas or blanks between them); false when a field is not number text. A
/// number out of range still counts as number text (so a first line of them is no header): its value is NaN
/// and `beyond` names the first such field.
bool parse_numbers(const std::string& line, std::vector<double>& out, OutOfRange& beyond) {
  out.clear();
  beyond = {};
  const char* p = line.data();
  const char* end = p + line.size();
  while (p < end) {
    while (p < end && (*p == ',' || *p == ' ' || *p == '\t' || *p == '\r')) ++p;
    if (p == end) break;
    const char* start = p;
    if (*p == '+') ++p;  // from_chars does not take a leading '+'
    double x = 0;
    auto [next, ec] = std::from_chars(p, end, x);
    if (ec == std::errc::result_out_of_range) {  // `next` is past the number all the same
      x = std::nan("");
      if (beyond.field == 0) beyond = {out.size() + 1, std::string(start, next)};
    } else if (ec != std::errc()) {
      return false;
    }
    if (next < end && *next != ',' && *next != ' ' && *next != '\t' && *next != '\r') return false;
    out.push_back(x);
    p = next;
  }
  return true;
}

/// Mean and population standard deviation of column k of the count x p row-major x, each value divided by
/// scale.
std::pair<double, double> column_moments(const std::vector<double>& x, std::int64_t count, int p, int k,
                                         double scale) {
  double mean = 0, var = 0;
  for (std::int64_t i = 0; i < count; ++i) mean += x[i * p + k] / scale;
  mean /= double(count);
  for (std::int64_t i = 0; i < count; ++i)
    var += (x[i * p + k] / scale - mean) * (x[i * p + k] / scale - mean);
  return {mean, std::sqrt(var / double(count))};
}

}  // namespace

LocalData synthetic_data(Objective o, node_t n, int dim, int samples, std::uint64_t seed, double separation) {
  if (n < 1) throw InvalidInput("synthetic data: n must be >= 1");
  if (!(separation >= 0) || !std::isfinite(separation))
    throw InvalidParameter("synthetic-separation",
                           "synthetic-separation must be >= 0 and finite, got " + format_double(separation));
  if (dim < 1)
    throw InvalidParameter("dim", "dim must be >= 1 for synthetic data, got " + std::to_string(dim));
  if (samples < 1) throw InvalidParameter("samples", "samples must be >= 1, got " + std::to_string(samples));
  LocalData d;
  d.n = n;
  d.dim = dim;
  const std::int64_t m = std::int64_t{n} * samples;
  d.offsets.resize(static_cast<std::size_t>(n) + 1);
  for (node_t v = 0; v <= n; ++v) d.offsets[v] = std::int64_t{v} * samples;
  d.features.resize(static_cast<std::size_t>(m) * dim);
  if (o != Objective::quadratic) d.labels.resize(static_cast<std::size_t>(m));

  PhiloxStream s(seed, kConvexDataStream << 56);
  NormalSource normal(s);
  std::vector<double> theta_true(dim);
  for (auto& x : theta_true) x = normal.next();
  double norm = 0;
  for (double x : theta_true) norm += x * x;
  // The logit's scale: 1 (the margin itself) or S per standard deviation of the margin, x^T theta ~ N(0,
  // |theta|^2).
  const double logit_scale = separation > 0 && norm > 0 ? separation / std::sqrt(norm) : 1.0;
  for (std::int64_t i = 0; i < m; ++i) {
    double* x = d.features.data() + i * dim;
    double margin = 0;
    for (int k = 0; k < dim; ++k) {
      x[k] = normal.next() + (o == Objective::quadratic ? theta_true[k] : 0.0);
      margin += x[k] * theta_true[k];
    }
    if (o == Objective::least_squares) d.labels[i] = margin + 0.1 * normal.next();
    if (o == Objective::logistic)  // P(y = +1) = sigmoid(logit_scale margin)
      d.labels[i] = s.next_uniform_double() * (1.0 + std::exp(-logit_scale * margin)) < 1.0 ? 1.0 : -1.0;
  }
  return d;
}

LocalData read_csv_data(const std::string& path, Objective o, node_t n, int dim) {
  std::ifstream in(path);
  if (!in) throw InvalidParameter("data", "data: cannot open '" + path + "'");
  if (n < 1) throw InvalidParameter("data", "data: n must be >= 1");
  const int label_columns = o == Objective::quadratic ? 0 : 1;
  std::vector<double> rows, numbers;
  OutOfRange beyond;
  int columns = dim > 0 ? dim + label_columns : 0;
  bool seen_data = false;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    const bool ok = parse_numbers(line, numbers, beyond);
    if (ok && numbers.empty()) continue;
    const std::string where = "data " + path + ", line " + std::to_string(number) + ": ";
    if (!ok) {
      if (!seen_data) {  // one header line
        seen_data = true;
        continue;
      }
      throw InvalidParameter("data", where + "expected numbers separated by commas or blanks");
    }
    seen_data = true;
    if (columns == 0) columns = static_cast<int>(numbers.size());
    if (static_cast<int>(numbers.size()) != columns || columns <= label_columns)
      throw InvalidParameter("data",
                             where + "expected " +
                                 (columns > label_columns ? std::to_string(columns) : std::string("p + 1")) +
                                 " values (p features" + (label_columns ? " then a label" : "") + "), got " +
                                 std::to_string(numbers.size()));
    if (beyond.field > 0)
      throw InvalidParameter("data", where + "value " + std::to_string(beyond.field) + " (" + beyond.text +
                                         ") is beyond the range of a double");
    for (std::size_t k = 0; k < numbers.size(); ++k)  // inf, nan: named here, not after the split
      if (!std::isfinite(numbers[k]))
        throw InvalidParameter("data", where + "value " + std::to_string(k + 1) + " is not finite (" +
                                           format_double(numbers[k]) + ")");
    if (o == Objective::logistic && numbers.back() != 1.0 && numbers.back() != -1.0)
      throw InvalidParameter("data", where + "the label must be -1 or +1");
    rows.insert(rows.end(), numbers.begin(), numbers.end());
  }
  if (columns == 0) throw InvalidParameter("data", "data " + path + ": no data rows");
  const std::int64_t count = static_cast<std::int64_t>(rows.size()) / columns;
  if (count < n)
    throw InvalidParameter("data", "data " + path + ": " + std::to_string(count) + " rows for n = " +
                                       std::to_string(n) + " nodes (every node needs at least one)");
  LocalData d;
  d.n = n;
  d.dim = columns - label_columns;
  d.offsets.resize(static_cast<std::size_t>(n) + 1);
  for (node_t v = 0; v <= n; ++v) d.offsets[v] = std::int64_t{v} * count / n;  // floor(v N / n)
  d.features.reserve(static_cast<std::size_t>(count) * d.dim);
  for (std::int64_t i = 0; i < count; ++i) {
    const double* r = rows.data() + i * columns;
    d.features.insert(d.features.end(), r, r + d.dim);
    if (label_columns) d.labels.push_back(r[d.dim]);
  }
  validate(d, o);
  return d;
}

LearningSplit learning_split(const LocalData& rows, Objective o, node_t users, double test_fraction,
                             bool intercept, std::uint64_t seed) {
  validate(rows, o);
  if (users < 1) throw InvalidParameter("graph", "graph: users must be >= 1, got " + std::to_string(users));
  if (!(test_fraction >= 0 && test_fraction < 1))
    throw InvalidParameter("test-fraction",
                           "test-fraction must be in [0, 1), got " + format_double(test_fraction));
  const int p = rows.dim, q = p + (intercept ? 1 : 0);
  const std::int64_t count = rows.examples();
  // Standardise every column (population std), then scale every row to unit l2 norm.
  std::vector<double> x(rows.features);
  for (int k = 0; k < p; ++k) {
    double scale = 1;
    auto [mean, sd] = column_moments(x, count, p, k, scale);
    if (!std::isfinite(mean) || !std::isfinite(sd)) {
      // Values near the largest double overflow the sums (NaN features that passed the reader's checks):
      // dividing the column by its largest magnitude first keeps them finite (the same values up to
      // rounding).
      scale = 0;
      for (std::int64_t i = 0; i < count; ++i) scale = std::max(scale, std::abs(x[i * p + k]));
      std::tie(mean, sd) = column_moments(x, count, p, k, scale);
    }
    for (std::int64_t i = 0; i < count; ++i) x[i * p + k] = sd > 0 ? (x[i * p + k] / scale - mean) / sd : 0.0;
  }
  for (std::int64_t i = 0; i < count; ++i) {
    double norm2 = 0;
    for (int k = 0; k < p; ++k) norm2 += x[i * p + k] * x[i * p + k];
    if (norm2 > 0)
      for (int k = 0; k < p; ++k) x[i * p + k] /= std::sqrt(norm2);
  }
  // Stratified split: each class (label value; one class for quadratic) shuffled by Fisher-Yates, its first
  // round(fraction * size) rows to the test set.
  PhiloxStream s(seed, kLearningSplitStream << 56);
  std::vector<std::int64_t> train, test;
  // Strata for logistic labels only: least-squares labels are real and quadratic rows have none (one stratum
  // of every row; reading labels there read past an empty vector).
  std::vector<double> classes;
  if (o == Objective::logistic)
    for (std::int64_t i = 0; i < count; ++i)
      if (std::find(classes.begin(), classes.end(), rows.labels[i]) == classes.end())
        classes.push_back(rows.labels[i]);
  std::sort(classes.begin(), classes.end());
  auto split = [&](std::vector<std::int64_t> members) {
    for (std::size_t i = members.size(); i > 1; --i)
      std::swap(members[i - 1], members[s.next_below(static_cast<std::uint32_t>(i))]);
    const auto cut = static_cast<std::size_t>(std::llround(test_fraction * double(members.size())));
    test.insert(test.end(), members.begin(), members.begin() + static_cast<std::ptrdiff_t>(cut));
    train.insert(train.end(), members.begin() + static_cast<std::ptrdiff_t>(cut), members.end());
  };
  if (classes.empty()) {
    std::vector<std::int64_t> all(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) all[i] = i;
    split(std::move(all));
  } else {
    for (double c : classes) {
      std::vector<std::int64_t> members;
      for (std::int64_t i = 0; i < count; ++i)
        if (rows.labels[i] == c) members.push_back(i);
      split(std::move(members));
    }
  }
  for (std::size_t i = train.size(); i > 1; --i)  // users draw from the mixed classes
    std::swap(train[i - 1], train[s.next_below(static_cast<std::uint32_t>(i))]);
  const auto m = static_cast<std::int64_t>(train.size()) / users;
  if (m < 1)
    throw InvalidParameter("graph", "graph: " + std::to_string(train.size()) + " training rows for " +
                                        std::to_string(users) + " users (every user needs at least one)");
  auto fill = [&](LocalData& d, const std::vector<std::int64_t>& index, node_t n, std::int64_t per) {
    d.n = n;
    d.dim = q;
    d.offsets.resize(static_cast<std::size_t>(n) + 1);
    for (node_t v = 0; v <= n; ++v) d.offsets[v] = std::int64_t{v} * per;
    for (std::int64_t j = 0; j < std::int64_t{n} * per; ++j) {
      const std::int64_t i = index[j];
      d.features.insert(d.features.end(), x.begin() + i * p, x.begin() + (i + 1) * p);
      if (intercept) d.features.push_back(1.0);
      if (!rows.labels.empty()) d.labels.push_back(rows.labels[i]);
    }
  };
  LearningSplit out;
  fill(out.train, train, users, m);
  out.dropped = static_cast<std::int64_t>(train.size()) - std::int64_t{users} * m;
  if (!test.empty()) fill(out.test, test, 1, static_cast<std::int64_t>(test.size()));
  return out;
}

LearningSplit load_learning_split(const LearningDataSpec& spec, Objective o, node_t users) {
  if (spec.synthetic_rows < 2 || spec.synthetic_rows >= (std::int64_t{1} << 31))
    throw InvalidParameter("synthetic-rows",
                           "synthetic-rows must be in [2, 2^31), got " + std::to_string(spec.synthetic_rows));
  const LocalData rows = spec.csv.empty()
                             ? synthetic_data(o, 1, spec.synthetic_dim, static_cast<int>(spec.synthetic_rows),
                                              spec.seed, spec.synthetic_separation)
                             : read_csv_data(spec.csv, o, 1);
  return learning_split(rows, o, users, spec.test_fraction, spec.intercept, spec.seed);
}

LocalData coordinate_targets(std::span<const double> positions, bool shuffled, std::uint64_t seed) {
  if (positions.size() < 2 || positions.size() % 2 != 0)
    throw InvalidInput("coordinate_targets: positions must hold (x, y) pairs");
  LocalData d;
  d.n = static_cast<node_t>(positions.size() / 2);
  d.dim = 1;
  d.offsets.resize(static_cast<std::size_t>(d.n) + 1);
  for (node_t v = 0; v <= d.n; ++v) d.offsets[v] = v;
  for (node_t v = 0; v < d.n; ++v) d.features.push_back(positions[2 * v] + positions[2 * v + 1]);
  if (shuffled) {
    PhiloxStream s(seed, kLearningSplitStream << 56 | 1);
    for (std::size_t i = d.features.size(); i > 1; --i)
      std::swap(d.features[i - 1], d.features[s.next_below(static_cast<std::uint32_t>(i))]);
  }
  return d;
}

}  // namespace netdp
