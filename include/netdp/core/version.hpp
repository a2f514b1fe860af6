#pragma once
// version() and git_commit(), declared in the ground so that the CUDA module names its build too.
#include "netdp/ground/version.hpp"
