#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds eddy and runs the test suite with CTest.
#  - cuda backend (when nvcc is present) and hip backend: compiled and linked; their GPU-labelled tests run when a
#    GPU of that kind is visible (nvidia-smi / rocminfo), and are reported as not run otherwise;
#  - cpu backend, last: every test except the label "long" (unit, physics, mpi).
# Usage: ./scripts/test.sh [--backends cpu,cuda,hip]   (default: all three)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

backends=cpu,cuda,hip
case "${1:-}" in
  "") ;;
  --backends) backends=${2:?--backends needs a list, e.g. cpu or cpu,cuda,hip} ;;
  -h | --help) sed -n '2,6p' "$0"; exit 0 ;;
  *) echo "test.sh: unknown argument '$1' (usage: ./scripts/test.sh [--backends cpu,cuda,hip])" >&2; exit 2 ;;
esac
IFS=, read -r -a wanted <<<"$backends"
for backend in "${wanted[@]}"; do
  [[ $backend =~ ^(cpu|cuda|hip)$ ]] || { echo "test.sh: unknown backend '$backend' (cpu, cuda or hip)" >&2; exit 2; }
done

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
  else
    count=$(ctest --test-dir "$dir" -N -L gpu | sed -n 's/^Total Tests: //p')
    echo "eddy: $backend backend built and linked; its ${count:-?} GPU tests not run: no $backend GPU visible here"
    summary+=("$backend: built and linked, ${count:-?} GPU tests not run (no GPU)")
  fi
done
echo "=== eddy: test summary ==="
printf '  %s\n' "${summary[@]}"
exit $status
