#!/usr/bin/env python3
"""The vehicle body of make_vehicle_stl.py as a raw voxel file, for a [[solid]] voxels = "..." entry.

A cell is solid when its centre lies inside the exact body (the rounded-rectangle sections that the STL facets
approximate), placed as a mesh solid is: the body's own origin (nose tip at x = 0, centred on y = 0, bottom at
z = 0) scaled by --scale and moved to --translate, in cells. Cell (i, j, k) has its centre at (i + 0.5, j + 0.5,
k + 0.5), as in eddy (cases/README.md "Solid bodies"). The file covers the body's bounding box in whole cells, one
uint8 per voxel, x fastest (byte i + nx (j + ny k)); the script prints the `dimensions` and `offset` that the case's
[[solid]] needs, the solid voxel count and the body's projected area along x in cells^2 (its `reference_area` as a
voxel body). Builds without VTK (the GPU build) read raw voxels but not meshes; this is the vehicle for them.
Python 3 standard library only.

    python3 scripts/make_vehicle_voxels.py cases/vehicle_voxels.raw --scale 128 --translate 192 128 6.4
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_vehicle_stl as shape  # noqa: E402  (the body's definition, shared with the mesh)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("output", help="raw voxel file to write")
    p.add_argument("--scale", type=float, required=True, help="cells per unit of the body's dimensions")
    p.add_argument("--translate", type=float, nargs=3, default=[0.0, 0.0, 0.0], metavar=("X", "Y", "Z"),
                   help="where the body's origin (nose tip, centre line, bottom) goes, in cells (default 0 0 0)")
    shape.add_shape_arguments(p)
    a = p.parse_args(argv)
    shape.check_shape(p, a)
    if not (a.scale > 0 and math.isfinite(a.scale)) or not all(math.isfinite(t) for t in a.translate):
        p.error("--scale must be finite and > 0, --translate finite")
    box = (a.length * a.scale + 1) * (a.width * a.scale + 1) * (a.height * a.scale + 1)
    if box > 2.0 ** 31:
        p.error("the body's bounding box would hold %.3g voxels (more than 2^31): lower --scale" % box)
    return a


def voxelise(a):
    """(offset, dimensions, bytes, solid count, projected area) of the body's bounding box."""
    s = a.scale
    tx, ty, tz = a.translate
    lo = [math.floor(tx), math.floor(ty - 0.5 * a.width * s), math.floor(tz)]
    hi = [math.ceil(tx + a.length * s), math.ceil(ty + 0.5 * a.width * s), math.ceil(tz + a.height * s)]
    nx, ny, nz = (hi[d] - lo[d] for d in range(3))
    data = bytearray(nx * ny * nz)
    shadow = set()
    count = 0
    for i in range(nx):
        x = (lo[0] + i + 0.5 - tx) / s
        if not 0.0 < x < a.length:
            continue
        for k in range(nz):
            z = (lo[2] + k + 0.5 - tz) / s
            row = nx * ny * k + i
            for j in range(ny):
                if shape.inside(a, x, (lo[1] + j + 0.5 - ty) / s, z):
                    data[row + nx * j] = 1
                    shadow.add((j, k))
                    count += 1
    return lo, (nx, ny, nz), data, count, len(shadow)


def main(argv):
    a = parse_args(argv)
    offset, dims, data, count, area = voxelise(a)
    tmp = a.output + ".tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, a.output)
    except OSError as e:
        sys.exit("make_vehicle_voxels.py: cannot write %s: %s" % (a.output, e.strerror))
    print("%s: dimensions = [%d, %d, %d], offset = [%d, %d, %d], %d solid voxels, projected area along x %d cells^2"
          % ((a.output,) + tuple(dims) + tuple(offset) + (count, area)))


if __name__ == "__main__":
    main(sys.argv[1:])
