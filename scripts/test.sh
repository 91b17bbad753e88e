#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds eddy and runs the test suite with CTest.
#  - cuda backend (when nvcc is present) and hip backend: compiled and linked; their GPU-labelled tests run when a
#    GPU of that kind is visible (nvidia-smi / rocminfo), and are reported as not run otherwise. Without an AMD GPU
#    the hip build stops at eddy and the Python module: its test binaries are the cuda build's sources linked
#    against the same kernel instantiations, which the cuda build already links (keeps CI near 20 minutes);
#  - cpu backend: every test except the label "long" (unit, physics, mpi);
#  - fuzz, last: the libFuzzer target of the case-file reader (tests/fuzz, clang): replays tests/fuzz/corpus, then
#    fuzzes for EDDY_FUZZ_SECONDS (default 60); a crash leaves its reproducer in build/fuzz/artifacts/.
# Usage: ./scripts/test.sh [--backends cpu,cuda,hip,fuzz]   (default: all four)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

backends=cpu,cuda,hip,fuzz
case "${1:-}" in
  "") ;;
  --backends) backends=${2:?--backends needs a list, e.g. cpu or cpu,cuda,hip,fuzz} ;;
  -h | --help) sed -n '2,8p' "$0"; exit 0 ;;
  *) echo "test.sh: unknown argument '$1' (usage: ./scripts/test.sh [--backends cpu,cuda,hip,fuzz])" >&2; exit 2 ;;
esac
IFS=, read -r -a wanted <<<"$backends"
for backend in "${wanted[@]}"; do
  [[ $backend =~ ^(cpu|cuda|hip|fuzz)$ ]] || {
    echo "test.sh: unknown backend '$backend' (cpu, cuda, hip or fuzz)" >&2
    exit 2
  }
done

fuzz_seconds=${EDDY_FUZZ_SECONDS:-60}
[[ $fuzz_seconds =~ ^[0-9]+$ ]] || { echo "test.sh: EDDY_FUZZ_SECONDS must be a whole number of seconds" >&2; exit 2; }

# True when a GPU of the backend's vendor is visible to this machine.
gpu_visible() {
  case $1 in
    cuda) command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU' ;;
    hip) [[ -e /dev/kfd ]] && command -v rocminfo >/dev/null && rocminfo 2>/dev/null | grep -q 'Device Type: *GPU' ;;
    *) return 1 ;;
  esac
}

eddy_install_packages "${wanted[@]}"
# hipcc asks rocm_agent_enumerator for the GPU when no target is named; name the CMake targets instead.
export HCC_AMDGPU_TARGET=${HCC_AMDGPU_TARGET:-gfx90a,gfx940}
status=0
summary=()
# GPU backends first, the cpu backend last, so the log ends with the suite that runs everywhere.
for backend in cuda hip cpu; do
  [[ " ${wanted[*]} " == *" $backend "* ]] || continue
  echo "=== eddy: $backend backend ==="
  extra=()
  if [[ $backend == hip ]]; then
    # Debian 12's clang 15 knows gfx90a and gfx940 (MI200, MI300), not gfx942: see shared DESIGN.md.
    extra+=(-DGPU_TARGETS="gfx90a;gfx940")
    gpu_visible hip || extra+=(-DEDDY_BUILD_TESTS=OFF)
  fi
  if [[ $backend == cuda && -z $(eddy_find_nvcc) ]]; then
    echo "eddy: cuda backend not built: nvcc not found (install the CUDA toolkit)"
    summary+=("cuda: NOT BUILT (no nvcc)")
    status=1
    continue
  fi
  eddy_build "$backend" "${extra[@]}"
  dir="$EDDY_ROOT/build/$backend"
  if [[ $backend == cpu ]]; then
    # unit, physics and mpi (the mpi tests run 4 ranks each)
    if ctest --test-dir "$dir" --output-on-failure -LE long -j 2; then summary+=("cpu: all tests passed"); else
      summary+=("cpu: FAILED"); status=1; fi
  elif gpu_visible "$backend"; then
    if ctest --test-dir "$dir" --output-on-failure -L gpu; then summary+=("$backend: built, GPU tests passed"); else
      summary+=("$backend: GPU tests FAILED"); status=1; fi
  elif [[ $backend == hip ]]; then
    echo "eddy: hip backend: eddy and the Python module built and linked; no AMD GPU visible here, so its tests" \
      "are neither built nor run"
    summary+=("hip: eddy and the Python module built and linked, tests not built (no AMD GPU)")
  else
    count=$(ctest --test-dir "$dir" -N -L gpu | sed -n 's/^Total Tests: //p')
    echo "eddy: $backend backend built and linked; its ${count:-?} GPU tests not run: no $backend GPU visible here"
    summary+=("$backend: built and linked, ${count:-?} GPU tests not run (no GPU)")
  fi
