"""Gradients through a run: recover a hidden body force from the velocity field it drives.

A periodic box starts at rest. A hidden per-cell force F_h (two shear modes, F_x = A sin(2 pi y / N) +
A/2 cos(4 pi y / N), F_y = A sin(2 pi x / N)) drives it for STEPS steps, and only the final velocity u_t is kept.
Starting from F = 0, the script minimises L(F) = 1/2 sum |u(F) - u_t|^2 over the per-cell force field, with
dL/dF from Simulation.gradient (the discrete adjoint of eddy's own step, no finite differences). Each iteration
takes a Polak-Ribiere conjugate direction d and the step length of the quadratic model along it,
alpha = -(dL/dF . d) / |u'(F) d|^2, with u'(F) d from one more forward run, (u(F + e d) - u(F)) / e, as in nonlinear conjugate gradients
(Nocedal & Wright 2006, Numerical Optimization, 2nd ed., sec. 5.2). It stops when the force is recovered to 0.1 %
(L2, relative) and fails unless it reaches 1 %.

The hidden force is divergence-free on purpose: a gradient part grad(phi) of a force is balanced by the pressure
and leaves the velocity (nearly, at low Mach number) unchanged, so no method recovers it from u. With a Gaussian
bump added to F_y, which has such a part, the same iterations stall near 10 % error.

    PYTHONPATH=build/cpu/python python3 examples/python/adjoint_force_recovery.py
Every build: on GPU builds the force is written through CuPy (or PyTorch). EDDY_EXAMPLE_QUICK=1: a small grid.
"""

import math
import os
import sys

import numpy as np

import eddy

QUICK = os.environ.get("EDDY_EXAMPLE_QUICK") == "1"
N = 16 if QUICK else 48
STEPS = 100 if QUICK else 400
A = 2e-5  # force density, lattice units: u stays below about 0.01

case = {
    "case": {"name": "force_recovery"},
    "domain": {"size": [N, N, 1], "periodic": [True, True, True]},
    "physics": {"tau": 0.8},
    "numerics": {"storage": "double"},
    "run": {"steps": STEPS},
    "output": {"vtk": False},
}


def set_force(sim, f):
    """Writes f, shape (1, N, N, 3), into sim.force (the simulation's own array)."""
    if eddy.backend == "cpu":
        np.asarray(sim.force)[...] = f
        return
    try:
        import cupy
        cupy.asarray(sim.force)[...] = cupy.asarray(f)
    except ImportError:
        import torch
        torch.from_dlpack(sim.force)[...] = torch.as_tensor(f, device="cuda")


def final_velocity(f):
    """u after STEPS steps from rest under force f."""
    with eddy.Simulation(case, quiet=True) as sim:
        set_force(sim, f)
        sim.step(STEPS)
        return sim.velocity.to_numpy()


def gradient(f, target):
    """(L, dL/dF, u(F)) for the mismatch to `target`."""
    with eddy.Simulation(case, quiet=True) as sim:
        set_force(sim, f)
        g = sim.gradient(STEPS, "velocity_mismatch", target=target)
        # g["force"] is a view of the adjoint's field (device memory on GPU builds): a host copy for NumPy here
        return g["objective"], g["force"].to_numpy(), sim.velocity.to_numpy()  # the simulation ends after the steps


y, x = np.meshgrid(np.arange(N) + 0.5, np.arange(N) + 0.5, indexing="ij")
hidden = np.zeros((1, N, N, 3))
hidden[0, ..., 0] = A * np.sin(2 * math.pi * y / N) + 0.5 * A * np.cos(4 * math.pi * y / N)
hidden[0, ..., 1] = A * np.sin(2 * math.pi * x / N)
target = final_velocity(hidden)

force = np.zeros_like(hidden)
direction = None
previous = None
error = 1.0
for iteration in range(1, 21):
    L, g, u = gradient(force, target)
    beta = 0.0 if previous is None else max(0.0, float(np.sum(g * (g - previous)) / np.sum(previous * previous)))
    direction = -g if direction is None else -g + beta * direction
    probe = A / float(np.max(np.abs(direction)))  # a force change of the hidden one's size, well inside the limit
    change = (final_velocity(force + probe * direction) - u) / probe  # u'(F) d
    alpha = -float(np.sum(g * direction)) / float(np.sum(change * change))
    force = force + alpha * direction
    previous = g
    error = float(np.linalg.norm(force - hidden) / np.linalg.norm(hidden))
    print("iteration %2d  L %.3e  |F - F_h| / |F_h| %.3e" % (iteration, L, error))
    if error < 1e-3:
        break
print("recovered the hidden force to %.2e (L2, relative) in %d iterations of %d steps on %d^2 cells"
      % (error, iteration, STEPS, N))
sys.exit(0 if error < 0.01 else 1)
