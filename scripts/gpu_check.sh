#!/usr/bin/env bash
# On the GPU machine (see ../shared/device/README.md): builds the cuda backend without VTK, runs the GPU tests
# (gpu, unit and long labels), a compute-sanitizer pass over the oracle test, eddy bench per storage and size, the
# particle step's cost (EDDY_PARTICLE_BENCH=0 skips it), the heat transport's cost and cases (EDDY_THERMAL=0), a
# block-width sweep (EDDY_BLOCK_SWEEP, "" skips it), the mesh voxeliser on a 1M-triangle sphere (EDDY_VOXELISE=0)
# and Nsight Compute counters of the fused kernel (EDDY_NCU=0 skips them); full logs go to OUTDIR, a short table
# is printed last.
# Usage, from the project root with .device-deps staged:  ./scripts/gpu_check.sh OUTDIR [bench sizes...]
set -uo pipefail
out=${1:?usage: gpu_check.sh OUTDIR [sizes...]}
shift
sizes=("${@:-256}")
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps=$root/.device-deps
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
build=$root/build/cuda-device

{
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDDY_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH="$deps" -DEDDY_WITH_VTK=OFF -DEDDY_GTEST_SOURCE_DIR="$deps/src/googletest" \
    -DCMAKE_CUDA_FLAGS="-Xptxas=-v"
  cmake --build "$build" -j "$(nproc)"
} >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
# Registers and SASS instruction count per fused-kernel instantiation (T, odd step?), box launch.
grep -A2 "Function properties for .*StreamCollide.*BoxE$" "$out/build.log" | grep -E "properties|registers" |
  sed 's/.*StreamCollideI\(.*\)Lb\([01]\)E\(.\).*/\1 odd=\2 index=\3/' | paste - - >"$out/registers.txt"
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$build/libeddy_kernels.a" 2>/dev/null | awk '/Function :/{name=$3} /^ +\/\*[0-9a-f]+\*\//{n[name]++}
    END{for (k in n) if (k ~ /StreamCollide.*BoxE$/) print n[k], k}' >>"$out/registers.txt"
fi

"$build/eddy" info | tee "$out/info.txt"
ctest --test-dir "$build" --output-on-failure -L "gpu|unit" >"$out/ctest_gpu.log" 2>&1
echo "ctest gpu|unit: exit $?" | tee -a "$out/summary.txt"
if [[ ${EDDY_LONG:-1} != 0 ]]; then  # the Re = 1000 cavity at 256^2 (EDDY_LONG=0 skips it)
  ctest --test-dir "$build" --output-on-failure -V -L long >"$out/ctest_long.log" 2>&1
  echo "ctest long: exit $?" | tee -a "$out/summary.txt"
fi
compute-sanitizer --tool memcheck --error-exitcode 9 "$build/tests/test_oracle" >"$out/sanitizer.log" 2>&1
echo "compute-sanitizer memcheck test_oracle: exit $?" | tee -a "$out/summary.txt"
"$build/eddy" run "$root/cases/lid_driven_cavity_2d.toml" --set output.vtk=false --output "$out/run" >"$out/run_default.log" 2>&1
echo "default case: exit $?, $(tail -1 "$out/run_default.log")" | tee -a "$out/summary.txt"

for n in "${sizes[@]}"; do
  for p in float fp16 double; do
    "$build/eddy" bench --size "$n" --storage "$p" --json "$out/bench_${n}_${p}.json" >"$out/bench_${n}_${p}.log" 2>&1
    echo "bench $n $p: exit $?" >>"$out/summary.txt"
  done
done

# The mesh voxeliser (issue 22: a 1M-triangle mesh into a 512^3 block well under 10 s): a UV sphere built in memory,
# timed on the device and checked against the CPU reference (EDDY_VOXELISE=0 skips).
if [[ ${EDDY_VOXELISE:-1} != 0 ]]; then
  "$build/eddy" bench --voxelise 1000000 --size 512 --repeat 5 >"$out/voxelise.log" 2>&1
  echo "voxelise 1M triangles into 512^3: exit $?, $(grep -E 'device voxelisation|bitwise|DIFFERS' "$out/voxelise.log" | tr '\n' ' ')" >>"$out/summary.txt"
fi

