"""eddy from Python: run a case and reach its fields on the device without copies.

    import eddy, numpy as np
    with eddy.Simulation("cases/lid_driven_cavity_2d.toml", set={"run.steps": 1000}) as sim:
        sim.step(100)                      # 100 lattice steps, nothing else
        u = np.asarray(sim.velocity)       # (nz, ny, nx, 3), lattice units (cpu build: a NumPy view)
        sim.run(callback=lambda s: print(s.time_step), every=200)   # the loop of `eddy run`

The case is read and checked by the same code as `eddy run` (the same messages); errors raise the classes of
solver/errors.hpp (eddy.InputError, eddy.CaseFileError, eddy.OutputError, eddy.CheckpointError,
eddy.InstabilityError, eddy.OutOfMemoryError, ...; all eddy.Error, each with the exit code `eddy run` gives).

Arrays (eddy.FieldArray) are views of the simulation's memory over this rank's block, interior cells only, indexed
[z, y, x] (x fastest) with strides given in bytes; lattice units. On the cpu build numpy.asarray() takes them
(__array_interface__), on CUDA cupy.asarray(), numba.cuda.as_cuda_array() and torch.as_tensor() take them
(__cuda_array_interface__ v3, with the simulation's stream), and on every build torch.from_dlpack(),
numpy.from_dlpack() and jax.dlpack.from_dlpack() (__dlpack__: kDLCPU, kDLCUDA, kDLROCM). They keep the memory
alive; after close() they raise ValueError. Streams and ordering: see Simulation.stream. Details and examples:
README.md ("Python") and examples/python/.
"""

import atexit as _atexit
import operator as _operator
import os as _os

import numpy as _np


def _start_mpi():
    """Initialises MPI before the extension is loaded, through the MPI library it links (eddy/_mpi_library.py).

    On the H200 machine (Ubuntu 24.04, Open MPI 4.1.6, CUDA build) MPI_Init called from inside the extension crashed
    the import while MPI started first (by mpi4py) worked; the cause found later was the module exporting its static
    libraries' symbols (python/CMakeLists.txt, --exclude-libs), but MPI's components still load here before the
    extension exists, so they never see its symbols. MPI ends at exit after the simulations (atexit runs in reverse
    order). When
    MPI is running already (mpi4py imported first), nothing is done and eddy leaves MPI_Finalize to its owner.
    Returns the finaliser to register, or None.
    """
    import ctypes

    try:
        from . import _mpi_library

        if not _mpi_library.PATH:
            return None
        library = ctypes.CDLL(_mpi_library.PATH, mode=ctypes.RTLD_GLOBAL)
        initialized = ctypes.c_int(0)
        library.MPI_Initialized(ctypes.byref(initialized))
    except (ImportError, OSError, AttributeError):
        return None  # the extension starts MPI itself (solver's ensure_mpi)
    if initialized.value:
        return None
    provided = ctypes.c_int(0)
    thread_funneled = 1  # MPI_THREAD_FUNNELED in Open MPI's and MPICH's mpi.h
    if library.MPI_Init_thread(None, None, thread_funneled, ctypes.byref(provided)) != 0:
        raise RuntimeError("eddy: MPI_Init_thread failed in " + _mpi_library.PATH)

    def finalize():
        finalized = ctypes.c_int(0)
        library.MPI_Finalized(ctypes.byref(finalized))
        if not finalized.value:
            library.MPI_Finalize()

    return finalize


_mpi_finalize = _start_mpi()
if _mpi_finalize is not None:
    _atexit.register(_mpi_finalize)  # registered first, so it runs after _eddy.shutdown below

from . import _eddy  # noqa: E402
from . import _toml  # noqa: E402

backend = _eddy.backend
__version__ = _eddy.version
FieldArray = _eddy.FieldArray

# The exception classes, one per entry of solver/errors.hpp's list (made by the extension from that list).
for _name in _eddy.error_names():
    globals()[_name] = getattr(_eddy, _name)
del _name

_atexit.register(_eddy.shutdown)


