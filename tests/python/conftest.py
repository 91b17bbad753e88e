"""Shared set-up of the Python module's tests (tests/python/, run by CTest as python_module).

CTest passes the build through the environment: PYTHONPATH (build/<backend>/python), EDDY_EXECUTABLE (the eddy
binary the Python runs are compared with), EDDY_WITH_VTK (1 when .vti output is available), EDDY_MPIEXEC and
EDDY_MPIEXEC_FLAGS (for the MPI test). Every test runs in its own temporary directory.
"""

import os
import shlex
import subprocess
import textwrap
from pathlib import Path

import pytest

import eddy

EXECUTABLE = os.environ.get("EDDY_EXECUTABLE", "eddy")
WITH_VTK = os.environ.get("EDDY_WITH_VTK", "1") == "1"
SOURCE_DIR = Path(os.environ.get("EDDY_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def gpu_visible():
    """A GPU build needs a GPU: its Simulations cannot be created without one."""
    return eddy.backend == "cpu" or os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/kfd")


requires_device = pytest.mark.skipif(not gpu_visible(), reason="SKIPPED: no GPU visible to this GPU build")
cpu_only = pytest.mark.skipif(eddy.backend != "cpu", reason="SKIPPED: NumPy views need the cpu build")


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write_case(path, text):
    path = Path(path)
    path.write_text(textwrap.dedent(text))
    return str(path)


class CliResult:
    def __init__(self, completed):
        self.code = completed.returncode
        self.out = completed.stdout
        self.err = completed.stderr

    @property
    def message(self):
        """The one error line without its "eddy: error: " prefix."""
        lines = [line for line in self.err.splitlines() if line.startswith("eddy: error: ")]
        assert len(lines) == 1, self.err
        return lines[0][len("eddy: error: "):]


def run_cli(*args, env=None):
    """`eddy run ARGS...`: exit code, stdout, stderr."""
    full_env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
    full_env.update(env or {})
    completed = subprocess.run([EXECUTABLE, "run", *map(str, args)], capture_output=True, text=True, env=full_env,
                               timeout=600)
    return CliResult(completed)


def set_args(overrides):
    """--set arguments of an override dict, written as eddy.Simulation writes them."""
    from eddy import _toml
    args = []
    for key, value in overrides.items():
        args += ["--set", _toml.override(key, value)]
    return args


def checkpoint_data(manifest):
    """The bytes of a checkpoint's data file (beside its .toml manifest)."""
    return Path(manifest).with_suffix(".data").read_bytes()


def mpiexec():
    exe = os.environ.get("EDDY_MPIEXEC", "")
    return ([exe] + shlex.split(os.environ.get("EDDY_MPIEXEC_FLAGS", ""))) if exe else None