# Particle step cost in a 256^3 float cavity (EDDY_PARTICLE_BENCH=0 skips): inertial particles alone, with
# cell-list contacts, and with all-pairs gravity (n^2: smaller counts, fewer steps).
if [[ ${EDDY_PARTICLE_BENCH:-1} != 0 ]]; then
  for spec in "1000000 none 10" "10000000 none 10" "1000000 contacts 10" "10000000 contacts 10" "65536 gravity 2" \
              "262144 gravity 2"; do
    read -r count forces steps <<<"$spec"
    "$build/eddy" bench --size 256 --particles "$count" --particle-forces "$forces" --steps "$steps" --repeat 2 \
      --json "$out/particles_${count}_${forces}.json" >"$out/particles_${count}_${forces}.log" 2>&1
    echo "particles $count $forces: exit $?, $(grep -E '^  particles' "$out/particles_${count}_${forces}.log")" >>"$out/summary.txt"
  done
fi

# Heat transport (EDDY_THERMAL=0 skips): the thermal step's cost per storage at the largest size, the shipped
# heated-cavity case (Nusselt number against de Vahl Davis, float) and the Rayleigh-Benard case.
if [[ ${EDDY_THERMAL:-1} != 0 ]]; then
  for p in float fp16 double; do
    "$build/eddy" bench --size "${sizes[-1]}" --storage "$p" --thermal --repeat 3 \
      --json "$out/thermal_${sizes[-1]}_${p}.json" >"$out/thermal_${sizes[-1]}_${p}.log" 2>&1
    echo "thermal bench ${sizes[-1]} $p: exit $?, $(grep -E '^  thermal' "$out/thermal_${sizes[-1]}_${p}.log")" >>"$out/summary.txt"
  done
  for c in heated_cavity_2d rayleigh_benard_3d; do
    "$build/eddy" run "$root/cases/$c.toml" --set output.vtk=false --output "$out/run" >"$out/run_$c.log" 2>&1
    echo "$c: exit $?, $(grep '^step' "$out/run_$c.log" | tail -1 | sed 's/.*mass drift/mass drift/'), $(tail -1 "$out/run_$c.log")" >>"$out/summary.txt"
  done
  compute-sanitizer --tool memcheck --error-exitcode 9 "$build/tests/test_thermal" --gtest_filter='ScalarTransport.*:Thermal.Gaussian*:Thermal.Adiabatic*' \
    >"$out/sanitizer_thermal.log" 2>&1
  echo "compute-sanitizer memcheck thermal kernels: exit $?" >>"$out/summary.txt"
fi

# Block-width sweep of the float kernel at the largest size, then hardware counters of one even and one odd step.
largest=${sizes[-1]}
for bx in ${EDDY_BLOCK_SWEEP-64 128 256 512}; do
  "$build/eddy" bench --size "$largest" --block-x "$bx" --repeat 3 --json "$out/sweep_${largest}_bx${bx}.json" \
    >"$out/sweep_${largest}_bx${bx}.log" 2>&1
  echo "block-x $bx, ${largest}^3 float: $(grep MLUPS "$out/sweep_${largest}_bx${bx}.log")" >>"$out/summary.txt"
done
if [[ ${EDDY_NCU:-1} != 0 ]] && command -v ncu >/dev/null; then
  for p in float fp16; do
    ncu --clock-control none --kernel-name-base mangled --kernel-name regex:StreamCollide --launch-skip 4 \
      --launch-count 2 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
      --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats \
      "$build/eddy" bench --size 256 --storage "$p" --steps 4 --repeat 1 --warmup 4 >"$out/ncu_256_${p}.txt" 2>&1
    echo "ncu 256 $p: exit $?" >>"$out/summary.txt"
  done
fi

echo "==== summary ===="
cat "$out/summary.txt"
grep -h "\[ oracle\|\[ ghia\|\[ poiseuille\|\[ taylor" "$out"/ctest_*.log | sort -u
grep -h "tests passed\|tests failed" "$out"/ctest_*.log
cat "$out/registers.txt"
for f in "$out"/bench_*.log; do echo "--- $(basename "$f")"; grep -E "MLUPS|bandwidth|STREAM|memory|check" "$f"; done
for f in "$out"/ncu_*.txt; do
  [[ -f $f ]] || continue
  echo "--- $(basename "$f")"
  grep -E "StreamCollide|DRAM Throughput|Memory Throughput|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|L2 Hit|L1/TEX Hit|Compute \(SM\) Throughput|Block Limit Registers|Issue Slots Busy|No Eligible" "$f"
done
