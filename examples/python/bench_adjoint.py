"""Benchmark of the discrete adjoint (docs/performance.md, "Gradients"); not a test.

A lid-driven cavity N^3 (default 256), float storage (or --storage), warmed up, then for each step count S:
  forward:  sim.step(S), bracketed by sim.synchronize();
  gradient: sim.gradient(S) (kinetic energy of the whole box; forward, recomputation and adjoint together, the
            results left on the device), the same bracket;
with the ratio gradient / forward, the kept-state interval k, the states' device and host memory and the steps
recomputed. Repeated (--repeat), mean and spread, then each call (the first allocates the memory the later calls
reuse). The issue's target: a gradient at most 4x the forward run.

    PYTHONPATH=build/cuda/python python3 examples/python/bench_adjoint.py
    PYTHONPATH=build/cpu/python python3 examples/python/bench_adjoint.py --size 32 --steps 20 --repeat 1
"""

import argparse
import statistics
import time

import eddy

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--size", type=int, default=256, help="cavity N^3 (default 256)")
parser.add_argument("--storage", default="float", help="float, double or fp16 (default float)")
parser.add_argument("--steps", type=int, nargs="+", default=[100, 400], help="step counts S (default 100 400)")
parser.add_argument("--checkpoint-every", type=int, default=0, help="k (default ceil(sqrt(S)))")
parser.add_argument("--repeat", type=int, default=3, help="timed repetitions (default 3)")
args = parser.parse_args()

case = {
    "case": {"name": "bench_adjoint"},
    "domain": {"size": [args.size] * 3},
    "physics": {"velocity": 0.05, "reynolds": 100},
    "boundary": {"y_max": {"type": "moving_wall", "velocity": [1, 0, 0]}},
    "numerics": {"storage": args.storage},
    "run": {"steps": 10**9},
    "output": {"vtk": False},
}


def timed(sim, fn):
    sim.synchronize()
    start = time.perf_counter()
    result = fn()
    sim.synchronize()
    return time.perf_counter() - start, result


def describe(values):
    return statistics.mean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


cells = args.size**3
with eddy.Simulation(case, quiet=True) as sim:
    sim.step(100)
    print("eddy %s (%s), cavity %d^3, %s storage" % (eddy.__version__, eddy.backend, args.size, args.storage))
    for steps in args.steps:
        forward, gradient, phases = [], [], []
        for _ in range(args.repeat):
            forward.append(timed(sim, lambda: sim.step(steps))[0])
            seconds, g = timed(sim, lambda: sim.gradient(steps, checkpoint_every=args.checkpoint_every))
            gradient.append(seconds)
            phases.append(g["seconds"])
            g = {k: v for k, v in g.items() if not hasattr(v, "to_numpy")}  # the adjoint's fields go before the next run
        f_mean, f_spread = describe(forward)
        g_mean, g_spread = describe(gradient)
        print("S = %4d: forward %.3f +- %.3f s (%.0f MLUPS), gradient %.3f +- %.3f s, ratio %.2f; k = %d, "
              "%d steps recomputed, states and adjoint fields %.2f GB on the device, %.2f GB on the host"
              % (steps, f_mean, f_spread, cells * steps / f_mean * 1e-6, g_mean, g_spread, g_mean / f_mean,
                 g["checkpoint_every"], g["recomputed_steps"], g["device_bytes"] * 1e-9, g["host_bytes"] * 1e-9))
        names = ("setup", "forward", "recompute", "adjoint", "finish")
        print("         phases (mean): " + ", ".join("%s %.3f s" % (name, statistics.mean(p[name] for p in phases))
                                                   for name in names))
        # The first call allocates the kept states' and the adjoint's memory (kept for the later calls).
        for call, (seconds, p) in enumerate(zip(gradient, phases)):
            print("         call %d: gradient %.3f s, ratio %.2f (%s)"
                  % (call + 1, seconds, seconds / f_mean, ", ".join("%s %.3f" % (name, p[name]) for name in names)))
