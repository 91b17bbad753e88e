"""Topology optimisation of a 2D channel bend: where the fluid should flow, found from gradients through the run.

The bend benchmark of Borrvall & Petersson 2003 (Int. J. Numer. Meth. Fluids 41, 77, sec. 5.3): a square of N x N
cells, the flow entering at U through a window of width N/5 in the left wall (x_min: a velocity inlet, the rest of
that wall solid) and leaving through a window of the same width in the bottom wall (y_min: a pressure outlet). Every
other cell holds a design variable gamma in [0, 1] (1 fluid, 0 solid), the flow sees it as a Brinkman drag
alpha(gamma) = alpha_max q (1 - gamma) / (q + gamma) (their eq. 12, q = 0.1), and at most a volume fraction V of
the design cells may be fluid. The script minimises the pressure drop between the inlet's and the outlet's first
two layers (eddy's "pressure_drop" objective; with a fixed inflow, the dissipated power is the flow rate times it).

Each iteration relaxes the flow through the current design, then takes dL/dalpha from Simulation.gradient (the
discrete adjoint of eddy's own steps, through the velocity inlet and the pressure outlet), dL/dgamma by the chain
rule, smooths it with the sensitivity filter of Sigmund 1997 (Mech. Struct. Mach. 25, 493; radius 1.5 cells), and
updates gamma by the optimality criteria method with a move limit of 0.2 and the volume held by bisection (Bendsoe &
Sigmund 2003, Topology Optimization, Springer, sec. 1.2.1). The gradient of a run of T steps from a nearly steady
state stands for the steady one: T covers several relaxation times of the flow.

Output (in topology_bend/, or the directory given as the first argument): design_NNN.vti per iteration (gamma,
alpha, velocity and pressure as point data, one point per cell, as eddy's snapshots; design.pvd lists them for
ParaView's time slider), convergence.png (the pressure drop and the fluid fraction per iteration; matplotlib), and
convergence.csv. VTK files need VTK's Python bindings (Debian: python3-vtk9), the plot matplotlib
(python3-matplotlib); without them the script says so and writes the CSV. At the end both designs run to a steady
state, and the script fails unless the pressure drop fell by at least 30 %.

    PYTHONPATH=build/cpu/python python3 examples/python/topology_bend.py [output-directory]
Every build: on GPU builds the porosity is written through CuPy (or PyTorch). EDDY_EXAMPLE_QUICK=1: a small grid.
"""

import os
import sys

import numpy as np

import eddy

QUICK = os.environ.get("EDDY_EXAMPLE_QUICK") == "1"
N = 32 if QUICK else 64
ITERATIONS = 16 if QUICK else 40
U = 0.02                    # inflow velocity, lattice units (Re = U N/5 / nu = 1.3 at N = 32)
TAU = 0.8                   # nu = 0.1
ALPHA_MAX, Q = 0.5, 0.1     # Brinkman interpolation alpha(gamma)
VOLUME = 0.3                # fluid fraction of the design cells
RELAX, T = 300, 400         # steps before each gradient, steps the gradient runs through
FINAL = 4000                # steps of the final comparison
W0, W1 = int(0.65 * N), int(0.85 * N)  # the inlet's y range and the outlet's x range, [W0, W1)
OUT = sys.argv[1] if len(sys.argv) > 1 else "topology_bend"


def case():
    """The square with its inlet and outlet windows, the rest of the left and bottom walls solid bodies."""
    def box(name, lo, hi):
        return {"name": name, "shape": "box", "min": [lo[0], lo[1], 0], "max": [hi[0], hi[1], 1], "wall": "halfway"}
    return {
        "case": {"name": "topology_bend"},
        "domain": {"size": [N, N, 1], "periodic": [False, False, True]},
        "physics": {"tau": TAU, "velocity": U},
        "boundary": {"x_min": {"type": "velocity_inlet", "velocity": [1.0, 0.0, 0.0]},  # in units of physics.velocity
                     "y_min": {"type": "pressure_outlet", "density": 1.0}},
        "solid": [box("left_low", (0, 0), (1, W0)), box("left_high", (0, W1), (1, N)),
                  box("bottom_left", (1, 0), (W0, 1)), box("bottom_right", (W1, 0), (N, 1))],
        "numerics": {"storage": "double"},
        "run": {"steps": 1},
        "output": {"vtk": False},
    }


