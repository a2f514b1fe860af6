#pragma once
// NETDP_HD marks per-element maths compiled for both backends (docs/design.md principle 1).
#if defined(__CUDACC__)
#define NETDP_HD __host__ __device__
#else
#define NETDP_HD
#endif