def _comm_handle(comm):
    if comm is None:
        return None
    if hasattr(comm, "py2f"):  # mpi4py.MPI.Comm
        return int(comm.py2f())
    raise TypeError("eddy: comm must be an mpi4py communicator (got %s)" % type(comm).__name__)


class Simulation(_eddy.Simulation):
    """One run of a case on this process's rank.

    Simulation(case, set=None, *, output=None, restart=None, quiet=False, comm=None, sync_default_stream=True)

    case: a TOML case file (str or path; read by the same code as `eddy run`) or a dict mirroring one, e.g.
        {"domain": {"size": [64, 64, 1]}, "physics": {"tau": 0.8}, "boundary": {"x_min": {"type": "periodic"}}}.
    set: overrides as `eddy run --set` gives them, {"run.steps": 1000, "output.directory": "out"}: each value a
        Python bool, int, float, str, list or dict, written as TOML (a str is a TOML string).
    output: the output directory (as --output). restart: a checkpoint's .toml manifest to continue from (as
        --restart). quiet: print nothing (else what `eddy run` prints goes to sys.stdout).
    comm: an mpi4py communicator (default: MPI_COMM_WORLD); under mpirun each rank's Simulation holds its block.
    sync_default_stream (GPU builds): order the simulation's work with the default CUDA/HIP stream, so that arrays
        written by kernels on the default stream before step()/run() are seen, and kernels launched on it after
        them see the new state (two event records per call). Work on other streams of yours: use Simulation.stream,
        or synchronise.

    The set-up is that of `eddy run`: the output (and checkpoint) directories are checked, created and locked; with
    output.every > 0 the initial snapshot is written. Under MPI every method that reads or steps the fields is
    collective: call it on every rank.
    """

    def __init__(self, case, set=None, *, output=None, restart=None, quiet=False, comm=None,
                 sync_default_stream=True):
        overrides = [_toml.override(k, v) for k, v in (set or {}).items()]
        if isinstance(case, dict):
            case = dict(case)
            section = dict(case.get("case", {}))
            section.setdefault("name", "case")  # a file's name would come from its stem
            case["case"] = section
            source, is_text, origin = _toml.dumps(case), True, "<dict>"
        elif isinstance(case, (str, _os.PathLike)):
            source, is_text, origin = _os.fspath(case), False, _os.fspath(case)
        else:
            raise TypeError("eddy: case must be a TOML file path or a dict (got %s)" % type(case).__name__)
        super().__init__(source, is_text, origin, overrides, None if output is None else _os.fspath(output),
                         "" if restart is None else _os.fspath(restart), bool(quiet), _comm_handle(comm),
                         bool(sync_default_stream))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def step(self, n=1):
        """Advances n lattice steps, nothing else (no reports, snapshots or checkpoints); the fused kernel's
        stability watch is asked every 10 steps and raises InstabilityError as `eddy run` does. Asynchronous on
        GPUs: the work is queued on Simulation.stream. Ctrl-C raises KeyboardInterrupt after the chunk of 64 steps
        under way (on every rank together); the simulation stays at that step and goes on from it."""
        return super().step(n)

    def run(self, callback=None, every=1):
        """The loop of `eddy run` from the current step to run.steps: progress lines, snapshots, checkpoints, the
        stability watch, SIGTERM/SIGINT/SIGHUP/SIGUSR1 (a clean stop with a checkpoint), then the end (last snapshot,
        centreline CSV, "done:" line). callback(sim) is called after every step that is a multiple of `every`
        (after what the loop writes there). Returns True when run.steps was reached, False when a signal stopped
        the run."""
        return super()._run(self, callback, every)

    def write_output(self):
        """Writes the snapshot of the current step (as output.every would), unless it is written already."""
        return super().write_output()

    def checkpoint(self, directory=None):
        """Writes a checkpoint of the current step (into `directory`, default the case's checkpoint directory) and
        returns its manifest's path: `eddy run CASE --restart PATH` or Simulation(CASE, restart=PATH) continues it
        bit for bit. The force field (Simulation.force) is not part of it: set it again after a restart."""
        return super().checkpoint(directory)

    def release_gradient_memory(self):
        """Frees the forward states' buffers that gradient() keeps for its next call (device memory, or host memory
        where the states did not fit the device): an optimisation loop allocates them once, other work may want the
        memory back between calls. close() frees them too."""
        return super().release_gradient_memory()

    def close(self):
        """Ends the simulation: the output directories are unlocked; stepping, output and the arrays raise
        ValueError from now on. The memory is released once no array made from it remains."""
        return super().close()

    @property
    def density(self):
        """rho, shape (nz, ny, nx), the arithmetic type (float32, float64 with double storage), lattice units:
        the moments of the current time, computed on the device on every access into a buffer of the simulation
        (a new one while an earlier read-out is still referenced). Solid cells hold 0. Read-only."""
        return self.moments()[0]

    @property
    def velocity(self):
        """u with the Guo F/2 shift, shape (nz, ny, nx, 3) (components nx*ny*nz elements apart), lattice units;
        computed on access like density. Use moments() for both from one pass."""
        return self.moments()[1]

    def moments(self):
        """(density, velocity) of the current time from one pass over the populations."""
        return super().moments()

    def statistics(self, name):
        """The [statistics] average `name` of this rank's cells, float64, lattice units: "mean_velocity" and
        "velocity_rms" shape (nz, ny, nx, 3), "reynolds_stress" (nz, ny, nx, 6) in VTK's order xx, yy, zz, xy, yz, xz,
        "mean_density", "mean_pressure" (c_s^2 (<rho> - 1)) and "mean_temperature" (nz, ny, nx); components
        nx*ny*nz elements apart. Computed on the device from the running sums on every access, into a buffer of the
        simulation (a new one while an earlier read-out is still referenced): 0 in solid cells, NaN before the first
        sample. Read-only. RuntimeError without [statistics]; ValueError for a name the case's statistics.fields
        cannot give (velocity_rms and reynolds_stress need the second moments, mean_temperature [thermal])."""
        return super().statistics(name)

    def set_equilibrium(self, density=None, velocity=None):
        """Sets the post-collision populations, the state the next step streams, to the equilibrium f_eq(rho0, u0)
        at every cell of this rank's block (kernels/equilibrium.hpp, Krueger et al. 2017 eq. 3.54): density rho0,
        shape (nz, ny, nx), values finite and > 0, None for 1; velocity u0, shape (nz, ny, nx, 3), |u0| <= 0.5
        (the stability watch's limit), None for 0; lattice units, real numbers (integer or floating point; host
        copies are taken). The start whose rho0 and u0 gradient() differentiates ("initial_density",
        "initial_velocity"). The read-outs (density, velocity, moments()) then give the moments of the populations
        arriving at each cell, after one streaming, with the F/2 shift: rho0 and u0 only where the fields are
        uniform and no force acts. ValueError for a wrong shape, type or value, naming the argument; nothing is
        written then."""
        fields = []
        for name, value, shape in (("density", density, self.block_shape),
                                   ("velocity", velocity, self.block_shape + (3,))):
            if value is None:
                fields.append(None)
                continue
            if isinstance(value, _np.ma.MaskedArray):
                raise ValueError("set_equilibrium: %s is a masked array (give plain values)" % name)
            array = _np.asarray(value)
            if array.dtype.kind not in "iuf":
                raise ValueError("set_equilibrium: %s must hold real numbers (got dtype %s)" % (name, array.dtype))
            if array.shape != shape:
                raise ValueError("set_equilibrium: %s must have this rank's block shape %s (got %s)"
                                 % (name, shape, array.shape))
            array = _np.ascontiguousarray(array, dtype=_np.float64)
            rule = "finite, |u0| <= 0.5" if name == "velocity" else "finite and > 0"
            bad = ~_np.isfinite(array) if name == "velocity" else ~(_np.isfinite(array) & (array > 0))
            if bad.any():
                at = tuple(int(i) for i in _np.argwhere(bad)[0])
                raise ValueError("set_equilibrium: %s holds %r at %s (values must be %s)"
                                 % (name, float(array[at]), at, rule))
            if name == "velocity":
                speed = _np.sqrt(_np.sum(array ** 2, axis=-1))
                if _np.any(speed > 0.5):
                    at = tuple(int(i) for i in _np.argwhere(speed > 0.5)[0])
                    raise ValueError("set_equilibrium: velocity has |u0| = %r at %s (values must be %s)"
                                     % (float(speed[at]), at, rule))
            fields.append(array)
        super()._set_equilibrium(*fields)

    def gradient(self, steps, objective="kinetic_energy", *, target=None, region=None, downstream=None, solid=None,
                 direction=None, window=1, checkpoint_every=0, memory_budget=0):
        """Runs `steps` steps from the current state and returns the gradient of an objective of the final state, or
        summed over a time window, by the discrete adjoint of eddy's step (solver/adjoint.hpp), as a dict of arrays
        and figures; the simulation then holds the state after the steps, as after step(steps). Lattice units
        throughout; collective under MPI (each rank gets its block's gradient).

        objective: "kinetic_energy": L = sum of rho |u|^2 / 2 over the fluid cells, of `region` if given
            (((z0, z1), (y0, y1), (x0, x1)), global cells, the end excluded, 0 <= start < end <= size); "velocity_mismatch": L = sum of
            |u - target|^2 / 2 over the fluid cells, `target` of this rank's block shape (nz, ny, nx, 3);
            "solid_force": L = F.d, the momentum-exchange force F on the [[solid]] body named `solid` (the value its
            forces report, lattice units; a body with wall = "halfway") along `direction` d = (dx, dy, dz) (default
            (1, 0, 0), not normalised): the drag with d along the flow, the lift across it; C_D = 2 F.d / (U^2 A)
            for a unit d; "pressure_drop": L = c_s^2 (<rho> over the fluid cells of `region` - <rho> over those of
            `downstream`), c_s^2 = 1/3, both regions given as for the kinetic energy (a channel's resistance: with a
            fixed inflow, the dissipated power is the flow rate times it).
        window: W, the objective summed over the states at the ends of the last W steps (1: the final state only;
            steps + 1 counts the starting state too). ValueError outside 1 <= W <= steps + 1.
        checkpoint_every: forward states kept every k steps, the others recomputed (0: the smallest k whose states
            fit 90 % of the free device memory and the budget, 1 keeping them all; else ceil(sqrt(steps)) with the
            kept ones in host memory).
        memory_budget: bytes the kept and recomputed forward states may take on this rank (0: no limit of its own;
            OutOfMemoryError beyond it). The states live on the device where they fit, else in host memory; their
            buffers stay with the simulation for the next call (release_gradient_memory() frees them).

        Returns {"objective": L (summed over ranks), "tau": dL/dtau (the relaxation time, summed over ranks; the
        viscosity nu = (tau - 1/2) / 3, so dL/dnu = 3 dL/dtau; TRT keeps its magic parameter), "force": dL/dF, shape (nz, ny, nx, 3) like Simulation.force
        (the per-cell force density, constant over the steps), "state": dL/ds, shape (19, nz, ny, nx), with respect
        to the starting post-collision populations: state[i, z, y, x] for f*_i leaving cell (x, y, z) in direction
        c_i (sim.populations holds these in the in-place layout of sim.population_layout, not in this order),
        "porosity": dL/dalpha, shape (nz, ny, nx), where the simulation has a porosity field (sim.porosity; None
        otherwise), "initial_velocity": dL/du0, shape (nz, ny, nx, 3), and "initial_density": dL/drho0, shape
        (nz, ny, nx), for
        a run that starts from the equilibrium f_eq(rho0, u0) that set_equilibrium writes (the chain rule through
        f_eq at the starting state's raw moments: exact for such a start, the derivative along the equilibria
        otherwise; 0 in solid cells), "checkpoint_every", "recomputed_steps", "host_bytes", "device_bytes",
        "seconds": {"setup", "forward", "recompute", "adjoint", "finish"}: this rank's wall-clock seconds of the
        set-up, the forward run, the recomputed segments, the adjoint steps and the result's making}. The
        arrays are FieldArrays: zero-copy views of the adjoint's own fields (device
        memory on GPU builds: cupy.asarray, torch.from_dlpack; NumPy on the cpu build), in the arithmetic type,
        each gradient() call making new ones. Differentiable: BGK/TRT with Guo forcing, walls, moving walls,
        periodic faces, velocity inlets, pressure outlets, zero-gradient outflow, free slip, bodies without
        interpolated walls; InputError for the convective outflow, sponge layers, interpolated walls, LES, particles,
        [thermal]. Ctrl-C raises KeyboardInterrupt within 64 steps (forward or back; on every rank
        together): the simulation then holds the state its forward run had reached, or once that run is done, the
        state after the steps. The simulation ends in the memory it had, so views of populations stay valid. A
        signal handler that calls step(), run() or gradient() during the call gets RuntimeError; one that calls
        close() ends the call (ValueError, "closed")."""
        def count(name, value):
            if isinstance(value, bool) or type(value).__name__ in ("bool_", "bool"):  # numpy's bool (1.x, 2.x) too
                raise TypeError("gradient: %s must be an integer (got a bool)" % name)
            try:
                return _operator.index(value)
            except TypeError:
                raise TypeError("gradient: %s must be an integer (got %s)" % (name, type(value).__name__)) from None
        steps, window, checkpoint_every, memory_budget = (count("steps", steps), count("window", window),
                                                          count("checkpoint_every", checkpoint_every),
                                                          count("memory_budget", memory_budget))
        if steps < 1:
            raise InputError("gradient: steps = %d must be at least 1" % steps)  # noqa: F821 (from error_names)
        if checkpoint_every < 0:
            raise ValueError("gradient: checkpoint_every = %d must be 0 (chosen from the memory) or more"
                             % checkpoint_every)
        if memory_budget < 0:
            raise ValueError("gradient: memory_budget = %d must be 0 (no limit of its own) or more bytes"
                             % memory_budget)
        for name, value in (("steps", steps), ("window", window), ("checkpoint_every", checkpoint_every),
                            ("memory_budget", memory_budget)):
            if value >= 2**63:
                raise ValueError("gradient: %s = %d is too large" % (name, value))
        if not isinstance(objective, str):
            raise TypeError("gradient: objective must be a str (\"kinetic_energy\", \"velocity_mismatch\", "
                            "\"solid_force\" or \"pressure_drop\"; got %s)" % type(objective).__name__)
        for name, box in (("region", region), ("downstream", downstream)):
            if _holds_bool(box):
                raise ValueError("gradient: %s holds a bool; give integer cells ((z0, z1), (y0, y1), (x0, x1))" % name)
        if direction is not None:
            d = _np.asarray(direction.cpu() if hasattr(direction, "cpu") else direction)
            if d.dtype.kind not in "iuf" or d.shape != (3,) or not _np.all(_np.isfinite(d)) or not _np.any(d):
                raise ValueError("gradient: direction must be 3 finite real numbers (dx, dy, dz), not all 0, lattice "
                                 "units (got %r)" % (direction,))
            direction = [float(x) for x in d]
        if not 1 <= window <= steps + 1:
            raise ValueError("gradient: window = %d must be between 1 (the final state) and steps + 1 = %d (every "
                             "state from the start)" % (window, steps + 1))
        return super()._gradient(steps, objective, target, region, downstream, solid, direction, window,
                                 checkpoint_every, memory_budget)

    @property
    def particle_positions(self):
        """This rank's particles' positions, shape (n, 3) (columns n elements apart), float64, in cells (global
        coordinates): a copy on the device taken at access ([particles] only)."""
        return self.particles()[0]

    @property
    def particle_velocities(self):
        """This rank's particles' velocities, shape (n, 3), float64, cells per step; as particle_positions."""
        return self.particles()[1]


