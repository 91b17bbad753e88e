"""The [statistics] averages from Python (Simulation.statistics): computed on the device from the running sums, they
equal the averages of the velocities NumPy collects step by step (the Reynolds stress in VTK's component order), the
mean of a steady flow is the flow, the plane averages of the CSV profile are their means over the plane, NaN before
the first sample, and the errors of a case without [statistics] or a field its sums cannot give."""

import csv

import numpy as np
import pytest

import eddy

from conftest import cpu_only, requires_device

BOX = {
    "case": {"name": "box"},
    "domain": {"size": [8, 6, 4], "periodic": [True, True, True]},
    "physics": {"tau": 0.8, "velocity": 0.05},
    "initial": {"type": "taylor_green_3d", "amplitude": 0.4},
    "run": {"steps": 40},
    "output": {"vtk": False},
    "statistics": {"start": 0, "fields": ["mean_velocity", "velocity_rms", "reynolds_stress", "mean_density",
                                           "mean_pressure"]},
}

# The pairs (a, b) of reynolds_stress's components in VTK's order of symmetric tensors: xx, yy, zz, xy, yz, xz.
VTK_ORDER = [(0, 0), (1, 1), (2, 2), (0, 1), (1, 2), (0, 2)]


@cpu_only
def test_averages_equal_numpy_over_the_sampled_velocities():
    # A decaying Taylor-Green vortex (u, v) with a growing w driven by a force along z that varies along x: a field
    # whose six stress components all differ. Each step samples the velocity it collides, which is the velocity read
    # before it: NumPy keeps the same samples and averages them itself.
    with eddy.Simulation(BOX, quiet=True) as sim:
        x = np.arange(8) + 0.5
        np.asarray(sim.force)[..., 2] = 1e-4 * np.sin(2 * np.pi * x / 8)[None, None, :]
        with pytest.raises(ValueError):
            sim.statistics("density")  # an instantaneous field, not an average
        assert np.isnan(sim.statistics("mean_velocity").to_numpy()).all()  # no sample yet
        samples_u, samples_rho = [], []
        for _ in range(20):
            density, velocity = sim.moments()
            samples_u.append(velocity.to_numpy().astype(np.float64))
            samples_rho.append(density.to_numpy().astype(np.float64))
            sim.step(1)
        assert sim.statistics_samples == 20
        u = np.stack(samples_u)  # (samples, nz, ny, nx, 3)
        mean = u.mean(axis=0)
        stress = sim.statistics("reynolds_stress")
        assert stress.shape == (4, 6, 8, 6) and stress.typestr == "<f8"
        got = stress.to_numpy()
        scale = np.abs(got).max()
        assert scale > 1e-6, "the vortex decays: its velocity fluctuates about the mean"
        tolerance = 1e-6 * scale  # NumPy's sums of the float32 samples against the kernel's, in another order
        for c, (a, b) in enumerate(VTK_ORDER):
            expected = (u[..., a] * u[..., b]).mean(axis=0) - mean[..., a] * mean[..., b]
            np.testing.assert_allclose(got[..., c], expected, rtol=0, atol=tolerance, err_msg=f"component {c}")
        # yz and xz differ here by far more than the tolerance, so a swapped order fails.
        assert np.abs(got[..., 4] - got[..., 5]).max() > 1e3 * tolerance
        np.testing.assert_allclose(sim.statistics("mean_velocity").to_numpy(), mean, rtol=0, atol=1e-9)
        rms = np.sqrt(np.maximum(0.0, (u * u).mean(axis=0) - mean * mean))
        np.testing.assert_allclose(sim.statistics("velocity_rms").to_numpy(), rms, rtol=0, atol=1e-6 * rms.max())
        rho = np.stack(samples_rho).mean(axis=0)
        np.testing.assert_allclose(sim.statistics("mean_density").to_numpy(), rho, rtol=0, atol=1e-9)
        np.testing.assert_allclose(sim.statistics("mean_pressure").to_numpy(), (rho - 1.0) / 3.0, rtol=0, atol=1e-9)


CHANNEL = {
    "case": {"name": "channel"},
    "domain": {"size": [4, 16, 2], "periodic": [True, False, True]},
    "physics": {"tau": 0.8, "velocity": 0.02, "body_force": [2e-5, 0.0, 0.0]},
    "run": {"steps": 6000},
    "output": {"vtk": False},
    "statistics": {"start": 5000, "fields": ["mean_velocity", "reynolds_stress"], "average": ["x", "z"]},
}


@cpu_only
def test_a_steady_channel_and_its_profile():
    # Plane Poiseuille flow, steady after 5000 steps (the slowest mode decays as exp(-pi^2 nu t / H^2): 6e-6 of it
    # is left): its mean is the flow itself, it has no fluctuation, and the profile the run writes (the x-z plane
    # averages of the host's path, solver/statistics_profile.cpp) is the plane mean of the device's read-out.
    with eddy.Simulation(CHANNEL, quiet=True) as sim:
        sim.step(5500)
        assert sim.statistics_samples == 500
        mean = np.asarray(sim.statistics("mean_velocity"))
        u = np.asarray(sim.velocity).astype(np.float64)
        assert np.abs(mean - u).max() < 1e-6 * np.abs(u).max()
        assert np.abs(np.asarray(sim.statistics("reynolds_stress"))).max() < 1e-10
        sim.write_output()
        with open(f"{sim.output_directory}/channel_statistics.csv") as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
        profile = np.array([float(r["mean_velocity_x"]) for r in rows])
        # Normalised output: velocities in units of physics.velocity.
        np.testing.assert_allclose(profile * 0.02, mean[..., 0].mean(axis=(0, 2)), rtol=1e-12, atol=0)


@requires_device
def test_fields_the_sums_cannot_give_and_a_case_without_statistics_are_refused():
    with eddy.Simulation(BOX, set={"statistics.fields": ["mean_velocity"]}, quiet=True) as sim:
        sim.step(2)
        assert sim.statistics("mean_velocity").shape == (4, 6, 8, 3)
        for name in ("velocity_rms", "reynolds_stress", "mean_temperature"):  # no second moments, no [thermal]
            with pytest.raises(ValueError, match=name):
                sim.statistics(name)
    case = {k: v for k, v in BOX.items() if k != "statistics"}
    with eddy.Simulation(case, quiet=True) as sim:
        with pytest.raises(RuntimeError, match=r"no \[statistics\] section"):
            sim.statistics("mean_velocity")
        with pytest.raises(RuntimeError, match=r"no \[statistics\] section"):
            sim.statistics_samples
