#pragma once
// SHA-256 (OpenSSL) for study hashes, unit checksums and derived seeds.
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace netdp::study {

std::array<std::uint8_t, 32> sha256(std::string_view bytes);
std::string sha256_hex(std::string_view bytes);
/// Throws std::runtime_error when the file cannot be read.
std::string sha256_file_hex(const std::filesystem::path& path);

}  // namespace netdp::study
