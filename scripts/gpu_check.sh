#!/usr/bin/env bash
# shellcheck disable=SC2317  # write_summary and its helpers run from the EXIT trap
# The GPU check (docs/cuda_backend.md "The GPU check"): one call of the `device` machine, after
# scripts/gpu_bundle.sh here (the bundle travels with the tree in .carry/), tells the truth about every CUDA
# engine within one deadline. Phases, each with its budget inside the deadline (default 540 s):
#   preflight   -> device.txt, written first: bundle commit and flags, nvidia-smi, ldd of the module (a missing
#                  library fails), cuobjdump (sm_90 code; the visit tables' shared 64-bit atomics native or
#                  compare-and-swap loops), then a probe: netdp walk-sim on the stepping engine with
#                  --device cuda; when no device answers, the loader's reason and exit 1;
#   tests       -> tests.log: every CUDA suite and test_cuda_loader under NETDP_REQUIRE_CUDA=1 (a suite that
#                  finds no device fails, it does not skip);
#   benchmarks  -> bench.csv: bench_gpu_targets, one repeat of each engine's target case beside its model;
#   sanitizers  -> sanitizer.log: memcheck, racecheck and synccheck on one small case per kernel family
#                  (stepping kernels and block reductions included), initcheck on one suite (bin-sync/).
# summary.json is written whatever happens (also when a phase runs out of time): per test family the pass,
# fail and skip counts, per benchmark the figure, the model and their ratio, per sanitizer run its verdict.
# At most 8 files under $OUT (default ./gpu-check), each cut below 15 MiB (head and tail kept).
# --dry-run: the same phases here on the emulated device (build/tests/*_emulated, the benchmarks --tiny on
# the CPU; no nvidia-smi, no module, no sanitizers); CI runs it (tests/gpu_check).
# Usage: bash scripts/gpu_check.sh [--dry-run] [--deadline S] [--bundle FILE|DIR] [--build DIR]
# Exit 0 when every phase passed, 1 otherwise (no device, a failure, or out of time); 2 on a bad argument.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
dry=0 deadline=540 bundle=.carry/bundle.tar.xz build=build
while (($#)); do
  case $1 in
    --dry-run) dry=1 ;;
    --deadline) deadline=${2:?}; shift ;;
    --bundle) bundle=${2:?}; shift ;;
    --build) build=${2:?}; shift ;;
    *) echo "gpu_check: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
[[ $deadline =~ ^[0-9]+$ ]] || { echo "gpu_check: --deadline takes seconds" >&2; exit 2; }
out=${OUT:-gpu-check}
mkdir -p "$out"
started=$(date +%s)
elapsed() { echo $(($(date +%s) - started)); }
device_txt=$out/device.txt
: > "$device_txt"  # the first file, before anything can fail
files=(device.txt)
status=pass reasons=() mode=device
((dry)) && mode="dry-run"
fail() { status=fail; reasons+=("$*"); echo "gpu_check: $*" >&2; }
esc() { tr -d '\000-\010\013-\037' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | awk 'BEGIN{ORS=""} NR>1{print "\\n"} {print}'; }
note() { echo "$*" >> "$device_txt"; }
limit=$((15 << 20)) keep=$((7 << 20))
cap() {  # cap FILE: below 15 MiB, its first and last 7 MiB kept
  local f=$1 size
  [ -f "$f" ] || return 0
  size=$(stat -c %s "$f")
  ((size < limit)) && return 0
  { head -c "$keep" "$f"; printf '\n[gpu_check: %d bytes cut]\n' $((size - 2 * keep)); tail -c "$keep" "$f"; } > "$f.cut"
  mv "$f.cut" "$f"
}
# Phase ends, seconds from the start: the slack of a phase passes to the next; 15 s stay for the summary.
pre_end=$((deadline * 12 / 100)) tests_end=$((deadline * 50 / 100)) bench_end=$((deadline * 72 / 100))
san_end=$((deadline - 15))
left() { echo $(($1 - $(elapsed))); }

