# Shared by the command-line test scripts (restart.sh, stop_signals.sh); source it. Makes a scratch directory and
# changes into it (removed at exit unless finish() keeps it after a failure), one OpenMP thread per run, and
# pass/fail counters; finish ends the script with the count of failed checks.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export OMP_NUM_THREADS=1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
finish() {
  if ((failures > 0)); then
    echo "$failures check(s) failed; work directory kept: $work"
    trap - EXIT
    exit 1
  fi
}
