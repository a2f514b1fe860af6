#!/usr/bin/env bash
# Regenerates the figures of examples/ (docs/figures.md). Every folder of examples/ that holds a plot.py is a
# figure folder, found by this convention (no list to keep up to date):
#   study.toml   run with `netdp run` into OUT/<folder> (a folder without one computes inside its plot.py)
#   quick.toml   the same study at small sizes, used by --quick instead of study.toml when present
#   paper.toml   (some folders) the papers' full scale, hours on 2 cores: never run here, see the folder's README
#   plot.py      `python3 plot.py OUT/<folder>` draws one or more PNGs into OUT/<folder>; it finds netdp in $NETDP,
#                and imports the Python package netdp (netdp.plot) from the same build: PYTHONPATH starts with
#                the python/ directory beside the binary when there is one (build/python, docs/python.md)
# Studies read data/facebook/414.edges (SNAP ego-Facebook, shipped: data/README.md); --data points them elsewhere,
# and a study that reads data/facebook/ is skipped when that directory has no facebook/414.edges.
#
#   scripts/figures.sh [--quick] [--netdp PATH] [--data DIR] [--out DIR] [--gallery] [--only FOLDER]...
#
#   --quick     CI scale: quick.toml where a folder has one, else its study.toml; checks that each PNG is written
#   --netdp     the netdp binary (default build/netdp)
#   --data      directory holding facebook/414.edges (default data/ under the repository root)
#   --out       where the results go (default figures-out; --quick: a temporary directory, removed at the end)
#   --gallery   copy every PNG into docs/figures/ (full scale only)
#   --only F    this folder only (repeatable)
#
# Plots use PYTHON (default /usr/bin/python3, which has the Debian matplotlib and networkx). Prints one line per
# folder with its time. Exit 1 when a study or a plot fails or writes no PNG, 2 on bad arguments.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
quick=0 gallery=0 netdp="$root/build/netdp" data="" out="" only=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --gallery) gallery=1 ;;
    --netdp | --data | --out | --only)
      [[ $# -ge 2 ]] || { echo "figures.sh: $1 needs a value" >&2; exit 2; }
      case "$1" in
        --netdp) netdp=$(realpath "$2") ;;
        --data) data=$(realpath -m "$2") ;;
        --out) out=$(realpath -m "$2") ;;
        --only) only+=("${2%/}") ;;
      esac
      shift ;;
    *) echo "figures.sh: unknown argument $1 (see the comment at the top of scripts/figures.sh)" >&2; exit 2 ;;
  esac
  shift
done
[[ -n "$data" ]] || data="$root/data"
python=${PYTHON:-/usr/bin/python3}
[[ -x "$python" ]] || python=python3
[[ -x "$netdp" ]] || { echo "figures.sh: no netdp binary at $netdp (build it or pass --netdp)" >&2; exit 2; }
if [[ -z "$out" ]]; then
  if [[ $quick == 1 ]]; then out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; else out="$root/figures-out"; fi
fi
mkdir -p "$out/work"
# Studies read graph files relative to the directory they run in (data/..., examples/...; docs/study.md
# "Relative paths"): the work directory has data/ pointing at --data and examples/ at the repository's.
[[ -d "$data" ]] && ln -sfn "$data" "$out/work/data"
ln -sfn "$root/examples" "$out/work/examples"
export NETDP="$netdp" MPLBACKEND=Agg
if [[ -f "$(dirname "$netdp")/python/netdp/__init__.py" ]]; then
  export PYTHONPATH="$(dirname "$netdp")/python${PYTHONPATH:+:$PYTHONPATH}"
fi

folders=()
for plot in "$root"/examples/*/plot.py; do folders+=("$(basename "$(dirname "$plot")")"); done
if [[ ${#only[@]} -gt 0 ]]; then
  for f in "${only[@]}"; do
    [[ -f "$root/examples/$f/plot.py" ]] || { echo "figures.sh: --only $f: no examples/$f/plot.py" >&2; exit 2; }
  done
  folders=("${only[@]}")
fi

failed=0 total_start=$(date +%s)
for folder in "${folders[@]}"; do
  dir="$root/examples/$folder"
  study=""
  [[ -f "$dir/study.toml" ]] && study="$dir/study.toml"
  [[ $quick == 1 && -f "$dir/quick.toml" ]] && study="$dir/quick.toml"
  if grep -qs "data/facebook/" "${study:-$dir/plot.py}" && [[ ! -f "$data/facebook/414.edges" ]]; then
    echo "figures.sh: $folder skipped: no $data/facebook/414.edges (pass --data)"
    continue
  fi
  rm -rf "${out:?}/$folder"
  mkdir -p "$out/$folder"
  start=$(date +%s)
  ok=1
  if [[ -n "$study" ]]; then
    (cd "$out/work" && "$netdp" run "$study" --out "$out/$folder" --quiet) >"$out/$folder.log" 2>&1 || ok=0
  fi
  if [[ $ok == 1 ]]; then
    (cd "$out/work" && "$python" "$dir/plot.py" "$out/$folder") >>"$out/$folder.log" 2>&1 || ok=0
  fi
  pngs=$(find "$out/$folder" -maxdepth 1 -name '*.png' -size +0 -printf '%f ' | sort)
  if [[ $ok == 1 && -n "$pngs" ]]; then
    echo "figures.sh: $folder: ${pngs% } in $(($(date +%s) - start)) s"
    if [[ $gallery == 1 && $quick == 0 ]]; then
      mkdir -p "$root/docs/figures" && cp "$out/$folder"/*.png "$root/docs/figures/"
    fi
  else
    [[ $ok == 1 ]] && echo "plot.py wrote no PNG into $out/$folder" >>"$out/$folder.log"
    echo "figures.sh: $folder FAILED (log: $out/$folder.log)" >&2
    tail -5 "$out/$folder.log" >&2 || true
    failed=1
  fi
done
echo "figures.sh: ${#folders[@]} folders in $(($(date +%s) - total_start)) s$([[ $quick == 1 ]] && echo ' (quick scale)')"
exit $failed
