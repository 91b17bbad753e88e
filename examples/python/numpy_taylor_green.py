"""NumPy on eddy's fields: the decay of a 2D Taylor-Green vortex, analysed in place.

The kinetic energy of u = U0 sin(kx x) cos(ky y), v = -U0 cos(kx x) sin(ky y) decays as
E(t) = E(0) exp(-2 nu (kx^2 + ky^2) t) (Taylor & Green 1937). Every 100 steps the script reads the velocity through
a NumPy view of the simulation's read-out buffer (no copy on the cpu build; a host copy on GPU builds) and compares
the energy with that law.

    PYTHONPATH=build/cpu/python python3 examples/python/numpy_taylor_green.py
EDDY_EXAMPLE_QUICK=1 runs a small grid (what the tests do).
"""

import math
import os
import sys

import numpy as np

import eddy

QUICK = os.environ.get("EDDY_EXAMPLE_QUICK") == "1"
N = 32 if QUICK else 128
STEPS = 400 if QUICK else 4000
U0 = 0.05
NU = 0.02

case = {
    "case": {"name": "taylor_green_numpy"},
    "domain": {"size": [N, N, 1], "periodic": [True, True, True]},
    "physics": {"velocity": U0, "viscosity": NU},
    "initial": {"type": "taylor_green_2d"},
    "run": {"steps": STEPS},
    "output": {"vtk": False},
}


def velocity(sim):
    """The velocity as a NumPy array: the simulation's own buffer on the cpu build, a copy on GPU builds."""
    view = sim.velocity
    return np.asarray(view) if eddy.backend == "cpu" else view.to_numpy()


with eddy.Simulation(case, quiet=True) as sim:
    view = sim.velocity
    u = np.asarray(view) if eddy.backend == "cpu" else view.to_numpy()
    if eddy.backend == "cpu":
        assert u.ctypes.data == view.data_ptr  # NumPy reads the simulation's read-out buffer itself
    e0 = 0.5 * np.sum(u.astype(np.float64) ** 2)
    k2 = 2 * (2 * math.pi / N) ** 2
    worst = 0.0

    def check(s):
        global worst
        e = 0.5 * np.sum(velocity(s).astype(np.float64) ** 2)
        exact = e0 * math.exp(-2 * NU * k2 * s.time_step)
        worst = max(worst, abs(e / exact - 1))
        print("step %5d  E/E0 %.6f  exact %.6f" % (s.time_step, e / e0, exact / e0))

    sim.run(callback=check, every=STEPS // 4)

print("largest relative deviation from the analytic decay: %.2e" % worst)
sys.exit(0 if worst < 0.02 else 1)
