#pragma once
// A results directory (docs/design.md "Data flow": writers). Every file is written to a temporary name and
// renamed, and manifest.json is written last: a directory without manifest.json is incomplete.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/core/format.hpp"  // writers format numbers with format_double
#include "netdp/core/loss_rows.hpp"

namespace netdp {

/// A file that appears under its final name only on commit(); destroyed uncommitted, it leaves nothing.
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  std::ofstream& stream() { return out_; }
  void commit();  // flush, check, rename; throws std::runtime_error on I/O failure

 private:
  std::filesystem::path path_, temporary_;
  std::ofstream out_;
  bool committed_ = false;
  int slot_ = -1;  // its entry in the table remove_temporaries_now() reads (-1: not listed)
};

/// Removes every AtomicFile temporary of this process that is being written (a signal handler's cleanup
/// before it exits: docs/reliability.md §3). Async-signal-safe: unlink(2) over a fixed table.
void remove_temporaries_now() noexcept;

/// True for the name of a temporary that a killed netdp run can leave behind (`NAME.tmp-PID`, and
/// `edges.txt.tmp` of netdp graph): such files are not results and never make a directory "not empty".
bool is_leftover_temporary(const std::string& filename);

/// Streams a float64 C-order .npy matrix of shape (rows, cols) row tile by row tile.
class NpyWriter : public LossRowSink {
 public:
  NpyWriter(std::filesystem::path path, std::int64_t rows, std::int64_t cols);
  void consume(node_t first_source, node_t count, std::span<const double> rows) override;
  void commit();  // throws unless exactly `rows` rows were written

 private:
  AtomicFile file_;
  std::int64_t rows_, cols_, written_ = 0;
};

/// An int8 C-order .npy matrix of shape (rows, cols), written whole (attack gossip's reconstructible mask).
void write_int8_npy(const std::filesystem::path& path, std::span<const std::int8_t> values, std::int64_t rows,
                    std::int64_t cols);

class ResultsDir {
 public:
  /// Creates the directory (and parents). An earlier run's outputs (the files its manifest.json lists under
  /// "files", that manifest, leftover temporaries `*.tmp-PID` and `edges.txt.tmp`) are removed when this run
  /// names its first file: a run refused before it writes anything (out of memory in the simulation) leaves
  /// an existing directory untouched (docs/outputs.md §1.1).
  explicit ResultsDir(std::filesystem::path path);
  /// node_map.csv's content (Graph::file_ids) for a run whose graph was renumbered from a file: written with
  /// the manifest.
  void set_file_ids(std::vector<std::int64_t> file_ids) { file_ids_ = std::move(file_ids); }
  const std::filesystem::path& path() const { return path_; }
  /// The path of an output file; the name is remembered, so that the manifest lists it (commit_manifest).
  std::filesystem::path file(const std::string& name) const;
  void write_text(const std::string& name, const std::string& content) const;
  void write_json(const std::string& name, const nlohmann::json& value) const;
  /// Writes manifest.json, its "files" completed with every file of this run (named through file() or
  /// written here) that exists: the next run into the directory removes them all, also those the writer
  /// forgot to list (docs/outputs.md §1.1).
  void commit_manifest(nlohmann::json manifest) const;
  /// A CSV file's column types ({"distance": "int64", ...}) for manifest.json's "tables" (CsvWriter).
  void record_table(const std::string& name, nlohmann::json types) const;

 private:
  void remove_previous_outputs() const;
  std::filesystem::path path_;
  mutable bool cleaned_ = false;                              // the earlier run's outputs were removed
  mutable std::set<std::string> written_;                     // names given to file(): this run's outputs
  mutable nlohmann::json tables_ = nlohmann::json::object();  // CSV file -> its column types
  std::vector<std::int64_t> file_ids_;  // node_map.csv's, when the run's graph was renumbered
};

}  // namespace netdp
