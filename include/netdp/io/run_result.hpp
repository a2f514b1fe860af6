#pragma once
// What a model's run returns (docs/outputs.md "The writer stage"): typed tables, matrices and JSON documents,
// the summary and the manifest's parameters, in the order manifest.json lists the files. The job computes and
// fills a RunResult; write_results alone writes it, summary.json and manifest.json last. Only what is too
// large to hold (an n x n loss matrix, streamed row tile by row tile through the io layer's NpyWriter while
// the run goes) is written during the run, into the ResultsDir the result is then written to, and named here.
#include <cstdint>
#include <deque>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/io/csv_table.hpp"
#include "netdp/io/results_dir.hpp"

namespace netdp {

/// A C-order matrix of a result, written as a float64 or an int8 .npy file.
struct ResultMatrix {
  std::string name;
  std::int64_t rows = 0, cols = 0;
  std::variant<std::vector<double>, std::vector<std::int8_t>> values;
};

/// A JSON file of a result other than summary.json (graph's stats.json).
struct ResultDocument {
  std::string name;
  nlohmann::json value;
};

/// A file the run wrote itself while it went (a streamed matrix, an edge list): listed in its place.
struct StreamedFile {
  std::string name;
};

class RunResult {
 public:
  nlohmann::json summary = nlohmann::json::object();
  std::string summary_name = "summary.json";  // `graph` writes its summary as stats.json
  /// The provenance header (manifest_header) and "parameters"; write_results adds "files" and "seconds".
  nlohmann::json manifest = nlohmann::json::object();
  /// The graph file's ids when its nodes were renumbered (Graph::file_ids): node_map.csv.
  std::vector<std::int64_t> node_ids;

  /// A new table, listed after the outputs added so far; the reference stays valid while rows are added.
  CsvTable& table(std::string name, std::vector<CsvColumn> columns);
  void add(CsvTable table);
  void matrix(std::string name, std::int64_t rows, std::int64_t cols, std::vector<double> values);
  void matrix(std::string name, std::int64_t rows, std::int64_t cols, std::vector<std::int8_t> values);
  void document(std::string name, nlohmann::json value);
  void streamed(std::string name);
  /// The names of the outputs in their order (summary.json and manifest.json excluded).
  std::vector<std::string> files() const;

  using Output = std::variant<CsvTable, ResultMatrix, ResultDocument, StreamedFile>;
  const std::deque<Output>& outputs() const { return outputs_; }

 private:
  std::deque<Output> outputs_;  // a deque: table() hands out references that later additions keep valid
};

/// The writer stage: every output of `result` into `out` in order, then the summary (summary.json), then
/// manifest.json with "files" and "seconds" (and node_map.csv when result.node_ids is not empty;
/// docs/outputs.md). Returns the summary. std::logic_error when a streamed file is missing or a matrix's
/// values do not fill its shape.
nlohmann::json write_results(ResultsDir& out, const RunResult& result, double seconds);
/// The same into a new ResultsDir at `out_dir`: a run that streamed nothing.
nlohmann::json write_results(const std::filesystem::path& out_dir, const RunResult& result, double seconds);

}  // namespace netdp
