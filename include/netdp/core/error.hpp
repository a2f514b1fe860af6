#pragma once
// Typed errors (DESIGN principle 6): the CLI maps InvalidInput to exit code 2, anything else to 1.
#include <stdexcept>
#include <string>

namespace netdp {

/// Input a user can fix: a malformed file, an unknown option value, a parameter out of range.
class InvalidInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A requested device is absent (e.g. --device cuda on a machine where no CUDA device answers).
class DeviceUnavailable : public InvalidInput {
 public:
  using InvalidInput::InvalidInput;
};

/// The problem does not fit the memory at hand, even split into the smallest tiles.
class InsufficientMemory : public InvalidInput {
 public:
  using InvalidInput::InvalidInput;
};

}  // namespace netdp
