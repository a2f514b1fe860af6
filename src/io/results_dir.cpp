#include "netdp/io/results_dir.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "netdp/core/error.hpp"
#include "netdp/io/csv_table.hpp"

namespace netdp {

namespace fs = std::filesystem;

namespace {

// The temporaries being written, for remove_temporaries_now(), which a signal handler calls: fixed slots
// (no allocation), each free (0), being filled or emptied (1), or holding a path to remove (2).
constexpr int kTemporarySlots = 64;
constexpr std::size_t kTemporaryPathBytes = 4096;
std::atomic<int> temporary_state[kTemporarySlots];
char temporary_paths[kTemporarySlots][kTemporaryPathBytes];

int list_temporary(const fs::path& path) {
  const std::string& text = path.native();
  if (text.size() >= kTemporaryPathBytes) return -1;  // left to the next run's cleanup
  for (int slot = 0; slot < kTemporarySlots; ++slot) {
    int expected = 0;
    if (!temporary_state[slot].compare_exchange_strong(expected, 1)) continue;
    std::memcpy(temporary_paths[slot], text.c_str(), text.size() + 1);
    temporary_state[slot].store(2);
    return slot;
  }
  return -1;  // more than 64 files at once: the next run into the directory removes the rest
}

void unlist_temporary(int& slot) {
  if (slot >= 0) temporary_state[slot].store(0);
  slot = -1;
}

}  // namespace

void remove_temporaries_now() noexcept {
  for (int slot = 0; slot < kTemporarySlots; ++slot)
    if (temporary_state[slot].load() == 2) ::unlink(temporary_paths[slot]);
}

bool is_leftover_temporary(const std::string& filename) {
  return filename.find(".tmp-") != std::string::npos || filename == "edges.txt.tmp";
}

AtomicFile::AtomicFile(fs::path path) : path_(std::move(path)) {
  temporary_ = path_;
  temporary_ += ".tmp-" + std::to_string(::getpid());
  slot_ = list_temporary(temporary_);  // listed first: a signal between open and listing leaves nothing
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    unlist_temporary(slot_);
    throw std::runtime_error("cannot write " + temporary_.string());
  }
}

AtomicFile::~AtomicFile() {
  unlist_temporary(slot_);
  if (committed_) return;
  out_.close();
  std::error_code ec;
  fs::remove(temporary_, ec);
}

namespace {

// Durability (docs/reliability.md): the data reaches the disk before the rename publishes it, and the rename
// itself before the caller goes on (a power cut leaves the old or the new file, never an empty one).
void sync_path(const fs::path& path, int flags) {
  int fd = ::open(path.c_str(), flags);
  if (fd < 0) return;  // nothing to sync on a file system that does not let us open it
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void AtomicFile::commit() {
  out_.flush();
  if (!out_) throw std::runtime_error("write failed: " + temporary_.string());
  out_.close();
  if (!out_) throw std::runtime_error("write failed: " + temporary_.string());
  sync_path(temporary_, O_RDONLY);
  unlist_temporary(slot_);  // from here the name may be the published file's
  fs::rename(temporary_, path_);
  sync_path(path_.parent_path().empty() ? fs::path(".") : path_.parent_path(), O_RDONLY | O_DIRECTORY);
  committed_ = true;
}

namespace {

/// Format 1.0: magic, version, little-endian header length, a dict padded with spaces so that the data
/// starts at a multiple of 64 bytes, ending in a newline.
void write_npy_header(std::ofstream& out, const char* descr, std::int64_t rows, std::int64_t cols) {
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  auto length = static_cast<std::uint16_t>(header.size());
  out.write("\x93NUMPY\x01\x00", 8);
  char len[2] = {static_cast<char>(length & 0xff), static_cast<char>(length >> 8)};
  out.write(len, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
}

}  // namespace

NpyWriter::NpyWriter(fs::path path, std::int64_t rows, std::int64_t cols)
    : file_(std::move(path)), rows_(rows), cols_(cols) {
  write_npy_header(file_.stream(), "<f8", rows, cols);
}

void write_int8_npy(const fs::path& path, std::span<const std::int8_t> values, std::int64_t rows,
                    std::int64_t cols) {
  if (values.size() != static_cast<std::size_t>(rows * cols)) throw std::logic_error("int8 npy: wrong size");
  AtomicFile file(path);
  write_npy_header(file.stream(), "|i1", rows, cols);
  file.stream().write(reinterpret_cast<const char*>(values.data()),
                      static_cast<std::streamsize>(values.size()));
  file.commit();
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
}

void ResultsDir::remove_previous_outputs() const {
  if (cleaned_) return;
  cleaned_ = true;
  // docs/outputs.md §1.1: the command owns its directory. The files an earlier run listed in its manifest
  // ("files") go first, so that none of them can be mistaken for this run's; then the manifest; then the
  // temporaries (NAME.tmp-PID, edges.txt.tmp of netdp graph) that a killed run left behind.
  std::error_code ec;
  std::ifstream in(path_ / "manifest.json");
  const auto manifest = nlohmann::json::parse(in, nullptr, false);
  if (manifest.is_object() && manifest.contains("files") && manifest["files"].is_array())
    for (const auto& name : manifest["files"]) {
      if (!name.is_string()) continue;
      const fs::path file = name.get<std::string>();
      // Only plain names inside this directory: a manifest cannot make netdp delete anything elsewhere.
      if (file.has_parent_path() || file.filename() != file || file == "." || file == "..") continue;
      fs::remove(path_ / file, ec);
    }
  fs::remove(path_ / "manifest.json", ec);
  for (const auto& entry : fs::directory_iterator(path_, ec)) {
    const std::string name = entry.path().filename().string();
    if (is_leftover_temporary(name) && entry.is_regular_file(ec)) fs::remove(entry.path(), ec);
  }
}

fs::path ResultsDir::file(const std::string& name) const {
  remove_previous_outputs();  // deferred to the first file: nothing is touched before (docs/outputs.md §1.1)
  written_.insert(name);
  return path_ / name;
}

void ResultsDir::commit_manifest(nlohmann::json manifest) const {
  if (!file_ids_.empty()) {  // node indices -> the graph file's ids (docs/outputs.md §1.2 "node_map.csv")
    CsvWriter csv(*this, "node_map.csv", {{"index", CsvType::int64}, {"file_id", CsvType::int64}});
    for (std::size_t i = 0; i < file_ids_.size(); ++i) csv.row({i, file_ids_[i]});
    csv.commit();
  }
  if (!tables_.empty()) manifest["tables"] = tables_;  // docs/outputs.md "Column types"
  // A rerun without --colluders left the earlier run's collusion.csv: walk-loss's manifest listed no files.
  // Every name this run wrote goes into "files", whatever the job listed (docs/outputs.md §1.1).
  nlohmann::json& files = manifest["files"];
  if (!files.is_array()) files = nlohmann::json::array();
  std::error_code ec;
  for (const auto& name : written_)
    if (name != "manifest.json" && fs::is_regular_file(path_ / name, ec) &&
        std::find(files.begin(), files.end(), name) == files.end())
      files.push_back(name);
  write_json("manifest.json", manifest);
}

void ResultsDir::record_table(const std::string& name, nlohmann::json types) const {
  tables_[name] = std::move(types);
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
