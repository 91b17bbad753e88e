"""Every class of bad input `eddy run` reports (exit codes 2 to 8, README.md "Exit codes") raises the matching
exception from Python, with the same message and its exit_code; and the classes are those of solver/errors.hpp."""

import os
import re
from pathlib import Path

import pytest

import eddy

from conftest import requires_device, run_cli, set_args, write_case

VALID = """
[domain]
size = [8, 8, 1]
periodic = [false, false, true]
[boundary.y_max]
type = "moving_wall"
velocity = [1.0, 0.0, 0.0]
[physics]
velocity = 0.05
reynolds = 10
[run]
steps = 2
[output]
vtk = false
"""

BLOW_UP = """
[domain]
size = [128, 128, 1]
periodic = [false, false, true]
[boundary.y_max]
type = "moving_wall"
velocity = [1.0, 0.0, 0.0]
[physics]
velocity = 0.1
viscosity = 0.001
[numerics]
min_tau = 0.502
[run]
steps = 5000
report_every = 5000
[output]
vtk = false
"""


def expect_same_error(case, overrides=None, cli_args=(), cls=None, code=None, varying=None, **kwargs):
    """`eddy run` and eddy.Simulation(...).run() fail alike: the exit code is the class's, the message the same
    (but for the parts matching the regular expression `varying`, such as the free memory, which changes between
    the two runs)."""
    overrides = overrides or {}
    cli = run_cli(case, *set_args(overrides), *cli_args)
    assert cli.code == code, cli.err
    with pytest.raises(eddy.Error) as raised:
        with eddy.Simulation(case, set=overrides, quiet=True, **kwargs) as sim:
            sim.run()
    assert type(raised.value) is cls, (type(raised.value), str(raised.value))
    assert raised.value.exit_code == code
    python_message, cli_message = str(raised.value), cli.message
    if varying:
        python_message, cli_message = re.sub(varying, "#", python_message), re.sub(varying, "#", cli_message)
    assert python_message == cli_message


def test_classes_follow_the_list():
    assert issubclass(eddy.CaseFileError, eddy.InputError)
    assert issubclass(eddy.RankCountError, eddy.CollectiveInputError)
    assert issubclass(eddy.CollectiveInputError, eddy.InputError)
    assert issubclass(eddy.CollectiveOutputError, eddy.OutputError)
    assert issubclass(eddy.OutOfMemoryError, eddy.DeviceError)
    for cls in (eddy.InputError, eddy.OutputError, eddy.CheckpointError, eddy.InstabilityError, eddy.DeviceError,
                eddy.MpiError):
        assert issubclass(cls, eddy.Error) and cls.__bases__ == (eddy.Error,)
    codes = {eddy.InputError: 2, eddy.InstabilityError: 3, eddy.OutOfMemoryError: 4, eddy.OutputError: 5,
             eddy.CheckpointError: 6, eddy.RankCountError: 7, eddy.CaseFileError: 8, eddy.DeviceError: 1}
    for cls, code in codes.items():
        assert cls.exit_code == code, cls


@pytest.mark.parametrize("text, overrides", [
    (VALID + "[physics]\n", {}),  # TOML: a table defined twice
    (VALID.replace("[run]", "[run]\nstepz = 3"), {}),  # unknown key
    (VALID.replace("steps = 2", 'steps = "two"'), {}),  # wrong type
    (VALID.replace("reynolds = 10", "tau = 0.5"), {}),  # tau not above 1/2
    (VALID.replace("velocity = 0.05", "velocity = 0.4"), {}),  # Ma > 0.3
    (VALID.replace("size = [8, 8, 1]", "size = [0, 8, 1]"), {}),  # size 0
    (VALID, {"run.stepz": 5}),  # unknown key from --set
    (VALID, {"physics.tau": 0.4}),  # bad value from --set
    (VALID, {"run.steps": "abc"}),  # wrong type from --set
    (VALID, {"numerics.storage": "quad"}),  # not one of the values
], ids=["syntax", "unknown_key", "wrong_type", "tau", "mach", "size_zero", "set_unknown_key", "set_bad_value",
        "set_wrong_type", "set_bad_choice"])
@requires_device
def test_input_errors(text, overrides):
    expect_same_error(write_case("case.toml", text), overrides, cls=eddy.InputError, code=2)


@requires_device
def test_case_file_errors(in_tmp):
    expect_same_error("missing.toml", cls=eddy.CaseFileError, code=8)
    os.mkdir("a_directory.toml")
    expect_same_error("a_directory.toml", cls=eddy.CaseFileError, code=8)


@requires_device
def test_output_error(in_tmp):
    Path("not_a_directory").write_text("a file where the output directory should be\n")
    case = write_case("case.toml", VALID.replace("vtk = false", "vtk = true"))
    expect_same_error(case, {"output.directory": "not_a_directory"}, cls=eddy.CollectiveOutputError, code=5)


@requires_device
def test_checkpoint_errors(in_tmp):
    case = write_case("case.toml", VALID)
    expect_same_error(case, cli_args=("--restart", "nowhere.toml"), restart="nowhere.toml", cls=eddy.CheckpointError,
                      code=6)
    Path("garbage.toml").write_text("this is no checkpoint\n")
    expect_same_error(case, cli_args=("--restart", "garbage.toml"), restart="garbage.toml", cls=eddy.CheckpointError,
                      code=6)


@requires_device
def test_rank_count_error(in_tmp):
    case = write_case("case.toml", VALID + "[parallel]\nranks = [2, 1, 1]\n")
    expect_same_error(case, cls=eddy.RankCountError, code=7)


@requires_device
def test_out_of_memory(in_tmp):
    case = write_case("case.toml", VALID)
    expect_same_error(case, {"domain.size": [10000, 10000, 10000]}, cls=eddy.OutOfMemoryError, code=4,
                      varying=r"only [0-9.e+]+ GB are free")


@requires_device
def test_instability(in_tmp):
    expect_same_error(write_case("blow_up.toml", BLOW_UP), cls=eddy.InstabilityError, code=3)


@requires_device
def test_instability_from_step(in_tmp):
    with eddy.Simulation(write_case("blow_up.toml", BLOW_UP), quiet=True) as sim:
        with pytest.raises(eddy.InstabilityError, match="became unstable by step"):
            sim.step(2000)
        assert sim.time_step < 700


@requires_device
def test_python_side_errors(in_tmp):
    case = write_case("case.toml", VALID)
    with pytest.raises(TypeError):
        eddy.Simulation(42)
    with pytest.raises(TypeError):
        eddy.Simulation(case, set={"run.steps": object()})
    with pytest.raises(eddy.InputError, match="output directory must not be empty"):
        eddy.Simulation(case, output="", quiet=True)
    with eddy.Simulation(case, quiet=True) as sim:
        with pytest.raises(RuntimeError, match="no \\[thermal\\] section"):
            sim.temperature
        with pytest.raises(RuntimeError, match="no \\[particles\\] section"):
            sim.particle_positions
        with pytest.raises(ValueError):
            sim.step(-1)
