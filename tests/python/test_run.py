"""A run driven from Python equals `eddy run` on the same case bit for bit (checkpoint data and VTK files), with
run() (the same loop) and with plain step() calls; checkpoints written from Python restart from the command line
and the other way round, bit for bit."""

from pathlib import Path

import eddy

from conftest import WITH_VTK, checkpoint_data, requires_device, run_cli, set_args, write_case

CAVITY = """
[case]
name = "cavity"
[domain]
size = [24, 20, 1]
periodic = [false, false, true]
[boundary.y_max]
type = "moving_wall"
velocity = [1.0, 0.0, 0.0]
[physics]
velocity = 0.1
reynolds = 50
[run]
steps = 120
report_every = 40
[output]
every = 60
vtk = true
[checkpoint]
every = 60
"""


def cavity(vtk=WITH_VTK):
    return write_case("cavity.toml", CAVITY.replace("vtk = true", "vtk = %s" % ("true" if vtk else "false")))


@requires_device
def test_run_equals_eddy_run(in_tmp):
    case = cavity()
    cli = run_cli(case, "--output", "cli")
    assert cli.code == 0, cli.err
    with eddy.Simulation(case, output="py", quiet=True) as sim:
        assert sim.run() is True
        assert sim.time_step == 120
    cli_files = sorted(p.relative_to("cli") for p in Path("cli").rglob("*") if p.suffix in (".data", ".vti"))
    py_files = sorted(p.relative_to("py") for p in Path("py").rglob("*") if p.suffix in (".data", ".vti"))
    assert cli_files == py_files and cli_files, (cli_files, py_files)
    for name in cli_files:
        assert (Path("cli") / name).read_bytes() == (Path("py") / name).read_bytes(), name


@requires_device
def test_steps_and_callback_equal_eddy_run(in_tmp):
    case = cavity(vtk=False)
    assert run_cli(case, "--output", "cli").code == 0
    seen = []
    with eddy.Simulation(case, output="py", quiet=True) as sim:
        sim.step(7)
        sim.step(0)
        sim.step(23)  # 30 plain steps, then the loop to 120 with a callback every 45 steps
        assert sim.run(callback=lambda s: seen.append(s.time_step), every=45)
        final = sim.checkpoint("py_final")
    assert seen == [45, 90]
    assert checkpoint_data(final) == checkpoint_data("cli/checkpoints/cavity_checkpoint_00000120.toml")


@requires_device
def test_checkpoint_from_python_restarts_from_cli_and_back(in_tmp):
    case = cavity(vtk=False)
    assert run_cli(case, "--output", "whole").code == 0
    whole = checkpoint_data("whole/checkpoints/cavity_checkpoint_00000120.toml")

    # Python to step 50 (not a checkpoint step of the case), then the command line from there.
    with eddy.Simulation(case, output="py", quiet=True) as sim:
        sim.step(50)
        manifest = sim.checkpoint()
    assert Path(manifest).name == "cavity_checkpoint_00000050.toml"
    restarted = run_cli(case, "--output", "cli_after_py", "--restart", manifest)
    assert restarted.code == 0, restarted.err
    assert checkpoint_data("cli_after_py/checkpoints/cavity_checkpoint_00000120.toml") == whole

    # The command line to step 60, then Python from its checkpoint.
    first = run_cli(case, "--output", "cli", *set_args({"run.steps": 60}))
    assert first.code == 0, first.err
    with eddy.Simulation(case, output="py_after_cli", quiet=True,
                         restart="cli/checkpoints/cavity_checkpoint_00000060.toml") as sim:
        assert sim.time_step == 60
        assert sim.run()
    assert checkpoint_data("py_after_cli/checkpoints/cavity_checkpoint_00000120.toml") == whole


@requires_device
def test_case_as_dict_and_set(in_tmp):
    case = {
        "domain": {"size": [8, 8, 1], "periodic": [True, True, True]},
        "physics": {"tau": 0.8},
        "run": {"steps": 4},
        "output": {"vtk": False},
    }
    with eddy.Simulation(case, set={"run.steps": 6, "case.name": "from_dict"}, quiet=True) as sim:
        assert sim.case_name == "from_dict"
        assert sim.steps == 6
        assert abs(sim.viscosity - 0.1) < 1e-15
        sim.run()
        assert sim.time_step == 6
        assert sim.block_shape == (1, 8, 8) and sim.domain_shape == (1, 8, 8) and sim.block_origin == (0, 0, 0)
        assert sim.rank == 0 and sim.ranks == 1
