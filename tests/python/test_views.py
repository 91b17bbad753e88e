"""The field arrays are views of the simulation's own memory (the cpu build: NumPy sees the same addresses), writes
through them change what the next step sees, read-outs are snapshots, and after close() they refuse to hand out their
memory while arrays made before stay valid (no use after free)."""

import ctypes
import gc

import numpy as np
import pytest

import eddy

from conftest import cpu_only, requires_device

BOX = {
    "case": {"name": "box"},
    "domain": {"size": [8, 6, 4], "periodic": [True, True, True]},
    "physics": {"tau": 0.8, "velocity": 0.05},
    "initial": {"type": "taylor_green_3d", "amplitude": 0.4},
    "run": {"steps": 10},
    "output": {"vtk": False},
}


def box(**overrides):
    return eddy.Simulation(BOX, set=overrides, quiet=True)


@cpu_only
def test_numpy_views_are_the_simulations_memory():
    with box() as sim:
        for view, shape in ((sim.density, (4, 6, 8)), (sim.velocity, (4, 6, 8, 3)), (sim.populations, (19, 4, 6, 8)),
                            (sim.flags, (4, 6, 8)), (sim.force, (4, 6, 8, 3))):
            a = np.asarray(view)
            assert a.shape == shape == view.shape, view
            assert a.ctypes.data == view.data_ptr == view.__array_interface__["data"][0], view
            assert a.strides == view.strides
            assert np.from_dlpack(view).ctypes.data == view.data_ptr, view
            assert a.flags.writeable == view.writable
        assert sim.density.typestr == "<f4" and sim.flags.typestr == "|u1"
        assert np.asarray(sim.flags).max() == 0  # all fluid, no neighbour solid
        # The populations view and its own read-out agree: rho = sum_i f_i (stored as f_i - w_i).
        f = np.asarray(sim.populations).astype(np.float64)
        assert sim.population_layout == "own"
        np.testing.assert_allclose(f.sum(axis=0) + 1.0, np.asarray(sim.density), rtol=0, atol=1e-6)


@cpu_only
def test_a_write_through_the_view_changes_the_next_step():
    with box() as a, box(**{"output.directory": "b"}) as b:
        a.step(3)
        b.step(3)
        assert b.population_layout == "swapped"
        f = np.asarray(b.populations)
        delta = np.float32(1e-3)
        f[0, 2, 3, 4] += delta  # the rest population of one cell: more mass there
        rho_a, rho_b = np.asarray(a.density), np.asarray(b.density)
        assert rho_b[2, 3, 4] - rho_a[2, 3, 4] == pytest.approx(1e-3, rel=1e-3)
        a.step(5)
        b.step(5)
        mass_a = np.asarray(a.density).astype(np.float64).sum()
        mass_b = np.asarray(b.density).astype(np.float64).sum()
        assert mass_b - mass_a == pytest.approx(1e-3, rel=1e-3)
        assert not np.array_equal(np.asarray(a.velocity), np.asarray(b.velocity))


@cpu_only
def test_read_outs_are_snapshots():
    with box() as sim:
        first = sim.density
        before = np.asarray(first).copy()
        sim.step(4)
        second = sim.density
        assert second.data_ptr != first.data_ptr  # the earlier read-out is still referenced: not overwritten
        assert np.array_equal(np.asarray(first), before)
        assert not np.array_equal(np.asarray(second), before)
        address = second.data_ptr
        del first, second
        gc.collect()
        assert sim.density.data_ptr in (address, address)  # reused once nothing refers to it


@requires_device
def test_dlpack_capsules():
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    with box() as sim:
        view = sim.populations
        assert get_name(view.__dlpack__()) == b"dltensor"
        assert get_name(view.__dlpack__(max_version=(1, 0))) == b"dltensor_versioned"
        device = view.__dlpack_device__()
        assert device == ((1, 0) if eddy.backend == "cpu" else (2 if eddy.backend == "cuda" else 10, device[1]))
        with pytest.raises(BufferError):
            view.__dlpack__(copy=True)
        with pytest.raises(BufferError):
            view.__dlpack__(dl_device=(12, 3))
        host = view.to_numpy()
        assert host.shape == (19, 4, 6, 8) and host.flags.c_contiguous


@requires_device
def test_views_after_close():
    sim = box()
    view = sim.density
    populations = sim.populations
    kept = populations.to_numpy()
    made_before = np.asarray(populations) if eddy.backend == "cpu" else None
    sim.close()
    assert sim.closed
    with pytest.raises(ValueError, match="closed"):
        view.__dlpack__()
    with pytest.raises(ValueError, match="closed"):
        populations.to_numpy()
    with pytest.raises(ValueError, match="closed"):
        view.data_ptr
    if eddy.backend == "cpu":
        with pytest.raises(ValueError, match="closed"):
            np.asarray(view)
        assert np.array_equal(made_before, kept)  # an array made before close keeps its memory
    with pytest.raises(ValueError, match="closed"):
        sim.step()
    with pytest.raises(ValueError, match="closed"):
        sim.density
    sim.close()  # twice is fine
    del view, populations, made_before
    gc.collect()


@requires_device
def test_the_output_lock_goes_with_close(in_tmp):
    case = dict(BOX, output={"vtk": True, "directory": "locked"})
    sim = eddy.Simulation(case, quiet=True)
    with pytest.raises(eddy.OutputError, match="eddy.lock"):
        eddy.Simulation(case, quiet=True)
    view = sim.density  # views do not hold the lock
    sim.close()
    eddy.Simulation(case, quiet=True).close()
    del view


@cpu_only
def test_temperature_and_particles():
    thermal = dict(BOX, thermal={"prandtl": 0.71, "initial_temperature": 0.25})
    with eddy.Simulation(thermal, quiet=True) as sim:
        t = np.asarray(sim.temperature)
        assert t.shape == (4, 6, 8) and np.all(t == np.float32(0.25))
        t[1, 2, 3] = 1.25  # a hot cell: it spreads in the next step
        sim.step()
        t = np.asarray(sim.temperature)
        assert t[1, 2, 3] < 1.25 and t[1, 2, 4] > 0.25
    particles = dict(BOX, particles={"kind": "tracer", "count": 5})
    with eddy.Simulation(particles, quiet=True) as sim:
        x = np.asarray(sim.particle_positions)
        assert x.shape == (5, 3) and np.all(x >= 0) and np.all(x < [8, 6, 4])
        sim.step(2)
        assert not np.array_equal(np.asarray(sim.particle_positions), x)
        assert np.asarray(sim.particle_velocities).shape == (5, 3)
