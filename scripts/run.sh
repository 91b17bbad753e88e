#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds eddy (Release) and runs a case; VTK output goes to output/.
# Usage: ./scripts/run.sh [CASE.toml] [eddy run options, e.g. --set run.steps=1000 --output DIR]
#   default case: cases/lid_driven_cavity_2d.toml;  backend: EDDY_BACKEND=cpu (default) | cuda | hip
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
backend=${EDDY_BACKEND:-cpu}
case_file=cases/lid_driven_cavity_2d.toml
if (($# > 0)) && [[ $1 != -* ]]; then
  case_file=$1
  shift
fi
# Resolve the case path before moving to the project root (where output/ is created).
[[ -e $case_file ]] && case_file=$(realpath "$case_file")
eddy_install_packages "$backend"
EDDY_BUILD_TARGET=eddy eddy_build "$backend"  # the binary only: the test suite is test.sh's
cd "$EDDY_ROOT"
exec "build/$backend/eddy" run "$case_file" "$@"
