"""Ctrl-C (SIGINT) stops Simulation.step(n) and Simulation.gradient() between two chunks of steps with Python's
KeyboardInterrupt, leaving a simulation that goes on: step(n) at the chunk it reached, gradient() during its forward
run at the forward run's step. Each case runs in its own interpreter, which signals itself after half a second.
A signal handler that calls step() or gradient() during gradient() gets RuntimeError; one that closes the simulation
ends the call without a crash."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import eddy

from conftest import requires_device

SCRIPT = """
import os, subprocess, time
import eddy
case = {"case": {"name": "interrupt"}, "domain": {"size": [24, 24, 24], "periodic": [True, True, True]},
        "physics": {"tau": 0.8}, "run": {"steps": 10}, "output": {"vtk": False}}
with eddy.Simulation(case, quiet=True) as sim:
    # Ctrl-C from outside (the running call holds the GIL: no Python thread of this process could send it)
    subprocess.Popen(["sh", "-c", "sleep 0.5; kill -INT %d" % os.getpid()])
    start = time.time()
    try:
        CALL
        print("not interrupted")
    except KeyboardInterrupt:
        print("interrupted at", sim.time_step, "after", round(time.time() - start, 1), "s")
    before = sim.time_step
    sim.step(1)
    print("goes on", sim.time_step - before)
"""


@requires_device
@pytest.mark.parametrize("call", ["sim.step(10**8)", "sim.gradient(10**6, checkpoint_every=10**4)"])
def test_ctrl_c_stops_between_chunks(call):
    env = dict(os.environ, PYTHONPATH=str(Path(eddy.__file__).resolve().parent.parent))  # this build's eddy
    done = subprocess.run([sys.executable, "-c", SCRIPT.replace("CALL", call)], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.split("\n")
    assert lines[0].startswith("interrupted at "), done.stdout + done.stderr
    step, seconds = int(lines[0].split()[2]), float(lines[0].split()[4])
    assert 0 < step < 10**6 and step % 64 == 0, step  # between two chunks of 64 steps
    assert seconds < 30, seconds
    assert lines[1] == "goes on 1", done.stdout


HANDLER_SCRIPT = """
import os, signal, subprocess
import eddy
case = {"case": {"name": "interrupt"}, "domain": {"size": [24, 24, 24], "periodic": [True, True, True]},
        "physics": {"tau": 0.8}, "run": {"steps": 10}, "output": {"vtk": False}}
sim = eddy.Simulation(case, quiet=True)
def handler(signum, frame):
    ACTION
signal.signal(signal.SIGUSR1, handler)
subprocess.Popen(["sh", "-c", "sleep 0.5; kill -USR1 %d" % os.getpid()])
try:
    sim.gradient(10**6, checkpoint_every=10**4)
    print("not stopped")
except BaseException as e:
    print("raised", type(e).__name__, str(e)[:40])
try:
    before = sim.time_step
    sim.step(1)
    print("goes on", sim.time_step - before)
except ValueError as e:
    print("after:", str(e)[:30])
"""


@requires_device
@pytest.mark.parametrize("action, first, second", [
    ("sim.step(1)", "raised RuntimeError step: the simulation is inside", "goes on 1"),
    ("sim.gradient(2)", "raised RuntimeError gradient: the simulation is", "goes on 1"),
    ("sim.close(); raise KeyboardInterrupt", "raised KeyboardInterrupt", "after: the simulation is closed"),
])
def test_a_signal_handler_cannot_step_or_pull_the_simulation_from_under_gradient(action, first, second):
    # gradient() runs Python signal handlers between its chunks of steps: a handler that steps the simulation is
    # refused; one that closes it ends the call without a crash (the call keeps the simulation alive until it ends).
    env = dict(os.environ, PYTHONPATH=str(Path(eddy.__file__).resolve().parent.parent))
    done = subprocess.run([sys.executable, "-c", HANDLER_SCRIPT.replace("ACTION", action)], capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.split("\n")
    assert lines[0].startswith(first), done.stdout + done.stderr
    assert lines[1].startswith(second), done.stdout + done.stderr
