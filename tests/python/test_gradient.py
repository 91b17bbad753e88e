"""Simulation.gradient: the discrete adjoint from Python (solver/adjoint.hpp).

- Directional derivatives of the gradient along random directions against central differences of forward runs
  driven through sim.force (cpu build, NumPy views): dL/dF and dL/ds for the kinetic energy of a sub-box and for a
  velocity mismatch, 1e-6 relative (issue 28's tolerance).
- The arrays: FieldArrays with the documented shapes, zero-copy views of the adjoint's fields (NumPy takes them
  without a copy on the cpu build).
- An objective summed over a time window (window=W): its value against the forward run's states, and dL/dF along
  random directions against central differences.
- A start from set_equilibrium(rho0, u0): dL/du0 and dL/drho0 along random directions against central differences
  of forward runs from perturbed equilibria; set_equilibrium's read-back is f_eq of its arguments.
- The solid_force objective: linear in its direction (objective and gradient).
- dL/dalpha of a porosity field (sim.porosity, the Brinkman drag) against central differences.
- A second call from the same state (the states' buffers kept by the simulation) gives the same bits; a NumPy view
  of sim.populations taken before a call still views the simulation's state after it.
- The pressure drop across a channel between a velocity inlet and a pressure outlet (the open faces' adjoint):
  dL/dalpha of a porous plug against central differences.
- Bad objectives, targets, regions, windows, equilibria, solid-force and pressure-drop arguments raise ValueError
  naming the argument; the convective outflow raises eddy.InputError.
"""

import numpy as np
import pytest

import eddy

from conftest import cpu_only, requires_device

STEPS = 12


def box(storage="double"):
    return {
        "case": {"name": "adjoint"},
        "domain": {"size": [8, 6, 5], "periodic": [True, False, True]},
        "physics": {"tau": 0.7, "velocity": 0.04, "body_force": [2e-5, 0.0, -1e-5]},
        "boundary": {"y_max": {"type": "moving_wall", "velocity": [0.75, 0.0, 0.25]}},
        "numerics": {"storage": storage},
        "run": {"steps": 100},
        "output": {"vtk": False},
    }


def start(force, tau=0.7):
    case = box()
    case["physics"]["tau"] = tau
    sim = eddy.Simulation(case, quiet=True)
    np.asarray(sim.force)[...] = force
    sim.step(5)  # a moving state to start from
    return sim


def objective_after(force, direction, e, objective, target=None, tau=0.7):
    """L after STEPS steps with the force perturbed by e * direction (and the relaxation time tau) from the start
    state on; the start state is the same for every tau (set through the populations)."""
    with start(force) as sim:
        state = np.asarray(sim.populations).copy()
        layout = sim.population_layout
    with start(force, tau) as sim:
        assert sim.population_layout == layout
        np.asarray(sim.populations)[...] = state
        np.asarray(sim.force)[...] = force + e * direction
        sim.step(STEPS)
        rho, u = (a.to_numpy() for a in sim.moments())
    if objective == "velocity_mismatch":
        return 0.5 * np.sum((u - target) ** 2)
    region = (slice(1, 4), slice(1, 5), slice(2, 7))
    return 0.5 * np.sum(rho[region] * np.sum(u[region] ** 2, axis=-1))


@cpu_only
@pytest.mark.parametrize("objective", ["kinetic_energy", "velocity_mismatch"])
def test_force_gradient_matches_central_differences(objective):
    rng = np.random.default_rng(4)
    force = 1e-4 * rng.uniform(-1, 1, size=(5, 6, 8, 3))
    target = 0.01 * rng.uniform(-1, 1, size=(5, 6, 8, 3))
    kwargs = {"target": target} if objective == "velocity_mismatch" else {"region": ((1, 4), (1, 5), (2, 7))}
    with start(force) as sim:
        g = sim.gradient(STEPS, objective, checkpoint_every=5, **kwargs)
        assert sim.time_step == 5 + STEPS
        force_gradient = np.asarray(g["force"])
        assert force_gradient.shape == (5, 6, 8, 3) and force_gradient.dtype == np.float64
        assert force_gradient.__array_interface__["data"][0] == g["force"].data_ptr  # no copy
        assert g["state"].shape == (19, 5, 6, 8)
        force_gradient = force_gradient.copy()
    assert g["checkpoint_every"] == 5 and g["recomputed_steps"] == STEPS - 3
    assert g["objective"] == pytest.approx(objective_after(force, 0 * force, 0.0, objective, target), rel=1e-12)
    e = 1e-6
    central_tau = (objective_after(force, 0 * force, 0.0, objective, target, 0.7 + e) -
                   objective_after(force, 0 * force, 0.0, objective, target, 0.7 - e)) / (2 * e)
    assert abs(g["tau"] - central_tau) <= 1e-6 * abs(central_tau), (g["tau"], central_tau)
    for _ in range(3):
        d = rng.uniform(-1, 1, size=force.shape)
        e = 1e-6
        central = (objective_after(force, d, e, objective, target) -
                   objective_after(force, d, -e, objective, target)) / (2 * e)
        adjoint = float(np.sum(force_gradient * d))
        assert abs(adjoint - central) <= 1e-6 * abs(central), (adjoint, central)


