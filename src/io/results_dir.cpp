#include "netdp/io/results_dir.hpp"

#include <unistd.h>

#include <stdexcept>

#include "netdp/core/error.hpp"

namespace netdp {

namespace fs = std::filesystem;

AtomicFile::AtomicFile(fs::path path) : path_(std::move(path)) {
  temporary_ = path_;
  temporary_ += ".tmp-" + std::to_string(::getpid());
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_) throw std::runtime_error("cannot write " + temporary_.string());
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  out_.close();
  std::error_code ec;
  fs::remove(temporary_, ec);
}

void AtomicFile::commit() {
  out_.flush();
  if (!out_) throw std::runtime_error("write failed: " + temporary_.string());
  out_.close();
  fs::rename(temporary_, path_);
  committed_ = true;
}

NpyWriter::NpyWriter(fs::path path, std::int64_t rows, std::int64_t cols)
    : file_(std::move(path)), rows_(rows), cols_(cols) {
  // Format 1.0: magic, version, little-endian header length, a dict padded with spaces so that the data
  // starts at a multiple of 64 bytes, ending in a newline.
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                       std::to_string(cols) + "), }";
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  auto length = static_cast<std::uint16_t>(header.size());
  auto& out = file_.stream();
  out.write("\x93NUMPY\x01\x00", 8);
  char len[2] = {static_cast<char>(length & 0xff), static_cast<char>(length >> 8)};
  out.write(len, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
}

void NpyWriter::consume(node_t, node_t count, std::span<const double> rows) {
  if (rows.size() != static_cast<std::size_t>(count) * cols_)
    throw std::logic_error("npy tile has the wrong size");
  file_.stream().write(reinterpret_cast<const char*>(rows.data()),
                       static_cast<std::streamsize>(rows.size_bytes()));
  written_ += count;
}

void NpyWriter::commit() {
  if (written_ != rows_)
    throw std::logic_error("npy writer received " + std::to_string(written_) + " of " +
                           std::to_string(rows_) + " rows");
  file_.commit();
}

ResultsDir::ResultsDir(fs::path path) : path_(std::move(path)) {
  std::error_code ec;
  if (fs::exists(path_, ec) && !fs::is_directory(path_, ec))
    throw InvalidParameter("out", "out " + path_.string() + " exists and is not a directory");
  fs::create_directories(path_, ec);
  if (ec) throw InvalidInput("cannot create output directory " + path_.string() + ": " + ec.message());
  fs::remove(path_ / "manifest.json", ec);
}

void ResultsDir::write_text(const std::string& name, const std::string& content) const {
  AtomicFile f(file(name));
  f.stream() << content;
  f.commit();
}

void ResultsDir::write_json(const std::string& name, const nlohmann::json& value) const {
  write_text(name, value.dump(2) + "\n");
}

}  // namespace netdp
