#!/usr/bin/env bash
# shellcheck disable=SC2016  # the fake programs are written in single quotes on purpose
# Tests of the GPU check (scripts/gpu_check.sh, docs/cuda_backend.md "The GPU check"), ctest label gpu-check:
#   dry-run     the dry run on the emulated device passes within its deadline, writes at most 8 files with
#               device.txt first, and its summary.json has every family's counts and every benchmark's figure,
#               model and ratio;
#   no-device   without --dry-run on a machine where no CUDA device answers it stops within a minute with exit
#               1, device.txt naming the reason (the loader's, through the probe); a missing bundle likewise;
#               skipped (77) where a GPU answers;
#   bench-args  bench_gpu_targets' argument handling (--list, refusals with exit 2, a --tiny case on the CPU).
# Usage: test_gpu_check.sh MODE SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
mode=$1 source=$2 build=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
bad() { echo "test_gpu_check ($mode): $*" >&2; exit 1; }
# summary.json against PYTHON_CONDITIONS (one Python expression per line over `s`, the parsed summary).
expect_summary() {
  python3 - "$1" "$2" << 'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
for line in sys.argv[2].strip().splitlines():
    if not eval(line.strip(), {"s": s}):
        sys.exit(f"summary.json fails: {line.strip()}\n{json.dumps(s, indent=1)}")
EOF
}

