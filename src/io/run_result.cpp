// The writer stage (docs/outputs.md "The writer stage"): a run's typed result into its results directory.
#include "netdp/io/run_result.hpp"

#include <stdexcept>
#include <utility>

namespace netdp {

CsvTable& RunResult::table(std::string name, std::vector<CsvColumn> columns) {
  outputs_.emplace_back(CsvTable(std::move(name), std::move(columns)));
  return std::get<CsvTable>(outputs_.back());
}

void RunResult::add(CsvTable table) {
  outputs_.emplace_back(std::move(table));
}

void RunResult::matrix(std::string name, std::int64_t rows, std::int64_t cols, std::vector<double> values) {
  outputs_.emplace_back(ResultMatrix{std::move(name), rows, cols, std::move(values)});
}

void RunResult::matrix(std::string name, std::int64_t rows, std::int64_t cols,
                       std::vector<std::int8_t> values) {
  outputs_.emplace_back(ResultMatrix{std::move(name), rows, cols, std::move(values)});
}

void RunResult::document(std::string name, nlohmann::json value) {
  outputs_.emplace_back(ResultDocument{std::move(name), std::move(value)});
}

void RunResult::streamed(std::string name) {
  outputs_.emplace_back(StreamedFile{std::move(name)});
}

std::vector<std::string> RunResult::files() const {
  std::vector<std::string> names;
  for (const Output& output : outputs_)
    names.push_back(std::visit(
        [](const auto& o) -> std::string {
          if constexpr (std::is_same_v<std::decay_t<decltype(o)>, CsvTable>)
            return o.name();
          else
            return o.name;
        },
        output));
  return names;
}

namespace {

void write_matrix(const ResultsDir& out, const ResultMatrix& m) {
  if (const auto* values = std::get_if<std::vector<double>>(&m.values)) {
    if (values->size() != static_cast<std::size_t>(m.rows * m.cols))
      throw std::logic_error(m.name + ": " + std::to_string(values->size()) + " values for a " +
                             std::to_string(m.rows) + " x " + std::to_string(m.cols) + " matrix");
    NpyWriter file(out.file(m.name), m.rows, m.cols);
    if (m.rows > 0) file.consume(0, static_cast<node_t>(m.rows), *values);
    file.commit();
  } else {
    write_int8_npy(out.file(m.name), std::get<std::vector<std::int8_t>>(m.values), m.rows, m.cols);
  }
}

}  // namespace

nlohmann::json write_results(ResultsDir& out, const RunResult& result, double seconds) {
  nlohmann::json files = nlohmann::json::array();
  for (const RunResult::Output& output : result.outputs()) {
    if (const auto* table = std::get_if<CsvTable>(&output)) {
      files.push_back(write_table(out, *table));
    } else if (const auto* matrix = std::get_if<ResultMatrix>(&output)) {
      write_matrix(out, *matrix);
      files.push_back(matrix->name);
    } else if (const auto* document = std::get_if<ResultDocument>(&output)) {
      out.write_json(document->name, document->value);
      files.push_back(document->name);
    } else {
      const std::string& name = std::get<StreamedFile>(output).name;
      if (!std::filesystem::exists(out.path() / name))
        throw std::logic_error("the streamed output " + name + " was not written");
      files.push_back(name);
    }
  }
  out.write_json(result.summary_name, result.summary);
  files.push_back(result.summary_name);
  if (!result.node_ids.empty()) out.set_file_ids(result.node_ids);
  nlohmann::json manifest = result.manifest;
  manifest["files"] = std::move(files);
  manifest["seconds"] = seconds;
  out.commit_manifest(std::move(manifest));
  return result.summary;
}

nlohmann::json write_results(const std::filesystem::path& out_dir, const RunResult& result, double seconds) {
  ResultsDir out(out_dir);
  return write_results(out, result, seconds);
}

}  // namespace netdp
