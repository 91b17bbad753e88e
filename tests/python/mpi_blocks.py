"""Run under mpirun by test_mpi.py: each rank's Simulation holds its own block. Arguments: CASE OUTPUT_DIR.
Each rank writes OUTPUT_DIR/block_<rank>.txt: rank, ranks, block_origin, block_shape; with mpi4py, rank 0 also gathers the density of
all blocks into OUTPUT_DIR/density.npy (global (nz, ny, nx) array). EDDY_TEST_MPI4PY=0 leaves mpi4py out."""

import sys

import os

MPI = None
if os.environ.get("EDDY_TEST_MPI4PY", "1") != "0":
    try:
        from mpi4py import MPI  # before eddy: mpi4py starts MPI, eddy uses it
    except ImportError:
        pass

import numpy as np

import eddy

if MPI is not None and MPI.Get_library_version().strip() != eddy._eddy.mpi_library.strip():
    MPI = None  # an mpi4py built for another MPI library than eddy's: its communicators mean nothing to eddy

case, output = sys.argv[1], sys.argv[2]
with eddy.Simulation(case, output=output, quiet=True, comm=MPI.COMM_WORLD if MPI else None) as sim:
    assert sim.run()
    with open("%s/block_%d.txt" % (output, sim.rank), "w") as out:
        out.write(" ".join(str(v) for v in (sim.rank, sim.ranks, *sim.block_origin, *sim.block_shape)) + "\n")
    density = sim.density.to_numpy()
    if MPI is not None:
        pieces = MPI.COMM_WORLD.gather((sim.block_origin, density), root=0)
        if sim.rank == 0:
            whole = np.zeros(sim.domain_shape, dtype=density.dtype)
            for (z, y, x), piece in pieces:
                nz, ny, nx = piece.shape
                whole[z:z + nz, y:y + ny, x:x + nx] = piece
            np.save(output + "/density.npy", whole)
