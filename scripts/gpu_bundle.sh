#!/usr/bin/env bash
# Prepares a GPU check for the `device` machine (which has CUDA and compute-sanitizer but no package registry
# and none of netdp's other dependencies, so nothing is built there): builds the CUDA tests, benchmarks and
# CLI for Hopper (sm_90) in build-gpu/ with the CUDA backend module libnetdp_cuda.so that they load
# (docs/cuda_loader.md), the CUDA tests once more with -DNETDP_CUDA_SYNC_LAUNCHES=ON (every
# kernel launch synchronised and checked, so that a fault is named at its launch; cmake/Cuda.cmake) in
# build-gpu-sync/ for the sanitizer passes, and packs them, stripped, with the shared libraries they need
# from this machine's Debian packages into .carry/bundle.tar.xz (git-ignored; bin/ and bin-sync/, about
# 20 MB, under the device tool's 64 MiB; carry .carry and run scripts/gpu_check.sh there).
# Usage: bash scripts/gpu_bundle.sh
set -euo pipefail
cd "$(dirname "$0")/.."

tests=(test_gossip_loss_cuda test_walk_loss_cuda test_walk_sim_cuda test_gossip_sim_cuda
       test_gossip_sim_varying_cuda)
binaries=("${tests[@]}" bench_gossip_loss bench_walk_loss bench_walk_loss_scaling bench_gossip_sim bench_walk_sim)
common=(-DCMAKE_BUILD_TYPE=Release -DNETDP_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DNETDP_MPI=OFF)
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
rm -rf .carry && mkdir -p .carry
tar -C "$staging" -cJf .carry/bundle.tar.xz bin bin-sync lib
du -sh .carry/bundle.tar.xz
size=$(stat -c %s .carry/bundle.tar.xz)
if [ "$size" -ge $((64 << 20)) ]; then
  echo "gpu_bundle: the bundle is $size bytes, over the device tool's 64 MiB" >&2
  exit 1
fi
