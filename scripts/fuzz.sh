#!/usr/bin/env bash
# Builds and runs the libFuzzer targets of tests/fuzz/ with ASan + UBSan (docs/reliability.md §5).
# Needs Debian's clang (apt-get install -y clang). Usage: scripts/fuzz.sh [SECONDS per target, default 60]
#   [TARGET...] (graph_file, graph_spec, study_toml, unit_json, npy, data_csv, weights_file; default all).
#   New inputs found go to $FUZZ_BUILD_DIR (default /tmp/netdp-fuzz)/corpus/TARGET, crashes to that directory's
#   crash-*: turn each into a regression case in tests/cli/test_bad_inputs.cpp (or a unit test when the input
#   should be accepted). Exits non-zero when a target finds a crash.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
shift || true
targets=("${@:-graph_file graph_spec study_toml unit_json npy data_csv weights_file}")
read -r -a targets <<<"${targets[*]}"
out=${FUZZ_BUILD_DIR:-${TMPDIR:-/tmp}/netdp-fuzz}
mkdir -p "$out"
cxx=${CXX_FUZZ:-clang++}
launcher=()  # ccache, when installed, makes a rebuild of unchanged targets free (docs/reliability.md §5)
command -v ccache >/dev/null && launcher=(ccache)
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -Wno-unknown-pragmas -I"$root/include" -I"$root/src" -I"$root/kernels")
# Each target with the sources it reads through and what they call (no OpenMP: the pragmas are ignored).
graph=(src/core/graph_io.cpp src/core/graph.cpp src/core/graph_spec.cpp src/core/graph_generators.cpp
       src/core/sparse_matrix.cpp src/core/memory_info.cpp src/core/named_graphs.cpp src/core/memory_graphs.cpp)
io=(src/io/results_dir.cpp src/io/csv_table.cpp src/core/format.cpp)
study=(src/study/study_file.cpp src/study/study_plan.cpp src/study/sha256.cpp "${io[@]}")
sources_of() {
  case $1 in
    graph_file | graph_spec) echo "${graph[@]}" ;;
    study_toml) echo "${study[@]}" ;;
    unit_json) echo "${study[@]}" src/study/unit_store.cpp ;;
    npy) echo src/mf/mf_npy.cpp "${io[@]}" ;;
    data_csv) echo src/simulation/convex_models_data.cpp src/simulation/convex_models.cpp src/core/format.cpp ;;
    weights_file) echo "${graph[@]}" src/core/weighting.cpp src/core/spectral.cpp src/core/format.cpp ;;
  esac
}
# The study targets use Debian's compiled toml++ as netdp does (pkg-config: TOML_HEADER_ONLY=0), not its
# header-only build, whose internal asserts differ (a "[{" table header trips one; docs/reliability.md §5).
libraries_of() {
  case $1 in
    study_toml | unit_json) echo -ltomlplusplus -lcrypto ;;
    weights_file) echo -llapacke -lopenblas ;;  # the spectrum (src/core/spectral.cpp)
  esac
}
read -r -a toml_flags <<<"$(pkg-config --cflags tomlplusplus)"
# Build every target first: each source once to an object (through ccache when installed, so that a rebuild of
# unchanged sources is free; as many at a time as there are cores), then one link per target.
object_of() { local s=${1//\//_}; echo "$out/obj/${s%.cpp}.o"; }
compile() {  # compile SOURCE (relative to the root)
  local source=$1
  "${launcher[@]}" "$cxx" "${flags[@]}" "${toml_flags[@]}" -c "$root/$source" -o "$(object_of "$source")"
}
started=$(date +%s)
mkdir -p "$out/obj"
declare -A wanted=()
for target in "${targets[@]}"; do
  wanted["tests/fuzz/fuzz_$target.cpp"]=1
  for s in $(sources_of "$target"); do [[ -f $root/$s ]] && wanted[$s]=1; done
done
pids=()
for source in "${!wanted[@]}"; do
  compile "$source" &
  pids+=($!)
  if ((${#pids[@]} >= $(nproc))); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
for target in "${targets[@]}"; do
  objects=("$(object_of "tests/fuzz/fuzz_$target.cpp")")
  for s in $(sources_of "$target"); do [[ -f $root/$s ]] && objects+=("$(object_of "$s")"); done
  echo "fuzz.sh: linking $out/fuzz_$target"
  # shellcheck disable=SC2046
  "$cxx" "${flags[@]}" "${objects[@]}" $(libraries_of "$target") -o "$out/fuzz_$target"
done
echo "fuzz.sh: ${#targets[@]} targets built in $(($(date +%s) - started)) s"
# The targets run FUZZ_JOBS at a time (default: one per core; each libFuzzer process uses one), each into its
# own log, printed when it ends.
fuzz() {  # fuzz TARGET
  local corpus=$out/corpus/$1
  mkdir -p "$corpus"
  # NETDP_MEMORY_MB: the readers' memory check (src/core/memory_info.cpp) refuses graphs over 64 MiB, far
  # below libFuzzer's RSS limit, so that an allowed allocation is never reported as a leak or an OOM.
  (cd "$out" && NETDP_MEMORY_MB=64 "$out/fuzz_$1" -max_total_time="$seconds" -rss_limit_mb=4096 \
    -max_len=4096 -print_final_stats=1 "$corpus" "$root/tests/fuzz/corpus/$1") > "$out/fuzz_$1.log" 2>&1
}
status=0
running=() names=()
finish_first() {
  local code=0
  wait "${running[0]}" || code=$?
  echo "fuzz.sh: ${names[0]} $( ((code == 0)) && echo passed || echo "FAILED (exit $code)")"
  cat "$out/fuzz_${names[0]}.log"
  ((code == 0)) || status=1
  running=("${running[@]:1}")
  names=("${names[@]:1}")
}
for target in "${targets[@]}"; do
  echo "fuzz.sh: running $target for ${seconds}s"
  fuzz "$target" &
  running+=($!)
  names+=("$target")
  if ((${#running[@]} >= ${FUZZ_JOBS:-$(nproc)})); then finish_first; fi
done
while ((${#running[@]})); do finish_first; done
exit $status
