#pragma once
// The emulated device's <cuda_runtime.h>: the runtime API subset (cuda_runtime_api.h here); the engines'
// per-thread code is in the single-source bodies of kernels/common, so no device keyword is needed.
#include "cuda_runtime_api.h"
