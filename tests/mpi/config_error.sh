#!/usr/bin/env bash
# Under mpiexec with 2 ranks, a bad case file (exit code 2), a rank count that does not fit the grid (7) and a missing
# case file (8) must each end every rank with its exit code and exactly one "eddy: error:" line on stderr (no
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
exit $status