def window_energy_after(force, direction, e, window):
    """The kinetic energy of the region summed over the states at the ends of the last `window` of STEPS steps, with
    the force perturbed by e * direction, from the start state on."""
    region = (slice(1, 4), slice(1, 5), slice(2, 7))
    total = 0.0
    with start(force) as sim:
        np.asarray(sim.force)[...] = force + e * direction
        for t in range(STEPS + 1):
            if t > 0:
                sim.step(1)
            if t > STEPS - window:
                rho, u = (a.to_numpy() for a in sim.moments())
                total += 0.5 * np.sum(rho[region] * np.sum(u[region] ** 2, axis=-1))
    return total


@cpu_only
def test_window_objective_and_its_force_gradient():
    rng = np.random.default_rng(9)
    force = 1e-4 * rng.uniform(-1, 1, size=(5, 6, 8, 3))
    window = 7
    with start(force) as sim:
        g = sim.gradient(STEPS, region=((1, 4), (1, 5), (2, 7)), window=window, checkpoint_every=5)
        force_gradient = np.asarray(g["force"]).copy()
    value = window_energy_after(force, 0 * force, 0.0, window)
    assert g["objective"] == pytest.approx(value, rel=1e-12)
    assert value > 2 * window_energy_after(force, 0 * force, 0.0, 1)  # the window summed more than the final state
    e = 1e-6
    for _ in range(2):
        d = rng.uniform(-1, 1, size=force.shape)
        central = (window_energy_after(force, d, e, window) - window_energy_after(force, d, -e, window)) / (2 * e)
        adjoint = float(np.sum(force_gradient * d))
        assert abs(adjoint - central) <= 1e-6 * abs(central), (adjoint, central)


def energy_after(set_up):
    """The kinetic energy of the box after STEPS steps from the state set_up(sim) leaves."""
    with eddy.Simulation(box(), quiet=True) as sim:
        set_up(sim)
        sim.step(STEPS)
        rho, u = (a.to_numpy() for a in sim.moments())
    return 0.5 * np.sum(rho * np.sum(u ** 2, axis=-1))


def energy_from_equilibrium(rho0, u0, force):
    """The kinetic energy after STEPS steps from set_equilibrium(rho0, u0) under the per-cell force."""
    def set_up(sim):
        np.asarray(sim.force)[...] = force
        sim.set_equilibrium(rho0, u0)
    return energy_after(set_up)


@cpu_only
def test_initial_velocity_and_density_gradients_match_central_differences():
    rng = np.random.default_rng(17)
    force = 1e-4 * rng.uniform(-1, 1, size=(5, 6, 8, 3))
    rho0 = 1 + 0.01 * rng.uniform(-1, 1, size=(5, 6, 8))
    u0 = 0.02 * rng.uniform(-1, 1, size=(5, 6, 8, 3))
    with eddy.Simulation(box(), quiet=True) as sim:
        np.asarray(sim.force)[...] = force
        sim.set_equilibrium(rho0, u0)
        assert sim.population_layout == "swapped"  # post-collision populations: each cell's 19 sum to rho0 - 1
        np.testing.assert_allclose(np.asarray(sim.populations).sum(axis=0), rho0 - 1, rtol=0, atol=1e-15)
        g = sim.gradient(STEPS, checkpoint_every=5)
        assert g["initial_velocity"].shape == (5, 6, 8, 3) and g["initial_density"].shape == (5, 6, 8)
        du_gradient = np.asarray(g["initial_velocity"]).copy()
        drho_gradient = np.asarray(g["initial_density"]).copy()
    assert g["objective"] == pytest.approx(energy_from_equilibrium(rho0, u0, force), rel=1e-12)
    e = 1e-6
    for _ in range(2):
        du = rng.uniform(-1, 1, size=u0.shape)
        central = (energy_from_equilibrium(rho0, u0 + e * du, force) -
                   energy_from_equilibrium(rho0, u0 - e * du, force)) / (2 * e)
        adjoint = float(np.sum(du_gradient * du))
        assert abs(adjoint - central) <= 1e-6 * abs(central), (adjoint, central)
        drho = rng.uniform(-1, 1, size=rho0.shape)
        central = (energy_from_equilibrium(rho0 + e * drho, u0, force) -
                   energy_from_equilibrium(rho0 - e * drho, u0, force)) / (2 * e)
        adjoint = float(np.sum(drho_gradient * drho))
        assert abs(adjoint - central) <= 1e-6 * abs(central), (adjoint, central)


