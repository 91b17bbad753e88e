"""An eddy run as one differentiable PyTorch layer: u = EddyRun.apply(force, u0).

The layer maps a per-cell force density F, shape (nz, ny, nx, 3), and the initial velocity u0 (the run starts
from the equilibrium f_eq(1, u0), Simulation.set_equilibrium) to the velocity field u after STEPS steps, shape
(nz, ny, nx, 3), all lattice units. Any PyTorch loss of u can follow it. Its backward is eddy's discrete adjoint:
the vector-Jacobian product v -> (J_F^T v, J_u0^T v) of the run is the gradient of L(u) = <v, u>, which is
Simulation.gradient's velocity mismatch 1/2 |u - t|^2 with t = u - v (its derivative with respect to u is
u - t = v). So backward costs one gradient() call (a forward run again, then the adjoint sweep) and forward one
run; storage is double so that t = u - v keeps v's digits.

The script
  1. checks the layer with torch.autograd.gradcheck (its backward against finite differences of its forward, on a
     small box, every input and output component);
  2. recovers a hidden initial swirl u0 (a decaying Taylor-Green vortex) under a known force from the velocity
     STEPS steps later, minimising a PyTorch loss (the mean squared mismatch) with torch.optim.LBFGS: data
     assimilation of the initial state. (The force and u0 together are not identifiable from one final field:
     6 unknowns per cell against 3 observed values; examples/python/adjoint_force_recovery.py recovers a force.)
It fails (exit 1) unless gradcheck passes, the loss falls by a factor 1e6 and u0 is recovered to 1 % (L2).

    PYTHONPATH=build/cpu/python python3 examples/python/torch_gradient_layer.py
Needs PyTorch (on GPU builds, with that GPU's support); skips with a message otherwise. EDDY_EXAMPLE_QUICK=1: a
small grid. Where the tensors live: on the cuda build the layer's inputs and outputs are CUDA tensors and eddy's
fields go to and from them through DLPack on the device; on the cpu build everything stays on the host.
"""

import math
import os
import sys

import eddy

try:
    import torch
except ImportError:
    print("SKIPPED: torch_gradient_layer.py needs PyTorch")
    sys.exit(0)
if eddy.backend == "hip" or (eddy.backend == "cuda" and not torch.cuda.is_available()):
    print("SKIPPED: torch_gradient_layer.py needs a PyTorch with %s support" % eddy.backend)
    sys.exit(0)

QUICK = os.environ.get("EDDY_EXAMPLE_QUICK") == "1"
N = 12 if QUICK else 32
STEPS = 60 if QUICK else 200
ITERATIONS = 30
DEVICE = "cuda" if eddy.backend == "cuda" else "cpu"


def periodic_box(n, steps):
    return {
        "case": {"name": "torch_layer"},
        "domain": {"size": [n, n, 1], "periodic": [True, True, True]},
        "physics": {"tau": 0.8},
        "numerics": {"storage": "double"},
        "run": {"steps": steps},
        "output": {"vtk": False},
    }


def start(case, force, u0):
    """A simulation of `case` with force density `force` that starts from f_eq(1, u0)."""
    sim = eddy.Simulation(case, quiet=True)
    torch.from_dlpack(sim.force).copy_(force.detach())  # eddy's own array, written in place
    sim.set_equilibrium(velocity=u0.detach().cpu().numpy())
    return sim


class EddyRun(torch.autograd.Function):
    """u = u(F, u0): STEPS steps of `case` (ctx-free: the case rides along as a non-tensor argument)."""

    @staticmethod
    def forward(ctx, force, u0, case, steps):
        with start(case, force, u0) as sim:
            sim.step(steps)
            u = torch.from_dlpack(sim.velocity).clone()  # the read-out buffer is reused: keep a copy
        ctx.save_for_backward(force, u0, u)
        ctx.case, ctx.steps = case, steps
        return u

    @staticmethod
    def backward(ctx, v):
        force, u0, u = ctx.saved_tensors
        target = (u - v).detach().cpu().numpy()  # d/du 1/2 |u - t|^2 = u - t = v
        with start(ctx.case, force, u0) as sim:
            g = sim.gradient(ctx.steps, "velocity_mismatch", target=target)
            grad_force = torch.from_dlpack(g["force"]).clone()  # zero-copy views of the adjoint's fields, copied
            grad_u0 = torch.from_dlpack(g["initial_velocity"]).clone()
        return grad_force, grad_u0, None, None


