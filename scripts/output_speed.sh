#!/usr/bin/env bash
# Output speed on this machine (issue 27): the disk's sequential write speed (dd with fdatasync), then eddy's
# checkpoint and snapshot rates and its time to the first step on an N^3 float cavity, and the average MLUPS of an
# M^3 run with snapshots or checkpoints every K steps (in the background and in line) against the same run without
# output. Prints the lines to copy into docs/performance.md.
#
#   scripts/output_speed.sh EDDY_BINARY [N=620] [OUTPUT_DIR=/tmp/eddy_output_speed] [M=512] [K=500]
#
# N = 0 skips the N^3 part (checkpoint, restart, snapshot).
#
# DD_BLOCKS (default 128) sets the dd test's size in 64 MiB blocks; MODES (default all) the M^3 runs, a list of none,
# inline, background, checkpoint_inline and checkpoint_background; STEPS (default 4 K) their length.
# Snapshots need a build with VTK; without it the snapshot lines are skipped (the checkpoint needs none). The output
# directory is removed at the end.
set -euo pipefail
eddy=${1:?usage: scripts/output_speed.sh EDDY_BINARY [N] [OUTPUT_DIR] [M] [K]}
n=${2:-620}
dir=${3:-/tmp/eddy_output_speed}
m=${4:-512}
k=${5:-500}
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT

blocks=${DD_BLOCKS:-128}  # of 64 MiB: 8 GiB, beyond what the page cache hides
echo "== disk: dd of $((blocks * 64)) MiB with fdatasync into $dir"
dd if=/dev/zero of="$dir/dd.bin" bs=64M count=$blocks conv=fdatasync 2>&1 | tail -n 1
rm -f "$dir/dd.bin"

cavity() {  # cavity SIZE STEPS: a lid-driven cavity case on stdout
  printf '[domain]\nsize = [%d, %d, %d]\n[physics]\nvelocity = 0.05\nreynolds = 100\n' "$1" "$1" "$1"
  printf '[boundary.y_max]\ntype = "moving_wall"\nvelocity = [1, 0, 0]\n[run]\nsteps = %d\nreport_every = %d\n' \
    "$2" "$2"
}

if ((n > 0)); then  # N = 0 skips the N^3 checkpoint, restart and snapshot
echo "== checkpoint and start-up: ${n}^3 float, 10 steps, a checkpoint at step 10"
cavity "$n" 10 >"$dir/checkpoint.toml"
printf '[output]\nvtk = false\n[checkpoint]\nevery = 10\n' >>"$dir/checkpoint.toml"
"$eddy" run "$dir/checkpoint.toml" --output "$dir/c" | grep -E '^start-up|wrote checkpoint|^done'
manifest=$(ls "$dir"/c/checkpoints/*.toml | tail -n 1)
echo "== restart from it (time to the first step with the checkpoint read)"
"$eddy" run "$dir/checkpoint.toml" --output "$dir/c" --set run.steps=11 --set checkpoint.every=0 \
  --restart "$manifest" | grep -E '^start-up|^restarted'
rm -rf "$dir/c"

echo "== snapshot: ${n}^3 float, density and velocity, in line"
cavity "$n" 1 >"$dir/snapshot.toml"
printf '[output]\nevery = 1\nasynchronous = false\n' >>"$dir/snapshot.toml"
if ! "$eddy" run "$dir/snapshot.toml" --output "$dir/s" | grep -E 'wrote .*vti|^done'; then
  echo "(no snapshot: this build has no VTK)"
  exit 0
fi
rm -rf "$dir/s"
fi

steps=${STEPS:-$((4 * k))}
echo "== ${m}^3 float, $steps steps: no output, snapshots every $k in line and in the background, checkpoints every"
echo "   $k in line and in the background (the last step's checkpoint is written in line in both)"
for mode in ${MODES:-none inline background checkpoint_inline checkpoint_background}; do
  cavity "$m" "$steps" >"$dir/run.toml"
  case $mode in
    none) printf '[output]\nvtk = false\n' >>"$dir/run.toml" ;;
    inline) printf '[output]\nevery = %d\nasynchronous = false\n' "$k" >>"$dir/run.toml" ;;
    background) printf '[output]\nevery = %d\n' "$k" >>"$dir/run.toml" ;;
    checkpoint_inline) printf '[output]\nvtk = false\nasynchronous = false\n[checkpoint]\nevery = %d\n' "$k" >>"$dir/run.toml" ;;
    checkpoint_background) printf '[output]\nvtk = false\n[checkpoint]\nevery = %d\n' "$k" >>"$dir/run.toml" ;;
  esac
  echo "-- $mode"
  "$eddy" run "$dir/run.toml" --output "$dir/r" | grep -E '^done|wrote'
  rm -rf "$dir/r"
done