def energy_with_porosity(alpha):
    """The kinetic energy after STEPS steps from rest with porosity field alpha."""
    return energy_after(lambda sim: np.asarray(sim.porosity).__setitem__(Ellipsis, alpha))


@cpu_only
def test_porosity_gradient_matches_central_differences():
    rng = np.random.default_rng(23)
    alpha = 0.05 + 0.05 * rng.uniform(-1, 1, size=(5, 6, 8))
    with eddy.Simulation(box(), quiet=True) as sim:
        np.asarray(sim.porosity)[...] = alpha
        g = sim.gradient(STEPS, checkpoint_every=5)
        assert g["porosity"].shape == (5, 6, 8)
        d_alpha = np.asarray(g["porosity"]).copy()
    assert g["objective"] == pytest.approx(energy_with_porosity(alpha), rel=1e-12)
    e = 1e-6
    for _ in range(2):
        d = rng.uniform(-1, 1, size=alpha.shape)
        central = (energy_with_porosity(alpha + e * d) - energy_with_porosity(alpha - e * d)) / (2 * e)
        adjoint = float(np.sum(d_alpha * d))
        assert abs(adjoint - central) <= 1e-6 * abs(central), (adjoint, central)
    with eddy.Simulation(box(), quiet=True) as sim:  # no porosity field, no porosity gradient
        assert sim.gradient(2)["porosity"] is None


def channel():
    """A 2D channel between a parabolic velocity inlet (x_min) and a pressure outlet (x_max), walls on y."""
    return {
        "case": {"name": "porous_channel"},
        "domain": {"size": [14, 8, 1], "periodic": [False, False, True]},
        "physics": {"tau": 0.8, "velocity": 0.04},
        "boundary": {"x_min": {"type": "velocity_inlet", "profile": "parabolic", "max_velocity": 1.0},
                     "x_max": {"type": "pressure_outlet", "density": 1.0}},
        "numerics": {"storage": "double"},
        "run": {"steps": 100},
        "output": {"vtk": False},
    }


UPSTREAM, DOWNSTREAM = ((0, 1), (0, 8), (1, 3)), ((0, 1), (0, 8), (9, 11))


def drop_after(alpha, start, steps):
    """The pressure drop between UPSTREAM and DOWNSTREAM after `steps` steps from populations `start` through the
    porosity field alpha, from the forward run's density (the objective's definition)."""
    with eddy.Simulation(channel(), quiet=True) as sim:
        np.asarray(sim.porosity)[...] = alpha
        np.asarray(sim.populations)[...] = start
        sim.step(steps)
        rho = sim.density.to_numpy()
    return (rho[0, :, 1:3].mean() - rho[0, :, 9:11].mean()) / 3.0