y, x = np.meshgrid(np.arange(N), np.arange(N), indexing="ij")
inlet_cells = (x <= 1) & (y >= W0) & (y < W1)
outlet_cells = (y <= 1) & (x >= W0) & (x < W1)
solid = ((x == 0) & ~((y >= W0) & (y < W1))) | ((y == 0) & ~((x >= W0) & (x < W1)))
design = ~(solid | inlet_cells | outlet_cells)  # the inlet's and outlet's two layers stay fluid
UPSTREAM = ((0, 1), (W0, W1), (1, 3))      # ((z0, z1), (y0, y1), (x0, x1))
DOWNSTREAM = ((0, 1), (1, 3), (W0, W1))


def alpha_of(gamma):
    return ALPHA_MAX * Q * (1.0 - gamma) / (Q + gamma)


def dalpha_dgamma(gamma):
    return -ALPHA_MAX * Q * (1.0 + Q) / (Q + gamma) ** 2


def set_porosity(sim, alpha):
    """Writes alpha, shape (N, N), into sim.porosity (the simulation's own array, shape (1, N, N))."""
    field = alpha[None, :, :]
    if eddy.backend == "cpu":
        np.asarray(sim.porosity)[...] = field
        return
    try:
        import cupy
        cupy.asarray(sim.porosity)[...] = cupy.asarray(field)
    except ImportError:
        import torch
        torch.from_dlpack(sim.porosity)[...] = torch.as_tensor(field, device="cuda")


def filtered(sensitivity, gamma):
    """Sigmund's sensitivity filter over the design cells, radius 1.5: a weighted mean of gamma * dL/dgamma over
    the 3 x 3 neighbourhood (weights 1.5 - distance), divided by gamma."""
    weighted = np.where(design, gamma * sensitivity, 0.0)
    total, norm = np.zeros_like(gamma), np.zeros_like(gamma)
    pad_w, pad_d = np.pad(weighted, 1), np.pad(design.astype(float), 1)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            h = 1.5 - np.hypot(dx, dy)
            total += h * pad_w[1 + dy:1 + dy + N, 1 + dx:1 + dx + N]
            norm += h * pad_d[1 + dy:1 + dy + N, 1 + dx:1 + dx + N]
    return np.where(design, total / np.maximum(norm * np.maximum(gamma, 1e-3), 1e-30), 0.0)


def optimality_criteria(gamma, sensitivity, move=0.2, damping=0.5):
    """gamma B^damping with B = -dL/dgamma / lambda, within the move limit and [0, 1], lambda by bisection so that
    the design cells' fluid fraction is VOLUME (Bendsoe & Sigmund 2003, eq. 1.5 with dV/dgamma = 1)."""
    gain = np.maximum(-sensitivity, 0.0)
    lo, hi = 1e-30, max(float(gain.max()), 1e-30) * 1e4
    while hi / lo > 1.0 + 1e-9:
        mid = np.sqrt(lo * hi)
        new = np.clip(gamma * (gain / mid) ** damping, np.maximum(gamma - move, 0.0), np.minimum(gamma + move, 1.0))
        if new[design].mean() > VOLUME:
            lo = mid
        else:
            hi = mid
    return np.where(design, new, 1.0)


def vtk_writer():
    try:
        from vtkmodules.util.numpy_support import numpy_to_vtk
        from vtkmodules.vtkCommonDataModel import vtkImageData
        from vtkmodules.vtkIOXML import vtkXMLImageDataWriter
    except ImportError:
        print("note: VTK's Python bindings are missing (Debian: python3-vtk9): no .vti files")
        return None

    def write(path, arrays):
        image = vtkImageData()
        image.SetDimensions(N, N, 1)
        image.SetOrigin(0.5, 0.5, 0.5)  # cell centres, as eddy's snapshots
        for name, values in arrays.items():
            flat = np.ascontiguousarray(values.reshape(N * N, -1) if values.ndim == 3 else values.reshape(-1))
            array = numpy_to_vtk(flat, deep=True)
            array.SetName(name)
            image.GetPointData().AddArray(array)
        writer = vtkXMLImageDataWriter()
        writer.SetFileName(path + ".tmp")
        writer.SetInputData(image)
        if writer.Write() != 1:
            raise OSError("could not write " + path)
        os.replace(path + ".tmp", path)  # a complete file or none
    return write


def read_back(path, name):
    """Array `name` of a written .vti, shape (N, N), read by VTK's own reader (the files' check)."""
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOXML import vtkXMLImageDataReader
    reader = vtkXMLImageDataReader()
    reader.SetFileName(path)
    reader.Update()
    return vtk_to_numpy(reader.GetOutput().GetPointData().GetArray(name)).reshape(N, N)


