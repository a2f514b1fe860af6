#pragma once
// Typed errors (docs/design.md principle 6): the CLI maps InvalidInput to exit code 2, anything else to 1.
// Messages name parameters as the library spells them ("steps"), never as command-line flags ("--steps").
// The error classes live in the ground (netdp/ground/errors.hpp), so that the backends throw the same types.
#include <string>
#include <string_view>

#include "netdp/ground/errors.hpp"

namespace netdp {

/// Input text as an error message may quote it (docs/reliability.md): at most `limit` characters, each byte
/// outside printable ASCII escaped as \xNN, and "..." when cut, so a 10 MB line or binary garbage stays one
/// short line.
inline std::string excerpt(std::string_view text, std::size_t limit = 80) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < limit; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f)
      out += text[i];
    else
      out.append({'\\', 'x', kHex[byte >> 4], kHex[byte & 15]});
  }
  if (text.size() > limit) out += "...";
  return out;
}

}  // namespace netdp