@cpu_only
def test_pressure_drop_through_a_porous_channel_matches_central_differences():
    """The open faces' adjoint from Python: dL/dalpha of the pressure drop across a channel with a porous plug,
    against central differences."""
    rng = np.random.default_rng(31)
    alpha = np.zeros((1, 8, 14))
    alpha[0, 2:6, 5:8] = 0.05 + 0.02 * rng.uniform(-1, 1, size=(4, 3))
    with eddy.Simulation(channel(), quiet=True) as sim:
        np.asarray(sim.porosity)[...] = alpha
        sim.step(40)
        start = np.asarray(sim.populations).copy()
        g = sim.gradient(STEPS, "pressure_drop", region=UPSTREAM, downstream=DOWNSTREAM, checkpoint_every=5)
        d_alpha = np.asarray(g["porosity"]).copy()
    assert g["objective"] == pytest.approx(drop_after(alpha, start, STEPS), rel=1e-12)
    assert g["objective"] > 0  # the flow loses pressure along the channel
    e = 1e-6
    for _ in range(2):
        d = np.zeros_like(alpha)
        d[0, 1:7, 3:9] = rng.uniform(-1, 1, size=(6, 6))
        central = (drop_after(alpha + e * d, start, STEPS) - drop_after(alpha - e * d, start, STEPS)) / (2 * e)
        adjoint = float(np.sum(d_alpha * d))
        assert abs(adjoint - central) <= 1e-6 * abs(central), (adjoint, central)


@cpu_only
def test_a_second_call_reuses_the_memory_and_gives_the_same_gradient():
    with eddy.Simulation(box(), quiet=True) as sim:
        sim.step(5)
        start = np.asarray(sim.populations).copy()
        first = sim.gradient(STEPS, checkpoint_every=5)
        np.asarray(sim.populations)[...] = start
        second = sim.gradient(STEPS, checkpoint_every=5)
        assert first["objective"] == second["objective"]
        assert np.array_equal(first["force"].to_numpy(), second["force"].to_numpy())
        assert set(second["seconds"]) == {"setup", "forward", "recompute", "adjoint", "finish"}
        assert all(v >= 0 for v in second["seconds"].values())
        sim.release_gradient_memory()
        np.asarray(sim.populations)[...] = start
        assert sim.gradient(STEPS, checkpoint_every=5)["objective"] == first["objective"]


@cpu_only
def test_a_view_of_the_populations_stays_the_simulations():
    # The sweep swaps arrays instead of copying states; the simulation must end in the array it had.
    with eddy.Simulation(box(), quiet=True) as sim:
        sim.step(5)
        view = np.asarray(sim.populations)
        sim.gradient(STEPS, checkpoint_every=5)
        after = np.asarray(sim.populations)
        assert np.shares_memory(view, after)
        sim.step(1)
        assert np.array_equal(view, np.asarray(sim.populations))


@requires_device
def test_bad_pressure_drop_objectives_are_refused():
    with eddy.Simulation(channel(), quiet=True) as sim:
        with pytest.raises(ValueError, match="needs region"):
            sim.gradient(4, "pressure_drop", region=UPSTREAM)
        with pytest.raises(ValueError, match="downstream is for objective"):
            sim.gradient(4, "kinetic_energy", downstream=DOWNSTREAM)
        with pytest.raises(ValueError, match="downstream must be"):
            sim.gradient(4, "pressure_drop", region=UPSTREAM, downstream=(1, 2))
        with pytest.raises(ValueError, match="region holds a bool"):
            sim.gradient(4, "pressure_drop", region=((False, True), (0, 8), (1, 3)), downstream=DOWNSTREAM)
        with pytest.raises(ValueError, match="downstream holds a bool"):
            sim.gradient(4, "pressure_drop", region=UPSTREAM, downstream=np.ones((3, 2), dtype=bool))
        with pytest.raises(eddy.InputError, match="downstream region's x range"):
            sim.gradient(4, "pressure_drop", region=UPSTREAM, downstream=((0, 1), (0, 8), (9, 15)))
        assert sim.time_step == 0


