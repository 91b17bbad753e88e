#!/usr/bin/env bash
# Probes ([[output.probe]], solver/probes.hpp) under mpiexec (CTest, label mpi): a channel with a sphere, probe points
# on and next to the rank boundaries (their interpolation nodes on two or four ranks), next to the sphere and the
# walls, through the eddy command line on 1 rank, on 2 (split along x) and on 4 (2 x 2 x 1): every
# <case>_probe_<name>.csv must be byte for byte that of the one-rank run; a 2-rank run restarted on 1 rank from its
# checkpoint continues the files bitwise; out of core is refused with exit status 2 naming the reason.
# Usage: probes_ranks.sh EDDY MPIEXEC NUMPROC_FLAG "EXTRA_FLAGS"
set -u
eddy=$1 mpiexec=$2 np_flag=$3 extra=${4:-}
# shellcheck source=tests/mpi/rank_runs.sh
source "$(dirname "${BASH_SOURCE[0]}")/rank_runs.sh"
# shellcheck source=tests/restart/script_support.sh
source "$(dirname "${BASH_SOURCE[0]}")/../restart/script_support.sh"

cat >case.toml <<'EOF2'
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
[checkpoint]
every = 20
[[solid]]
name = "ball"
shape = "sphere"
center = [12.0, 8.0, 6.0]
radius = 3.3
[[output.probe]]
name = "cut"
points = [[12.0, 8.0, 1.3], [12.0, 8.0, 2.6], [12.0, 12.0, 6.0], [0.2, 0.3, 11.9], [24.0, 16.0, 0.0], [5.5, 8.0, 6.0]]
[[output.probe]]
name = "wake"
points = [[17.25, 8.0, 6.0], [20.0, 3.0, 9.0]]
every = 3
fields = ["velocity"]
EOF2

same_as_one() {  # same_as_one NAME WHAT
  for probe in cut wake; do
    if cmp -s "one/case_probe_$probe.csv" "$1/case_probe_$probe.csv"; then pass "$2: probe $probe"; else
      fail "$2: $1/case_probe_$probe.csv differs from one rank's"
    fi
  done
}

run one 1 || fail "one rank (see $work/one.log)"
# 2 comment lines + 6 points, the header, 40 rows (every step); 2 + 2 points, the header, 13 rows (every 3 steps).
[[ $(wc -l <one/case_probe_cut.csv) -eq 49 ]] && pass "one rank: 40 samples of 'cut'" ||
  fail "one rank: $(wc -l <one/case_probe_cut.csv) lines in case_probe_cut.csv"
[[ $(wc -l <one/case_probe_wake.csv) -eq 18 ]] && pass "one rank: 13 samples of 'wake'" ||
  fail "one rank: $(wc -l <one/case_probe_wake.csv) lines in case_probe_wake.csv"
run x2 2 --set 'parallel.ranks=[2,1,1]' || fail "2 ranks along x (see $work/x2.log)"
same_as_one x2 "2 ranks along x"
run q4 4 --set 'parallel.ranks=[2,2,1]' || fail "4 ranks 2 x 2 x 1 (see $work/q4.log)"
same_as_one q4 "4 ranks 2 x 2 x 1"
# 2 ranks write the checkpoint at step 20 and the files up to it; 1 rank continues them.
mkdir again
run again 2 --set 'parallel.ranks=[2,1,1]' --set run.steps=20 || fail "2 ranks to step 20 (see $work/again.log)"
run again 1 --restart again/checkpoints/case_checkpoint_00000020.toml || fail "restart on 1 rank (see $work/again.log)"
grep -q "continued: 20 earlier probe samples" again.log && pass "the restart continues the file" ||
  fail "the restart does not say it continues the probe file"
same_as_one again "2 ranks to step 20, restarted on 1 rank"
# Out of core (half-way walls: interpolated ones run in core only): refused with exit status 2, naming the probes
# and the reason.
mkdir halfway
sed 's/^radius = 3.3$/radius = 3.3\nwall = "halfway"/' case.toml >halfway/case.toml
case_file=halfway/case.toml run ooc 2 --set 'parallel.ranks=[1,1,2]' --set numerics.out_of_core=true
status=$?
((status == 2)) && grep -q "output.probe.*in core only" ooc.log && pass "out of core refused (exit 2)" ||
  fail "out of core: exit status $status, $(head -c 300 ooc.log)"
finish
