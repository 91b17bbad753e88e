#!/usr/bin/env bash
# Shared set-up for scripts/run.sh and scripts/test.sh: installs missing Debian packages, configures and builds
# eddy for one backend. Source it, then call:  eddy_install_packages <backend>...;  eddy_build <backend> [cmake args]
# Builds go to build/<backend> (Release); eddy_build_fuzz builds the libFuzzer targets in build/fuzz.
# Honours EDDY_BUILD_JOBS (default: all cores) and EDDY_BUILD_TARGET (default: all targets).
set -euo pipefail

EDDY_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Debian 12 packages per backend. CUDA's nvcc comes with the CUDA toolkit (not from Debian here). "fuzz" is the
# libFuzzer build of tests/fuzz: clang, and its runtimes (libFuzzer, ASan, UBSan) from libclang-rt-dev, which clang
# does not pull in.
eddy_packages() {
  local backend=$1
  if [[ $backend == fuzz ]]; then
    echo cmake ninja-build clang libclang-rt-dev libtomlplusplus-dev
    return 0
  fi
  echo cmake ninja-build g++ pkg-config libtomlplusplus-dev libcli11-dev libvtk9-dev googletest libgtest-dev \
    libopenmpi-dev openmpi-bin
  # The Python module (python/) and its tests: headers, pybind11, NumPy, pytest, mpi4py for the MPI test, and
  # DLPack's reference header, against which the module's own DLPack structs are checked at compile time.
  echo python3-dev pybind11-dev python3-numpy python3-pytest python3-mpi4py libdlpack-dev
  # TBB: the cpu backend's parallel std::sort (particle cell lists); rocPRIM: the hip backend's radix sort.
  # matplotlib: scripts/plot_forces.py, run by the test suite (tests/scripts/plot_forces.sh; skipped without it).
  # PyTorch (Debian's, CPU): the examples whose tensors go through DLPack and the differentiable layer of
  # examples/python run in the test suite on the cpu build (skipped without it). VTK's Python bindings: the
  # topology optimisation example writes its designs as .vti files through them and reads them back.
  [[ $backend == cpu ]] && echo libtbb-dev python3-matplotlib python3-torch python3-vtk9
  [[ $backend == hip ]] && echo hipcc libamdhip64-dev librocprim-dev
  return 0
}

eddy_install_packages() {
  local need=() pkg
  for pkg in $(for b in "$@"; do eddy_packages "$b"; done | tr ' ' '\n' | sort -u); do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
  done
  ((${#need[@]} == 0)) && return 0
  echo "eddy: installing Debian packages: ${need[*]}"
  local sudo=()
  [[ $(id -u) -ne 0 ]] && sudo=(sudo)
  "${sudo[@]}" apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
}

# Path of nvcc, or empty: PATH first, then the usual toolkit location.
eddy_find_nvcc() {
  command -v nvcc 2>/dev/null || { [[ -x /usr/local/cuda/bin/nvcc ]] && echo /usr/local/cuda/bin/nvcc; } || true
}

eddy_build() {
  local backend=$1
  shift
  local dir="$EDDY_ROOT/build/$backend"
  local args=(-S "$EDDY_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDDY_BACKEND="$backend")
  if [[ $backend == cuda ]]; then
    local nvcc
    nvcc=$(eddy_find_nvcc)
    if [[ -z $nvcc ]]; then
      echo "eddy: error: EDDY_BACKEND=cuda needs the CUDA toolkit (nvcc not on PATH nor in /usr/local/cuda/bin)" >&2
      return 1
    fi
    args+=(-DCMAKE_CUDA_COMPILER="$nvcc")
  fi
  cmake "${args[@]}" "$@" >/dev/null
  # EDDY_BUILD_TARGET: one target (run.sh builds only the eddy binary, not the test suite); default all.
  cmake --build "$dir" -j "${EDDY_BUILD_JOBS:-$(nproc)}" ${EDDY_BUILD_TARGET:+--target "$EDDY_BUILD_TARGET"}
}

# The libFuzzer targets of tests/fuzz, with clang and sanitizers, in build/fuzz: a build tree of their own
# (EDDY_FUZZ=ON configures nothing else: no solver, MPI or VTK).
eddy_build_fuzz() {
  local dir="$EDDY_ROOT/build/fuzz"
  CC=clang CXX=clang++ cmake -S "$EDDY_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDDY_FUZZ=ON >/dev/null
  cmake --build "$dir" -j "${EDDY_BUILD_JOBS:-$(nproc)}"
}
