#!/usr/bin/env bash
# Regenerates the figures of examples/ (docs/figures.md): for every example folder, `netdp run` its study into
# OUT/<folder> and draw it with its plot.py, then check that the PNG was written.
#
#   scripts/figures.sh [--quick] [--netdp PATH] [--data DIR] [--out DIR] [--gallery]
#
#   --quick     CI scale: a folder's quick.toml where it has one (smaller graphs, fewer runs), else its study.toml
#   --netdp     the netdp binary (default build/netdp)
#   --data      directory holding facebook/414.edges (SNAP ego-Facebook); ego examples are skipped without it
#               (default data/ under the repository root)
#   --out       where the results go (default figures-out; --quick: a temporary directory, removed at the end)
#   --gallery   copy every PNG into docs/figures/ (full scale only)
#
# Plots use PYTHON (default /usr/bin/python3, which has the Debian matplotlib and networkx). Exit 1 when a study
# or a plot fails or a PNG is missing.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
quick=0 gallery=0 netdp="$root/build/netdp" data="$root/data" out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --gallery) gallery=1 ;;
    --netdp) netdp=$(realpath "$2"); shift ;;
    --data) data=$(realpath "$2"); shift ;;
    --out) out=$(realpath -m "$2"); shift ;;
    *) echo "figures.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
python=${PYTHON:-/usr/bin/python3}
[[ -x "$python" ]] || python=python3
[[ -x "$netdp" ]] || { echo "figures.sh: no netdp binary at $netdp (build it or pass --netdp)" >&2; exit 2; }
if [[ -z "$out" ]]; then
  if [[ $quick == 1 ]]; then out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; else out="$root/figures-out"; fi
fi
mkdir -p "$out/work"
# Studies read graph files relative to the directory they run in: data/ there points at --data.
[[ -d "$data" ]] && ln -sfn "$data" "$out/work/data"

# folder -> PNG its plot.py writes
declare -A png=(
  [fig6_1a_gossip_by_distance]=fig6_1a.png
  [fig7_1_complete_graph_summation]=fig7_1.png
  [fig7_3a_walk_vs_gossip]=fig7_3a.png
  [figC2_hypercube_growing_n]=figC2.png
  [fig6_1b_muffliato_ego_graph]=fig6_1b.png
  [figC5_dropout_gossip]=figC5.png
  [fig7_4_walk_loss_communicability]=fig7_4.png
  [fig6_1c_muffliato_gd_time_varying_er]=fig6_1c.png
)
needs_ego=" fig6_1b_muffliato_ego_graph fig7_4_walk_loss_communicability "

failed=0
for folder in $(printf '%s\n' "${!png[@]}" | sort); do
  dir="$root/examples/$folder"
  if [[ "$needs_ego" == *" $folder "* && ! -f "$data/facebook/414.edges" ]]; then
    echo "figures.sh: $folder skipped: no $data/facebook/414.edges (pass --data)"
    continue
  fi
  study="$dir/study.toml"
  [[ $quick == 1 && -f "$dir/quick.toml" ]] && study="$dir/quick.toml"
  start=$(date +%s)
  if (cd "$out/work" && "$netdp" run "$study" --out "$out/$folder" --quiet >"$out/$folder.log" 2>&1) &&
     (cd "$out/work" && "$python" "$dir/plot.py" "$out/$folder" >>"$out/$folder.log" 2>&1) &&
     [[ -s "$out/$folder/${png[$folder]}" ]]; then
    echo "figures.sh: $folder: ${png[$folder]} in $(( $(date +%s) - start )) s"
    if [[ $gallery == 1 && $quick == 0 ]]; then
      mkdir -p "$root/docs/figures" && cp "$out/$folder/${png[$folder]}" "$root/docs/figures/"
    fi
  else
    echo "figures.sh: $folder FAILED (log: $out/$folder.log)" >&2
    tail -5 "$out/$folder.log" >&2 || true
    failed=1
  fi
done
exit $failed
