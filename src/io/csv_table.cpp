#include "netdp/io/csv_table.hpp"

#include <cmath>
#include <stdexcept>

namespace netdp {

std::string csv_double(double x) {
  std::string text = format_double(x);
  if (text.find_first_of(".ein") == std::string::npos) text += ".0";  // no point, exponent, inf or nan
  return text;
}

std::string csv_text(const std::string& x) {
  if (x.find_first_of(",\"\r\n") == std::string::npos) return x;
  std::string quoted = "\"";
  for (char c : x) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + '"';
}

const char* csv_type_name(CsvType type) {
  switch (type) {
    case CsvType::int64:
      return "int64";
    case CsvType::float64:
      return "float64";
    case CsvType::text:
      return "text";
  }
  return "text";
}

std::string CsvCell::spell(const CsvColumn& column) const {
  const auto refuse = [&] {
    return std::logic_error("CSV column '" + column.name + "' (" + csv_type_name(column.type) + ") given a " +
                            csv_type_name(type_) + " cell");
  };
  if (empty_) return {};
  switch (column.type) {
    case CsvType::int64:
      if (type_ == CsvType::int64) return std::to_string(integer_);
      // Integers with an unbounded value (an unreachable distance): readers take the column as float64.
      if (type_ == CsvType::float64 && !std::isfinite(real_)) return format_double(real_);
      throw refuse();
    case CsvType::float64:
      if (type_ == CsvType::int64) return csv_double(static_cast<double>(integer_));
      if (type_ == CsvType::float64) return csv_double(real_);
      throw refuse();
    case CsvType::text:
      if (type_ == CsvType::text) return csv_text(text_);
      throw refuse();
  }
  throw refuse();
}

CsvTable::CsvTable(std::string name, std::vector<CsvColumn> columns)
    : name_(std::move(name)), columns_(std::move(columns)) {
  for (std::size_t i = 0; i < columns_.size(); ++i)
    text_.append(i ? "," : "").append(csv_text(columns_[i].name));
  text_ += '\n';
}

template <typename Cells>
void CsvTable::append(const Cells& cells) {
  if (cells.size() != columns_.size())
    throw std::logic_error(name_ + ": a row of " + std::to_string(cells.size()) + " cells for " +
                           std::to_string(columns_.size()) + " columns");
  std::size_t i = 0;
  for (const CsvCell& cell : cells) {
    text_.append(i ? "," : "").append(cell.spell(columns_[i]));
    ++i;
  }
  text_ += '\n';
  ++rows_;
}

void CsvTable::row(std::initializer_list<CsvCell> cells) {
  append(cells);
}

void CsvTable::row(const std::vector<CsvCell>& cells) {
  append(cells);
}

nlohmann::json CsvTable::types() const {
  nlohmann::json types = nlohmann::json::object();
  for (const auto& c : columns_) types[c.name] = csv_type_name(c.type);
  return types;
}

std::string write_table(const ResultsDir& dir, const CsvTable& table) {
  AtomicFile file(dir.file(table.name()));
  file.stream() << table.text();
  file.commit();
  dir.record_table(table.name(), table.types());
  return table.name();
}

CsvWriter::CsvWriter(const ResultsDir& dir, std::string name, std::vector<CsvColumn> columns)
    : dir_(dir), table_(name, std::move(columns)), file_(dir.file(name)) {}

// The spelled rows go to the file every 1 MiB or so: the writer holds a bounded text, whatever the row count.
void CsvWriter::flush_rows() {
  file_.stream() << table_.take_text();
}

void CsvWriter::row(std::initializer_list<CsvCell> cells) {
  table_.row(cells);
  if (table_.text().size() > (1u << 20)) flush_rows();
}

void CsvWriter::row(const std::vector<CsvCell>& cells) {
  table_.row(cells);
  if (table_.text().size() > (1u << 20)) flush_rows();
}

std::string CsvWriter::commit() {
  flush_rows();
  file_.commit();
  dir_.record_table(table_.name(), table_.types());
  return table_.name();
}

}  // namespace netdp
