#pragma once

namespace netdp {

/// netdp's semantic version, e.g. "0.1.0".
const char* version();
/// The git commit the binary was built from ("unknown" outside a checkout, "-dirty" suffix for local
/// changes).
const char* git_commit();

}  // namespace netdp
