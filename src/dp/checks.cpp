#include "checks.hpp"

#include <charconv>

namespace netdp::dp::detail {

std::string format(double x) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, x);
  return ec == std::errc() ? std::string(buffer, end) : std::to_string(x);
}

}  // namespace netdp::dp::detail
