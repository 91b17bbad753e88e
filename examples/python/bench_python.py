"""Benchmark of the Python module (docs/performance.md, "Python module"); not a test.

1. Overhead of sim.step(1) in a Python loop against sim.step(S) in one call, lid-driven cavity N^3 (default 128),
   float storage: per call (t_loop - t_batch) / S, with sync_default_stream on (the default: two event records per
   call) and off.
2. A periodic box M^3 (default 256), float storage, three runs side by side, interleaved repetitions:
     body_force  - a constant built-in [physics] body_force F0;
     field       - the same F0 as a per-cell force field (sim.force) written once: the cost of the kernel variant;
     cupy_kernel - sim.force written by a CuPy RawKernel before every step (F_x = F0 + A sin(2 pi y / L), A = 0, so
                   every run computes the same flow), on sim.stream.
   MLUPS of each (mean and spread over the repetitions) and cupy_kernel / body_force. The runs' velocity fields are
   compared at the end (they must agree to float round-off).
Every timed region is bracketed by sim.synchronize(); warm-up steps come first.

    PYTHONPATH=build/cuda/python python3 examples/python/bench_python.py            # the H200 figures
    PYTHONPATH=build/cpu/python python3 examples/python/bench_python.py --size 32 --force-size 32 --steps 50
"""

import argparse
import statistics
import sys
import time

import numpy as np

import eddy

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--size", type=int, default=128, help="cavity N^3 for the step(1) overhead (default 128)")
parser.add_argument("--force-size", type=int, default=256, help="periodic box M^3 for the force runs (default 256)")
parser.add_argument("--steps", type=int, default=0, help="steps per timed repetition (default: ~1 s of work)")
parser.add_argument("--repeat", type=int, default=5, help="timed repetitions (default 5)")
args = parser.parse_args()

try:
    import cupy
except ImportError:
    cupy = None


def describe(values):
    mean = statistics.mean(values)
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    return mean, spread


def timed(sim, fn):
    sim.synchronize()
    start = time.perf_counter()
    fn()
    sim.synchronize()
    return time.perf_counter() - start


def calibrate(sim, cells):
    """Steps for about a second of work (at least 20), from a short timed run."""
    if args.steps:
        return args.steps
    seconds = timed(sim, lambda: sim.step(20))
    return max(20, int(20 / max(seconds, 1e-9)))


print("eddy %s, %s build" % (eddy.__version__, eddy.backend))

# ---- 1. step(1) overhead ------------------------------------------------------------------------------------------
n = args.size
cavity = {
    "case": {"name": "bench_cavity"},
    "domain": {"size": [n, n, n]},
    "boundary": {"y_max": {"type": "moving_wall", "velocity": [1.0, 0.0, 0.0]}},
    "physics": {"velocity": 0.05, "reynolds": 100},
    "run": {"steps": 10**9},
    "output": {"vtk": False},
}
for sync in (True, False):
    with eddy.Simulation(cavity, quiet=True, sync_default_stream=sync) as sim:
        sim.step(20)
        steps = calibrate(sim, n**3)
        overheads, batch_rates, host_calls = [], [], []
        for _ in range(args.repeat):
            t_batch = timed(sim, lambda: sim.step(steps))
            sim.synchronize()
            start = time.perf_counter()
            for _ in range(steps):
                sim.step(1)
            queued = time.perf_counter()  # the host's time per call (the GPU may still be working)
            sim.synchronize()
            t_loop = time.perf_counter() - start
            overheads.append((t_loop - t_batch) / steps * 1e6)
            host_calls.append((queued - start) / steps * 1e6)
            batch_rates.append(n**3 * steps / t_batch / 1e6)
        mean, spread = describe(overheads)
        host, host_spread = describe(host_calls)
        rate, rate_spread = describe(batch_rates)
        print("step(1) overhead at %d^3, sync_default_stream=%s: %.2f +- %.2f us per call (loop - batch; host time "
              "per call %.2f +- %.2f us; %d steps per repetition; step(%d): %.0f +- %.0f MLUPS)"
              % (n, sync, mean, spread, host, host_spread, steps, steps, rate, rate_spread))

# ---- 2. per-cell force written by a CuPy kernel against the built-in body force -------------------------------------
m = args.force_size
F0 = 1e-7


def box(name, body_force):
    return {
        "case": {"name": name},
        "domain": {"size": [m, m, m], "periodic": [True, True, True]},
        "physics": {"tau": 0.6, "body_force": [body_force, 0.0, 0.0]},
        "run": {"steps": 10**9},
        "output": {"vtk": False},
    }


