"""GPU builds (skipped elsewhere, and where CuPy, PyTorch or numba-cuda are missing): the arrays reach CuPy, PyTorch
and numba without a copy (the same device pointer), writes through them change the next step, work on the default
stream is ordered with the steps (sync_default_stream), and with EDDY_CPU_PYTHONPATH (the cpu build's python folder)
the fields equal the cpu build's within float round-off."""

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import eddy

from conftest import requires_device

gpu = pytest.mark.skipif(eddy.backend != "cuda", reason="SKIPPED: needs the cuda build")


def have(module):
    return importlib.util.find_spec(module) is not None


BOX = {
    "case": {"name": "box"},
    "domain": {"size": [40, 36, 32], "periodic": [True, True, True]},
    "physics": {"tau": 0.8, "velocity": 0.05},
    "initial": {"type": "taylor_green_3d", "amplitude": 0.4},
    "run": {"steps": 100},
    "output": {"vtk": False},
}


@gpu
@requires_device
@pytest.mark.skipif(not have("cupy"), reason="SKIPPED: needs CuPy")
def test_cupy_takes_the_arrays_without_a_copy():
    import cupy
    with eddy.Simulation(BOX, quiet=True) as a, eddy.Simulation(BOX, output="b", quiet=True) as b:
        for view in (b.density, b.velocity, b.populations, b.flags, b.force):
            assert cupy.asarray(view).data.ptr == view.data_ptr, view
        a.step(3)
        b.step(3)
        f = cupy.asarray(b.populations)
        f[0, 2, 3, 4] += f.dtype.type(1e-2)  # on CuPy's default stream: ordered before the next step
        b.step(5)
        a.step(5)
        mass_a = float(cupy.asarray(a.density).astype(cupy.float64).sum())
        mass_b = float(cupy.asarray(b.density).astype(cupy.float64).sum())
        assert mass_b - mass_a == pytest.approx(1e-2, rel=1e-2)


@gpu
@requires_device
@pytest.mark.skipif(not have("cupy"), reason="SKIPPED: needs CuPy")
def test_default_stream_writes_are_ordered_with_the_steps():
    import cupy
    force = 2e-6
    body = dict(BOX, physics=dict(BOX["physics"], body_force=[force, 0.0, 0.0]))
    with eddy.Simulation(body, quiet=True) as a, eddy.Simulation(BOX, output="b", quiet=True) as b:
        field = cupy.asarray(b.force)
        for _ in range(20):  # rewritten on the default stream right before every step
            field[..., 0] = 0
            field[..., 0] = field.dtype.type(force)
            b.step(1)
            a.step(1)
        ua, ub = a.velocity.to_numpy(), b.velocity.to_numpy()
    assert np.max(np.abs(ua - ub)) <= 1e-6 * np.max(np.abs(ua))


@gpu
@requires_device
@pytest.mark.skipif(not have("torch"), reason="SKIPPED: needs PyTorch")
def test_torch_takes_the_arrays_without_a_copy():
    import torch
    with eddy.Simulation(BOX, quiet=True) as sim:
        for view in (sim.density, sim.velocity, sim.populations, sim.force):
            t = torch.from_dlpack(view)
            assert t.data_ptr() == view.data_ptr and t.is_cuda and tuple(t.shape) == view.shape, view
        snapshot = torch.from_dlpack(sim.velocity).clone()
        sim.step(10)
        assert not torch.equal(snapshot, torch.from_dlpack(sim.velocity))


@gpu
@requires_device
@pytest.mark.skipif(not have("numba"), reason="SKIPPED: needs numba-cuda")
def test_numba_takes_the_arrays_without_a_copy():
    from numba import cuda
    with eddy.Simulation(BOX, quiet=True) as sim:
        view = sim.velocity
        u = cuda.as_cuda_array(view)
        assert u.__cuda_array_interface__["data"][0] == view.data_ptr
        assert u.shape == view.shape
        assert view.__cuda_array_interface__["stream"] == sim.stream


@requires_device
@pytest.mark.skipif(eddy.backend == "cpu" or not os.environ.get("EDDY_CPU_PYTHONPATH"),
                    reason="SKIPPED: a GPU build, with EDDY_CPU_PYTHONPATH naming the cpu build's python folder")
def test_fields_equal_the_cpu_build(in_tmp):
    script = ("import eddy, numpy, json, sys\n"
              "case = json.loads(sys.argv[1])\n"
              "with eddy.Simulation(case, quiet=True) as sim:\n"
              "    sim.step(100)\n"
              "    rho, u = sim.moments()\n"
              "    numpy.save('cpu_u.npy', u.to_numpy()); numpy.save('cpu_rho.npy', rho.to_numpy())\n")
    import json
    env = dict(os.environ, PYTHONPATH=os.environ["EDDY_CPU_PYTHONPATH"])
    done = subprocess.run([sys.executable, "-c", script, json.dumps(BOX)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with eddy.Simulation(BOX, quiet=True) as sim:
        sim.step(100)
        rho, u = (a.to_numpy() for a in sim.moments())
    u_cpu, rho_cpu = np.load("cpu_u.npy"), np.load("cpu_rho.npy")
    assert np.max(np.abs(u - u_cpu)) <= 1e-5 * np.max(np.abs(u_cpu))
    assert np.max(np.abs(rho - rho_cpu)) <= 1e-6