def check_layer():
    """gradcheck on a 4 x 3 box, 10 steps: every component of J^T v against central differences."""
    case = periodic_box(4, 10)
    case["domain"]["size"] = [4, 3, 1]
    generator = torch.Generator().manual_seed(3)
    force = (1e-4 * (2 * torch.rand((1, 3, 4, 3), generator=generator, dtype=torch.float64) - 1)).to(DEVICE)
    u0 = (0.02 * (2 * torch.rand((1, 3, 4, 3), generator=generator, dtype=torch.float64) - 1)).to(DEVICE)
    force.requires_grad_(True)
    u0.requires_grad_(True)
    return torch.autograd.gradcheck(lambda f, w: EddyRun.apply(f, w, case, 10), (force, u0), eps=1e-6, atol=1e-9,
                                    rtol=1e-6, raise_exception=False)


def recover():
    """LBFGS on a hidden initial swirl under a known force; returns (the losses, the relative L2 error of u0)."""
    case = periodic_box(N, STEPS)
    y, x = torch.meshgrid(torch.arange(N, dtype=torch.float64) + 0.5, torch.arange(N, dtype=torch.float64) + 0.5,
                          indexing="ij")
    a = 2e-5
    force = torch.zeros((1, N, N, 3), dtype=torch.float64)
    force[0, ..., 0] = a * torch.sin(2 * math.pi * y / N)
    force[0, ..., 1] = a * torch.sin(2 * math.pi * x / N)
    hidden_u0 = torch.zeros((1, N, N, 3), dtype=torch.float64)  # a Taylor-Green swirl
    hidden_u0[0, ..., 0] = 0.01 * torch.sin(2 * math.pi * x / N) * torch.cos(2 * math.pi * y / N)
    hidden_u0[0, ..., 1] = -0.01 * torch.cos(2 * math.pi * x / N) * torch.sin(2 * math.pi * y / N)
    force, hidden_u0 = force.to(DEVICE), hidden_u0.to(DEVICE)
    with torch.no_grad():
        observed = EddyRun.apply(force, hidden_u0, case, STEPS)

    # The unknown in units of its expected size (u0 = 0.01 q); the force is known.
    q = torch.zeros_like(hidden_u0, requires_grad=True)
    scale = float(observed.abs().max())  # the loss in units of the observed field's size
    optimiser = torch.optim.LBFGS([q], lr=1.0, max_iter=ITERATIONS, max_eval=2 * ITERATIONS, history_size=20,
                                  line_search_fn="strong_wolfe", tolerance_grad=1e-12, tolerance_change=1e-15)
    losses = []

    def closure():
        optimiser.zero_grad()
        loss = ((EddyRun.apply(force, 0.01 * q, case, STEPS) - observed) ** 2).mean() / scale**2
        loss.backward()
        losses.append(loss.item())
        return loss

    optimiser.step(closure)
    return losses, float(torch.linalg.norm(0.01 * q.detach() - hidden_u0) / torch.linalg.norm(hidden_u0))


if __name__ == "__main__":
    ok = check_layer()
    print("gradcheck of the eddy layer (J^T v against central differences):", "passed" if ok else "FAILED")
    losses, u0_error = recover()
    print("LBFGS, %d evaluations on %d^2 cells x %d steps: loss %.3e -> %.3e; |u0 - u0_h| / |u0_h| = %.2e"
          % (len(losses), N, STEPS, losses[0], losses[-1], u0_error))
    sys.exit(0 if ok and losses[-1] <= 1e-6 * losses[0] and u0_error < 0.01 else 1)
