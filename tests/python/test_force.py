"""The writable force field sim.force: Kolmogorov flow driven through it reaches the analytic profile, and a
constant field equals [physics] body_force bit for bit.

Kolmogorov flow: a periodic box with F_x = F0 sin(2 pi y / L_y) has the steady solution of
nu d^2 u_x / dy^2 + F_x = 0, u_x = F0 L_y^2 / (4 pi^2 nu) sin(2 pi y / L_y) (e.g. Bouchet & Simonnet 2009,
Phys. Rev. Lett. 102, 094504, the laminar state of Kolmogorov's forcing); nodes at y = j + 1/2.
"""

import math

import numpy as np

import eddy

from conftest import cpu_only, requires_device

L = 32
NU = 0.1  # tau = 0.8
F0 = 4e-5  # u_max = F0 L^2 / (4 pi^2 nu) = 0.0104


def periodic_box(storage="double", body_force=(0.0, 0.0, 0.0), steps=4000):
    return {
        "case": {"name": "kolmogorov"},
        "domain": {"size": [4, L, 1], "periodic": [True, True, True]},
        "physics": {"tau": 3 * NU + 0.5, "body_force": list(body_force)},
        "numerics": {"storage": storage},
        "run": {"steps": steps},
        "output": {"vtk": False},
    }


def write_force(sim, fx):
    """fx(y) of the global y index into sim.force (any backend: through DLPack or a host copy)."""
    _, ny, _ = sim.block_shape
    y = sim.block_origin[1] + np.arange(ny)
    if eddy.backend == "cpu":
        force = np.asarray(sim.force)
        force[..., 0] = fx(y)[None, :, None]
        force[..., 1:] = 0
    else:  # GPU builds without CuPy here: write through the DLPack consumer if torch is there
        import torch
        force = torch.from_dlpack(sim.force)
        force[..., 0] = torch.as_tensor(fx(y), device=force.device)[None, :, None]


@requires_device
def test_kolmogorov_flow_reaches_the_analytic_profile():
    with eddy.Simulation(periodic_box(), quiet=True) as sim:
        write_force(sim, lambda y: F0 * np.sin(2 * math.pi * (y + 0.5) / L))
        sim.step(sim.steps)
        u = sim.velocity.to_numpy()
    y = np.arange(L) + 0.5
    exact = F0 * L**2 / (4 * math.pi**2 * NU) * np.sin(2 * math.pi * y / L)
    ux = u[0, :, :, 0].mean(axis=1)
    error = np.max(np.abs(ux - exact)) / np.max(np.abs(exact))
    print("Kolmogorov flow, L = %d: max |u_x - exact| / u_max = %.3e" % (L, error))
    assert error < 0.01
    assert np.max(np.abs(u[..., 1:])) < 1e-12  # no cross flow


@cpu_only
def test_a_constant_field_is_the_body_force_bit_for_bit():
    force = 3e-6
    with eddy.Simulation(periodic_box("float", (force, 0, 0), 300), quiet=True) as built_in, \
            eddy.Simulation(periodic_box("float", steps=300), output="second", quiet=True) as through_field:
        write_force(through_field, lambda y: np.full(y.shape, force))
        built_in.step(257)
        through_field.step(257)
        assert np.array_equal(built_in.populations.to_numpy(), through_field.populations.to_numpy())
        assert np.array_equal(built_in.velocity.to_numpy(), through_field.velocity.to_numpy())
        assert built_in.velocity.to_numpy()[..., 0].max() > 1e-5