commit=unknown flags=unknown tests_json="" bench_json="" san_json="" probe=""
write_summary() {
  local reason="" r
  for r in "${reasons[@]}"; do reason+="${reason:+; }$r"; done
  files+=(summary.json)
  local names
  names=$(printf '"%s",' "${files[@]}")
  cat > "$out/summary.json" << EOF
{"check": "netdp GPU check", "mode": "$mode", "status": "$status", "reason": "$(printf '%s' "$reason" | esc)",
 "deadline_s": $deadline, "elapsed_s": $(elapsed), "commit": "$(printf '%s' "$commit" | esc)",
 "flags": "$(printf '%s' "$flags" | esc)", "probe": "$(printf '%s' "$probe" | esc)", "files": [${names%,}],
 "tests": {${tests_json%,}},
 "benchmarks": [${bench_json%,}],
 "sanitizers": [${san_json%,}]}
EOF
  for r in "${files[@]}"; do cap "$out/$r"; done
  echo "gpu_check: $status in $(elapsed) s of $deadline (${mode}); $out/summary.json"
  [ -n "$reason" ] && echo "gpu_check: $reason"
}
trap 'write_summary; [ -n "${unpacked:-}" ] && rm -rf "$unpacked"' EXIT
trap 'fail "interrupted"; exit 1' TERM INT

# ---- preflight -> device.txt
note "netdp GPU check, $mode, $(date -u +%Y-%m-%dT%H:%M:%SZ), deadline $deadline s"
export NETDP_REQUIRE_CUDA=1
if ((dry)); then
  note "dry run: the emulated device of $build (no nvidia-smi, no module, no sanitizers)"
  commit=$(git rev-parse --short HEAD 2> /dev/null || echo unknown)
  flags=$(grep -E '^(CMAKE_BUILD_TYPE|CMAKE_CXX_FLAGS|NETDP_CUDA):' "$build/CMakeCache.txt" 2> /dev/null | tr '\n' ' ')
  test_path() { if [ "$1" = test_cuda_loader ]; then echo "$build/tests/$1"; else echo "$build/tests/${1}_emulated"; fi; }
  bench_path=$build/benchmarks/bench_gpu_targets
  bench_args=(--device cpu --tiny)
else
  if [ -d "$bundle" ]; then
    root=$bundle
  elif [ -f "$bundle" ]; then
    unpacked=$(mktemp -d) && tar -C "$unpacked" -xJf "$bundle" && root=$unpacked
  fi
  if [ -z "${root:-}" ] || [ ! -x "$root/bin/netdp" ]; then
    fail "no bundle at $bundle (run scripts/gpu_bundle.sh here and carry .carry)"
    note "no bundle at $bundle"
    exit 1
  fi
  export LD_LIBRARY_PATH="$root/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
  export NETDP_CUDA_MODULE=$root/bin/libnetdp_cuda.so NETDP_TEST_CLI=$root/bin/netdp
  if [ -f "$root/BUNDLE.txt" ]; then
    cat "$root/BUNDLE.txt" >> "$device_txt"
    commit=$(sed -n 's/^commit: //p' "$root/BUNDLE.txt") flags=$(sed -n 's/^flags: //p' "$root/BUNDLE.txt")
  fi
  if command -v nvidia-smi > /dev/null; then
    timeout 20 nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv >> "$device_txt" 2>&1 ||
      fail "nvidia-smi failed"
  else
    note "nvidia-smi: not found"
    fail "nvidia-smi not found: no NVIDIA driver on this machine"
  fi
  note "== ldd $NETDP_CUDA_MODULE"
  ldd "$NETDP_CUDA_MODULE" >> "$device_txt" 2>&1
  missing=$(ldd "$NETDP_CUDA_MODULE" 2>&1 | grep 'not found' | awk '{print $1}' | tr '\n' ' ')
  [ -n "$missing" ] && fail "the module lacks libraries: $missing"
  cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
  if [ -x "$cuobjdump" ]; then
    note "== cuobjdump --list-elf"
    elves=$(timeout 60 "$cuobjdump" --list-elf "$NETDP_CUDA_MODULE" 2>&1)
    note "$elves"
    grep -q 'sm_90' <<< "$elves" || fail "no sm_90 code in the module"
    note "== shared-memory atomics in the module's SASS (ATOMS.CAS*: compare-and-swap loops; others native)"
    timeout 120 "$cuobjdump" -sass "$NETDP_CUDA_MODULE" 2> /dev/null | grep -oE 'ATOMS\.[A-Z0-9.]+' | sort | uniq -c \
      >> "$device_txt"
  else
    note "cuobjdump: not found"
  fi
  test_path() { echo "$root/bin/$1"; }
  bench_path=$root/bin/bench_gpu_targets
  bench_args=(--device cuda)