KERNEL = r"""
extern "C" __global__ void force(float* f, long long sz, long long sy, long long sx, long long sc, int nx, int ny,
                                 int nz, int y0, int ly, float f0, float amplitude) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= (long long)nx * ny * nz) return;
  const int x = i % nx, y = (i / nx) % ny, z = i / ((long long)nx * ny);
  float* cell = f + z * sz + y * sy + x * sx;
  cell[0] = f0 + amplitude * sinf(6.2831853f * (float(y0 + y) + 0.5f) / float(ly));
  cell[sc] = 0.0f;
  cell[2 * sc] = 0.0f;
}
"""

runs = {"body_force": eddy.Simulation(box("bench_body_force", F0), output="bench_a", quiet=True,
                                      sync_default_stream=False),
        "field": eddy.Simulation(box("bench_field", 0.0), output="bench_b", quiet=True, sync_default_stream=False)}
if eddy.backend == "cpu":
    np.asarray(runs["field"].force)[..., 0] = np.float32(F0)
elif cupy is not None:
    cupy.asarray(runs["field"].force)[..., 0] = cupy.float32(F0)
else:  # a GPU build without CuPy: write the constant once through DLPack
    import torch
    torch.from_dlpack(runs["field"].force)[..., 0] = F0
runs["field"].synchronize()  # the write (on the default stream) is done before the first step

launch = None
if eddy.backend == "cuda" and cupy is not None:
    sim = runs["cupy_kernel"] = eddy.Simulation(box("bench_cupy", 0.0), output="bench_c", quiet=True,
                                                sync_default_stream=False)
    force = cupy.asarray(sim.force)
    kernel = cupy.RawKernel(KERNEL, "force")
    nz, ny, nx = sim.block_shape
    strides = [s // force.itemsize for s in force.strides]
    kernel_args = (force, *[cupy.int64(s) for s in strides], cupy.int32(nx), cupy.int32(ny), cupy.int32(nz),
                   cupy.int32(sim.block_origin[1]), cupy.int32(m), cupy.float32(F0), cupy.float32(0.0))
    stream = cupy.cuda.ExternalStream(sim.stream)
    blocks = ((nx * ny * nz + 255) // 256,)

    def launch():
        with stream:
            kernel(blocks, (256,), kernel_args)
else:
    print("cupy_kernel run skipped: it needs the cuda build and CuPy")

def advance(name, steps):
    """`steps` steps of run `name`; the CuPy run writes its force field before each one."""
    sim = runs[name]
    if name != "cupy_kernel":
        sim.step(steps)
        return
    for _ in range(steps):
        launch()
        sim.step(1)


for name in runs:
    advance(name, 10)  # warm-up
steps = args.steps
if not steps:  # about a second of the body-force run; the others take the same steps, so the flows stay equal
    seconds = timed(runs["body_force"], lambda: advance("body_force", 20))
    steps = max(20, int(20 / max(seconds, 1e-9)))
    for name in runs:
        if name != "body_force":
            advance(name, 20)
rates = {name: [] for name in runs}
for _ in range(args.repeat):
    for name, sim in runs.items():
        seconds = timed(sim, lambda: advance(name, steps))
        rates[name].append(m**3 * steps / seconds / 1e6)
for name, values in rates.items():
    mean, spread = describe(values)
    print("%dx%dx%d float %-12s %9.1f +- %6.1f MLUPS (%d steps x %d)" % (m, m, m, name, mean, spread, steps,
                                                                        args.repeat))
if "cupy_kernel" in rates:
    print("cupy_kernel / body_force: %.3f" % (statistics.mean(rates["cupy_kernel"]) /
                                              statistics.mean(rates["body_force"])))

# The runs advanced alike (10 + steps * repeat steps each) with the same force: their velocities must agree.
reference = runs["body_force"].velocity.to_numpy()
worst = 0.0
for name, sim in runs.items():
    assert sim.time_step == runs["body_force"].time_step
    worst = max(worst, float(np.max(np.abs(sim.velocity.to_numpy() - reference))))
scale = float(np.max(np.abs(reference)))
print("largest velocity difference between the runs: %.2e (of max |u| %.2e)" % (worst, scale))
for sim in runs.values():
    sim.close()
sys.exit(0 if worst <= 1e-3 * scale + 1e-12 else 1)
