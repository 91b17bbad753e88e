#!/usr/bin/env bash
# Output directories and checkpoint paths under mpiexec with 2 ranks (CTest, label mpi):
#   - ranks whose output directory is not the same directory (a relative --output from different working
#     directories: the node-local /tmp mistake of a multi-node job) used to hang in MPI_File_open at the first
#     checkpoint; now every rank exits 5 before the first step with one message;
#   - a checkpoint path over Open MPI's 244-character MPI_File_open limit (it aborted with "buffer overflow
#     detected") is written and restarted through a shorter name of the same file, and refused with exit 5 before
#     the first step where there is none.
# Usage: output_paths.sh EDDY MPIEXEC NUMPROC_FLAG "EXTRA_FLAGS"
set -u
eddy=$1 mpiexec=$2 np_flag=$3 extra=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
# shellcheck disable=SC2086
mpirun2() { timeout 60 "$mpiexec" $np_flag 2 $extra "$@"; }

printf '[domain]\nsize = [8, 8, 1]\nperiodic = [false, false, true]\n[boundary.y_max]\ntype = "moving_wall"\n%s' \
  'velocity = [1.0, 0.0, 0.0]
[physics]
velocity = 0.05
reynolds = 10
[run]
steps = 20
report_every = 1
[output]
vtk = false
centerlines = false
[checkpoint]
every = 10
' >"$work/cav.toml"

# expect NAME CODE PATTERN LOG ERR: exit code CODE, one "eddy: error:" line matching PATTERN, no step run.
expect() {
  local name=$1 want=$2 pattern=$3 rc=$4 log=$5 err=$6 lines
  lines=$(grep -c "eddy: error:" "$err")
  if [[ $rc == "$want" && $lines == 1 ]] && grep -q -- "$pattern" "$err" && ! grep -q '^step' "$log"; then
    pass "$name: exit $rc, $(grep "eddy: error:" "$err")"
  else
    fail "$name: exit $rc (want $want), $lines error lines (want 1, matching '$pattern'); stderr: $(head -c 2000 "$err")"
  fi
}

# Per-rank working directories, one relative --output: two different directories.
mkdir -p "$work/rank0" "$work/rank1"
mpirun2 sh -c "cd '$work'/rank\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}} && exec '$eddy' run '$work/cav.toml' --output out" \
  >"$work/split.log" 2>"$work/split.err"
expect "output directory not shared by the ranks" 5 "not the same directory" $? "$work/split.log" "$work/split.err"
left=$(find "$work"/rank*/out -type f 2>/dev/null)
[[ -z $left ]] && pass "no file left behind in the ranks' directories" || fail "left behind: $left"

# A checkpoint directory deeper than MPI-IO takes: reached under a shorter name.
deep=$work/$(printf 'd%.0s' {1..230})
mkdir -p "$deep"
cd "$work" || exit 1
mpirun2 "$eddy" run cav.toml --output "$deep" >long.log 2>&1
rc=$?
manifest=$deep/checkpoints/cav_checkpoint_00000010.toml
if [[ $rc == 0 && -f $manifest ]]; then pass "2 ranks: a ${#manifest}-character checkpoint path"; else
  fail "2 ranks, long checkpoint path: exit $rc; $(tail -3 long.log)"; fi
mpirun2 "$eddy" run cav.toml --set run.steps=30 --output "$deep" --restart "$manifest" >long2.log 2>&1
rc=$?
if [[ $rc == 0 ]] && grep -q "restarted   from" long2.log; then pass "2 ranks: restart from it"; else
  fail "2 ranks, restart from the long path: exit $rc; $(tail -3 long2.log)"; fi
# From a working directory with no short way there, and the checkpoint directory's descriptor (/proc/self/fd/<n>/)
# with a file name too long for the rest: refused before the first step.
cd / || exit 1
mpirun2 "$eddy" run "$work/cav.toml" --output "$deep" --set "case.name=\"$(printf 'n%.0s' {1..210})\"" \
  >"$work/far.log" 2>"$work/far.err"
expect "2 ranks: checkpoint path too long for MPI-IO" 5 "244" $? "$work/far.log" "$work/far.err"
cd "$work" || exit 1

if ((failures > 0)); then
  echo "$failures check(s) failed"
  exit 1
fi
