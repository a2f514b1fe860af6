#!/usr/bin/env bash
# ctest examples_dry_run: `netdp run --dry-run` on every study file under examples/ (study.toml, quick.toml and any
# other *.toml), from the repository root as examples/README.md says, so a study whose graph or data file is
# missing (dry runs open the graph files) or whose parameters the registry refuses fails here. Every file is
# tried; the failures are listed, then the exit status is 1.
#
#   tests/examples/dry_run.sh NETDP SOURCE_DIR WORK_DIR
set -uo pipefail
[[ $# -eq 3 ]] || { echo "usage: dry_run.sh NETDP SOURCE_DIR WORK_DIR" >&2; exit 2; }
netdp=$1 root=$2 work=$(realpath -m "$3")
mkdir -p "$work" && cd "$root" || exit 2
mapfile -t studies < <(find examples -name '*.toml' | sort)
# An empty list would pass vacuously: the examples folder must hold studies.
[[ ${#studies[@]} -gt 0 ]] || { echo "no study files under $root/examples" >&2; exit 1; }
failed=0
for study in "${studies[@]}"; do
  out="$work/$(echo "$study" | tr '/' '_')"
  rm -rf "$out"
  if ! "$netdp" run "$study" --dry-run --out "$out" >"$out.log" 2>&1; then
    echo "FAILED: $study" && tail -3 "$out.log"
    failed=$((failed + 1))
  fi
done
echo "examples_dry_run: ${#studies[@]} study files, $failed failed"
[[ $failed -eq 0 ]]
