// Reading and writing the T x T matrices of the MF models as float64 .npy files (docs/outputs.md).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <regex>
#include <span>

#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"
#include "netdp/mf/mf_correlation.hpp"

namespace netdp::mf {

NpyArray read_npy_array(const std::string& path, const std::string& parameter) {
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
  // The header is allocated only as far as the file holds it (found by the npy fuzz target: a version 2
  // header announcing 4 GB in a few bytes allocated 4 GB; docs/reliability.md §2).
  const std::streampos header_start = in.tellg();
  in.seekg(0, std::ios::end);
  const std::int64_t rest = static_cast<std::int64_t>(in.tellg() - header_start);
  in.seekg(header_start);
  if (length > rest)
    throw bad("truncated header (" + std::to_string(length) + " bytes announced, " + std::to_string(rest) +
              " in the file)");
  std::string header(length, '\0');
  if (!in.read(header.data(), length)) throw bad("truncated header");
  int width = 0;
  bool integer = true;
  if (header.find("'<f8'") != std::string::npos)
    width = 8, integer = false;
  else if (header.find("'<i8'") != std::string::npos)
    width = 8;
  else if (header.find("'<i4'") != std::string::npos)
    width = 4;
  else
    throw bad("expected float64 ('<f8'), int64 ('<i8') or int32 ('<i4') data");
  const bool fortran = header.find("'fortran_order': True") != std::string::npos;
  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('shape':\s*\(([^)]*)\))")))
    throw bad("no shape in the header");
  NpyArray out;
  const std::string dims = m[1];
  const std::regex number(R"(\d+)");
  for (std::sregex_iterator it(dims.begin(), dims.end(), number), e; it != e; ++it)
    out.shape.push_back(it->length() > 18 ? std::numeric_limits<std::int64_t>::max() : std::stoll(it->str()));
  if (fortran && out.shape.size() > 2) throw bad("Fortran order is read for 2-D arrays only");
  // The declared shape is trusted only as far as the file holds its data (docs/reliability.md §2): a header
  // announcing 2e9 x 2e9 entries in a few bytes is refused before anything is allocated.
  const std::streampos data_start = in.tellg();
  in.seekg(0, std::ios::end);
  const std::int64_t available = static_cast<std::int64_t>(in.tellg() - data_start);
  in.seekg(data_start);
  std::int64_t count = 1;
  for (std::int64_t d : out.shape) {
    if (d != 0 && count > available / width / d)
      throw bad("the shape announces more data than the file's " + std::to_string(available) + " bytes");
    count *= d;
  }
  std::vector<char> raw(static_cast<std::size_t>(count * width));
  if (!in.read(raw.data(), static_cast<std::streamsize>(raw.size()))) throw bad("truncated data");
  out.data.resize(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const char* at = raw.data() + i * width;
    if (!integer) {
      std::memcpy(&out.data[static_cast<std::size_t>(i)], at, 8);
    } else if (width == 8) {
      std::int64_t v;
      std::memcpy(&v, at, 8);
      out.data[static_cast<std::size_t>(i)] = static_cast<double>(v);
    } else {
      std::int32_t v;
      std::memcpy(&v, at, 4);
      out.data[static_cast<std::size_t>(i)] = v;
    }
  }
  if (fortran && out.shape.size() == 2) {
    const std::int64_t rows = out.shape[0], cols = out.shape[1];
    std::vector<double> c(out.data.size());
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        c[static_cast<std::size_t>(i * cols + j)] = out.data[static_cast<std::size_t>(j * rows + i)];
    out.data.swap(c);
  }
  return out;
}

Matrix read_npy_matrix(const std::string& path, const std::string& parameter) {
  NpyArray array = read_npy_array(path, parameter);
  if (array.shape.size() != 2)
    throw InvalidParameter(parameter, parameter + " " + path + ": expected a 2-D array, got " +
                                          std::to_string(array.shape.size()) + "-D");
  for (double v : array.data)
    if (!std::isfinite(v))
      throw InvalidParameter(parameter, parameter + " " + path + ": entries must be finite");
  Matrix out;
  out.rows = array.shape[0];
  out.cols = array.shape[1];
  out.a = std::move(array.data);
  return out;
}

void write_npy_matrix(const std::string& path, const Matrix& m) {
  NpyWriter writer(path, m.rows, m.cols);
  writer.consume(0, static_cast<node_t>(m.rows), std::span<const double>(m.a));
  writer.commit();
}

}  // namespace netdp::mf