def write_collection(names):
    """design.pvd: the iterations as the time steps of one data set."""
    lines = ['<?xml version="1.0"?>', '<VTKFile type="Collection" version="0.1">', "  <Collection>"]
    lines += ['    <DataSet timestep="%d" file="%s"/>' % (i, name) for i, name in enumerate(names)]
    lines += ["  </Collection>", "</VTKFile>", ""]
    path = os.path.join(OUT, "design.pvd")
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines))
    os.replace(path + ".tmp", path)


def steady_drop(sim, steps):
    """Runs `steps` steps and returns the pressure drop of the state reached (the objective's definition)."""
    sim.step(steps)
    rho = sim.density.to_numpy()[0]
    return (rho[W0:W1, 1:3].mean() - rho[1:3, W0:W1].mean()) / 3.0


def main():
    os.makedirs(OUT, exist_ok=True)
    write = vtk_writer()
    gamma = np.where(design, VOLUME, 1.0)
    history, names = [], []
    with eddy.Simulation(case(), quiet=True) as sim:
        set_porosity(sim, alpha_of(gamma))
        sim.step(FINAL // 2)  # the first design's flow, nearly steady
        for it in range(ITERATIONS):
            set_porosity(sim, alpha_of(gamma))
            sim.step(RELAX)
            g = sim.gradient(T, "pressure_drop", region=UPSTREAM, downstream=DOWNSTREAM)
            sensitivity = g["porosity"].to_numpy()[0] * dalpha_dgamma(gamma)
            history.append((it, g["objective"], float(gamma[design].mean())))
            print("iteration %3d: pressure drop %.4e, fluid fraction %.3f" % history[-1])
            if write:
                rho, u = (a.to_numpy()[0] for a in sim.moments())
                names.append("design_%03d.vti" % it)
                write(os.path.join(OUT, names[-1]), {"gamma": np.where(solid, 0.0, gamma), "alpha": alpha_of(gamma),
                                                    "velocity": u,
                                                    "pressure": np.where(rho > 0, (rho - 1.0) / 3.0, 0.0)})
                write_collection(names)
            if write and it == 0:  # the file holds what was written: the first design, uniform in the design cells
                first = read_back(os.path.join(OUT, names[0]), "gamma")
                if not np.array_equal(first, np.where(solid, 0.0, gamma)):
                    sys.exit("topology_bend: %s does not hold the design written" % names[0])
            gamma = optimality_criteria(gamma, filtered(sensitivity, gamma))
        set_porosity(sim, alpha_of(gamma))
        final = steady_drop(sim, FINAL)
    with eddy.Simulation(case(), quiet=True) as sim:
        set_porosity(sim, alpha_of(np.where(design, VOLUME, 1.0)))
        initial = steady_drop(sim, FINAL)

    with open(os.path.join(OUT, "convergence.csv"), "w") as f:
        f.write("iteration,pressure_drop,fluid_fraction\n")
        f.writelines("%d,%.8e,%.6f\n" % h for h in history)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
        left.semilogy([h[0] for h in history], [h[1] for h in history], "o-", label="during the iterations")
        left.axhline(initial, color="grey", ls="--", label="initial design, steady")
        left.axhline(final, color="green", ls="--", label="final design, steady")
        left.set_xlabel("iteration")
        left.set_ylabel("pressure drop (lattice units)")
        left.legend()
        cmap = matplotlib.colormaps["Blues"].copy()
        cmap.set_bad("dimgray")
        image = right.imshow(np.ma.masked_where(solid, gamma), origin="lower", cmap=cmap, vmin=0, vmax=1)
        right.set_title("final design: gamma (1 fluid; walls grey)")
        fig.colorbar(image, ax=right)
        fig.tight_layout()
        fig.savefig(os.path.join(OUT, "convergence.png"), dpi=100)
    except ImportError:
        print("note: matplotlib is missing (Debian: python3-matplotlib): no convergence.png")
    reduction = 1.0 - final / initial
    print("pressure drop, steady: initial design %.4e, final design %.4e (%.0f %% lower), fluid fraction %.3f"
          % (initial, final, 100 * reduction, gamma[design].mean()))
    if reduction < 0.30:
        sys.exit("topology_bend: the pressure drop fell by %.0f %%, less than the 30 %% expected" % (100 * reduction))


if __name__ == "__main__":
    main()
