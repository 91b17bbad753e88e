#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds eddy and runs the test suite with CTest.
#  - cpu backend: every test except the label "long" (unit, physics);
#  - cuda backend (when nvcc is present) and hip backend: compiled and linked, then the GPU-labelled tests run,
#    which skip with a message where no GPU is visible.
# Usage: ./scripts/test.sh [--backends cpu,cuda,hip]   (default: all three)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

backends=cpu,cuda,hip
case "${1:-}" in
  "") ;;
  --backends) backends=${2:?--backends needs a list, e.g. cpu or cpu,cuda,hip} ;;
  -h | --help) sed -n '2,7p' "$0"; exit 0 ;;
  *) echo "test.sh: unknown argument '$1' (usage: ./scripts/test.sh [--backends cpu,cuda,hip])" >&2; exit 2 ;;
esac
IFS=, read -r -a wanted <<<"$backends"

eddy_install_packages "${wanted[@]}"
status=0
for backend in "${wanted[@]}"; do
  echo "=== eddy: $backend backend ==="
  extra=()
  if [[ $backend == hip ]]; then
    # Debian 12's clang 15 knows gfx90a and gfx940 (MI200, MI300), not gfx942: see shared DESIGN.md.
    extra+=(-DGPU_TARGETS="gfx90a;gfx940")
  fi
  if [[ $backend == cuda && -z $(eddy_find_nvcc) ]]; then
    echo "eddy: cuda backend not built: nvcc not found (install the CUDA toolkit)"
    status=1
    continue
  fi
  eddy_build "$backend" "${extra[@]}"
  if [[ $backend == cpu ]]; then
    # unit, physics and mpi (the mpi tests run 4 ranks each, so they are run one at a time)
    ctest --test-dir "$EDDY_ROOT/build/cpu" --output-on-failure -LE long -j 2 || status=1
  else
    ctest --test-dir "$EDDY_ROOT/build/$backend" --output-on-failure -L gpu || status=1
  fi
done
exit $status