def _holds_bool(value):
    """True when a nested list, tuple or array holds a bool (which int() would take as 0 or 1)."""
    if isinstance(value, (bool, _np.bool_)):
        return True
    if isinstance(value, _np.ndarray):
        return value.dtype == bool or (value.dtype == object and any(_holds_bool(v) for v in value.ravel()))
    if isinstance(value, (list, tuple)):
        return any(_holds_bool(v) for v in value)
    return False


def _documented(name, doc):
    setattr(Simulation, name, property(getattr(_eddy.Simulation, name).fget, doc=doc))


_documented("populations", """The populations exactly as stored, shape (19, nz, ny, nx), writable: f_i - w_i in the
storage type (float32; float64; float16 holding 2^14 (f_i - w_i)), D3Q19 order (kernels/d3q19.hpp), the population
axis n_cells elements apart (the block's ghost layer and row padding lie between rows and planes: see strides).
What slot i holds depends on population_layout: "own", population i arrived at the cell; "swapped", the
post-collision population opp(i) leaving it (the AA pattern, kernels/streaming.hpp). Writes change the state the
next step streams. Collective under MPI (the pending halo exchange is done first).""")
_documented("population_layout", """"own" or "swapped": what populations holds now; it changes with every step.""")
_documented("flags", """The cell flags, uint8, shape (nz, ny, nx), read-only (kernels/cell_flags.hpp): 0 fluid, 1 fluid
next to a solid or an open face, 2 + face an open face's ghost node, 8 resting solid (walls and [[solid]] bodies),
9 + face moving wall (face 0..5: x_min, x_max, y_min, y_max, z_min, z_max).""")
_documented("temperature", """T of [thermal], the arithmetic type, shape (nz, ny, nx), writable: the field the next
step advances. T lives in two buffers that swap with every step: take the array again after stepping.""")
_documented("force", """A per-cell force density F (lattice units, the arithmetic type), shape (nz, ny, nx, 3)
(components n_cells elements apart), writable. The first access allocates it, all zero; from then on every step
adds it to [physics] body_force (and any buoyancy) in the fused kernel's Guo forcing, and every read-out to its F/2
shift. A constant field equals body_force bit for bit. It stays until changed (it is not part of checkpoints).
Not with two-way coupled particles (their deposit is that per-cell force).""")
_documented("porosity", """A per-cell porosity alpha >= 0 (the Brinkman drag coefficient, lattice units per step; the
arithmetic type), shape (nz, ny, nx), writable. The first access allocates it, all zero; from then on every step and
read-out adds the drag F_B = -alpha rho u to the cell's force, implicit in the cell (kernels/brinkman.hpp): alpha = 0
is fluid, a large alpha stops the flow (u ~ F / alpha), for porous media and density-based topology optimisation.
gradient() then returns dL/dalpha as "porosity". It stays until changed (not part of checkpoints). RuntimeError with
[particles].""")
_documented("stream", """The CUDA/HIP stream (an int handle: cudaStream_t) the simulation queues its work on; None on
the cpu build. A kernel launched on it (cupy.cuda.ExternalStream(sim.stream), numba.cuda.external_stream(sim.stream),
torch.cuda.ExternalStream(sim.stream)) is ordered with the steps without any synchronisation.""")
_documented("time_step", "Steps done so far (run.steps is Simulation.steps).")
_documented("statistics_samples", "Samples the [statistics] averages hold so far (RuntimeError without [statistics]).")
_documented("rank", "This process's MPI rank in the simulation's communicator.")
_documented("ranks", "MPI ranks of the simulation.")
_documented("block_origin", "Global index (z, y, x) of this rank's first interior cell: array order.")
_documented("block_shape", "Cells (nz, ny, nx) of this rank's block: the shape of its field arrays.")
_documented("domain_shape", "Cells (nz, ny, nx) of the whole grid.")
_documented("viscosity", "Lattice kinematic viscosity nu = (tau - 1/2) / 3.")
