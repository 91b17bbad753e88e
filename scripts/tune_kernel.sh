#!/usr/bin/env bash
# Kernel tuning experiment for issue #4 (GPU machine): builds variants of the fused kernel side by side from one
# commit and runs eddy bench on each, interleaved, so drift hits all alike. Winners become product code; results go
# to docs/performance.md's tuning log.
# Usage: on the development machine `git archive HEAD -o build/tune-head.tar`, then on the GPU machine (carrying
# .device-deps and build/tune-head.tar):  scripts/tune_kernel.sh OUTDIR [variant...]
#   variants: base, r40 / r48 / r56 / r64 (the fused kernel's kMaxRegisters for every storage), hints
#   (scripts/tune_cache_hints.py)
set -uo pipefail
out=${1:?usage: scripts/tune_kernel.sh OUTDIR [variant...]}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps=$root/.device-deps
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
shift
if (($#)); then variants=("$@"); else variants=(base r48 r64); fi
build_variant() {
  # Every variant builds from a clean export of the last commit (build/tune-head.tar).
  local v=$1 src=/tmp/tree_$1 extra=()
  rm -rf "$src" && mkdir -p "$src" && tar -C "$src" -xf "$root/build/tune-head.tar"
  case $v in
    r[0-9]*) sed -i "s/static constexpr int kMaxRegisters = .*;/static constexpr int kMaxRegisters = ${v#r};/" \
           "$src/kernels/stream_collide.cpp" ;;
    hints) python3 "$root/scripts/tune_cache_hints.py" "$src" ;;
  esac
  cmake -S "$src" -B "$root/build/tune-$v" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDDY_BACKEND=cuda \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$deps" -DEDDY_WITH_VTK=OFF -DEDDY_BUILD_TESTS=OFF \
    -DCMAKE_CUDA_FLAGS="-Xptxas=-v" "${extra[@]}" >"$out/build_$v.log" 2>&1 &&
    cmake --build "$root/build/tune-$v" -j 4 --target eddy >>"$out/build_$v.log" 2>&1
  echo "build $v: exit $?" >>"$out/summary.txt"
  grep -A2 "Function properties for .*StreamCollide.*BoxE$" "$out/build_$v.log" | grep -E "properties|registers" |
    sed 's/.*StreamCollideI\(.*\)Lb\([01]\)E\(.\).*/\1 odd=\2 index=\3/' | paste - - | grep "index=j" |
    sed "s/^/$v: /" >>"$out/registers.txt"
}
for v in "${variants[@]}"; do build_variant "$v" & done
wait
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >"$out/gpu.txt"
# Interleaved so drift affects all variants alike.
for n in 512 256; do
  for p in float fp16; do
    for v in "${variants[@]}"; do
      exe=$root/build/tune-$v/eddy
      [[ -x $exe ]] || continue
      "$exe" bench --size "$n" --storage "$p" --repeat 3 --json "$out/b_${v}_${n}_${p}.json" >"$out/b_${v}_${n}_${p}.log" 2>&1
      echo "$v $n $p: $(grep -E 'MLUPS' "$out/b_${v}_${n}_${p}.log" | tr -s ' ')" >>"$out/summary.txt"
    done
  done
done
for bx in 256 512; do
  "$root/build/tune-base/eddy" bench --size 512 --storage fp16 --block-x $bx --repeat 3 >"$out/bx_$bx.log" 2>&1
  echo "base 512 fp16 block-x $bx: $(grep MLUPS "$out/bx_$bx.log" | tr -s ' ')" >>"$out/summary.txt"
done
cat "$out/summary.txt" "$out/registers.txt"
grep -h "spill" "$out"/build_*.log | grep -v " 0 bytes spill stores, 0 bytes spill loads" | sort | uniq -c | head
