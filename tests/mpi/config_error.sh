#!/usr/bin/env bash
# Under mpiexec with 2 ranks, a bad case file and a rank count that does not fit the grid must each end every rank
# with exit code 2 and exactly one "eddy: error:" line on stderr (no MPI_Abort banner, no hang).
# Usage: config_error.sh EDDY MPIEXEC NUMPROC_FLAG "EXTRA_FLAGS"
set -u
eddy=$1 mpiexec=$2 np_flag=$3 extra=${4:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0

expect_one_error() {  # name, then the eddy arguments
  local name=$1
  shift
  # shellcheck disable=SC2086
  timeout 120 "$mpiexec" $np_flag 2 $extra "$eddy" "$@" >"$dir/out" 2>"$dir/err"
  local code=$?
  local lines
  lines=$(grep -c "eddy: error:" "$dir/err")
  if [[ $code -ne 2 || $lines -ne 1 ]]; then
    echo "FAIL $name: exit $code (want 2), $lines error lines (want 1); stderr:"
    cat "$dir/err"
    status=1
  else
    echo "ok   $name: exit 2, one message: $(grep "eddy: error:" "$dir/err")"
  fi
}

printf '[domain]\nsize = [8, 8, 1]\n[physics]\ntau = 0.4\n[run]\nsteps = 10\n' >"$dir/bad_tau.toml"
expect_one_error "tau <= 0.5" run "$dir/bad_tau.toml"
printf '[domain]\nsize = [8, 8, 1]\n[physics]\ntau = 0.8\n[run]\nsteps = 10\n[parallel]\nranks = [1, 1, 1]\n' >"$dir/ranks.toml"
expect_one_error "parallel.ranks product != 2" run "$dir/ranks.toml"
expect_one_error "missing case file" run "$dir/does_not_exist.toml"
exit $status
