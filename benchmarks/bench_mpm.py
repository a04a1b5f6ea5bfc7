"""simkit.mpm against Taichi 1.7.4 on Taichi's 88-line MPM scene (mpm88), and its scaling in particles.

Run from the repository root, in the project's environment (``make bench`` runs it; Taichi comes
from ``tests/requirements-oracle.lock``, which ``make`` installs)::

    python benchmarks/bench_mpm.py            # 8,192 and 16,384 particles, 5 rounds
    python benchmarks/bench_mpm.py --quick    # 2 rounds

The scene: 8,192 particles at random in a 0.4 x 0.4 square of the unit box, a 128 x 128 grid
(dx = 1/128), dt = 2e-4, density 1, particle volume (dx/2)^2, gravity 9.8, a weakly compressible
fluid of Kirchhoff stress E (J - 1) I with E = 400, APIC transfers with quadratic B-splines, and
separating walls three cells thick. simkit runs ``simkit.mpm.MPM(..., Fluid(400.0), ...)``
(serial numba loops, one core); Taichi runs the same substep written as one Taichi kernel
(below; Taichi's mpm88 with float64 and the walls three nodes thick on every face) on its CPU
backend with two threads, ``ti.init(arch=ti.cpu, cpu_max_num_threads=2, default_fp=ti.f64)``.

Each time is the best over rounds of 200 warm substeps, wall time, the two codes alternating
round by round so both see the same machine. Both start from the same particles; at 8,192
particles both then run on to 2,050 substeps (0.41 s: the block has hit the floor and splashed)
and the distances between their particles are printed. Taichi's mpm88 updates J by
``J (1 + dt tr C)``; here it takes simkit's ``J det(I + dt C)`` (F <- (I + dt C) F), so the two
differ only by round-off, which the splash amplifies.

Goal (issue 35): at least 1.5x Taichi's speed by wall time; twice the particles cost at most
2.2x.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import simkit.mpm as mpm  # noqa: E402

N_GRID, DT, E, GRAVITY, BOUND = 128, 2e-4, 400.0, 9.8, 3
SUBSTEPS = 200
AGREEMENT = 2050


def initial_positions(n, seed=0):
    return np.random.default_rng(seed).uniform(0.0, 1.0, (n, 2)) * 0.4 + 0.2


def simkit_scene(n):
    dx = 1.0 / N_GRID
    return mpm.MPM(initial_positions(n), mpm.Fluid(E), dx, (N_GRID, N_GRID), density=1.0,
                   volume=(dx * 0.5) ** 2 * 8192 / n, gravity=[0.0, -GRAVITY], walls="separate", wall_thickness=BOUND)


def taichi_scene(n):
    """mpm88 in Taichi (float64, two CPU threads): returns (substep, positions)."""
    import taichi as ti
    dx = 1.0 / N_GRID
    p_vol = (dx * 0.5) ** 2 * 8192 / n
    p_mass = p_vol
    x = ti.Vector.field(2, float, n)
    v = ti.Vector.field(2, float, n)
    C = ti.Matrix.field(2, 2, float, n)
    J = ti.field(float, n)
    grid_v = ti.Vector.field(2, float, (N_GRID, N_GRID))
    grid_m = ti.field(float, (N_GRID, N_GRID))

    @ti.kernel
    def substep():
        for i, j in grid_m:
            grid_v[i, j] = [0, 0]
            grid_m[i, j] = 0
        for p in x:
            Xp = x[p] / dx
            base = int(Xp - 0.5)
            fx = Xp - base
            w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
            stress = -DT * 4 * E * p_vol * (J[p] - 1) / dx ** 2
            affine = ti.Matrix([[stress, 0], [0, stress]]) + p_mass * C[p]
            for i, j in ti.static(ti.ndrange(3, 3)):
                offset = ti.Vector([i, j])
                dpos = (offset - fx) * dx
                weight = w[i].x * w[j].y
                grid_v[base + offset] += weight * (p_mass * v[p] + affine @ dpos)
                grid_m[base + offset] += weight * p_mass
        for i, j in grid_m:
            if grid_m[i, j] > 0:
                grid_v[i, j] /= grid_m[i, j]
                grid_v[i, j].y -= DT * GRAVITY
            if i < BOUND and grid_v[i, j].x < 0:
                grid_v[i, j].x = 0
            if i >= N_GRID - BOUND and grid_v[i, j].x > 0:
                grid_v[i, j].x = 0
            if j < BOUND and grid_v[i, j].y < 0:
                grid_v[i, j].y = 0
            if j >= N_GRID - BOUND and grid_v[i, j].y > 0:
                grid_v[i, j].y = 0
        for p in x:
            Xp = x[p] / dx
            base = int(Xp - 0.5)
            fx = Xp - base
            w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
            new_v = ti.Vector.zero(float, 2)
            new_C = ti.Matrix.zero(float, 2, 2)
            for i, j in ti.static(ti.ndrange(3, 3)):
                dpos = (ti.Vector([i, j]) - fx) * dx
                weight = w[i].x * w[j].y
                g_v = grid_v[base + ti.Vector([i, j])]
                new_v += weight * g_v
                new_C += 4 * weight * g_v.outer_product(dpos) / dx ** 2
            v[p] = new_v
            x[p] += DT * v[p]
            J[p] *= (1 + DT * new_C[0, 0]) * (1 + DT * new_C[1, 1]) - DT * DT * new_C[0, 1] * new_C[1, 0]
            C[p] = new_C

    x.from_numpy(initial_positions(n))
    J.fill(1.0)

    def run(steps):
        for _ in range(steps):
            substep()
        ti.sync()

    return run, x.to_numpy


def timed(run, rounds_log):
    t = time.perf_counter()
    run()
    rounds_log.append((time.perf_counter() - t) / SUBSTEPS * 1e3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 rounds instead of 5")
    rounds = 2 if parser.parse_args().quick else 5
    try:
        import taichi as ti
        ti.init(arch=ti.cpu, cpu_max_num_threads=2, default_fp=ti.f64, log_level=ti.ERROR)
    except ImportError:
        ti = None
    results = {}
    for n in (8192, 16384):
        sim = simkit_scene(n)
        t = time.perf_counter()
        sim.substep(DT)                                                 # compiles, or loads numba's cache
        first = time.perf_counter() - t
        ours, theirs = [], []
        if ti is not None:
            ti_run, ti_x = taichi_scene(n)
            t = time.perf_counter()
            ti_run(1)
            ti_first = time.perf_counter() - t
        for _ in range(rounds):
            timed(lambda: [sim.substep(DT) for _ in range(SUBSTEPS)], ours)
            if ti is not None:
                timed(lambda: ti_run(SUBSTEPS), theirs)
        results[n] = (min(ours), min(theirs) if theirs else None)
        label = "mpm88" if n == 8192 else f"mpm88 x2 ({n} particles)"
        print(f"{label}: {min(ours):.3f} ms per substep (first substep {first:.2f} s)")
        if ti is not None:
            done = 1 + rounds * SUBSTEPS
            if n == 8192:
                for _ in range(AGREEMENT - done):
                    sim.substep(DT)
                ti_run(AGREEMENT - done)
                done = AGREEMENT
            gap = np.linalg.norm(sim.x - ti_x(), axis=1)
            moved = np.linalg.norm(sim.x - initial_positions(n), axis=1).max()
            print(f"{label}, Taichi {ti.__version__[0]}.{ti.__version__[1]}.{ti.__version__[2]} (2 threads, float64): "
                  f"{min(theirs):.3f} ms per substep (first substep {ti_first:.2f} s)")
            print(f"{label}: ratio Taichi / simkit {min(theirs) / min(ours):.2f} (goal >= 1.5)")
            print(f"{label}: after {done} substeps the particles moved up to {moved:.3f}, and simkit's and Taichi's "
                  f"are {np.median(gap):.2e} apart (median), {gap.max():.2e} at most (dx {1 / N_GRID:.2e})")
        else:
            print("Taichi is not installed (tests/requirements-oracle.lock): no ratio")
    print(f"scaling: twice the particles cost {results[16384][0] / results[8192][0]:.2f}x (goal <= 2.2)"
          + (f"; Taichi {results[16384][1] / results[8192][1]:.2f}x" if ti is not None else ""))


if __name__ == "__main__":
    main()
