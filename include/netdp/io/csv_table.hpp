#pragma once
// The one CSV writer of the results directories (docs/outputs.md "Column types"): a table is declared by its
// columns (name and type), rows are appended typed, and the writer alone spells the cells. Doubles always
// read as floats ("1.0", never "1"), so a reader types a column from its cells or from manifest.json's
// "tables" entry, which ResultsDir::commit_manifest writes from the tables committed here.
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/io/results_dir.hpp"

namespace netdp {

enum class CsvType { int64, float64, text };

struct CsvColumn {
  std::string name;
  CsvType type = CsvType::float64;
};

/// An empty cell: a value that does not exist (a mean over no sample, no closed form); readers see NaN.
struct CsvEmpty {};
inline constexpr CsvEmpty csv_empty{};

/// One typed cell. Integers (bool as 0/1) fit an int64 or a float64 column, doubles a float64 column (and a
/// non-finite one an int64 column: an unreachable distance is "inf"), text a text column; csv_empty any.
class CsvCell {
 public:
  template <std::integral T>
  CsvCell(T x) : type_(CsvType::int64), integer_(static_cast<std::int64_t>(x)) {}  // NOLINT: implicit
  CsvCell(double x) : type_(CsvType::float64), real_(x) {}                         // NOLINT: implicit
  CsvCell(std::string x) : type_(CsvType::text), text_(std::move(x)) {}            // NOLINT: implicit
  CsvCell(const char* x) : CsvCell(std::string(x)) {}
  CsvCell(CsvEmpty) : empty_(true) {}  // NOLINT: implicit
  /// The cell as the column `column` spells it; std::logic_error when its type does not fit the column.
  std::string spell(const CsvColumn& column) const;

 private:
  CsvType type_ = CsvType::text;
  bool empty_ = false;
  std::int64_t integer_ = 0;
  double real_ = 0;
  std::string text_;
};

/// A double as a float cell: the shortest round-trip form with ".0" when it has no point or exponent
/// ("1.0", "-0.0", "0.5", "1e+300"), "inf", "-inf" and "nan" for the non-finite values.
std::string csv_double(double x);
/// A text cell, quoted as RFC 4180 asks when it holds a comma, a quote or a line break.
std::string csv_text(const std::string& x);
/// "int64", "float64" or "text": the names of manifest.json's "tables" entry.
const char* csv_type_name(CsvType type);

/// A CSV table held in memory (a run's typed result, docs/outputs.md "The writer stage"): declared by its
/// columns, rows appended typed, each row checked and spelled as it is added, so the table holds exactly the
/// text write_table will publish.
class CsvTable {
 public:
  CsvTable(std::string name, std::vector<CsvColumn> columns);
  /// One row, a cell per column in order; std::logic_error on a wrong count or type.
  void row(std::initializer_list<CsvCell> cells);
  void row(const std::vector<CsvCell>& cells);
  const std::string& name() const { return name_; }
  const std::vector<CsvColumn>& columns() const { return columns_; }
  std::int64_t rows() const { return rows_; }
  /// The header line and every row, each ending in a newline (what take_text has not taken).
  const std::string& text() const { return text_; }
  /// Hands over the text spelled so far and starts empty (no header again): a streamed writer's flush.
  std::string take_text() { return std::exchange(text_, {}); }
  /// The column types as manifest.json's "tables" entry records them.
  nlohmann::json types() const;

 private:
  template <typename Cells>
  void append(const Cells& cells);
  std::string name_;
  std::vector<CsvColumn> columns_;
  std::string text_;
  std::int64_t rows_ = 0;
};

/// Publishes `table` in `dir` (an AtomicFile) and records its column types for manifest.json; returns its
/// name.
std::string write_table(const ResultsDir& dir, const CsvTable& table);

/// A CSV file of a results directory streamed row by row through an AtomicFile (for tables too long to hold:
/// the same spelling as CsvTable): nothing exists under its name before commit(), which also records its
/// column types for manifest.json.
class CsvWriter {
 public:
  CsvWriter(const ResultsDir& dir, std::string name, std::vector<CsvColumn> columns);
  /// One row, a cell per column in order; std::logic_error on a wrong count or type.
  void row(std::initializer_list<CsvCell> cells);
  void row(const std::vector<CsvCell>& cells);
  /// Publishes the file and returns its name (for a manifest's "files").
  std::string commit();

 private:
  void flush_rows();
  const ResultsDir& dir_;
  CsvTable table_;
  AtomicFile file_;
};

}  // namespace netdp
