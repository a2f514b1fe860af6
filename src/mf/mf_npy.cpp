// Reading and writing the T x T matrices of the MF models as float64 .npy files (docs/outputs.md).
#include <cstdint>
#include <cstring>
#include <fstream>
#include <regex>
#include <span>

#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"
#include "netdp/mf/mf_correlation.hpp"

namespace netdp::mf {

Matrix read_npy_matrix(const std::string& path, const std::string& parameter) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidParameter(parameter, parameter + " " + path + ": cannot open the file");
  const auto bad = [&](const std::string& why) {
    return InvalidParameter(parameter, parameter + " " + path + ": " + why);
  };
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw bad("not a .npy file");
  std::uint32_t length = 0;
  if (magic[6] == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) throw bad("truncated header");
    length = b[0] | (b[1] << 8);
  } else {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) throw bad("truncated header");
    length = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
  }
  std::string header(length, '\0');
  if (!in.read(header.data(), length)) throw bad("truncated header");
  if (header.find("'<f8'") == std::string::npos) throw bad("expected float64 ('<f8') data");
  const bool fortran = header.find("'fortran_order': True") != std::string::npos;
  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('shape':\s*\(\s*(\d+)\s*,\s*(\d+)\s*,?\s*\))")))
    throw bad("expected a 2-D array");
  const std::int64_t rows = std::stoll(m[1]), cols = std::stoll(m[2]);
  Matrix out(rows, cols);
  std::vector<double> data(static_cast<std::size_t>(rows * cols));
  if (!in.read(reinterpret_cast<char*>(data.data()),
               static_cast<std::streamsize>(data.size() * sizeof(double))))
    throw bad("truncated data");
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      out(i, j) = fortran ? data[static_cast<std::size_t>(j * rows + i)]
                          : data[static_cast<std::size_t>(i * cols + j)];
  for (double v : out.a)
    if (!std::isfinite(v)) throw bad("entries must be finite");
  return out;
}

void write_npy_matrix(const std::string& path, const Matrix& m) {
  NpyWriter writer(path, m.rows, m.cols);
  writer.consume(0, static_cast<node_t>(m.rows), std::span<const double>(m.a));
  writer.commit();
}

}  // namespace netdp::mf