case $mode in
  dry-run)
    deadline=300
    started=$(date +%s)
    OUT=$work/out bash "$source/scripts/gpu_check.sh" --dry-run --deadline $deadline --build "$build" ||
      bad "the dry run failed (exit $?): $(cat "$work/out/summary.json" 2> /dev/null)"
    took=$(($(date +%s) - started))
    ((took <= deadline)) || bad "took $took s, past its deadline of $deadline s"
    count=$(find "$work/out" -type f | wc -l)
    ((count <= 8)) || bad "$count files under OUT"
    head -n 1 "$work/out/device.txt" | grep -q '^netdp GPU check, dry-run' || bad "device.txt does not open the check"
    expect_summary "$work/out/summary.json" '
      s["status"] == "pass" and s["mode"] == "dry-run" and s["elapsed_s"] <= s["deadline_s"]
      s["files"][0] == "device.txt" and s["files"][-1] == "summary.json" and len(s["files"]) <= 8
      len(s["tests"]) == 9
      all(f.get("skipped") or (f["passed"] > 0 and f["failed"] == 0 and f["exit"] == 0) for f in s["tests"].values())
      s["tests"]["test_walk_sim_cuda"]["passed"] >= 4
      [b["case"] for b in s["benchmarks"]] == ["stepping-complete", "statistics-complete", "gossip-sim-hypercube", "walk-loss-chebyshev", "gossip-loss-hypercube", "stepping-er"]
      all(b["figure"] > 0 and b["model"] > 0 and abs(b["ratio"] - b["figure"] / b["model"]) <= 1e-3 * b["ratio"] + 1e-6 for b in s["benchmarks"])
      s["sanitizers"] == [{"skipped": "dry run"}]'
    echo "dry run: passed in $took s, $count files"
    ;;
  no-device)
    if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
      echo "a GPU answers here: the no-device behaviour cannot be shown"
      exit 77
    fi
    mkdir -p "$work/bundle/bin"
    ln -s "$build/netdp" "$work/bundle/bin/netdp"
    [ -e "$build/libnetdp_cuda.so" ] && ln -s "$build/libnetdp_cuda.so" "$work/bundle/bin/libnetdp_cuda.so"
    started=$(date +%s)
    rc=0
    OUT=$work/out bash "$source/scripts/gpu_check.sh" --bundle "$work/bundle" || rc=$?
    took=$(($(date +%s) - started))
    ((rc == 1)) || bad "exit $rc, not 1"
    ((took < 60)) || bad "took $took s to stop"
    head -n 1 "$work/out/device.txt" | grep -q '^netdp GPU check, device' || bad "device.txt does not open the check"
    grep -E '^probe: no device answered: .*(no CUDA device answers|no CUDA driver|built without CUDA)' \
      "$work/out/device.txt" || bad "device.txt names no reason: $(cat "$work/out/device.txt")"
    expect_summary "$work/out/summary.json" '
      s["status"] == "fail" and s["files"] == ["device.txt", "summary.json"]
      "probe:" in s["reason"] and s["tests"] == {} and s["benchmarks"] == []'
    rc=0
    OUT=$work/none bash "$source/scripts/gpu_check.sh" --bundle "$work/nothing-here" || rc=$?
    ((rc == 1)) || bad "exit $rc without a bundle"
    grep -q "no bundle at $work/nothing-here" "$work/none/device.txt" || bad "device.txt does not say the bundle is missing"
    echo "no device: exit 1 in $took s; $(grep '^probe:' "$work/out/device.txt")"
    ;;
  fake-device)
    # The device flow on a fake device: the bundle's programs are wrappers (the emulated suites on one or two
    # cases each, the benchmarks --tiny on the CPU, a CLI that answers the probe), nvidia-smi and
    # compute-sanitizer are scripts; the fake racecheck reports errors on the gossip-sim suite. Then the same
    # with a deadline too short for every phase.
    fake=$work/bundle
    bin=$fake/bin
    mkdir -p "$bin" "$fake/bin-sync" "$fake/lib" "$work/path"
    printf 'commit: fake-commit\nflags: fake flags\n' > "$fake/BUNDLE.txt"
    wrap() {  # wrap NAME PROGRAM FILTER: bin/NAME and bin-sync/NAME run PROGRAM on FILTER
      printf '#!/bin/bash\nexec %q "$@" --gtest_filter=%q\n' "$2" "$3" > "$bin/$1"
      chmod +x "$bin/$1"
      cp "$bin/$1" "$fake/bin-sync/$1"
    }
    wrap test_cuda_loader "$build/tests/test_cuda_loader" CudaLoader.NoCudaLibraryIsMappedBeforeADeviceIsAskedFor
    wrap test_walk_sim_cuda "$build/tests/test_walk_sim_cuda_emulated" \
      'WalkSimCuda.VisitsOnlyRunsTheSteppingEngine:WalkSimCuda.DirectedRingMatchesTheCpu'
    wrap test_gossip_loss_cuda "$build/tests/test_gossip_loss_cuda_emulated" GossipLossCuda.SmallTilesMatchCpuAndOneTile
    wrap test_walk_loss_cuda "$build/tests/test_walk_loss_cuda_emulated" WalkLossCuda.SmallTilesMatchCpuAndOneTile
    wrap test_gossip_sim_cuda "$build/tests/test_gossip_sim_cuda_emulated" GossipSimCuda.SyncMatchesCpuOnRandomGraphs
    wrap test_gossip_sim_varying_cuda "$build/tests/test_gossip_sim_varying_cuda_emulated" \
      GossipSimVaryingCuda.DropoutMatchesCpu
    wrap test_gossip_view_cuda "$build/tests/test_gossip_view_cuda_emulated" \
      GossipViewCuda.BatchesAndListedObserversMoveNoBit
    wrap test_gossip_loss_sequence_twins "$build/tests/test_gossip_loss_sequence_twins_emulated" \
      GossipLossSequenceTwins.MuffliatoC9GivesTheSameBytes
    wrap test_muffliato_view_twins "$build/tests/test_muffliato_view_twins_emulated" MuffliatoViewTwins.BatchesMoveNoBit
    for f in "$bin/libnetdp_cuda.so" "$fake/bin-sync/libnetdp_cuda.so"; do
      if [ -e "$build/libnetdp_cuda.so" ]; then ln -s "$build/libnetdp_cuda.so" "$f"; else : > "$f"; fi
    done
    # The probe's CLI: a summary.json into --out.
    printf '%s\n' '#!/bin/bash' \
      'while (($#)); do [ "$1" = --out ] && mkdir -p "$2" && echo "{\"device\": \"cuda:0 (fake)\"}" > "$2/summary.json"; shift; done' \
      > "$bin/netdp"
    printf '#!/bin/bash\nargs=(); for a in "$@"; do [ "$a" = cuda ] && a=cpu; args+=("$a"); done\nexec %q "${args[@]}" --tiny\n' \
      "$build/benchmarks/bench_gpu_targets" > "$bin/bench_gpu_targets"
    printf '#!/bin/bash\necho "name, memory.total"; echo "Fake H200, 141000 MiB"\n' > "$work/path/nvidia-smi"
    # The options up to the program, then the program; racecheck "finds" errors in the gossip-sim suite.
    printf '%s\n' '#!/bin/bash' \
      'while [[ $1 == --* ]]; do' \
      '  [ "$1" = --tool ] && tool=$2' \
      '  case $1 in --tool | --print-limit | --racecheck-report | --error-exitcode | --leak-check) shift 2 ;; *) shift ;; esac' \
      'done' \
      '"$@" || exit $?' \
      '[ "$tool" = racecheck ] && [[ $1 == */test_gossip_sim_cuda ]] && { echo "RACECHECK SUMMARY: 1 hazard"; exit 3; }' \
      'exit 0' > "$work/path/compute-sanitizer"
    chmod +x "$bin/netdp" "$bin/bench_gpu_targets" "$work/path/nvidia-smi" "$work/path/compute-sanitizer"
    rc=0
    PATH=$work/path:$PATH OUT=$work/out bash "$source/scripts/gpu_check.sh" --bundle "$fake" || rc=$?
    ((rc == 1)) || bad "exit $rc, not 1 (the fake racecheck reports errors)"
    if ! grep -q 'Fake H200' "$work/out/device.txt" || ! grep -q 'commit: fake-commit' "$work/out/device.txt"; then
      bad "device.txt lacks nvidia-smi or the bundle: $(cat "$work/out/device.txt")"
    fi
    expect_summary "$work/out/summary.json" '
      s["status"] == "fail" and s["mode"] == "device" and s["commit"] == "fake-commit"
      s["reason"] == "sanitizers: racecheck test_gossip_sim_cuda: errors"
      s["files"] == ["device.txt", "tests.log", "bench.csv", "sanitizer.log", "summary.json"]
      len(s["tests"]) == 9 and all(f["passed"] > 0 and f["failed"] == 0 and f["exit"] == 0 for f in s["tests"].values())
      len(s["benchmarks"]) == 6 and all(b["ratio"] > 0 for b in s["benchmarks"])
      len(s["sanitizers"]) == 25 and [r["verdict"] for r in s["sanitizers"]].count("clean") == 24
      {"tool": "racecheck", "suite": "test_gossip_sim_cuda", "verdict": "errors"} in s["sanitizers"]'
    rc=0
    started=$(date +%s)
    PATH=$work/path:$PATH OUT=$work/short bash "$source/scripts/gpu_check.sh" --bundle "$fake" --deadline 20 || rc=$?
    took=$(($(date +%s) - started))
    ((rc == 1 && took <= 30)) || bad "a 20-s deadline: exit $rc after $took s"
    expect_summary "$work/short/summary.json" '
      s["status"] == "fail" and s["elapsed_s"] <= 30 and "no time left" in s["reason"]
      any(r.get("skipped_for_time") for r in s["sanitizers"] + s["benchmarks"] + list(s["tests"].values()))'
    echo "fake device: every phase ran and the racecheck errors failed the check; a 20-s deadline stopped in $took s"
    ;;
  bench-args)
    bench=$build/benchmarks/bench_gpu_targets
    [ "$("$bench" --list | tr '\n' ' ')" = "stepping-complete statistics-complete gossip-sim-hypercube walk-loss-chebyshev gossip-loss-hypercube stepping-er " ] ||
      bad "--list: $("$bench" --list)"
    for args in "--case bogus" "--repeats" "--repeats 0" "--device tpu" "--colour blue"; do
      rc=0
      # shellcheck disable=SC2086  # the arguments split on purpose
      "$bench" $args > "$work/out.csv" 2> "$work/err" || rc=$?
      ((rc == 2)) || bad "$args: exit $rc, not 2"
      grep -q usage "$work/err" || bad "$args: no usage line"
      [ ! -s "$work/out.csv" ] || bad "$args: printed $(cat "$work/out.csv")"
    done
    "$bench" --tiny --device cpu --case stepping-complete > "$work/out.csv"
    [ "$(wc -l < "$work/out.csv")" = 2 ] || bad "one case, not $(cat "$work/out.csv")"
    IFS=, read -r name engine _ device _ repeats seconds positions figure unit model ratio < <(sed -n 2p "$work/out.csv")
    [ "$name,$engine,$device,$repeats,$unit,$model" = "stepping-complete,cpu visits,cpu,1,steps/s,1.2e+11" ] ||
      bad "row $(sed -n 2p "$work/out.csv")"
    python3 -c "import sys; s, w, f, r = map(float, sys.argv[1:]); assert w == 256 * 1000 and abs(f - w / s) <= 1e-3 * f and abs(r - f / 1.2e11) <= 1e-3 * r" \
      "$seconds" "$positions" "$figure" "$ratio" || bad "figures $seconds $positions $figure $ratio"
    echo "bench_gpu_targets: arguments handled"
    ;;
  *) bad "unknown mode" ;;
esac
