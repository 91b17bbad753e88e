#!/usr/bin/env bash
# Weak and strong scaling of `eddy bench` on 1, 2, 4, ... MAX_GPUS GPUs of one node (powers of two), one MPI rank
# per GPU (eddy picks its GPU by node-local rank), for each halo transport and for float and fp16 storage.
#   weak:   512^3 cells per GPU. The grid doubles along the axis that eddy's automatic decomposition splits next
#           (MPI_Dims_create's counts, the largest to z, then y, then x), so that every rank holds a 512^3 cube,
#           the same box as the 1-GPU run: 1: 512^3, 2: 512x512x1024 (1x1x2), 4: 512x1024x1024 (1x2x2),
#           8: 1024^3 (2x2x2). Growing along z alone (512x512x(512*g)) gives a 1x1x2 slab split at 2 GPUs only:
#           eddy splits 4 ranks 1x2x2 and 8 ranks 2x2x2 whatever the shape, so at 8 GPUs each rank would hold a
#           256x256x2048 column with two 256x2048 halo planes (one of them normal to x, the costliest to pack)
#           and the "weak" comparison would mix in a change of box shape. EDDY_SCALING_WEAK_GROWTH=z selects
#           that growth anyway.
#   strong: 1024 x 1024 x 512 cells in all (537M cells: ~21 GB in fp16, ~41 GB in float on one GPU).
#   overlap on (eddy's default) everywhere; in addition overlap off (--no-overlap) for the weak runs at MAX_GPUS.
#   efficiency, relative to 1 GPU of the same storage: total MLUPS / (GPUs * 1-GPU MLUPS), i.e. per-GPU MLUPS over
#           the 1-GPU MLUPS in weak scaling. The 1-GPU rows run one rank (no halo exchange, transport "-").
#   dims:   ranks per axis (x y z) as eddy printed them ("N ranks as X x Y x Z" in the bench log).
# Usage, on the GPU node with a built cuda backend:
#   scripts/scaling_mpi.sh EDDY OUTDIR [MAX_GPUS] [TRANSPORTS...]
#   MAX_GPUS default 2; TRANSPORTS default "host nccl" (add "device" only for a CUDA-aware MPI: otherwise eddy
#   refuses it with exit code 2, recorded as "refused"). Writes OUTDIR/scaling.csv (first line: the command),
#   one NAME.log and NAME.json per bench run, and prints a markdown table last (for docs/performance.md).
#   A failed run gives nan, its status column says why (failed, unstable, no-memory: eddy's exit codes 1, 3, 4;
#   exitN; timeout; no-result: exit 0 without JSON) and the script goes on.
# Environment overrides (for tests on the cpu backend, e.g.
#   EDDY_SCALING_WEAK=32 EDDY_SCALING_STRONG="64 64 32" EDDY_SCALING_MPIRUN_EXTRA=--oversubscribe \
#     scripts/scaling_mpi.sh build/cpu/eddy /tmp/sc 2 host nccl):
#   EDDY_SCALING_WEAK          cells per GPU edge for weak scaling (default 512)
#   EDDY_SCALING_STRONG        "NX NY NZ" of strong scaling (default "1024 1024 512")
#   EDDY_SCALING_STORAGES      storages to measure (default "float fp16")
#   EDDY_SCALING_WEAK_GROWTH   cube (default, see above) or z (NX x NY x NZ*g)
#   EDDY_SCALING_MPIRUN_EXTRA  extra mpirun flags, split on spaces (e.g. --oversubscribe)
#   EDDY_SCALING_BENCH_EXTRA   extra `eddy bench` flags, split on spaces (e.g. "--repeat 3")
#   EDDY_SCALING_TIMEOUT       seconds before one bench run is killed and recorded as "timeout" (default 600)
set -uo pipefail
usage="usage: scaling_mpi.sh EDDY OUTDIR [MAX_GPUS] [TRANSPORTS...]"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command_line=""
for v in EDDY_SCALING_WEAK EDDY_SCALING_STRONG EDDY_SCALING_STORAGES EDDY_SCALING_WEAK_GROWTH \
  EDDY_SCALING_MPIRUN_EXTRA EDDY_SCALING_BENCH_EXTRA EDDY_SCALING_TIMEOUT OMP_NUM_THREADS CUDA_VISIBLE_DEVICES; do
  [[ -n ${!v+set} ]] && command_line+="$v=$(printf %q "${!v}") "
done
command_line+="$(printf %q "$0")$(printf ' %q' "$@")"

