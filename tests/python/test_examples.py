"""Every example of examples/python runs (quick form, EDDY_EXAMPLE_QUICK=1) and checks its own result; the GPU ones
skip with a message where CuPy, numba-cuda, PyTorch or the cuda build are missing."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SOURCE_DIR, requires_device

EXAMPLES = sorted(p for p in (SOURCE_DIR / "examples" / "python").glob("*.py") if not p.name.startswith("bench_"))


def test_examples_are_there():
    names = {p.name for p in EXAMPLES}
    assert {"numpy_taylor_green.py", "cupy_kolmogorov.py", "numba_statistic.py", "torch_snapshots.py",
            "adjoint_force_recovery.py", "torch_gradient_layer.py", "topology_bend.py"} <= names


@requires_device
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(example, in_tmp):
    env = dict(os.environ, EDDY_EXAMPLE_QUICK="1")
    done = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "(no output)"
    if last.startswith("SKIPPED:"):
        pytest.skip(last[len("SKIPPED:"):].strip())
    print(last)


@requires_device
def test_benchmark_runs(in_tmp):
    """The benchmark script in a tiny form (its numbers mean nothing here; it must run and check its results)."""
    script = SOURCE_DIR / "examples" / "python" / "bench_python.py"
    done = subprocess.run([sys.executable, str(script), "--size", "16", "--force-size", "16", "--steps", "20",
                           "--repeat", "1"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "step(1) overhead" in done.stdout
