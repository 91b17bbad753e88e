#!/usr/bin/env bash
# Runs the same short cases with two eddy binaries and compares every file they write, byte for byte: the guard of
# a change that must not change results (a restructure, a refactor). Cases: the default cavity (snapshots,
# centreline CSV, checkpoint), the same on 2 MPI ranks, out of core (cpu backend: 4 slabs, time_block 2), the heated
# cavity (temperature, vorticity, Q-criterion, strain rate) and the particle cavity (particle files, checkpoint).
# Usage: scripts/compare_outputs.sh OLD_EDDY NEW_EDDY [WORK_DIR]
#   exit 0: every file equal; 1: a difference or a failed run (named); 2: bad usage.
# The log lines (timings, MLUPS) and lock files are not compared.
set -uo pipefail

old=${1:-}
new=${2:-}
if [[ -z $old || -z $new || ! -x $old || ! -x $new ]]; then
  echo "usage: scripts/compare_outputs.sh OLD_EDDY NEW_EDDY [WORK_DIR] (two executable eddy binaries)" >&2
  exit 2
fi
old=$(realpath "$old")
new=$(realpath "$new")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${3:-$(mktemp -d)}
mkdir -p "$work"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mpirun=(mpirun --allow-run-as-root --oversubscribe -n 2)

failures=0
# run <label> <eddy> <mpi: 0|1> <case> [--set ...]: the run's output goes to $work/<which>/<label>/
run() {
  local label=$1 binary=$2 mpi=$3 case=$4
  shift 4
  local which=old
  [[ $binary == "$new" ]] && which=new
  local dir=$work/running/$label final=$work/$which/$label  # both builds write under the same path
  rm -rf "$dir" "$final"
  mkdir -p "$dir" "$(dirname "$final")"
  local launcher=()
  ((mpi)) && launcher=("${mpirun[@]}")
  if ! "${launcher[@]}" "$binary" run "$root/cases/$case" --output "$dir/out" "$@" >"$dir/log.txt" 2>&1; then
    echo "FAIL: $label ($which build) did not run: see $final/log.txt"
    failures=$((failures + 1))
  fi
  mv "$dir" "$final"
}

cavity=(--set run.steps=600 --set output.every=200 --set checkpoint.every=300 --set 'output.fields=["density","velocity","vorticity"]')
heated=(--set run.steps=400 --set output.every=200 --set 'output.fields=["density","velocity","temperature","vorticity","q_criterion","strain_rate"]')
particles=(--set run.steps=300 --set output.every=100 --set checkpoint.every=300)
out_of_core=(--set run.steps=200 --set output.every=100 --set domain.size=[64,48,16] --set numerics.out_of_core=true
  --set numerics.slabs=4 --set numerics.time_block=2)
for binary in "$old" "$new"; do
  run cavity "$binary" 0 lid_driven_cavity_2d.toml "${cavity[@]}"
  run cavity_2_ranks "$binary" 1 lid_driven_cavity_2d.toml "${cavity[@]}"
  run out_of_core "$binary" 0 lid_driven_cavity_3d.toml "${out_of_core[@]}"
  run heated "$binary" 0 heated_cavity_2d.toml "${heated[@]}"
  run particles "$binary" 0 particles_cavity_2d.toml "${particles[@]}"
done

compared=0
for label in cavity cavity_2_ranks out_of_core heated particles; do
  a=$work/old/$label/out
  b=$work/new/$label/out
  list_a=$(cd "$a" 2>/dev/null && find . -type f ! -name eddy.lock | sort)
  list_b=$(cd "$b" 2>/dev/null && find . -type f ! -name eddy.lock | sort)
  if [[ $list_a != "$list_b" ]]; then
    echo "FAIL: $label: the two builds wrote different files:"
    diff <(echo "$list_a") <(echo "$list_b") | sed 's/^/  /'
    failures=$((failures + 1))
    continue
  fi
  if [[ -z $list_a ]]; then
    echo "FAIL: $label: no files written"
    failures=$((failures + 1))
    continue
  fi
  while read -r file; do
    compared=$((compared + 1))
    cmp -s "$a/$file" "$b/$file" || {
      echo "FAIL: $label: $file differs"
      failures=$((failures + 1))
    }
  done <<<"$list_a"
done
if ((failures > 0)); then
  echo "$failures difference(s) or failed run(s); outputs kept in $work"
  exit 1
fi
echo "ok: $compared files byte-identical between $old and $new (outputs in $work)"
