#!/usr/bin/env bash
# Prepares a GPU check for the `device` machine (which has CUDA but no package registry): builds the CUDA
# tests, benchmarks and CLI for Hopper (sm_90) in build-gpu/, and packs them, stripped, with the shared
# libraries they need from this machine's Debian packages into .carry/bundle.tar.xz (git-ignored; about 20 MB,
# under the device tool's 64 MiB; carry .carry and run scripts/gpu_check.sh there).
# Usage: bash scripts/gpu_bundle.sh
set -euo pipefail
cd "$(dirname "$0")/.."

binaries=(test_gossip_loss_cuda test_walk_loss_cuda test_walk_sim_cuda test_gossip_sim_cuda
          test_gossip_sim_varying_cuda bench_gossip_loss bench_walk_loss bench_gossip_sim bench_walk_sim)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DNETDP_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DNETDP_MPI=OFF
cmake --build build-gpu -j"$(nproc)" --target "${binaries[@]}" netdp_cli

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging/bin" "$staging/lib"
for t in "${binaries[@]}" netdp; do
  f=$(find build-gpu -maxdepth 2 -type f -name "$t" -perm -u+x | head -n 1)
  [ -n "$f" ] || { echo "gpu_bundle: $t was not built" >&2; exit 1; }
  strip -o "$staging/bin/$t" "$f"
done
# Every library the binaries load but the C library itself and CUDA's (the device machine has both).
ldd "$staging"/bin/* | awk '/=> \// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*)\.so|/usr/local/cuda|libcuda\.so' |
  while read -r lib; do cp -L "$lib" "$staging/lib/"; done
rm -rf .carry && mkdir -p .carry
tar -C "$staging" -cJf .carry/bundle.tar.xz bin lib
du -sh .carry/bundle.tar.xz
