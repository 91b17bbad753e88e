#!/usr/bin/env python3
"""A random pack of non-overlapping spheres as a voxel file for a [[solid]] voxels = "..." entry.

Random sequential addition: sphere centres are drawn uniformly (seeded Mersenne Twister, Python's random module)
and a sphere is kept when it overlaps no earlier one (gap >= --gap cells between surfaces, measured across the
periodic axes too), until the solid fraction reaches --fraction or --attempts draws are spent. Voxel (i, j, k) is
solid when its centre (i + 0.5, j + 0.5, k + 0.5) lies inside a sphere; spheres wrap across the axes named by
--periodic (default x and z, as cases/porous_channel.toml), so the medium is periodic like the domain, and are cut
off at the other axes' faces.

Output by the extension: .vti (VTK XML ImageData, one UInt8 point array "solid", appended raw data, readable by
eddy and ParaView) or anything else: raw bytes, one uint8 per voxel, x fastest (byte i + nx (j + ny k)), 1 = solid,
for a [[solid]] with dimensions = [nx, ny, nz]. Python 3 standard library only.

    python3 scripts/make_sphere_pack.py cases/sphere_pack.raw --size 96 48 48 --radius 5 --fraction 0.3 --seed 1
"""

import argparse
import random
import struct
import sys


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("output", help="voxel file to write: .vti, or raw uint8 (any other extension)")
    p.add_argument("--size", type=int, nargs=3, default=[96, 48, 48], metavar=("NX", "NY", "NZ"),
                   help="voxels per axis (default 96 48 48, the domain of cases/porous_channel.toml)")
    p.add_argument("--radius", type=float, default=5.0, help="sphere radius in voxels (default 5)")
    p.add_argument("--radius-spread", type=float, default=0.0,
                   help="radii drawn uniformly in radius +- spread (default 0: all equal)")
    p.add_argument("--fraction", type=float, default=0.3, help="target solid fraction of the voxels (default 0.3)")
    p.add_argument("--gap", type=float, default=1.0,
                   help="least distance between two sphere surfaces, voxels (default 1: pores stay open)")
    p.add_argument("--periodic", default="xz", help="axes the spheres wrap across (default xz; '' for none)")
    p.add_argument("--wall-gap", type=float, default=1.0,
                   help="least distance from a sphere to a non-periodic face, voxels (default 1)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--attempts", type=int, default=200000, help="centres drawn at most (default 200000)")
    a = p.parse_args(argv)
    if min(a.size) < 1:
        p.error("--size: every dimension must be >= 1")
    if a.radius <= 0 or a.radius_spread < 0 or a.radius_spread >= a.radius:
        p.error("--radius must be > 0 and --radius-spread in [0, radius)")
    if not 0 < a.fraction < 1:
        p.error("--fraction must lie in (0, 1)")
    if set(a.periodic) - set("xyz"):
        p.error("--periodic takes the letters x, y, z")
    return a


def place_spheres(a):
    """Centres and radii by random sequential addition."""
    rng = random.Random(a.seed)
    size = a.size
    periodic = ["xyz"[k] in a.periodic for k in range(3)]
    spheres = []
    volume = 0.0
    target = a.fraction * size[0] * size[1] * size[2]
    for _ in range(a.attempts):
        if volume >= target:
            break
        r = a.radius + (rng.uniform(-a.radius_spread, a.radius_spread) if a.radius_spread else 0.0)
        c = []
        for k in range(3):
            if periodic[k]:
                c.append(rng.uniform(0.0, size[k]))
            else:
                lo, hi = r + a.wall_gap, size[k] - r - a.wall_gap
                if hi < lo:
                    sys.exit("make_sphere_pack.py: a sphere of radius %g does not fit between the %s faces"
                             % (r, "xyz"[k]))
                c.append(rng.uniform(lo, hi))
        ok = True
        for (d, s) in spheres:
            dist2 = 0.0
            for k in range(3):
                delta = abs(c[k] - d[k])
                if periodic[k]:
                    delta = min(delta, size[k] - delta)
                dist2 += delta * delta
            if dist2 < (r + s + a.gap) ** 2:
                ok = False
                break
        if ok:
            spheres.append((c, r))
            volume += 4.0 / 3.0 * 3.141592653589793 * r ** 3
    return spheres


def voxelise(a, spheres):
    nx, ny, nz = a.size
    periodic = ["xyz"[k] in a.periodic for k in range(3)]
    mask = bytearray(nx * ny * nz)
    for (c, r) in spheres:
        ranges = []
        for k, n in enumerate(a.size):
            lo, hi = int(c[k] - r - 1), int(c[k] + r + 1) + 1
            ranges.append([i for i in range(lo, hi) if periodic[k] or 0 <= i < n])
        r2 = r * r
        for kk in ranges[2]:
            dz = kk + 0.5 - c[2]
            z = kk % nz
            for jj in ranges[1]:
                dy = jj + 0.5 - c[1]
                rest = r2 - dz * dz - dy * dy
                if rest < 0:
                    continue
                y = jj % ny
                row = nx * (y + ny * z)
                for ii in ranges[0]:
                    dx = ii + 0.5 - c[0]
                    if dx * dx <= rest:
                        mask[row + ii % nx] = 1
    return mask


def write_vti(path, size, mask):
    nx, ny, nz = size
    extent = "0 %d 0 %d 0 %d" % (nx - 1, ny - 1, nz - 1)
    header = ('<?xml version="1.0"?>\n'
              '<VTKFile type="ImageData" version="1.0" byte_order="LittleEndian" header_type="UInt64">\n'
              '  <ImageData WholeExtent="%s" Origin="0.5 0.5 0.5" Spacing="1 1 1">\n'
              '    <Piece Extent="%s">\n'
              '      <PointData Scalars="solid">\n'
              '        <DataArray type="UInt8" Name="solid" format="appended" offset="0"/>\n'
              '      </PointData>\n'
              '    </Piece>\n'
              '  </ImageData>\n'
              '  <AppendedData encoding="raw">\n   _' % (extent, extent))
    with open(path, "wb") as f:
        f.write(header.encode("ascii"))
        f.write(struct.pack("<Q", len(mask)))
        f.write(mask)
        f.write(b"\n  </AppendedData>\n</VTKFile>\n")


def main(argv):
    a = parse_args(argv)
    spheres = place_spheres(a)
    mask = voxelise(a, spheres)
    solid = sum(mask)
    if a.output.lower().endswith(".vti"):
        write_vti(a.output, a.size, mask)
        kind = '.vti, array "solid"'
    else:
        with open(a.output, "wb") as f:
            f.write(mask)
        kind = "raw uint8, x fastest: dimensions = [%d, %d, %d]" % tuple(a.size)
    print("%s: %d spheres, %d of %d voxels solid (fraction %.3f; target %.3f), %s"
          % (a.output, len(spheres), solid, len(mask), solid / len(mask), a.fraction, kind))


if __name__ == "__main__":
    main(sys.argv[1:])
