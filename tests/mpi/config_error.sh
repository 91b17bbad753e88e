#!/usr/bin/env bash
# Under mpiexec with 2 ranks, a bad case file (exit code 2), a rank count that does not fit the grid (7; also a
# particle contact cutoff larger than a block) and a missing case file (8) must each end every rank with its exit code and exactly one "eddy: error:" line on stderr (no
# MPI_Abort banner, no hang).
# Usage: config_error.sh EDDY MPIEXEC NUMPROC_FLAG "EXTRA_FLAGS"
set -u
eddy=$1 mpiexec=$2 np_flag=$3 extra=${4:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0

expect_one_error() {  # name, expected exit code, then the eddy arguments
  local name=$1 want=$2
  shift 2
  # shellcheck disable=SC2086
  timeout 120 "$mpiexec" $np_flag 2 $extra "$eddy" "$@" >"$dir/out" 2>"$dir/err"
  local code=$?
  local lines
  lines=$(grep -c "eddy: error:" "$dir/err")
  if [[ $code -ne $want || $lines -ne 1 ]]; then
    echo "FAIL $name: exit $code (want $want), $lines error lines (want 1); stderr:"
    cat "$dir/err"
    status=1
  else
    echo "ok   $name: exit $code, one message: $(grep "eddy: error:" "$dir/err")"
  fi
}

printf '[domain]\nsize = [8, 8, 1]\n[physics]\ntau = 0.4\n[run]\nsteps = 10\n' >"$dir/bad_tau.toml"
expect_one_error "tau <= 0.5" 2 run "$dir/bad_tau.toml"
printf '[domain]\nsize = [8, 8, 1]\n[physics]\ntau = 0.8\n[run]\nsteps = 10\n[parallel]\nranks = [1, 1, 1]\n' >"$dir/ranks.toml"
expect_one_error "parallel.ranks product != 2" 7 run "$dir/ranks.toml"
expect_one_error "missing case file" 8 run "$dir/does_not_exist.toml"
# Contacts reach one diameter into the neighbouring block only: 2 ranks split the 8 z-planes into blocks of 4,
# thinner than the diameter of 5 (exit 7, naming the cutoff and the rank count).
printf '[domain]\nsize = [8, 8, 8]\n[physics]\ntau = 0.8\n[run]\nsteps = 2\n[output]\nvtk = false\ncenterlines = false\n[particles]\nkind = "inertial"\ncount = 4\ndiameter = 5.0\ndensity = 2.0\ncontacts = true\ncontact_stiffness = 0.01\n' >"$dir/contacts.toml"
expect_one_error "contact cutoff larger than a block" 7 run "$dir/contacts.toml"
grep -q "particles.diameter = 5 cells, the contact cutoff, is larger than the thinnest block along z: 4 cells" "$dir/err" &&
  grep -q "over 2 ranks along z, 2 MPI ranks in all" "$dir/err" || { echo "FAIL: the message does not name the cutoff, block and ranks"; status=1; }
# Each rank in its own working directory with its own copy of the case (the node-local mistake), the copies
# differing in run.steps: this hung (one rank in MPI_Finalize, the other in the halo exchange); a different Re ran
# to exit 0 with pieces that disagree. Now one message from rank 0, exit 2.
for r in 0 1; do
  mkdir -p "$dir/rank$r"
  printf '[domain]\nsize = [8, 8, 1]\n[physics]\ntau = 0.8\n[run]\nsteps = %d\n[output]\nvtk = false\ncenterlines = false\n' \
    $((10 + 10 * r)) >"$dir/rank$r/case.toml"
done
printf '#!/usr/bin/env bash\ncd "%s/rank${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" && exec "%s" run case.toml\n' \
  "$dir" "$eddy" >"$dir/per_rank.sh"
chmod +x "$dir/per_rank.sh"
eddy="$dir/per_rank.sh" expect_one_error "ranks with different case files" 2
grep -q "rank 1 of 2 read a different case" "$dir/err" || { echo "FAIL: the message does not name rank 1"; status=1; }
exit $status
