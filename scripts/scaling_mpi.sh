#!/usr/bin/env bash
# Weak and strong scaling of eddy bench from 1 to N GPUs of one node, for each halo transport, float storage.
#   weak:   256^3 and 512^3 cells per GPU (the grid grows along z, the axis eddy splits first: 256 x 256 x N*256)
#   strong: 512^3 cells in all
# Usage, on the GPU machine with a built cuda backend:  scripts/scaling_mpi.sh EDDY OUTDIR [GPUS] [TRANSPORTS...]
#   GPUS default 2; TRANSPORTS default "host device nccl". Writes OUTDIR/scaling.csv and prints a table last.
set -uo pipefail
eddy=${1:?usage: scaling_mpi.sh EDDY OUTDIR [GPUS] [TRANSPORTS...]}
out=${2:?usage: scaling_mpi.sh EDDY OUTDIR [GPUS] [TRANSPORTS...]}
gpus=${3:-2}
shift 3 2>/dev/null || shift $#
transports=("${@:-host device nccl}")
read -r -a transports <<<"${transports[*]}"
mkdir -p "$out"
mpirun=(mpirun --allow-run-as-root --bind-to none)
csv=$out/scaling.csv
echo "kind,cells_per_gpu_or_total,gpus,transport,overlap,grid,mlups_total,mlups_sd,mlups_per_gpu,efficiency" >"$csv"

bench() {  # name ranks transport overlap nx ny nz -> prints MLUPS mean and sd
  local name=$1 ranks=$2 transport=$3 overlap=$4 nx=$5 ny=$6 nz=$7
  local flags=(--grid "$nx" "$ny" "$nz" --transport "$transport" --json "$out/$name.json")
  [[ $overlap == off ]] && flags+=(--no-overlap)
  "${mpirun[@]}" -n "$ranks" "$eddy" bench "${flags[@]}" >"$out/$name.log" 2>&1 || { echo "nan nan"; return; }
  python3 -c "import json,sys; d=json.load(open('$out/$name.json')); print(d['mlups_mean'], d['mlups_sd'])"
}

row() {  # kind size gpus transport overlap grid mlups sd base_per_gpu
  local eff
  eff=$(python3 -c "m=float('$7'); g=$3; b=float('$9'); print(f'{m / g / b:.3f}' if b == b and m == m else 'nan')")
  echo "$1,$2,$3,$4,$5,$6,$7,$8,$(python3 -c "print(f'{float(\"$7\") / $3:.1f}')"),$eff" >>"$csv"
}

for n in 256 512; do
  read -r base sd < <(bench "weak${n}_1gpu" 1 host on "$n" "$n" "$n")
  row weak "$n^3" 1 - on "${n}x${n}x${n}" "$base" "$sd" "$base"
  for t in "${transports[@]}"; do
    for overlap in on off; do
      [[ $overlap == off && $n == 512 ]] && continue
      read -r m s < <(bench "weak${n}_${gpus}gpu_${t}_${overlap}" "$gpus" "$t" "$overlap" "$n" "$n" $((n * gpus)))
      row weak "$n^3" "$gpus" "$t" "$overlap" "${n}x${n}x$((n * gpus))" "$m" "$s" "$base"
    done
  done
done
read -r base sd < <(bench strong512_1gpu 1 host on 512 512 512)
row strong "512^3" 1 - on 512x512x512 "$base" "$sd" "$base"
for t in "${transports[@]}"; do
  read -r m s < <(bench "strong512_${gpus}gpu_${t}" "$gpus" "$t" on 512 512 512)
  row strong "512^3" "$gpus" "$t" on 512x512x512 "$m" "$s" "$base"
done
sed "s/,/ | /g" "$csv"
