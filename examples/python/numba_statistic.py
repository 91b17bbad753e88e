"""A numba-cuda kernel computes an in-situ statistic on eddy's velocity without leaving the device: the histogram
of the kinetic-energy density e = |u|^2 / 2 of a decaying 3D Taylor-Green vortex, every K steps.

numba.cuda.as_cuda_array takes sim.velocity through __cuda_array_interface__ (no copy; it synchronises with the
simulation's stream), the kernel runs on numba.cuda.external_stream(sim.stream), and only the histogram (a few
hundred integers) comes to the host.

    PYTHONPATH=build/cuda/python python3 examples/python/numba_statistic.py
Needs the cuda build of eddy and numba-cuda; skips with a message otherwise. EDDY_EXAMPLE_QUICK=1: a small run.
"""

import os
import sys

import numpy as np

import eddy

try:
    from numba import cuda
    have_numba = cuda.is_available()
except ImportError:
    have_numba = False
if eddy.backend != "cuda" or not have_numba:
    print("SKIPPED: numba_statistic.py needs eddy's cuda build and numba-cuda with a GPU (this is the %s build%s)"
          % (eddy.backend, "" if have_numba else ", without numba-cuda"))
    sys.exit(0)


# numba-cuda 0.30 (with numba 0.68) calls numpy.row_stack while it compiles a kernel. NumPy 2.0 deprecated that
# name as an alias of numpy.vstack and a later NumPy 2 release removed it (2.5.2 on the GPU machine lacks it).
# Restoring the alias lets those numba-cuda releases compile; it changes nothing where the name exists.
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack


def numba_compile_error():
    """Why numba-cuda cannot compile a kernel here, or None: some numba-cuda releases call NumPy functions that
    NumPy 2 removed while compiling; the alias above covers numpy.row_stack, others would show here."""
    @cuda.jit
    def probe(a):
        a[0] = 1.0

    try:
        a = cuda.device_array(1, dtype="float32")
        probe[1, 1](a)
        cuda.synchronize()
    except (AttributeError, ImportError, TypeError) as e:
        return "%s: %s" % (type(e).__name__, e)
    return None


why = numba_compile_error()
if why is not None:
    import numba
    print("SKIPPED: numba-cuda (numba %s, NumPy %s) cannot compile a kernel in this environment: %s"
          % (numba.__version__, np.__version__, why))
    sys.exit(0)

QUICK = os.environ.get("EDDY_EXAMPLE_QUICK") == "1"
N = 32 if QUICK else 128
STEPS = 200 if QUICK else 2000
EVERY = STEPS // 4
BINS = 64
U0 = 0.05
E_MAX = 0.5 * (U0 * 1.5) ** 2  # above the largest |u|^2 / 2 of the start


@cuda.jit
def energy_histogram(u, hist, e_max):
    z, y, x = cuda.grid(3)
    if z >= u.shape[0] or y >= u.shape[1] or x >= u.shape[2]:
        return
    e = 0.5 * (u[z, y, x, 0] ** 2 + u[z, y, x, 1] ** 2 + u[z, y, x, 2] ** 2)
    b = min(int(e / e_max * hist.shape[0]), hist.shape[0] - 1)
    cuda.atomic.add(hist, b, 1)


case = {
    "case": {"name": "taylor_green_numba"},
    "domain": {"size": [N, N, N], "periodic": [True, True, True]},
    "physics": {"velocity": U0, "reynolds": 200},
    "initial": {"type": "taylor_green_3d"},
    "run": {"steps": STEPS},
    "output": {"vtk": False},
}

with eddy.Simulation(case, quiet=True) as sim:
    stream = cuda.external_stream(sim.stream)
    hist = cuda.device_array(BINS, dtype="int64", stream=stream)
    nz, ny, nx = sim.block_shape
    threads = (4, 8, 8)
    blocks = ((nz + 3) // 4, (ny + 7) // 8, (nx + 7) // 8)
    rows = []

    zeros = np.zeros(BINS, dtype=np.int64)
    centres = (np.arange(BINS) + 0.5) * E_MAX / BINS

    def statistic(s):
        view = s.velocity
        u = cuda.as_cuda_array(view)  # eddy's read-out buffer, no copy
        assert u.__cuda_array_interface__["data"][0] == view.data_ptr
        hist.copy_to_device(zeros, stream=stream)
        energy_histogram[blocks, threads, stream](u, hist, E_MAX)
        counts = hist.copy_to_host(stream=stream)  # BINS integers: all that leaves the device
        stream.synchronize()
        mean = float((counts * centres).sum() / counts.sum())
        rows.append((s.time_step, counts.sum(), mean))
        print("step %5d  cells %d  mean e %.3e  (from the histogram)" % (s.time_step, counts.sum(), mean))

    statistic(sim)
    sim.run(callback=statistic, every=EVERY)

assert all(r[1] == N**3 for r in rows), "the histogram must count every cell once"
assert rows[-1][2] < rows[0][2], "the vortex decays"
print("histogram of e = |u|^2 / 2 computed on the device every %d steps" % EVERY)
