#pragma once
// The ground (docs/design.md "The ground"): the typed errors both backends and the library throw
// (docs/design.md principle 6). Plain standard types, so a backend reports a bad request, an absent device or
// a lack of memory without including the library; the CLI maps InvalidInput to exit code 2, anything else
// to 1. Messages name parameters as the library spells them ("steps"), never as command-line flags.
#include <cmath>
#include <stdexcept>
#include <string>

namespace netdp {

/// Input a user can fix: a malformed file, an unknown option value, a parameter out of range.
class InvalidInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Input a user can fix that is one parameter's fault. `parameter()` is its name as the library spells it
/// ("steps"); the message names it, e.g. "steps: expected a positive integer or auto, got 'x'" or "threads
/// must be >= 0, got -1". A command line shows it as "--steps: ...", a study as the parameter's key.
class InvalidParameter : public InvalidInput {
 public:
  /// `message` should start with the parameter's name; otherwise "parameter: " is put in front of it.
  InvalidParameter(const std::string& parameter, const std::string& message)
      : InvalidInput(message.starts_with(parameter) ? message : parameter + ": " + message),
        parameter_(parameter) {}
  const std::string& parameter() const { return parameter_; }
  /// The message without the leading name and its ": " (e.g. "must be >= 0, got -1").
  std::string detail() const {
    std::string text = what();
    text.erase(0, parameter_.size());
    if (text.starts_with(": "))
      text.erase(0, 2);
    else if (text.starts_with(" "))
      text.erase(0, 1);
    return text;
  }

 private:
  std::string parameter_;
};

/// A requested device is absent (e.g. device cuda on a machine where no CUDA device answers): the device
/// parameter's fault, so parameter() is "device" and a command line shows "--device cuda: ...".
class DeviceUnavailable : public InvalidParameter {
 public:
  explicit DeviceUnavailable(const std::string& message) : InvalidParameter("device", message) {}
};

/// The problem does not fit the memory at hand, even split into the smallest tiles.
class InsufficientMemory : public InvalidInput {
 public:
  using InvalidInput::InvalidInput;
};

/// A running quantity became NaN or infinite (a step size times a gradient, a noise scale, an exponential):
/// the run stops (exit 1) before the value reaches a file, and the earlier result stays whole
/// (docs/reliability.md §1 "No non-finite number in an output").
class NonFiniteValue : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws NonFiniteValue naming the quantity and the parameter that drives it unless `x` is finite:
/// "the iterate at step 12 is infinite; lower step-size".
inline void require_finite(double x, const std::string& quantity, const std::string& remedy) {
  if (!std::isfinite(x))
    throw NonFiniteValue(quantity + (std::isnan(x) ? " is NaN" : " is infinite") + "; " + remedy);
}

}  // namespace netdp