@requires_device
def test_bad_equilibria_are_refused():
    with eddy.Simulation(box(), quiet=True) as sim:
        sim.step(3)  # a moving state, which the refused calls below must leave alone
        before = sim.populations.to_numpy()  # a host copy (cupy or torch would view it on GPU builds)
        assert np.any(before)
        with pytest.raises(ValueError, match=r"velocity must have this rank's block shape \(5, 6, 8, 3\) \(got \(5, 6, 8\)\)"):
            sim.set_equilibrium(velocity=np.zeros((5, 6, 8)))
        with pytest.raises(ValueError, match=r"density must have this rank's block shape \(5, 6, 8\) \(got \(5, 6, 8, 1\)\)"):
            sim.set_equilibrium(density=np.ones((5, 6, 8, 1)))
        with pytest.raises(ValueError, match=r"density must hold real numbers \(got dtype <U5\)"):
            sim.set_equilibrium(density="dense")
        for bad_type in (complex, bool, object):
            with pytest.raises(ValueError, match=r"density must hold real numbers"):
                sim.set_equilibrium(density=np.ones((5, 6, 8), dtype=bad_type))
        with pytest.raises(ValueError, match=r"velocity must hold real numbers \(got dtype bool\)"):
            sim.set_equilibrium(velocity=np.ones((5, 6, 8, 3), dtype=bool))
        with pytest.raises(ValueError, match=r"density is a masked array"):
            sim.set_equilibrium(density=np.ma.masked_array(np.ones((5, 6, 8)), mask=True))
        rho = np.ones((5, 6, 8))
        rho[2, 3, 4] = -1e-10
        with pytest.raises(ValueError, match=r"density holds -1e-10 at \(2, 3, 4\) \(values must be finite and > 0\)"):
            sim.set_equilibrium(density=rho)
        u = np.zeros((5, 6, 8, 3))
        u[0, 0, 1, 2] = np.inf
        with pytest.raises(ValueError, match=r"velocity holds inf at \(0, 0, 1, 2\)"):
            sim.set_equilibrium(velocity=u)
        u[0, 0, 1, 2] = 0.6  # beyond the stability watch's |u| <= 0.5
        with pytest.raises(ValueError, match=r"velocity has \|u0\| = 0.6 at \(0, 0, 1\) \(values must be finite, \|u0\| <= 0.5\)"):
            sim.set_equilibrium(velocity=u)
        with pytest.raises(ValueError, match=r"velocity has"):
            sim.set_equilibrium(density=np.ones((5, 6, 8)), velocity=u)  # a good density with a bad velocity
        assert np.array_equal(sim.populations.to_numpy(), before)  # nothing was written by the refused calls
        sim.set_equilibrium()  # rest: f_eq(1, 0) = w_i, stored as f_i - w_i = 0
        assert not np.any(sim.populations.to_numpy())


def block_case():
    case = box()
    case["solid"] = [{"name": "block", "shape": "box", "min": [3, 2, 1], "max": [5, 4, 3], "wall": "halfway"}]
    return case


@requires_device
def test_solid_force_objective_is_linear_in_its_direction():
    """F.d for d = (1, 0, 0), (0, 1, 0) and their sum: the objective and the force gradient add up (central
    differences of this objective are checked in tests/physics/test_adjoint.cpp)."""
    results = []
    for d in ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (1.0, 1.0, 0.0)):
        with eddy.Simulation(block_case(), quiet=True) as sim:
            sim.step(5)
            g = sim.gradient(STEPS, "solid_force", solid="block", direction=d)
            results.append((g["objective"], g["force"].to_numpy()))
    (lx, gx), (ly, gy), (lxy, gxy) = results
    assert abs(lx) > 1e-4 and np.max(np.abs(gx)) > 0
    assert lxy == pytest.approx(lx + ly, rel=1e-9)
    np.testing.assert_allclose(gxy, gx + gy, rtol=0, atol=1e-12 * np.max(np.abs(gxy)))


@requires_device
def test_bad_solid_force_objectives_are_refused():
    with eddy.Simulation(block_case(), quiet=True) as sim:
        with pytest.raises(ValueError, match=r'needs solid'):
            sim.gradient(4, "solid_force")
        with pytest.raises(ValueError, match=r'solid must name one of the case\'s \[\[solid\]\] bodies \("block"\), got \'ball\''):
            sim.gradient(4, "solid_force", solid="ball")
        with pytest.raises(ValueError, match=r"got 0"):
            sim.gradient(4, "solid_force", solid=0)
        for direction in ((1.0, np.nan, 0.0), (1.0, 0.0), (0, 0, 0), (True, False, False), [[1.0], [0.0], [0.0]], "xyz"):
            with pytest.raises(ValueError, match="direction must be 3 finite real numbers"):
                sim.gradient(4, "solid_force", solid="block", direction=direction)
        with pytest.raises(ValueError, match="objective must be"):
            sim.gradient(4, "Solid_Force", solid="block")  # the name first, not "solid is for ..."
        with pytest.raises(TypeError, match="objective must be a str"):
            sim.gradient(4, None)
        with pytest.raises(ValueError, match="solid and direction are for objective"):
            sim.gradient(4, solid="block")
        with pytest.raises(ValueError, match="target and region are not for objective"):
            sim.gradient(4, "solid_force", solid="block", region=((0, 1), (0, 1), (0, 1)))
        assert sim.time_step == 0
    with eddy.Simulation(box(), quiet=True) as sim:
        with pytest.raises(ValueError, match=r"\(it has none\)"):
            sim.gradient(4, "solid_force", solid="block")