fi
# The probe: plain walks on the stepping engine through the CLI (--device cuda; NETDP_REQUIRE_CUDA=1).
probe_dir=$(mktemp -d)
if ((dry)); then
  probe_cmd=("$(test_path test_walk_sim_cuda)" --gtest_filter=WalkSimCuda.VisitsOnlyRunsTheSteppingEngine)
else
  probe_cmd=("$root/bin/netdp" walk-sim --graph complete:n=16 --steps 100 --runs 64 --no-accounting
             --statistics visits --device cuda --quiet --out "$probe_dir/walks")
fi
if timeout "$(($(left "$pre_end") > 10 ? $(left "$pre_end") : 10))" "${probe_cmd[@]}" > "$probe_dir/log" 2>&1; then
  probe="emulated device: walk_sim visits -> cuda stepping"
  ((dry)) || probe=$(grep -oE '"(device|engine)": *"[^"]*"' "$probe_dir/walks/summary.json" | tr '\n' ' ')
  note "probe: ok: $probe"
else
  probe="no device answered: $(tail -n 5 "$probe_dir/log")"
  note "probe: $probe"
  fail "probe: $(tail -n 5 "$probe_dir/log")"
fi
rm -rf "$probe_dir"
[ "$status" = pass ] || exit 1

# ---- tests -> tests.log
files+=(tests.log)
: > "$out/tests.log"
suites=(test_cuda_loader test_walk_sim_cuda test_gossip_loss_cuda test_walk_loss_cuda test_gossip_sim_cuda
        test_gossip_sim_varying_cuda test_gossip_view_cuda test_gossip_loss_sequence_twins
        test_muffliato_view_twins)
# A dry run of a build without CUDA has no module for the loader's suite to open.
((dry)) && [ ! -e "$build/libnetdp_cuda.so" ] && suites=("${suites[@]:1}") && tests_json+='"test_cuda_loader": {"skipped": "no CUDA in this build"},'

# One small case per kernel family: the sanitizer set, and the dry run's tests.
declare -A small=(
  [test_cuda_loader]='*'
  [test_walk_sim_cuda]='WalkSimCuda.SteppingModeWalksTheCpuPaths:WalkSimCuda.VisitsOnlyRunsTheSteppingEngine:WalkSimCuda.DirectedRingMatchesTheCpu:WalkSimCuda.AccountingOnTheDirectedRingMatchesTheCpu'
  [test_gossip_loss_cuda]='GossipLossCuda.SmallTilesMatchCpuAndOneTile'
  [test_walk_loss_cuda]='WalkLossCuda.SmallTilesMatchCpuAndOneTile:WalkLossCuda.ChebyshevSolverMatchesCpu'
  [test_gossip_sim_cuda]='GossipSimCuda.SyncMatchesCpuOnRandomGraphs'
  [test_gossip_sim_varying_cuda]='GossipSimVaryingCuda.DropoutMatchesCpu'
  [test_gossip_view_cuda]='GossipViewCuda.BatchesAndListedObserversMoveNoBit'
  [test_gossip_loss_sequence_twins]='GossipLossSequenceTwins.MuffliatoC9GivesTheSameBytes:GossipLossSequenceTwins.ExactViewBatchesMoveNoBit'
  [test_muffliato_view_twins]='MuffliatoViewTwins.BatchesMoveNoBit')
