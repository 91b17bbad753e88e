#!/usr/bin/env python3
"""Plot C_D and C_L against time for every solid of an eddy forces file.

Usage: scripts/plot_forces.py output/<case>_forces.csv [-o forces.png] [--from T]

Reads the CSV that `eddy run` writes for [[solid]] bodies with forces = true (columns step, time, then per solid
<name>_Fx ... <name>_CD, <name>_CL; cases/README.md, "Forces on solid bodies") and writes a PNG with two panels,
C_D and C_L against time, one line per solid. Time is in s for a case with [units], in steps otherwise. Needs
matplotlib (Debian: python3-matplotlib). Exit codes: 0 written, 1 matplotlib missing, 2 a missing or malformed CSV
(one line on stderr naming the file and what is wrong), 3 the PNG cannot be written.
"""

import argparse
import csv
import math
import os
import sys


def fail(code, message):
    print("plot_forces.py: error: " + message, file=sys.stderr)
    sys.exit(code)


def read_series(path):
    """The time column, its unit and {solid: (C_D, C_L)} of the forces file at path; exits 2 on any problem."""
    if not os.path.exists(path):
        fail(2, f"{path}: no such file (eddy writes <output>/<case>_forces.csv for solids with forces = true)")
    if not os.path.isfile(path):
        fail(2, f"{path}: not a regular file")
    try:
        with open(path, newline="", encoding="ascii") as f:
            rows = [row for row in csv.reader(f) if row and not row[0].lstrip().startswith("#")]
    except (OSError, UnicodeDecodeError) as e:
        fail(2, f"{path}: cannot be read ({e})")
    if not rows:
        fail(2, f"{path}: empty (no header line)")
    header = [name.strip() for name in rows[0]]
    if len(header) < 2 or header[0] != "step" or header[1] != "time":
        fail(2, f"{path}: line 1 does not start with the columns step,time: not an eddy forces file")
    solids = [name[:-3] for name in header if name.endswith("_CD")]
    solids = [s for s in solids if s + "_CL" in header]
    if not solids:
        fail(2, f"{path}: no <name>_CD and <name>_CL columns (written by eddy since the coefficients exist)")
    data = {name: [] for name in header}
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            fail(2, f"{path}: line {number} has {len(row)} cells, the header {len(header)}")
        for name, cell in zip(header, row):
            try:
                data[name].append(float(cell))
            except ValueError:
                fail(2, f"{path}: line {number}, column '{name}': '{cell.strip()}' is not a number")
    if not data["time"]:
        fail(2, f"{path}: no samples (only the header): the run took none yet")
    # The time unit: steps when time equals the step, s for a case with [units] (time = step dt).
    unit = "steps" if data["time"] == data["step"] else "s"
    return data["time"], unit, {s: (data[s + "_CD"], data[s + "_CL"]) for s in solids}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", help="the forces file, <output>/<case>_forces.csv")
    parser.add_argument("-o", "--output", help="the PNG to write (default: the CSV's name with .png)")
    parser.add_argument("--from", dest="start", type=float, default=-math.inf,
                        help="plot only samples at this time or later (the CSV's time units)")
    args = parser.parse_args()
    time, unit, series = read_series(args.csv)
    try:
        import matplotlib
        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        fail(1, "matplotlib is not installed (Debian: apt-get install python3-matplotlib)")
    keep = [i for i, t in enumerate(time) if t >= args.start]
    if not keep:
        fail(2, f"{args.csv}: no samples at or after --from {args.start}")
    figure, (drag, lift) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    for name, (cd, cl) in series.items():
        drag.plot([time[i] for i in keep], [cd[i] for i in keep], label=name)
        lift.plot([time[i] for i in keep], [cl[i] for i in keep], label=name)
    drag.set_ylabel("C_D")
    lift.set_ylabel("C_L")
    lift.set_xlabel("time (s)" if unit == "s" else "time (steps)")
    drag.legend(loc="best")
    drag.grid(True, alpha=0.3)
    lift.grid(True, alpha=0.3)
    figure.suptitle(os.path.basename(args.csv))
    figure.tight_layout()
    output = args.output or os.path.splitext(args.csv)[0] + ".png"
    try:
        figure.savefig(output, format="png", dpi=100)
    except OSError as e:
        fail(3, f"{output}: cannot be written ({e})")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
