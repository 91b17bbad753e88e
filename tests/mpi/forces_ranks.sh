#!/usr/bin/env bash
# Forces on solid bodies under mpiexec (CTest, label mpi): a channel with a sphere cut by every rank boundary and a
# cylinder across the periodic z direction, run through the eddy command line on 1 rank, on 2 (split along x) and on
# 4 (2 x 2 x 1) with interpolated walls (the default), and with half-way walls on 1 and on 2 out of core along z
# (interpolated walls run in core only): <case>_forces.csv (forces, torques, C_D and C_L of every sample) and the
# closing summary must be byte for byte those of the one-rank run; a 2-rank run restarted on 1 rank from its
# checkpoint continues the file bitwise. The solid field of the .pvti pieces is checked against one rank by
# tests/mpi/test_mpi_solid_forces.cpp.
# Usage: forces_ranks.sh EDDY MPIEXEC NUMPROC_FLAG "EXTRA_FLAGS"
set -u
eddy=$1 mpiexec=$2 np_flag=$3 extra=${4:-}
# shellcheck source=tests/mpi/rank_runs.sh
source "$(dirname "${BASH_SOURCE[0]}")/rank_runs.sh"
# shellcheck source=tests/restart/script_support.sh
source "$(dirname "${BASH_SOURCE[0]}")/../restart/script_support.sh"

cat >case.toml <<'EOF'
[domain]
size = [24, 16, 12]
periodic = [true, false, true]
[physics]
velocity = 0.05
tau = 0.7
body_force = [1e-4, 1e-6, 0]
[run]
steps = 40
report_every = 20
[output]
vtk = false
[forces]
every = 3
[checkpoint]
every = 20
[[solid]]
name = "ball"
shape = "sphere"
center = [12.0, 8.0, 6.0]
radius = 3.3
forces = true
[[solid]]
name = "post"
shape = "cylinder"
start = [5.0, 5.0, -1.0]
end = [5.0, 5.0, 13.0]
radius = 2.0
forces = true
EOF

summary() { sed -n "/^forces      '/,\$p" "$1.log"; }  # the closing summary's lines
same_as_one() {  # same_as_one NAME WHAT [REFERENCE]
  local one=${3:-one}
  if cmp -s "$one/case_forces.csv" "$1/case_forces.csv"; then pass "$2: the forces file"; else
    fail "$2: $1/case_forces.csv differs from one rank's"
  fi
  if [[ -n $(summary "$one") && $(summary "$one") == "$(summary "$1")" ]]; then pass "$2: the summary"; else
    fail "$2: the summary differs (see $work/$1.log)"
  fi
}

run one 1 || fail "one rank (see $work/one.log)"
[[ $(wc -l <one/case_forces.csv) -eq 14 ]] && pass "one rank: 13 samples" || fail "one rank: $(wc -l <one/case_forces.csv) lines"
run x2 2 --set 'parallel.ranks=[2,1,1]' || fail "2 ranks along x (see $work/x2.log)"
same_as_one x2 "2 ranks along x"
run q4 4 --set 'parallel.ranks=[2,2,1]' || fail "4 ranks 2 x 2 x 1 (see $work/q4.log)"
same_as_one q4 "4 ranks 2 x 2 x 1"
# Out of core: the same bodies with half-way walls, against their own one-rank run.
mkdir halfway  # the same case name ("case"), so the same file names
sed 's/^forces = true$/forces = true\nwall = "halfway"/' case.toml >halfway/case.toml
case_file=halfway/case.toml run half 1 || fail "one rank, half-way walls (see $work/half.log)"
case_file=halfway/case.toml run ooc2 2 --set 'parallel.ranks=[1,1,2]' --set numerics.out_of_core=true \
  --set numerics.time_block=2 || fail "2 ranks out of core (see $work/ooc2.log)"
grep -q "out-of-core" ooc2.log && pass "the 2-rank run is out of core" || fail "ooc2 did not run out of core"
same_as_one ooc2 "2 ranks along z, out of core, half-way walls" half
cmp -s one/case_forces.csv half/case_forces.csv && fail "half-way and interpolated walls gave the same forces" ||
  pass "half-way walls give other forces than interpolated ones"
# 2 ranks write the checkpoint at step 20 and the file up to it; 1 rank continues both.
cp -r x2 again
run again 1 --restart again/checkpoints/case_checkpoint_00000020.toml || fail "restart on 1 rank (see $work/again.log)"
same_as_one again "2 ranks to step 20, restarted on 1 rank"
finish
