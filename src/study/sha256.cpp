#include "study/sha256.hpp"

#include <openssl/evp.h>

#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

namespace netdp::study {

namespace {

class Digest {
 public:
  Digest() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
      throw std::runtime_error("OpenSSL: cannot start a SHA-256 digest");
  }
  void update(const void* data, std::size_t size) {
    if (EVP_DigestUpdate(ctx_.get(), data, size) != 1)
      throw std::runtime_error("OpenSSL: SHA-256 update failed");
  }
  std::array<std::uint8_t, 32> finish() {
    std::array<std::uint8_t, 32> out{};
    unsigned int size = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), out.data(), &size) != 1 || size != out.size())
      throw std::runtime_error("OpenSSL: SHA-256 final failed");
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_;
};

std::string hex(const std::array<std::uint8_t, 32>& d) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (auto b : d) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

}  // namespace

std::array<std::uint8_t, 32> sha256(std::string_view bytes) {
  Digest d;
  d.update(bytes.data(), bytes.size());
  return d.finish();
}

std::string sha256_hex(std::string_view bytes) {
  return hex(sha256(bytes));
}

std::string sha256_file_hex(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  Digest d;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    d.update(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw std::runtime_error("cannot read " + path.string());
  return hex(d.finish());
}

}  // namespace netdp::study
