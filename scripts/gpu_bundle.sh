#!/usr/bin/env bash
# Prepares the GPU check (docs/cuda_backend.md "The GPU check") for the `device` machine, which has the CUDA
# driver, toolkit and compute-sanitizer but no package registry and none of netdp's other dependencies, so
# nothing is built there. Here: the CUDA suites, test_cuda_loader, bench_gpu_targets and the netdp CLI for
# Hopper (sm_90) in build-gpu/ with the backend module libnetdp_cuda.so they load (docs/cuda_loader.md); the
# CUDA suites once more with -DNETDP_CUDA_SYNC_LAUNCHES=ON (every launch synchronised and checked, so that a
# fault is named at its launch; cmake/Cuda.cmake) in build-gpu-sync/ for the sanitizers. Packed, stripped,
# with the shared libraries they need from this machine's packages and BUNDLE.txt (commit, build flags,
# contents) into .carry/bundle.tar.xz (git-ignored). The device tool carries at most 64 MiB with the tree:
# the bundle plus the files of the tree that travel (tracked, and untracked but not ignored) must stay below.
# Usage: bash scripts/gpu_bundle.sh; then on the device: carry .carry, run bash scripts/gpu_check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

tests=(test_gossip_loss_cuda test_walk_loss_cuda test_walk_sim_cuda test_gossip_sim_cuda
       test_gossip_sim_varying_cuda test_gossip_view_cuda test_gossip_loss_sequence_twins
       test_muffliato_view_twins test_cuda_loader)
binaries=("${tests[@]}" bench_gpu_targets)
common=(-DCMAKE_BUILD_TYPE=Release -DNETDP_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DNETDP_MPI=OFF
        -DNETDP_PYTHON=OFF)
cmake -S . -B build-gpu "${common[@]}" -DNETDP_CUDA_SYNC_LAUNCHES=OFF
cmake --build build-gpu -j"$(nproc)" --target "${binaries[@]}" netdp_cli netdp_cuda
cmake -S . -B build-gpu-sync "${common[@]}" -DNETDP_CUDA_SYNC_LAUNCHES=ON -DNETDP_BUILD_BENCHMARKS=OFF
cmake --build build-gpu-sync -j"$(nproc)" --target "${tests[@]}" netdp_cuda

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging/bin" "$staging/bin-sync" "$staging/lib"
pack() {  # pack BUILD_DIR DEST NAME...
  local dir=$1 dest=$2 t f
  shift 2
  for t in "$@"; do
    f=$(find "$dir" -maxdepth 2 -type f -name "$t" -perm -u+x | head -n 1)
    [ -n "$f" ] || { echo "gpu_bundle: $t was not built in $dir" >&2; exit 1; }
    strip -o "$staging/$dest/$t" "$f"
  done
}
pack build-gpu bin "${binaries[@]}" netdp libnetdp_cuda.so
pack build-gpu-sync bin-sync "${tests[@]}" libnetdp_cuda.so
# Every library the binaries load but the C library itself and CUDA's (the device machine has both).
ldd "$staging"/bin/* "$staging"/bin-sync/* | awk '/=> \// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*)\.so|/usr/local/cuda|libcuda\.so' |
  while read -r lib; do cp -L "$lib" "$staging/lib/"; done
flag() { sed -n "s/^$1:[A-Z]*=//p" "$2/CMakeCache.txt"; }
commit=$(git rev-parse HEAD)
git diff --quiet HEAD || commit+=" (with uncommitted changes)"
{
  echo "commit: $commit"
  echo "flags: ${common[*]} CMAKE_CXX_FLAGS_RELEASE=$(flag CMAKE_CXX_FLAGS_RELEASE build-gpu)" \
       "CMAKE_CUDA_FLAGS=$(flag CMAKE_CUDA_FLAGS build-gpu) bin-sync: -DNETDP_CUDA_SYNC_LAUNCHES=ON"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n), $(/usr/local/cuda/bin/nvcc --version | tail -n 1)"
  echo "contents:"
  (cd "$staging" && find bin bin-sync lib -type f -printf '  %p %s\n' | sort)
} > "$staging/BUNDLE.txt"
rm -rf .carry && mkdir -p .carry
tar -C "$staging" -cJf .carry/bundle.tar.xz BUNDLE.txt bin bin-sync lib
size=$(stat -c %s .carry/bundle.tar.xz)
tree=$(git ls-files -z -co --exclude-standard | xargs -0 stat -c %s 2> /dev/null | awk '{s += $1} END {print s + 0}')
echo "gpu_bundle: bundle $size bytes, tree $tree bytes, together $((size + tree)) of $((64 << 20))"
if ((size + tree >= (64 << 20))); then
  echo "gpu_bundle: the bundle and the tree exceed the device tool's 64 MiB" >&2
  exit 1
fi
