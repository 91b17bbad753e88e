#!/usr/bin/env bash
# Checkpoint and restart through the eddy command line (CTest):
#   serial: a restart continues bit for bit (checkpoints after an odd and an even step count; float with a
#           temperature field, fp16); SIGTERM mid-run writes a checkpoint that restarts bit for bit; a flipped byte,
#           a truncated data file, a missing manifest and a checkpoint of another case exit with code 6, a step
#           beyond run.steps with code 2, and the earlier checkpoints stay intact.
#           Particles (two-way coupled) restart bit for bit too, and so do a sphere with interpolated walls (the
#           checkpoint holds the state after the walls' pass), after an odd and an even step count, and open
#           boundaries (channel_2d.toml, with the pressure outlet and with a convective outflow). Out of core with a
#           temperature field (Rayleigh-Benard, shrunk): the checkpoint equals the in-core run's, and a restart out of
#           core after an odd step count continues bit for bit.
#   mpi:    2 ranks write, 1 rank restarts, and 1 rank writes, 2 ranks restart: bit for bit (with particles, whose
#           records the ranks store in their own order, the manifests' order-independent checksums are compared;
#           with a sphere of interpolated walls cut by the rank boundary; the open-boundary channel 2 -> 1, 1 -> 2);
#           3 ranks along x write the same data file as 1 rank (three runs); out of core with T on 2 ranks along z
#           writes the 1-rank in-core state, which 1 rank in core continues.
# "Bit for bit" compares the final checkpoint's data file of the restarted run with an uninterrupted run's.
# Usage: restart.sh EDDY CASES_DIR serial|mpi [MPIEXEC NP_FLAG "MPI FLAGS"]
eddy=$1 cases=$2 mode=$3 mpiexec=${4:-} np_flag=${5:-} mpi_flags=${6:-}
# shellcheck source=tests/restart/script_support.sh
source "$(dirname "${BASH_SOURCE[0]}")/script_support.sh"

heated=(--set 'domain.size=[24,24,1]' --set output.vtk=false --set checkpoint.every=25)
# The open-boundary channel: a ramped parabolic inlet, and the pressure outlet or a convective outflow (whose history,
# the value it gave one step before, is part of the state).
chan=(--set 'domain.size=[32,16,1]' --set output.vtk=false --set checkpoint.every=25 --set boundary.x_min.ramp_time=20)
convective=(--set 'boundary.x_max={type="outflow", scheme="convective"}')
parts=(--set output.vtk=false --set checkpoint.every=25 --set particles.two_way=true)
fp16=(--set 'domain.size=[32,32,1]' --set output.vtk=false --set output.centerlines=false
      --set 'numerics.storage="fp16"' --set checkpoint.every=25)
# A sphere off the lattice with interpolated walls (the default) in a smaller sphere channel, cut by x = 12.
sphere=(--set 'domain.size=[24,16,12]' --set output.vtk=false --set checkpoint.every=25 --set forces.every=5
        --set 'solid=[{name="ball", shape="sphere", center=[10.3, 7.6, 6.2], radius=3.7, forces=true}]')

# Rayleigh-Benard out of core: 3 slabs, 2 steps per visit (the checkpoints at 25 and 60 end partial sweeps).
rb=(--set 'domain.size=[8,8,12]' --set physics.length=12 --set output.vtk=false --set checkpoint.every=25)
ooc=(--set numerics.out_of_core=true --set numerics.time_block=2 --set numerics.slabs=3
     --set 'numerics.device_memory_limit="64 MiB"')

