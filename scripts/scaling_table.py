#!/usr/bin/env python3
"""Helpers of scripts/scaling_mpi.sh (standard library only).

  scaling_table.py result JSON LOG       prints "MLUPS_MEAN MLUPS_SD DIMS" of one `eddy bench` run: the means from
                                         its --json file, DIMS ("XxYxZ", ranks per axis) from the line
                                         "N ranks as X x Y x Z" that the bench prints on rank 0 with more than one
                                         rank ("1x1x1" when the JSON says 1 rank); "nan nan -" when unreadable
  scaling_table.py derive M G BASE       prints "PER_GPU EFFICIENCY": M / G to 1 decimal and M / (G * BASE) to 3
                                         decimals (nan where M or BASE is not a number)
  scaling_table.py markdown CSV          prints the CSV written by scaling_mpi.sh as a markdown table
"""
import csv
import json
import math
import re
import sys


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def result(json_path, log_path):
    try:
        with open(json_path) as f:
            d = json.load(f)
        mean, sd, ranks = float(d["mlups_mean"]), float(d["mlups_sd"]), int(d["ranks"])
    except (OSError, ValueError, KeyError, TypeError):
        print("nan nan -")
        return
    dims = "1x1x1" if ranks == 1 else "-"
    try:
        with open(log_path, errors="replace") as f:
            m = re.search(r"(\d+) ranks as (\d+) x (\d+) x (\d+)", f.read())
        if m:
            dims = f"{m.group(2)}x{m.group(3)}x{m.group(4)}"
    except OSError:
        pass
    print(f"{mean!r} {sd!r} {dims}")


def derive(m, g, base):
    m, g, base = number(m), number(g), number(base)
    per_gpu = "nan" if math.isnan(m) or not g > 0 else f"{m / g:.1f}"
    eff = "nan" if math.isnan(m) or not g > 0 or not base > 0 else f"{m / (g * base):.3f}"
    print(per_gpu, eff)


def mlups(x):
    """Thousands separators for GPU-sized figures, one decimal for small (CPU test) figures."""
    return "nan" if math.isnan(x) else f"{x:,.0f}" if abs(x) >= 100 else f"{x:.1f}"


def markdown(csv_path):
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    head = ["scaling", "storage", "cells", "GPUs", "transport", "overlap", "dims (x y z)", "grid",
            "MLUPS total (+- sd)", "MLUPS per GPU", "efficiency"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        total, sd, per_gpu = number(r["mlups_total"]), number(r["mlups_sd"]), number(r["mlups_per_gpu"])
        status = r["status"]
        if status == "ok" and not math.isnan(total):
            measured = f"{mlups(total)} +- {mlups(sd)}"
        elif status == "ok":
            measured = "nan"
        else:
            measured = status if status == "refused" else f"nan ({status})"
        dims = r["dims"].replace("x", " x ") if r["dims"] != "-" else "-"
        cells = r["cells"].replace("x", " x ")
        print("| " + " | ".join([
            r["scaling"], r["storage"], cells, r["gpus"], r["transport"], r["overlap"], dims,
            r["grid"].replace("x", " x "), measured, "-" if status == "refused" else mlups(per_gpu),
            "-" if status == "refused" else r["efficiency"]]) + " |")


def main(argv):
    if len(argv) == 4 and argv[1] == "result":
        result(argv[2], argv[3])
    elif len(argv) == 5 and argv[1] == "derive":
        derive(*argv[2:])
    elif len(argv) == 3 and argv[1] == "markdown":
        markdown(argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
