# Sourced by the mpi shell tests after script_support.sh, with eddy, mpiexec, np_flag and extra set (the scripts'
# arguments): run NAME RANKS ARGS... runs `eddy run` on ${case_file:-case.toml} into NAME on RANKS ranks (1: no
# mpiexec; more: under mpiexec, killed after 300 s), stdout and stderr in NAME.log; returns eddy's exit status.
run() {
  local name=$1 ranks=$2
  shift 2
  if ((ranks == 1)); then
    "$eddy" run "${case_file:-case.toml}" --output "$name" "$@" >"$name.log" 2>&1
  else
    # shellcheck disable=SC2086
    timeout 300 "$mpiexec" $np_flag "$ranks" $extra "$eddy" run "${case_file:-case.toml}" --output "$name" "$@" \
      >"$name.log" 2>&1
  fi
}
