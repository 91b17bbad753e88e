"""A CuPy RawKernel drives the flow: Kolmogorov forcing F_x = F0 sin(2 pi y / L_y) written into sim.force every
step, on eddy's own stream, with no copies and no synchronisation.

The laminar steady state of that forcing in a periodic box is u_x = F0 L_y^2 / (4 pi^2 nu) sin(2 pi y / L_y); the
script runs to it and compares. The kernel gets the force field's device pointer and strides from
__cuda_array_interface__ (through cupy.asarray, which makes no copy) and is launched on
cupy.cuda.ExternalStream(sim.stream), so it is ordered with eddy's steps.

    PYTHONPATH=build/cuda/python python3 examples/python/cupy_kolmogorov.py
Needs the cuda build of eddy and CuPy; skips with a message otherwise. EDDY_EXAMPLE_QUICK=1: a small run.
"""

import math
import os
import sys

import eddy

try:
    import cupy
except ImportError:
    cupy = None
if eddy.backend != "cuda" or cupy is None:
    print("SKIPPED: cupy_kolmogorov.py needs eddy's cuda build and CuPy (this is the %s build%s)"
          % (eddy.backend, "" if cupy is not None else ", without CuPy"))
    sys.exit(0)

QUICK = os.environ.get("EDDY_EXAMPLE_QUICK") == "1"
L = 32 if QUICK else 64
NU = 0.1
U_MAX = 0.01
F0 = U_MAX * 4 * math.pi**2 * NU / L**2
STEPS = int(6 * L**2 / (4 * math.pi**2 * NU))  # six viscous times: within 1 % of the steady state

KERNEL = r"""
extern "C" __global__ void kolmogorov(REAL* force, long long sz, long long sy, long long sx, long long sc,
                                      int nx, int ny, int nz, int y0, int ly, REAL f0) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= (long long)nx * ny * nz) return;
  const int x = i % nx, y = (i / nx) % ny, z = i / ((long long)nx * ny);
  REAL* cell = force + z * sz + y * sy + x * sx;
  cell[0] = f0 * sin(REAL(2 * 3.14159265358979323846) * (REAL(y0 + y) + REAL(0.5)) / REAL(ly));
  cell[sc] = REAL(0);
  cell[2 * sc] = REAL(0);
}
"""

case = {
    "case": {"name": "kolmogorov_cupy"},
    "domain": {"size": [8, L, 1], "periodic": [True, True, True]},
    "physics": {"tau": 3 * NU + 0.5},
    "run": {"steps": STEPS},
    "output": {"vtk": False},
}

with eddy.Simulation(case, quiet=True) as sim:
    force = cupy.asarray(sim.force)  # (nz, ny, nx, 3), eddy's memory
    assert force.data.ptr == sim.force.data_ptr
    real = "float" if force.dtype == cupy.float32 else "double"
    kernel = cupy.RawKernel(KERNEL.replace("REAL", real), "kolmogorov")
    nz, ny, nx = sim.block_shape
    strides = [s // force.itemsize for s in force.strides]
    cells = nx * ny * nz
    args = (force, *[cupy.int64(s) for s in strides], cupy.int32(nx), cupy.int32(ny), cupy.int32(nz),
            cupy.int32(sim.block_origin[1]), cupy.int32(L), force.dtype.type(F0))
    stream = cupy.cuda.ExternalStream(sim.stream)
    for _ in range(STEPS):
        with stream:  # queued behind the previous step, ahead of the next: no synchronisation
            kernel(((cells + 255) // 256,), (256,), args)
        sim.step(1)
    u = cupy.asarray(sim.velocity)[0, :, :, 0].mean(axis=1)  # synchronises with sim.stream (CAI v3)
    y = cupy.arange(L) + 0.5
    exact = F0 * L**2 / (4 * math.pi**2 * NU) * cupy.sin(2 * math.pi * y / L)
    error = float(cupy.max(cupy.abs(u - exact)) / cupy.max(cupy.abs(exact)))

print("Kolmogorov flow driven by a CuPy kernel, L_y = %d, %d steps: max |u_x - exact| / u_max = %.2e"
      % (L, STEPS, error))
sys.exit(0 if error < 0.01 else 1)
