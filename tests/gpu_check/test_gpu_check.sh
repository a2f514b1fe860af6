#!/usr/bin/env bash
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
      len(s["tests"]) == 6
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
