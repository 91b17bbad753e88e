#!/usr/bin/env bash
# On the GPU machine (../shared/device/README.md): measures a change of the kernels side by side with the code it
# replaces, in one run. Builds OLD_SRC (a source tree of the earlier commit, e.g. from `git archive`) and this
# checkout, cuda backend without VTK or tests, then runs `eddy bench` for each size and storage, old and new
# alternately, REPEAT rounds (absolute speeds drift between runs; ratios of neighbours are what to quote). Writes
# each bench's JSON and log to OUTDIR and prints a table of MLUPS (mean of the rounds) and new / old last.
# Usage: ./scripts/bench_compare.sh OUTDIR OLD_SRC [sizes...]   (default size 512; .device-deps staged here)
#        EDDY_COMPARE_STORAGES="float fp16" EDDY_COMPARE_ROUNDS=2 (defaults); EDDY_COMPARE_NEW_BUILD (below)
set -uo pipefail
out=${1:?usage: bench_compare.sh OUTDIR OLD_SRC [sizes...]}
old_src=$(cd "${2:?usage: bench_compare.sh OUTDIR OLD_SRC [sizes...]}" && pwd)
shift 2
sizes=("${@:-512}")
read -r -a storages <<<"${EDDY_COMPARE_STORAGES:-float fp16}"
rounds=${EDDY_COMPARE_ROUNDS:-2}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps=$root/.device-deps
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
mkdir -p "$out"

build() {  # source dir, build dir, log
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDDY_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH="$deps" -DEDDY_WITH_VTK=OFF -DEDDY_BUILD_TESTS=OFF >"$3" 2>&1 &&
    cmake --build "$2" -j "$(( $(nproc) / 2 ))" --target eddy >>"$3" 2>&1
}
# EDDY_COMPARE_NEW_BUILD: a build directory of this checkout that already holds eddy (then only the old one is built).
new_build=${EDDY_COMPARE_NEW_BUILD:-$root/build/compare-new}
build "$old_src" "$root/build/compare-old" "$out/build_old.log" & old_pid=$!
if [[ -z ${EDDY_COMPARE_NEW_BUILD:-} ]]; then
  build "$root" "$new_build" "$out/build_new.log" & new_pid=$!
  wait "$new_pid" || { tail -30 "$out/build_new.log"; exit 1; }
fi
wait "$old_pid" || { tail -30 "$out/build_old.log"; exit 1; }
declare -A binary=([old]="$root/build/compare-old/eddy" [new]="$new_build/eddy")

for n in "${sizes[@]}"; do
  for p in "${storages[@]}"; do
    for r in $(seq 1 "$rounds"); do
      for v in old new; do
        "${binary[$v]}" bench --size "$n" --storage "$p" --repeat 3 \
          --json "$out/${v}_${n}_${p}_${r}.json" >"$out/${v}_${n}_${p}_${r}.log" 2>&1 ||
          echo "bench $v $n $p round $r failed: $(tail -1 "$out/${v}_${n}_${p}_${r}.log")"
      done
    done
  done
done

# The table: mean MLUPS over the rounds ("mlups_mean" of each JSON is the mean of its repetitions).
python3 - "$out" "$rounds" "${sizes[*]}" "${storages[*]}" <<'EOF'
import json, sys, os
out, rounds, sizes, storages = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
def mlups(v, n, p):
    vals = []
    for r in range(1, rounds + 1):
        path = os.path.join(out, f"{v}_{n}_{p}_{r}.json")
        if os.path.exists(path):
            with open(path) as f:
                vals.append(json.load(f)["mlups_mean"])
    return sum(vals) / len(vals) if vals else float("nan"), vals
print(f"{'N':>5} {'storage':>8} {'old MLUPS':>10} {'new MLUPS':>10} {'new/old':>8}   rounds old | new")
for n in sizes:
    for p in storages:
        (o, ov), (w, wv) = mlups("old", n, p), mlups("new", n, p)
        print(f"{n:>5} {p:>8} {o:10.0f} {w:10.0f} {w / o:8.4f}   {' '.join(f'{x:.0f}' for x in ov)} | {' '.join(f'{x:.0f}' for x in wv)}")
EOF