@requires_device
def test_bad_arguments_are_refused():
    with eddy.Simulation(box(), quiet=True) as sim:
        with pytest.raises(ValueError, match="objective must be"):
            sim.gradient(4, "drag")
        with pytest.raises(ValueError, match="needs target"):
            sim.gradient(4, "velocity_mismatch")
        with pytest.raises(ValueError, match=r"target must have this rank's block shape \(nz, ny, nx, 3\) = \(5, 6, 8, 3\)"):
            sim.gradient(4, "velocity_mismatch", target=np.zeros((5, 6, 8)))
        with pytest.raises(ValueError, match="region must be"):
            sim.gradient(4, region=((0, 1), (0, 1)))
        with pytest.raises(ValueError, match="region must be"):
            sim.gradient(4, region=((0.0, 5.0), (0, 6), (0, 8)))
        with pytest.raises(eddy.InputError, match=r"the region's z range \[4, 2\) must satisfy 0 <= lo < hi <= 5"):
            sim.gradient(4, region=((4, 2), (0, 6), (0, 8)))
        with pytest.raises(eddy.InputError, match=r"the region's x range \[0, -1\)"):
            sim.gradient(4, region=((0, 5), (0, 6), (0, -1)))
        with pytest.raises(ValueError, match="target is for objective"):
            sim.gradient(4, target=np.zeros((5, 6, 8, 3)))
        with pytest.raises(ValueError, match="region is for objective"):
            sim.gradient(4, "velocity_mismatch", target=np.zeros((5, 6, 8, 3)), region=((0, 1), (0, 1), (0, 1)))
        bad = np.zeros((5, 6, 8, 3))
        bad[1, 2, 3, 1] = np.nan
        with pytest.raises(ValueError, match=r"not finite at \(z, y, x, component\) = \(1, 2, 3, 1\)"):
            sim.gradient(4, "velocity_mismatch", target=bad)
        with pytest.raises(TypeError):
            sim.gradient(2.9)
        with pytest.raises(TypeError, match="steps must be an integer"):
            sim.gradient(True)
        with pytest.raises(ValueError, match="memory_budget = -1"):
            sim.gradient(4, memory_budget=-1)
        with pytest.raises(ValueError, match=r"window = 0 must be between 1 \(the final state\) and steps \+ 1 = 5"):
            sim.gradient(4, window=0)
        with pytest.raises(ValueError, match="window = 6 must be between"):
            sim.gradient(4, window=6)
        with pytest.raises(TypeError, match="window must be an integer"):
            sim.gradient(4, window=True)
        with pytest.raises(TypeError, match=r"window must be an integer \(got a bool\)"):
            sim.gradient(4, window=np.bool_(True))
        with pytest.raises(TypeError, match=r"window must be an integer \(got float\)"):
            sim.gradient(4, window=3.0)
        with pytest.raises(eddy.InputError, match="steps = -1 must be at least 1"):
            sim.gradient(-1, window=1)  # the steps named, not the window's range
        with pytest.raises(eddy.InputError, match=r"steps = -36893488147419103232 must be at least 1"):
            sim.gradient(-2**65)
        with pytest.raises(ValueError, match=r"checkpoint_every = -73786976294838206464 must be 0"):
            sim.gradient(4, checkpoint_every=-2**66)
        with pytest.raises(ValueError, match="too large"):
            sim.gradient(2**63)
        with pytest.raises(eddy.InputError, match="steps = 0 must be at least 1"):
            sim.gradient(0)
        with pytest.raises(eddy.OutOfMemoryError, match="budget of 100 B"):
            sim.gradient(10, memory_budget=100)
        assert sim.time_step == 0
    case = box()
    case["domain"]["periodic"] = [False, False, True]
    case["boundary"]["x_min"] = {"type": "velocity_inlet", "velocity": [0.5, 0.0, 0.0]}
    case["boundary"]["x_max"] = {"type": "outflow", "scheme": "convective"}
    with eddy.Simulation(case, quiet=True) as sim:
        with pytest.raises(eddy.InputError, match='boundary.x_max.scheme = "convective"'):
            sim.gradient(4)
