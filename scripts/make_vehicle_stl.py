#!/usr/bin/env python3
"""A simple vehicle body with a rounded front as a binary STL, for a [[solid]] mesh = "..." entry.

The body is lofted along x through cross-sections that are rounded rectangles (width, height, corner radius):
an elliptic nose (the sections grow as sqrt(1 - (1 - x / nose)^2) over the first --nose of the length), a straight
middle, and a rear whose roof slants down by --slant degrees over the last --slant-length (a fastback, in the manner
of the Ahmed body, Ahmed, Ramm & Faltin 1984, SAE 840300, without its stilts). The nose closes in a fan round a tip
at x = 0, the rear in a flat fan. The mesh is closed and consistently oriented (outward normals), in the units of
the dimensions (default: metres of a body 1.0 long, 0.37 wide, 0.28 high, its bottom at z = 0, centred on y = 0);
scale, rotate and translate it in the case. Python 3 standard library only.

    python3 scripts/make_vehicle_stl.py cases/vehicle.stl
"""

import argparse
import math
import struct
import sys


def add_shape_arguments(p):
    """The body's dimensions, shared with make_vehicle_voxels.py."""
    p.add_argument("--length", type=float, default=1.0, help="body length along x (default 1.0)")
    p.add_argument("--width", type=float, default=0.37, help="body width along y (default 0.37)")
    p.add_argument("--height", type=float, default=0.28, help="body height along z (default 0.28)")
    p.add_argument("--nose", type=float, default=0.2, help="length of the rounded nose (default 0.2)")
    p.add_argument("--corner", type=float, default=0.06, help="corner radius of the sections (default 0.06)")
    p.add_argument("--slant", type=float, default=25.0, help="roof slant at the rear, degrees (default 25)")
    p.add_argument("--slant-length", type=float, default=0.22, help="length of the slanted roof (default 0.22)")


def check_shape(p, a):
    if min(a.length, a.width, a.height, a.nose, a.corner) <= 0 or a.nose + a.slant_length >= a.length:
        p.error("dimensions must be > 0, and nose + slant-length < length")
    if a.height - a.slant_length * math.tan(math.radians(a.slant)) <= 2 * a.corner:
        p.error("the slant leaves no room for the corners at the rear: lower --slant or --corner")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("output", help="binary STL to write")
    add_shape_arguments(p)
    p.add_argument("--sections", type=int, default=48, help="cross-sections along the body (default 48)")
    p.add_argument("--corner-points", type=int, default=8, help="points per rounded corner (default 8)")
    a = p.parse_args(argv)
    check_shape(p, a)
    if a.sections < 4 or a.corner_points < 2:
        p.error("--sections >= 4 and --corner-points >= 2")
    return a


def stations(a):
    """x of the sections: dense over the nose (cosine spacing), then even."""
    n_nose = max(2, a.sections // 3)
    xs = [a.nose * (1.0 - math.cos(0.5 * math.pi * k / n_nose)) for k in range(1, n_nose + 1)]
    n_rest = a.sections - n_nose
    xs += [a.nose + (a.length - a.nose) * k / n_rest for k in range(1, n_rest + 1)]
    return xs


def section_bounds(a, x):
    """The rounded rectangle at 0 <= x <= length: (half width, bottom, top, corner radius)."""
    f = 1.0
    if x < a.nose:
        f = math.sqrt(max(0.0, 1.0 - (1.0 - x / a.nose) ** 2))
    half_w = 0.5 * a.width * f
    mid = 0.5 * a.height
    bottom, top = mid - 0.5 * a.height * f, mid + 0.5 * a.height * f
    start = a.length - a.slant_length
    if x > start:
        top = a.height - (x - start) * math.tan(math.radians(a.slant))
    r = min(a.corner * f, 0.49 * half_w * 2, 0.49 * (top - bottom))
    return half_w, bottom, top, r


def section(a, x):
    """The rounded rectangle at x: points (x, y, z), counter-clockwise seen from +x."""
    half_w, bottom, top, r = section_bounds(a, x)
    m = a.corner_points
    corners = [(half_w - r, top - r, 0.0), (-half_w + r, top - r, 90.0), (-half_w + r, bottom + r, 180.0),
               (half_w - r, bottom + r, 270.0)]
    points = []
    for (cy, cz, angle) in corners:
        for k in range(m):
            t = math.radians(angle + 90.0 * k / (m - 1))
            points.append((x, cy + r * math.cos(t), cz + r * math.sin(t)))
    return points, 0.5 * (bottom + top)


def inside(a, x, y, z):
    """Whether (x, y, z) lies inside the exact (not faceted) body the mesh approximates."""
    if not 0.0 < x < a.length:
        return False
    half_w, bottom, top, r = section_bounds(a, x)
    if abs(y) > half_w or not bottom <= z <= top:
        return False
    dy = abs(y) - (half_w - r)
    dz = max(z - (top - r), (bottom + r) - z)
    return dy <= 0.0 or dz <= 0.0 or dy * dy + dz * dz <= r * r


def body(a):
    triangles = []
    rings = []
    centres = []
    for x in stations(a):
        ring, zc = section(a, x)
        rings.append(ring)
        centres.append(zc)
    n = len(rings[0])
    tip = (0.0, 0.0, 0.5 * a.height)
    for k in range(n):  # nose fan, facing -x
        triangles.append((tip, rings[0][(k + 1) % n], rings[0][k]))
    for i in range(len(rings) - 1):
        ra, rb = rings[i], rings[i + 1]
        for k in range(n):
            a0, a1, b0, b1 = ra[k], ra[(k + 1) % n], rb[k], rb[(k + 1) % n]
            triangles.append((a0, a1, b1))
            triangles.append((a0, b1, b0))
    tail = (a.length, 0.0, centres[-1])
    for k in range(n):  # rear fan, facing +x
        triangles.append((tail, rings[-1][k], rings[-1][(k + 1) % n]))
    return triangles


def volume(triangles):
    v = 0.0
    for (p, q, r) in triangles:
        v += (p[0] * (q[1] * r[2] - q[2] * r[1]) + p[1] * (q[2] * r[0] - q[0] * r[2]) +
              p[2] * (q[0] * r[1] - q[1] * r[0])) / 6.0
    return v


def write_binary_stl(path, triangles):
    with open(path, "wb") as f:
        f.write(b"eddy vehicle body (scripts/make_vehicle_stl.py)".ljust(80, b" "))
        f.write(struct.pack("<I", len(triangles)))
        for (p, q, r) in triangles:
            u = [q[k] - p[k] for k in range(3)]
            w = [r[k] - p[k] for k in range(3)]
            nrm = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]]
            s = math.sqrt(sum(c * c for c in nrm)) or 1.0
            f.write(struct.pack("<3f", *[c / s for c in nrm]))
            for v in (p, q, r):
                f.write(struct.pack("<3f", *v))
            f.write(b"\0\0")


def main(argv):
    a = parse_args(argv)
    triangles = body(a)
    write_binary_stl(a.output, triangles)
    print("%s: %d triangles, length %g, width %g, height %g, enclosed volume %.5g (outward normals)"
          % (a.output, len(triangles), a.length, a.width, a.height, volume(triangles)))


if __name__ == "__main__":
    main(sys.argv[1:])