done

# Fuzzing the case-file reader (tests/fuzz/README.md): the corpus replayed, then a bounded run that writes new inputs
# to a scratch directory (not into the repository) and crash reproducers to build/fuzz/artifacts/.
if [[ " ${wanted[*]} " == *" fuzz "* ]]; then
  echo "=== eddy: fuzz (case-file reader, libFuzzer) ==="
  eddy_build_fuzz
  fuzzer="$EDDY_ROOT/build/fuzz/tests/fuzz/eddy_fuzz_case_config"
  fuzzer_rel=build/fuzz/tests/fuzz/eddy_fuzz_case_config
  artifacts="$EDDY_ROOT/build/fuzz/artifacts"
  log="$EDDY_ROOT/build/fuzz/fuzz.log"
  mkdir -p "$artifacts"
  corpus="$EDDY_ROOT/tests/fuzz/corpus"
  inputs=("$corpus"/*)
  # Regression: every corpus file once; a failing file is its own reproducer.
  failed=()
  for input in "${inputs[@]}"; do
    "$fuzzer" "$input" >"$log" 2>&1 || { tail -n 40 "$log"; failed+=("${input#"$EDDY_ROOT"/}"); }
  done
  if ((${#failed[@]} > 0)); then
    echo "eddy: fuzz: corpus replay FAILED on ${failed[*]} (reproduce: $fuzzer_rel FILE)"
    summary+=("fuzz: corpus replay FAILED on ${#failed[@]} of ${#inputs[@]} inputs: ${failed[*]}")
    status=1
  elif ((fuzz_seconds == 0)); then
    summary+=("fuzz: corpus replayed (${#inputs[@]} inputs), no fuzzing (EDDY_FUZZ_SECONDS=0)")
  else
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/eddy-fuzz.XXXXXX")
    rc=0
    # -max_total_time bounds the run; timeout only guards against a fuzzer that does not stop.
    timeout $((fuzz_seconds + 120)) "$fuzzer" -max_total_time="$fuzz_seconds" -max_len=4096 -timeout=10 \
      -rss_limit_mb=2048 -dict="$EDDY_ROOT/tests/fuzz/case_config.dict" -artifact_prefix="$artifacts/" \
      -print_final_stats=1 "$scratch" "$corpus" >"$log" 2>&1 || rc=$?
    rm -rf "$scratch"
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    if ((rc == 0)); then
      echo "eddy: fuzz: $fuzz_seconds s, ${runs:-?} inputs run (${speed:-?} per s), no crash (log: build/fuzz/fuzz.log)"
      summary+=("fuzz: corpus replayed (${#inputs[@]} inputs), fuzzed $fuzz_seconds s (${runs:-?} inputs): no crash")
    else
      tail -n 60 "$log"
      reproducer=$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)
      reproducer=${reproducer#"$EDDY_ROOT"/}
      echo "eddy: fuzz: FAILED (exit $rc): reproducer ${reproducer:-not written, see build/fuzz/fuzz.log}; replay it" \
        "with $fuzzer_rel ${reproducer:-FILE}, fix, then add it to tests/fuzz/corpus/ (tests/fuzz/README.md)"
      summary+=("fuzz: FAILED, reproducer: ${reproducer:-not written (see build/fuzz/fuzz.log)}")
      status=1
    fi
  fi
fi

echo "=== eddy: test summary ==="
printf '  %s\n' "${summary[@]}"
exit $status
