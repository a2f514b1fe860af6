#pragma once
// The ground (docs/design.md "The ground"): the build a binary comes from. Defined by the generated
// version_info.cpp, of which the library and the CUDA module each compile their own copy, so the module names
// its build without calling into the library.

namespace netdp {

/// netdp's semantic version, e.g. "0.1.0".
const char* version();
/// The git commit the binary was built from ("unknown" outside a checkout, "-dirty" suffix for local
/// changes).
const char* git_commit();

}  // namespace netdp
