"""PyTorch collects velocity snapshots through DLPack: the start of an ML workflow (here: a proper orthogonal
decomposition of the snapshots with torch.linalg.svd).

torch.from_dlpack(sim.velocity) is the simulation's read-out buffer itself (no copy: the same device pointer);
each snapshot is copied on the device into one preallocated tensor. Works on the cuda build (kDLCUDA) and on the
cpu build (kDLCPU) alike.

    PYTHONPATH=build/cuda/python python3 examples/python/torch_snapshots.py
Needs PyTorch; skips with a message otherwise. EDDY_EXAMPLE_QUICK=1: a small run.
"""

import os
import sys

import eddy

try:
    import torch
except ImportError:
    print("SKIPPED: torch_snapshots.py needs PyTorch")
    sys.exit(0)
if eddy.backend == "hip" or (eddy.backend == "cuda" and not torch.cuda.is_available()):
    print("SKIPPED: torch_snapshots.py needs a PyTorch with %s support" % eddy.backend)
    sys.exit(0)

QUICK = os.environ.get("EDDY_EXAMPLE_QUICK") == "1"
N = 32 if QUICK else 128
STEPS = 400 if QUICK else 20000
SNAPSHOTS = 16

case = {
    "case": {"name": "cavity_torch"},
    "domain": {"size": [N, N, 1], "periodic": [False, False, True]},
    "boundary": {"y_max": {"type": "moving_wall", "velocity": [1.0, 0.0, 0.0]}},
    "physics": {"velocity": 0.1, "reynolds": 100},
    "run": {"steps": STEPS},
    "output": {"vtk": False},
}

with eddy.Simulation(case, quiet=True) as sim:
    first = sim.velocity
    t = torch.from_dlpack(first)
    assert t.data_ptr() == first.data_ptr, "DLPack hands over eddy's memory"
    snapshots = torch.empty((SNAPSHOTS,) + tuple(t.shape), dtype=t.dtype, device=t.device)
    taken = []

    def collect(s):
        snapshots[len(taken)].copy_(torch.from_dlpack(s.velocity))  # device to device
        taken.append(s.time_step)

    sim.run(callback=collect, every=STEPS // SNAPSHOTS)

X = snapshots.reshape(SNAPSHOTS, -1).double()
X = X - X.mean(dim=0)
energy = torch.linalg.svdvals(X) ** 2
fraction = (energy[:3].sum() / energy.sum()).item()
print("%d snapshots of %s on %s (steps %d..%d); the first 3 POD modes hold %.1f %% of the fluctuation energy"
      % (SNAPSHOTS, tuple(t.shape), t.device, taken[0], taken[-1], 100 * fraction))