# run NAME STEPS CASE ARGS...: eddy run into directory NAME, log in NAME.log; returns eddy's exit code.
run() {
  local name=$1 steps=$2 case=$3
  shift 3
  "$eddy" run "$case" --set run.steps="$steps" --output "$name" "$@" >"$name.log" 2>&1
}
same_checksum() {  # same_checksum MANIFEST_A MANIFEST_B WHAT: particle records may be stored in another order
  local a b
  a=$(grep '^checksum' "$1" 2>/dev/null) b=$(grep '^checksum' "$2" 2>/dev/null)
  if [[ -n $a && $a == "$b" ]] && cmp -s <(grep -v '^#\|^ranks\|^data_file\|^checksum' "$1") \
    <(grep -v '^#\|^ranks\|^data_file\|^checksum' "$2"); then pass "$3"; else fail "$3: $1 and $2 differ"; fi
}
same() {  # same A B WHAT
  if cmp -s "$1" "$2"; then pass "$3"; else fail "$3: $1 and $2 differ"; fi
}
ckpt() { echo "$1/checkpoints/$2_checkpoint_$(printf %08d "$3")"; }

if [[ $mode == serial ]]; then
  H=$cases/heated_cavity_2d.toml L=$cases/lid_driven_cavity_2d.toml
  run full 60 "$H" "${heated[@]}" || fail "uninterrupted run (see $work/full.log)"
  run first 25 "$H" "${heated[@]}" || fail "first 25 steps"
  run rest 60 "$H" "${heated[@]}" --restart "$(ckpt first heated_cavity_2d 25).toml" || fail "restart after 25 steps"
  same "$(ckpt full heated_cavity_2d 60).data" "$(ckpt rest heated_cavity_2d 60).data" \
    "float + temperature: restart after an odd step count equals the uninterrupted run"
  run rest50 60 "$H" "${heated[@]}" --restart "$(ckpt full heated_cavity_2d 50).toml" || fail "restart after 50"
  same "$(ckpt full heated_cavity_2d 60).data" "$(ckpt rest50 heated_cavity_2d 60).data" \
    "float + temperature: restart after an even step count equals the uninterrupted run"
  [[ ! -e $(ckpt full heated_cavity_2d 25).toml && -e $(ckpt full heated_cavity_2d 50).toml ]] &&
    pass "the newest two checkpoints are kept" || fail "checkpoint 25 should be removed, 50 kept"

  R=$cases/rayleigh_benard_3d.toml
  run rbin 60 "$R" "${rb[@]}" || fail "Rayleigh-Benard in core (see $work/rbin.log)"
  run rbfull 60 "$R" "${rb[@]}" "${ooc[@]}" || fail "Rayleigh-Benard out of core (see $work/rbfull.log)"
  grep -q "out-of-core" rbfull.log || fail "Rayleigh-Benard: the run did not say it ran out of core"
  same "$(ckpt rbin rayleigh_benard_3d 60).data" "$(ckpt rbfull rayleigh_benard_3d 60).data" \
    "out of core + temperature: the checkpoint equals the in-core run's"
  run rbfirst 25 "$R" "${rb[@]}" "${ooc[@]}" || fail "Rayleigh-Benard out of core, first 25"
  run rbrest 60 "$R" "${rb[@]}" "${ooc[@]}" --restart "$(ckpt rbfirst rayleigh_benard_3d 25).toml" ||
    fail "Rayleigh-Benard out of core, restart"
  same "$(ckpt rbfull rayleigh_benard_3d 60).data" "$(ckpt rbrest rayleigh_benard_3d 60).data" \
    "out of core + temperature: restart after an odd step count equals the uninterrupted run"

  run lfull 60 "$L" "${fp16[@]}" || fail "fp16 uninterrupted"
  run lfirst 25 "$L" "${fp16[@]}" || fail "fp16 first 25"
  run lrest 60 "$L" "${fp16[@]}" --restart "$(ckpt lfirst lid_driven_cavity_2d 25).toml" || fail "fp16 restart"
  same "$(ckpt lfull lid_driven_cavity_2d 60).data" "$(ckpt lrest lid_driven_cavity_2d 60).data" \
    "fp16: restart equals the uninterrupted run"

  # Particles (inertial, two-way coupled: their force on the fluid is part of the state).
  P=$cases/particles_cavity_2d.toml
  run pfull 60 "$P" "${parts[@]}" || fail "particles uninterrupted (see $work/pfull.log)"
  run pfirst 25 "$P" "${parts[@]}" || fail "particles first 25"
  run prest 60 "$P" "${parts[@]}" --restart "$(ckpt pfirst particles_cavity_2d 25).toml" || fail "particles restart"
  same "$(ckpt pfull particles_cavity_2d 60).data" "$(ckpt prest particles_cavity_2d 60).data" \
    "particles, two-way: restart equals the uninterrupted run"

  # Open boundaries: restarts after an odd and an even step count continue bit for bit, the convective outflow's
  # history included (float and fp16).
  C=$cases/channel_2d.toml
  for variant in pressure convective; do
    extra=()
    [[ $variant == convective ]] && extra=("${convective[@]}" --set 'numerics.storage="fp16"')
    run "c${variant}full" 60 "$C" "${chan[@]}" "${extra[@]}" || fail "channel ($variant) uninterrupted"
    run "c${variant}first" 25 "$C" "${chan[@]}" "${extra[@]}" || fail "channel ($variant) first 25"
    for at in 25 50; do
      from=$([[ $at == 25 ]] && echo "c${variant}first" || echo "c${variant}full")
      run "c${variant}rest$at" 60 "$C" "${chan[@]}" "${extra[@]}" --restart "$(ckpt "$from" channel_2d "$at").toml" ||
        fail "channel ($variant) restart at $at"
      same "$(ckpt "c${variant}full" channel_2d 60).data" "$(ckpt "c${variant}rest$at" channel_2d 60).data" \
        "open boundaries ($variant outlet): restart after step $at equals the uninterrupted run"
    done
  done
  # Interpolated walls: the state after the walls' pass is all a restart needs.
  S=$cases/sphere_channel.toml
  run sfull 60 "$S" "${sphere[@]}" || fail "sphere uninterrupted (see $work/sfull.log)"
  run sfirst 25 "$S" "${sphere[@]}" || fail "sphere first 25"
  run srest 60 "$S" "${sphere[@]}" --restart "$(ckpt sfirst sphere_channel 25).toml" || fail "sphere restart at 25"
  same "$(ckpt sfull sphere_channel 60).data" "$(ckpt srest sphere_channel 60).data" \
    "interpolated walls: restart after an odd step count equals the uninterrupted run"
  run srest50 60 "$S" "${sphere[@]}" --restart "$(ckpt sfull sphere_channel 50).toml" || fail "sphere restart at 50"
  same "$(ckpt sfull sphere_channel 60).data" "$(ckpt srest50 sphere_channel 60).data" \
    "interpolated walls: restart after an even step count equals the uninterrupted run"
  # The forces sampled after the restart (steps 55 and 60: the walls' pass has kept its f_out again) are the same.
  same <(tail -2 sfull/sphere_channel_forces.csv) <(tail -2 srest50/sphere_channel_forces.csv) \
    "interpolated walls: the restarted run's forces at steps 55 and 60 equal the uninterrupted run's"

  # Snapshots across a restart into the same output directory: the .pvd lists the earlier run's snapshots up to
  # the checkpoint and the new ones; a restart from an earlier checkpoint drops the entries after it.
  if [[ ${EDDY_TEST_VTK:-1} == 1 ]]; then
    vtk=(--set 'domain.size=[16,16,1]' --set output.every=10 --set output.centerlines=false --set checkpoint.every=25)
    listed() { grep -o 'file="[^"]*"' "$1" | sed 's/file="\(.*\)"/\1/'; }
    run vfull 60 "$L" "${vtk[@]}" || fail "snapshots: uninterrupted run"
    run vrun 25 "$L" "${vtk[@]}" || fail "snapshots: first 25 steps"
    run vrun 60 "$L" "${vtk[@]}" --restart "$(ckpt vrun lid_driven_cavity_2d 25).toml" || fail "snapshots: restart"
    pvd=vrun/lid_driven_cavity_2d.pvd
    missing=$(comm -23 <(listed vfull/lid_driven_cavity_2d.pvd | sort) <(listed "$pvd" | sort))
    absent=$(listed "$pvd" | while read -r f; do [[ -f vrun/$f ]] || echo "$f"; done)
    if [[ -z $missing && -z $absent && $(listed "$pvd" | wc -l) == $(($(listed vfull/lid_driven_cavity_2d.pvd | wc -l) + 1)) ]] &&
      grep -q "continued: 4 earlier snapshots" vrun.log; then
      pass "the .pvd of a restarted run lists the earlier snapshots and the new ones"
    else
      fail "restarted .pvd: not listed '${missing}', listed but absent '${absent}': $(listed "$pvd" | tr '\n' ' ')"
    fi
    run vrun 55 "$L" "${vtk[@]}" --restart "$(ckpt vrun lid_driven_cavity_2d 50).toml" || fail "snapshots: restart at 50"
    if grep -q '_00000050.vti' "$pvd" && grep -q '_00000055.vti' "$pvd" && ! grep -q '_00000060.vti' "$pvd"; then
      pass "a restart from an earlier checkpoint drops the later entries"
    else
      fail "restart at 50: $(listed "$pvd" | tr '\n' ' ')"
    fi
    # A changed time scale (physics.length): the earlier entries are re-timed by their steps, none listed twice.
    run vrun 60 "$L" "${vtk[@]}" --set physics.length=8 --restart "$(ckpt vrun lid_driven_cavity_2d 50).toml" ||
      fail "snapshots: restart with another length"
    times=$(grep -o 'timestep="[^"]*"' "$pvd" | sed 's/timestep="\(.*\)"/\1/')
    if [[ $(listed "$pvd" | sort | uniq -d) == "" && $(listed "$pvd" | wc -l) == 8 ]] && ! grep -q '_00000055' "$pvd" &&
      [[ $times == "$(sort -g <<<"$times")" ]] && grep -q "listed at new times" vrun.log; then
      pass "a restart with a changed time scale re-times the earlier snapshots"
    else
      fail "changed time scale: $(listed "$pvd" | tr '\n' ' ') / $(tr '\n' ' ' <<<"$times")"
    fi
  fi

  # Hostile checkpoints: exit code 6 and a message; the files given stay as they were.
  expect() {  # expect CODE PATTERN WHAT ARGS...
    local code=$1 pattern=$2 what=$3
    shift 3
    run bad 60 "$@"
    local rc=$?
    if [[ $rc == "$code" ]] && grep -q -- "$pattern" bad.log; then pass "$what: exit $rc"; else
      fail "$what: exit $rc, expected $code and '$pattern': $(tail -1 bad.log)"; fi
  }
  cp -r full/checkpoints flipped && cp -r full/checkpoints cut && cp -r full/checkpoints intact
  base=heated_cavity_2d_checkpoint_00000050
  printf '\x7f' | dd of="flipped/$base.data" bs=1 seek=4000 conv=notrunc status=none
  truncate -s -100 "cut/$base.data"
  expect 6 "corrupted" "flipped byte detected by the checksum" "$H" "${heated[@]}" --restart "flipped/$base.toml"
  expect 6 "truncated" "truncated data file" "$H" "${heated[@]}" --restart "cut/$base.toml"
  expect 6 "not found" "missing manifest" "$H" "${heated[@]}" --restart "nowhere/$base.toml"
  cp -r full/checkpoints edited && sed -i 's/^step = 50$/step = 40/' "edited/$base.toml"
  expect 6 "corrupted" "an edited manifest (step) fails the checksum" "$H" "${heated[@]}" --restart "edited/$base.toml"
  cp -r full/checkpoints huge && sed -i 's/^data_bytes = .*/&\nrecords = 2305843009213693952\nrecord_bytes = 8/' \
    "huge/$base.toml"
  expect 6 "out of range" "a record count that overflows the size check" "$H" "${heated[@]}" \
    --restart "huge/$base.toml"
  expect 6 "does not fit" "checkpoint of another case" "$L" "${fp16[@]}" --restart "full/checkpoints/$base.toml"
  expect 2 "beyond run.steps" "checkpoint past run.steps" "$H" "${heated[@]}" --set run.steps=40 \
    --restart "full/checkpoints/$base.toml"
  same "full/checkpoints/$base.data" "intact/$base.data" "a checkpoint read by refused restarts stays intact"

  # SIGTERM: the run stops with a checkpoint and exit 0; restarting it gives the uninterrupted result.
  "$eddy" run "$H" "${heated[@]}" --set checkpoint.every=0 --set run.steps=100000000 --output sig >sig.log 2>&1 &
  pid=$!
  sleep 3
  kill -TERM "$pid"
  wait "$pid"
  rc=$?
  manifest=$(grep -o -- '--restart [^ ]*' sig.log | cut -d' ' -f2)
  if [[ $rc == 0 && -n $manifest && -f $manifest ]]; then
    pass "SIGTERM: exit 0, checkpoint $manifest"
    step=$(sed -n 's/^step = //p' "$manifest")
    target=$((step + 30))
    run sigrest "$target" "$H" "${heated[@]}" --set checkpoint.every=0 --restart "$manifest" ||
      fail "restart after SIGTERM"
    run sigfull "$target" "$H" "${heated[@]}" --set checkpoint.every="$target" || fail "uninterrupted $target"
    # With checkpoint.every = 0 the restarted run writes no checkpoint of its own: compare the final fields of a
    # run that writes one at the end.
    run sigrest2 "$target" "$H" "${heated[@]}" --set checkpoint.every="$target" --restart "$manifest" ||
      fail "restart after SIGTERM (with a final checkpoint)"
    same "$(ckpt sigfull heated_cavity_2d "$target").data" "$(ckpt sigrest2 heated_cavity_2d "$target").data" \
      "SIGTERM at step $step, restarted to $target: equals the uninterrupted run"
  else
    fail "SIGTERM: exit $rc, log: $(tail -3 sig.log)"
  fi
