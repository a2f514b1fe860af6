#pragma once
// Number formatting shared by every writer (CSV, JSON, the CLI's tables) and message: one spelling of a
// double everywhere.
#include <string>

namespace netdp {

/// Shortest round-trip text for a double (CSV/JSON-friendly: "inf", "-inf", "nan" for the non-finite values).
std::string format_double(double x);

}  // namespace netdp
