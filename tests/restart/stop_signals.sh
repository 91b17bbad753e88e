#!/usr/bin/env bash
# Stop signals through the eddy command line (CTest):
#   - SIGUSR1 (Slurm's --signal=USR1) and SIGHUP stop a run like SIGTERM: exit 0, a checkpoint, the resume line,
#     and an announcement at once (they used to kill the run with no checkpoint);
#   - a stop acts within about a second of work: steps of ~0.1 s (128^3 on one thread) used to run on for up to
#     100 steps before the check, about 10 s;
#   - a second signal during the stop changes nothing;
#   - when the stop falls on an output step, that step's snapshot is written (output.every = 1: every step is one);
#   - a run that is unstable when the signal comes exits 3 and writes no checkpoint (out of core, where the fused
#     kernel's stability watch does not run, so only the stop's own check can find it).
# Usage: stop_signals.sh EDDY CASES_DIR
eddy=$1 cases=$2
# shellcheck source=tests/restart/script_support.sh
source "$(dirname "${BASH_SOURCE[0]}")/script_support.sh"
L=$cases/lid_driven_cavity_2d.toml
quiet=(--set output.vtk=false --set output.centerlines=false --set run.steps=100000000 --set run.report_every=100000000)

# stop NAME SIGNAL DELAY ARGS...: starts eddy run into NAME, sends SIGNAL after DELAY seconds, waits; sets rc and
# `seconds`, the time from the signal to the exit.
stop() {
  local name=$1 signal=$2 delay=$3
  shift 3
  "$eddy" run "$@" --output "$name" >"$name.log" 2>&1 &
  local pid=$!
  sleep "$delay"
  local t0
  t0=$(date +%s.%N)
  kill -"$signal" "$pid"
  wait "$pid"
  rc=$?
  seconds=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { print a - b }')
}
stopped() {  # stopped NAME SIGNAL: exit 0, the announcement, the resume line and its checkpoint
  local manifest
  manifest=$(grep -o -- '--restart [^ ]*' "$1.log" | cut -d' ' -f2)
  [[ $rc == 0 && -n $manifest && -f $manifest ]] && grep -q "^eddy: $2 received: stopping" "$1.log" &&
    grep -q "^stopped by $2 at step" "$1.log"
}

for signal in USR1 HUP; do
  stop "s$signal" "$signal" 1 "$L" "${quiet[@]}"
  if stopped "s$signal" "SIG$signal"; then pass "SIG$signal stops the run with a checkpoint"; else
    fail "SIG$signal: exit $rc, log: $(tail -3 "s$signal.log")"; fi
done

# 128^3 float on one thread: about 0.1 s a step here. The checkpoint (160 MB) takes its own time: subtract it.
"$eddy" run "$cases/lid_driven_cavity_3d.toml" "${quiet[@]}" --set 'domain.size=[128,128,128]' --output slow \
  >slow.log 2>&1 &
pid=$!
sleep 3
t0=$(date +%s.%N)
kill -TERM "$pid"
sleep 0.2
kill -TERM "$pid"  # a second signal during the stop
wait "$pid"
rc=$?
seconds=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { print a - b }')
writing=$(sed -n 's/.*wrote checkpoint .* in \([0-9.e+-]*\) s.*/\1/p' slow.log)
if stopped slow SIGTERM && [[ -n $writing ]]; then
  latency=$(awk -v a="$seconds" -v b="$writing" 'BEGIN { print a - b }')
  if awk -v x="$latency" 'BEGIN { exit !(x < 3) }'; then pass "SIGTERM acted in $latency s (+ $writing s of checkpoint)"; else
    fail "SIGTERM took $latency s besides the checkpoint's $writing s (steps of ~0.1 s; at most a second wanted)"
  fi
else
  fail "SIGTERM twice on the 128^3 run: exit $rc, log: $(tail -3 slow.log)"
fi

# Every step an output step: the stop step's snapshot must be there.
if [[ ${EDDY_TEST_VTK:-1} == 1 ]]; then
  stop every TERM 2 "$L" "${quiet[@]}" --set output.vtk=true --set output.every=1 --set 'domain.size=[16,16,1]'
  step=$(sed -n 's/^stopped by SIGTERM at step \([0-9]*\) .*/\1/p' every.log)
  if [[ $rc == 0 && -n $step && -f every/lid_driven_cavity_2d_$(printf %08d "$step").vti ]]; then
    pass "the snapshot of the stop step ($step) is written"
  else
    fail "no snapshot of the stop step '$step' (exit $rc): $(ls every | tail -3)"
  fi
fi

# U = 0.1, nu = 0.001 on 128^2 (tau = 0.503): NaN by about step 500, long before the signal; out of core.
sed 's/^reynolds = .*/viscosity = 0.001/' "$L" >blow_up.toml
stop nan TERM 8 blow_up.toml "${quiet[@]}" --set numerics.min_tau=0.502 --set numerics.out_of_core=true \
  --set checkpoint.every=100000000
if [[ $rc == 3 ]] && grep -q "became unstable" nan.log && [[ -z $(ls nan/checkpoints 2>/dev/null) ]]; then
  pass "SIGTERM on an unstable run: exit 3, no checkpoint"
else
  fail "SIGTERM on an unstable run: exit $rc (3 wanted), checkpoints: $(ls nan/checkpoints 2>/dev/null)"
fi

finish
echo "all stop-signal checks passed"