else
  H=$cases/heated_cavity_2d.toml
  # shellcheck disable=SC2086
  mpirun() { "$mpiexec" "$np_flag" "$1" $mpi_flags "${@:2}"; }
  # two_to_one PREFIX CASE NAME COMPARE SUFFIX WHAT ARGS...: 1 rank and 2 ranks along x write the same checkpoint
  # at step 60 (COMPARE on the .SUFFIX files), and 1 rank restarting the 2 ranks' checkpoint at 50 ends the same.
  two_to_one() {
    local p=$1 case=$2 name=$3 compare=$4 suffix=$5 what=$6
    shift 6
    run "${p}full" 60 "$case" "$@" || fail "${what}1 rank, uninterrupted"
    mpirun 2 "$eddy" run "$case" --set run.steps=60 "$@" --set 'parallel.ranks=[2,1,1]' --output "${p}two" \
      >"${p}two.log" 2>&1 || fail "${what}2 ranks (see $work/${p}two.log)"
    "$compare" "$(ckpt "${p}full" "$name" 60).$suffix" "$(ckpt "${p}two" "$name" 60).$suffix" \
      "${what}2 ranks write the same state as 1"
    run "${p}one" 60 "$case" "$@" --restart "$(ckpt "${p}two" "$name" 50).toml" || fail "${what}2 -> 1 restart"
    "$compare" "$(ckpt "${p}full" "$name" 60).$suffix" "$(ckpt "${p}one" "$name" 60).$suffix" \
      "${what}2 ranks -> 1 rank restart"
  }
  two_to_one "" "$H" heated_cavity_2d same data "" "${heated[@]}"
  mpirun 2 "$eddy" run "$H" --set run.steps=60 "${heated[@]}" --set 'parallel.ranks=[1,2,1]' --output back \
    --restart "$(ckpt full heated_cavity_2d 50).toml" >back.log 2>&1 || fail "1 -> 2 restart (see $work/back.log)"
  same "$(ckpt full heated_cavity_2d 60).data" "$(ckpt back heated_cavity_2d 60).data" "1 rank -> 2 ranks restart"
  # 3 ranks along x: Open MPI 4.1's collective writes (MPI_File_write_all) lost data here in most runs.
  three=(--set 'domain.size=[22,14,2]' --set 'domain.periodic=[false,false,true]' --set checkpoint.every=50
         --set output.vtk=false --set output.centerlines=false)
  L=$cases/lid_driven_cavity_2d.toml
  run tfull 100 "$L" "${three[@]}" || fail "22 x 14 x 2, 1 rank"
  for attempt in 1 2 3; do
    mpirun 3 "$eddy" run "$L" --set run.steps=100 "${three[@]}" --set 'parallel.ranks=[3,1,1]' --output "three$attempt" \
      >"three$attempt.log" 2>&1 || fail "3 ranks along x (see $work/three$attempt.log)"
    same "$(ckpt tfull lid_driven_cavity_2d 100).data" "$(ckpt "three$attempt" lid_driven_cavity_2d 100).data" \
      "3 ranks along x write the same checkpoint as 1 (run $attempt)"
  done
  # Out of core with T on 2 ranks along z, and 1 rank in core continuing its checkpoint.
  R=$cases/rayleigh_benard_3d.toml
  run rbin 60 "$R" "${rb[@]}" || fail "Rayleigh-Benard in core, 1 rank"
  mpirun 2 "$eddy" run "$R" --set run.steps=60 "${rb[@]}" "${ooc[@]}" --set 'parallel.ranks=[1,1,2]' \
    --output rbtwo >rbtwo.log 2>&1 || fail "Rayleigh-Benard out of core on 2 ranks (see $work/rbtwo.log)"
  same "$(ckpt rbin rayleigh_benard_3d 60).data" "$(ckpt rbtwo rayleigh_benard_3d 60).data" \
    "out of core + temperature, 2 ranks along z: the checkpoint equals 1 rank in core"
  run rbone 60 "$R" "${rb[@]}" --restart "$(ckpt rbtwo rayleigh_benard_3d 50).toml" ||
    fail "Rayleigh-Benard: 2 ranks out of core -> 1 rank in core"
  same "$(ckpt rbin rayleigh_benard_3d 60).data" "$(ckpt rbone rayleigh_benard_3d 60).data" \
    "out of core + temperature: 2 ranks out of core -> 1 rank in core restart"
  two_to_one p "$cases/particles_cavity_2d.toml" particles_cavity_2d same_checksum toml "particles: " "${parts[@]}"
  # Open boundaries: the inlet on one rank, the convective outflow on the other; then 1 -> 2 ranks across the faces.
  two_to_one c "$cases/channel_2d.toml" channel_2d same data "open boundaries: " "${chan[@]}" "${convective[@]}"
  mpirun 2 "$eddy" run "$cases/channel_2d.toml" --set run.steps=60 "${chan[@]}" "${convective[@]}" \
    --set 'parallel.ranks=[1,2,1]' --output cback --restart "$(ckpt cfull channel_2d 50).toml" >cback.log 2>&1 ||
    fail "open boundaries: 1 -> 2 restart (see $work/cback.log)"
  same "$(ckpt cfull channel_2d 60).data" "$(ckpt cback channel_2d 60).data" "open boundaries: 1 rank -> 2 ranks restart"
  two_to_one s "$cases/sphere_channel.toml" sphere_channel same data "interpolated walls: " "${sphere[@]}"
  mpirun 2 "$eddy" run "$cases/sphere_channel.toml" --set run.steps=60 "${sphere[@]}" --set 'parallel.ranks=[2,1,1]' \
    --output sback --restart "$(ckpt sfull sphere_channel 50).toml" >sback.log 2>&1 ||
    fail "interpolated walls: 1 -> 2 restart (see $work/sback.log)"
  same "$(ckpt sfull sphere_channel 60).data" "$(ckpt sback sphere_channel 60).data" \
    "interpolated walls: 1 rank -> 2 ranks restart"
fi
finish
