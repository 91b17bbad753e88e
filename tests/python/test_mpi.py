"""Under mpirun each rank's Python Simulation holds its own block (rank, block_origin, block_shape), and two ranks
give bitwise the state of one: the two ranks' checkpoint, restarted on one rank, holds the populations of the
one-rank run, and (with mpi4py) the gathered density is the one-rank density."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import eddy

from conftest import mpiexec, requires_device, write_case

CASE = """
[case]
name = "box"
[domain]
size = [12, 10, 8]
[boundary.y_max]
type = "moving_wall"
velocity = [1.0, 0.0, 0.0]
[physics]
velocity = 0.05
reynolds = 20
[run]
steps = 30
[output]
vtk = false
[checkpoint]
every = 30
[parallel]
ranks = [1, 1, 2]
"""


@requires_device
@pytest.mark.skipif(mpiexec() is None, reason="SKIPPED: no mpiexec given (EDDY_MPIEXEC)")
def test_two_ranks(in_tmp):
    case = write_case("box.toml", CASE)
    script = Path(__file__).with_name("mpi_blocks.py")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    done = subprocess.run(mpiexec() + ["-n", "2", sys.executable, str(script), case, "two"], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    blocks = sorted(tuple(int(v) for v in path.read_text().split()) for path in Path("two").glob("block_*.txt"))
    assert blocks == [(0, 2, 0, 0, 0, 4, 10, 12), (1, 2, 4, 0, 0, 4, 10, 12)], done.stdout

    one_case = write_case("one.toml", CASE.replace("ranks = [1, 1, 2]", "ranks = [1, 1, 1]").replace(
        "[checkpoint]\nevery = 30\n", ""))
    with eddy.Simulation(one_case, output="one", quiet=True) as one:
        one.run()
        populations = one.populations.to_numpy()
        density = one.density.to_numpy()
    with eddy.Simulation(one_case, output="restarted", quiet=True,
                         restart="two/checkpoints/box_checkpoint_00000030.toml") as restarted:
        assert restarted.time_step == 30
        assert np.array_equal(restarted.populations.to_numpy(), populations)
    if Path("two/density.npy").exists():  # mpi4py was there
        assert np.array_equal(np.load("two/density.npy"), density)