die() { echo "scaling_mpi.sh: $*" >&2; exit 2; }
(($# >= 2)) || die "$usage"
eddy=$1
out=$2
max_gpus=${3:-2}
shift 3 2>/dev/null || shift $#
transports=("$@")
((${#transports[@]})) || transports=(host nccl)
read -r -a storages <<<"${EDDY_SCALING_STORAGES:-float fp16}"
weak=${EDDY_SCALING_WEAK:-512}
read -r -a strong <<<"${EDDY_SCALING_STRONG:-1024 1024 512}"
growth=${EDDY_SCALING_WEAK_GROWTH:-cube}
read -r -a mpirun_extra <<<"${EDDY_SCALING_MPIRUN_EXTRA:-}"
read -r -a bench_extra <<<"${EDDY_SCALING_BENCH_EXTRA:-}"
limit=${EDDY_SCALING_TIMEOUT:-600}
helper=$here/scaling_table.py

[[ $max_gpus =~ ^[1-9][0-9]*$ ]] || die "MAX_GPUS must be a positive integer (got '$max_gpus'); $usage"
[[ $weak =~ ^[1-9][0-9]*$ ]] || die "EDDY_SCALING_WEAK must be a positive integer (got '$weak')"
[[ ${#strong[@]} == 3 && "${strong[*]}" =~ ^[1-9][0-9]*\ [1-9][0-9]*\ [1-9][0-9]*$ ]] ||
  die "EDDY_SCALING_STRONG must be three positive integers \"NX NY NZ\" (got '${strong[*]}')"
[[ $growth == cube || $growth == z ]] || die "EDDY_SCALING_WEAK_GROWTH must be cube or z (got '$growth')"
[[ $limit =~ ^[1-9][0-9]*$ ]] || die "EDDY_SCALING_TIMEOUT must be a positive integer (got '$limit')"
for t in "${transports[@]}"; do
  [[ $t == host || $t == device || $t == nccl ]] || die "unknown transport '$t' (host, device or nccl); $usage"
done
for s in "${storages[@]}"; do
  [[ $s == float || $s == fp16 || $s == double ]] || die "unknown storage '$s' (float, fp16 or double)"
done
[[ -x $eddy ]] || die "$eddy is not an executable; $usage"
for c in mpirun python3 timeout; do command -v "$c" >/dev/null || die "$c not found"; done
[[ -r $helper ]] || die "$helper not found"
mkdir -p "$out" || die "cannot create $out"

gpu_counts=()
for ((g = 1; g <= max_gpus; g *= 2)); do gpu_counts+=("$g"); done
largest=${gpu_counts[-1]}
if command -v nvidia-smi >/dev/null; then
  present=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  ((present >= largest)) || echo "scaling_mpi.sh: warning: $largest GPUs asked, nvidia-smi lists $present" >&2
fi

# Runs: per storage, 1 + (counts-1)*transports weak runs with overlap on, transports more with overlap off at the
# largest count (when it is > 1), and 1 + (counts-1)*transports strong runs.
nt=${#transports[@]} nc=${#gpu_counts[@]}
per_storage=$((2 * (1 + (nc - 1) * nt) + (largest > 1 ? nt : 0)))
total_runs=$((${#storages[@]} * per_storage))
echo "scaling_mpi.sh: $total_runs bench runs on 1..$largest GPUs (${gpu_counts[*]}), transports ${transports[*]}," \
  "storages ${storages[*]}; about $((total_runs * 10 / 60))-$((total_runs * 30 / 60 + 1)) min at 10-30 s a run" \
  "(each killed after $limit s)"

# Ranks per axis (x y z) that eddy chooses for g ranks (a power of two): MPI_Dims_create's balanced counts in
# non-increasing order, given to z, y, x -- i.e. double the axis with the fewest ranks, z first on a tie.
weak_grid() {  # g -> "NX NY NZ" with weak^3 cells per rank
  local g=$1 d=(1 1 1)
  if [[ $growth == z ]]; then
    echo "$weak $weak $((weak * g))"
    return
  fi
  while ((g > 1)); do
    if ((d[2] <= d[1] && d[2] <= d[0])); then
      ((d[2] *= 2))
    elif ((d[1] <= d[0])); then
      ((d[1] *= 2))
    else
      ((d[0] *= 2))
    fi
    ((g /= 2))
  done
  echo "$((weak * d[0])) $((weak * d[1])) $((weak * d[2]))"
}

csv=$out/scaling.csv
{
  echo "# command: $command_line"
  echo "# started $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname); $("$eddy" --version 2>&1 | head -n 1)"
  echo "scaling,storage,cells,gpus,transport,overlap,dims,grid,mlups_total,mlups_sd,mlups_per_gpu,efficiency,status,seconds,log"
} >"$csv"

run_index=0
# bench NAME RANKS STORAGE TRANSPORT OVERLAP NX NY NZ: one `eddy bench` under mpirun; sets mean sd dims status secs
bench() {
  local name=$1 ranks=$2 storage=$3 transport=$4 overlap=$5 nx=$6 ny=$7 nz=$8
  local json=$out/$name.json log=$out/$name.log rc start
  local cmd=(timeout -k 30 "$limit" mpirun --allow-run-as-root --bind-to none "${mpirun_extra[@]}" -n "$ranks"
    "$eddy" bench --grid "$nx" "$ny" "$nz" --storage "$storage" --json "$json" "${bench_extra[@]}")
  [[ $transport != - ]] && cmd+=(--transport "$transport")
  [[ $overlap == off ]] && cmd+=(--no-overlap)
  ((run_index += 1))
  printf '[%d/%d] %s: %s GPU(s), %s, transport %s, overlap %s, grid %sx%sx%s ... ' "$run_index" "$total_runs" \
    "$name" "$ranks" "$storage" "$transport" "$overlap" "$nx" "$ny" "$nz"
  rm -f "$json"
  printf '%q ' "${cmd[@]}" >"$log"
  echo >>"$log"
  start=$SECONDS
  "${cmd[@]}" >>"$log" 2>&1 </dev/null
  rc=$?
  secs=$((SECONDS - start))
  read -r mean sd dims < <(python3 "$helper" result "$json" "$log")
  if ((rc == 0)); then
    status=ok
    [[ $mean == nan ]] && status=no-result
  elif ((rc == 124 || rc == 137)); then
    status=timeout
  else  # eddy's exit codes (solver/exit_codes.hpp); 2, an input error, is its refusal of a transport it cannot use
    case $rc in
      1) status=failed ;;
      2) status=refused ;;
      3) status=unstable ;;
      4) status=no-memory ;;
      *) status=exit$rc ;;
    esac
  fi
  [[ $status != ok ]] && mean=nan sd=nan dims=-
  if [[ $status == ok ]]; then
    echo "$(python3 -c "print(f'{float(\"$mean\"):.1f}')") MLUPS, dims $dims, ${secs} s"
  else
    echo "$status (${secs} s): $(grep -m 1 'eddy: error' "$log" || echo "see $log")"
  fi
}

# row SCALING STORAGE CELLS GPUS TRANSPORT OVERLAP GRID BASE NAME: appends the last bench's results to the CSV
row() {
  local per_gpu eff
  read -r per_gpu eff < <(python3 "$helper" derive "$mean" "$4" "$8")
  echo "$1,$2,$3,$4,$5,$6,$dims,$7,$mean,$sd,$per_gpu,$eff,$status,$secs,$9.log" >>"$csv"
}

for s in "${storages[@]}"; do
  # weak scaling
  cells="${weak}^3 per GPU"
  read -r nx ny nz < <(weak_grid 1)
  bench "weak_${s}_1gpu" 1 "$s" - - "$nx" "$ny" "$nz"
  base=$mean
  row weak "$s" "$cells" 1 - - "${nx}x${ny}x${nz}" "$base" "weak_${s}_1gpu"
  for g in "${gpu_counts[@]:1}"; do
    read -r nx ny nz < <(weak_grid "$g")
    overlaps=(on)
    ((g == largest)) && overlaps+=(off)
    for overlap in "${overlaps[@]}"; do
      for t in "${transports[@]}"; do
        name="weak_${s}_${g}gpu_${t}_overlap_${overlap}"
        bench "$name" "$g" "$s" "$t" "$overlap" "$nx" "$ny" "$nz"
        row weak "$s" "$cells" "$g" "$t" "$overlap" "${nx}x${ny}x${nz}" "$base" "$name"
      done
    done
  done
  # strong scaling
  cells="${strong[0]}x${strong[1]}x${strong[2]} total"
  grid="${strong[0]}x${strong[1]}x${strong[2]}"
  bench "strong_${s}_1gpu" 1 "$s" - - "${strong[@]}"
  base=$mean
  row strong "$s" "$cells" 1 - - "$grid" "$base" "strong_${s}_1gpu"
  for g in "${gpu_counts[@]:1}"; do
    for t in "${transports[@]}"; do
      name="strong_${s}_${g}gpu_${t}"
      bench "$name" "$g" "$s" "$t" on "${strong[@]}"
      row strong "$s" "$cells" "$g" "$t" on "$grid" "$base" "$name"
    done
  done
done

echo "# finished $(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$csv"
echo
echo "wrote $csv ($run_index bench runs); markdown table for docs/performance.md:"
echo
python3 "$helper" markdown "$csv"