count() { grep -cE "^\[ *$1 *\] [A-Za-z0-9_]+\.[A-Za-z0-9_]+ \([0-9]+ ms\)" "$2"; }
for i in "${!suites[@]}"; do
  t=${suites[$i]}
  budget=$(left "$tests_end") share=$(($(left "$tests_end") * 2 / (${#suites[@]} - i)))
  ((share < budget)) && budget=$((share > 10 ? share : 10))
  if (($(left "$tests_end") < 10)); then
    fail "tests: no time left for $t"
    tests_json+="\"$t\": {\"skipped_for_time\": true},"
    continue
  fi
  filter='*'
  ((dry)) && filter=${small[$t]}
  log=$(mktemp)
  t0=$(date +%s)
  timeout -k 5 "$budget" "$(test_path "$t")" --gtest_filter="$filter" > "$log" 2>&1
  rc=$?
  { echo "== $t (exit $rc, $(($(date +%s) - t0)) s)"; cat "$log"; } >> "$out/tests.log"
  passed=$(count OK "$log") failed=$(count FAILED "$log") skipped=$(count SKIPPED "$log")
  tests_json+="\"$t\": {\"passed\": $passed, \"failed\": $failed, \"skipped\": $skipped, \"exit\": $rc, \"seconds\": $(($(date +%s) - t0))},"
  ((rc == 124 || rc == 137)) && fail "tests: $t ran out of time"
  ((rc != 0 || failed > 0 || passed == 0)) && fail "tests: $t: $passed passed, $failed failed, $skipped skipped, exit $rc"
  rm -f "$log"
done
cap "$out/tests.log"

# ---- benchmarks -> bench.csv
files+=(bench.csv)
echo "case,engine,size,device,threads,repeats,seconds,work,figure,unit,model,ratio" > "$out/bench.csv"
num() { [[ $1 =~ ^-?[0-9.]+(e[-+]?[0-9]+)?$ ]] && echo "$1" || echo null; }
mapfile -t cases < <(timeout 30 "$bench_path" --list 2> /dev/null)
((${#cases[@]})) || fail "benchmarks: $bench_path --list named no case"
for i in "${!cases[@]}"; do
  c=${cases[$i]}
  # At most twice its share of what is left, the last case all of it.
  budget=$(left "$bench_end") share=$(($(left "$bench_end") * 2 / (${#cases[@]} - i)))
  ((share < budget && i + 1 < ${#cases[@]})) && budget=$((share > 10 ? share : 10))
  if (($(left "$bench_end") < 10)); then
    fail "benchmarks: no time left for $c"
    bench_json+="{\"case\": \"$c\", \"skipped_for_time\": true},"
    continue
  fi
  err=$(mktemp)
  line=$(timeout -k 5 "$budget" "$bench_path" --case "$c" --repeats 1 "${bench_args[@]}" 2> "$err")
  rc=$?
  row=$(printf '%s\n' "$line" | sed -n 2p)
  echo "${row:-$c,exit $rc}" >> "$out/bench.csv"
  sed 's/^/# /' "$err" >> "$out/bench.csv"
  rm -f "$err"
  IFS=, read -r _ engine size _ _ _ seconds _ figure unit model ratio <<< "$row"
  if ((rc == 0)) && [ -n "$row" ]; then
    bench_json+="{\"case\": \"$c\", \"engine\": \"$engine\", \"size\": \"$size\", \"seconds\": $(num "$seconds"), \"figure\": $(num "$figure"), \"unit\": \"$unit\", \"model\": $(num "$model"), \"ratio\": $(num "$ratio")},"
  else
    bench_json+="{\"case\": \"$c\", \"exit\": $rc},"
    fail "benchmarks: $c exit $rc"
  fi
done

# ---- sanitizers -> sanitizer.log (bin-sync/: every launch synchronised, a fault named at its launch)
if ((dry)); then
  san_json='{"skipped": "dry run"},'
else
  files+=(sanitizer.log)
  : > "$out/sanitizer.log"
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  sync_bin=$root/bin-sync
  runs=()
  for tool in memcheck racecheck synccheck; do
    for t in "${suites[@]}"; do [ "$t" != test_cuda_loader ] && runs+=("$tool $t"); done
  done
  runs+=("initcheck test_walk_sim_cuda")
  for r in "${runs[@]}"; do
    read -r tool t <<< "$r"
    budget=$(left "$san_end")
    if ((budget < 10)); then
      fail "sanitizers: no time left for $tool $t"
      san_json+="{\"tool\": \"$tool\", \"suite\": \"$t\", \"skipped_for_time\": true},"
      continue
    fi
    options=(--tool "$tool" --print-limit 20)
    [ "$tool" = memcheck ] && options+=(--leak-check full)
    [ "$tool" = racecheck ] && options+=(--racecheck-report hazard)
    echo "== $tool $t" >> "$out/sanitizer.log"
    NETDP_CUDA_MODULE=$sync_bin/libnetdp_cuda.so timeout -k 5 "$budget" "$sanitizer" "${options[@]}" \
      --error-exitcode 3 "$sync_bin/$t" --gtest_filter="${small[$t]}" >> "$out/sanitizer.log" 2>&1
    rc=$?
    verdict=$( ((rc == 0)) && echo clean || { ((rc == 3)) && echo errors; } || echo "exit $rc")
    san_json+="{\"tool\": \"$tool\", \"suite\": \"$t\", \"verdict\": \"$verdict\"},"
    ((rc != 0)) && fail "sanitizers: $tool $t: $verdict"
    cap "$out/sanitizer.log"
  done
fi
[ "$status" = pass ] || exit 1
exit 0
