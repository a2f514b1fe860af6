#include "netdp/core/format.hpp"

#include <charconv>
#include <cmath>

namespace netdp {

std::string format_double(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, x);
  (void)ec;
  return std::string(buffer, end);
}

}  // namespace netdp
