#!/usr/bin/env bash
# scripts/plot_forces.py on a forces file that eddy writes (CTest): the PNG exists and is a PNG (its 8-byte
# signature); a missing file, a malformed one and one without samples each end with exit code 2 and one line naming
# the file. Skipped (SKIPPED on stdout) where the Python interpreter has no matplotlib (Debian: python3-matplotlib).
# Usage: plot_forces.sh EDDY PLOT_SCRIPT PYTHON
eddy=$1 script=$2 python=${3:-python3}
# shellcheck source=tests/restart/script_support.sh
source "$(dirname "${BASH_SOURCE[0]}")/../restart/script_support.sh"

if ! "$python" -c "import matplotlib" 2>/dev/null; then
  echo "SKIPPED: $python has no matplotlib (Debian: apt-get install python3-matplotlib); the plot is not tested"
  exit 0
fi
cat >case.toml <<'TOML'
[domain]
size = [32, 16, 4]
periodic = [true, false, true]
[physics]
velocity = 0.05
tau = 0.8
body_force = [1e-4, 0, 0]
[run]
steps = 60
[output]
vtk = false
[forces]
every = 2
[[solid]]
name = "ball"
shape = "sphere"
center = [8, 8, 2]
radius = 3
forces = true
[[solid]]
name = "brick"
shape = "box"
min = [18, 4, 0]
max = [22, 9, 4]
forces = true
TOML
"$eddy" run case.toml --output out >eddy.log 2>&1 || fail "eddy run (see $work/eddy.log)"
"$python" "$script" out/case_forces.csv -o plot.png >plot.log 2>&1 || fail "plot_forces.py: $(cat plot.log)"
if [[ -s plot.png && $(head -c 8 plot.png | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]; then
  pass "plot.png is a PNG ($(wc -c <plot.png) bytes)"
else
  fail "plot.png is missing or not a PNG"
fi
"$python" "$script" out/case_forces.csv >/dev/null 2>&1 && [[ -s out/case_forces.png ]] &&
  pass "default output name <case>_forces.png" || fail "no out/case_forces.png by default"

# expect_error NAME FRAGMENT CSV: exit code 2 and one line on stderr containing FRAGMENT.
expect_error() {
  "$python" "$script" "$3" -o bad.png >bad.out 2>bad.err
  local code=$?
  if [[ $code -eq 2 && $(wc -l <bad.err) -eq 1 ]] && grep -qF "$2" bad.err; then
    pass "$1: exit 2, $(cat bad.err)"
  else
    fail "$1: exit $code, stderr: $(cat bad.err)"
  fi
}
expect_error "missing file" "missing.csv: no such file" missing.csv
printf 'step,time,ball_CD,ball_CL\n2,2,1.5,oops\n' >malformed.csv
expect_error "a cell that is not a number" "line 2, column 'ball_CL': 'oops' is not a number" malformed.csv
printf 'x,y\n1,2\n' >other.csv
expect_error "another CSV" "not an eddy forces file" other.csv
head -1 out/case_forces.csv >header_only.csv
expect_error "no samples yet" "no samples" header_only.csv
head -3 out/case_forces.csv >ragged.csv
printf '4,4,1\n' >>ragged.csv
expect_error "a short row" "line 4 has 3 cells" ragged.csv
finish
