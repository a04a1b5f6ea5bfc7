"""The time loop's own cost: ``simulate`` against the bare loop of one-step calls it replaces; prints a table.

Run from the repository root::

    python benchmarks/bench_loop.py

Three systems the chapters and the reduced models step (every step converged to the chapters'
tolerances, so both sides do the same Newton iterations): chapter 014's 21-node cantilever
(springs, bending, gravity, a 1e10 clamp; 160 steps of 0.02 s), chapter 016's soft bar held by
one node (``Held`` coordinates, neo-Hookean, 60 steps of 1/30 s), and the same bar in a reduced
basis of 12 dense columns (``Map``, mass ``B^T M B``). The bare loop calls
``backward_euler(x, x_prev, potential, M, h, ...)`` and records nothing; ``simulate`` also
calls ``update``, records every state, the kinetic energy and two named energies. Each figure is
the best CPU time of several runs, the two sides alternating; the ratio is what the loop and its
record cost on top of the steps themselves (no assertions).
"""
import os
import sys
import time

import numpy as np
import scipy.sparse as sps

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import simkit  # noqa: E402
from simkit import terms  # noqa: E402
from simkit.integrators import backward_euler, simulate  # noqa: E402

ROUNDS = 5


def cantilever():
    """Chapter 014's default beam: potential, mass matrix, start, h, steps, Newton options, named terms."""
    N, L = 21, 4.0
    X = np.column_stack([np.linspace(0, L, N), np.zeros(N)])
    E = np.column_stack([np.arange(N - 1), np.arange(1, N)])
    C = np.column_stack([np.arange(N - 2), np.arange(1, N - 1), np.arange(2, N)])
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(2)).tocsc()
    l0 = simkit.edge_lengths(X, E).reshape(-1, 1)
    springs = terms.SpringEnergy(J, 2e4, l0.copy(), l0)
    gravity = terms.Gravity(simkit.gravity_force(X, E, a=-9.8, rho=0.2))
    potential = (springs + terms.Bending(C, 0.0, 50.0 * (N - 1) / L) + gravity
                 + terms.PenaltySpring(N, 2, 1e10).set([0, 1], X[[0, 1]]))
    M = sps.kron(simkit.massmatrix(X, E, rho=0.2), sps.eye(2)).tocsc()
    return potential, M, X.reshape(-1, 1), 0.02, 160, {"max_iter": 20}, {"springs": springs, "gravity": gravity}


def soft_bar(reduced=False):
    """Chapter 016's soft bar held by one node (Held), or in a dense basis of 12 columns (Map)."""
    X, T = simkit.grid_rectangle(31, 7, 1.0, 0.2)
    pivot = np.argmin(np.linalg.norm(X - [0.0, 0.1], axis=1))
    mu, lam = simkit.ympr_to_lame(2e4, 0.3)
    body = terms.ElasticEnergy(X, T, mu, lam, "neo-hookean", psd=False)
    gravity = terms.Gravity(simkit.gravity_force(X, T, rho=100.0))
    M = sps.kron(simkit.massmatrix(X, T, rho=100.0), sps.eye(2)).tocsc()
    options = {"tolerance": 1e-5, "max_iter": 40}
    if not reduced:
        held = terms.Held(body + gravity, X, [2 * pivot, 2 * pivot + 1])
        return held, held.project(M), X.reshape(-1, 1)[held.free], 1 / 30, 60, options, {"elastic": body,
                                                                                           "gravity": gravity}
    # a basis holding the pivot: the rigid motions about it and smooth bending fields, orthonormalized
    s, t = X[:, 0] / X[:, 0].max(), X[:, 1] / X[:, 1].max()
    fields = [s ** k * t ** j for k in range(1, 4) for j in range(2)]
    B = np.zeros((X.size, 2 * len(fields)))
    for i, f in enumerate(fields):
        B[0::2, 2 * i], B[1::2, 2 * i + 1] = f - f[pivot], f - f[pivot]
    B, _ = np.linalg.qr(B)
    reduced_term = terms.Map(body + gravity, B, X.reshape(-1, 1))
    return (reduced_term, reduced_term.project(M), np.zeros((B.shape[1], 1)), 1 / 30, 60, options,
            {"elastic": body, "gravity": gravity})


def bare_loop(potential, M, x0, h, steps, options):
    x = x_prev = x0
    for _ in range(steps):
        x, x_prev = backward_euler(x, x_prev, potential, M, h, **options), x


def cpu(f):
    start = time.process_time()
    f()
    return time.process_time() - start


def main():
    systems = {"014 cantilever, 21 nodes": cantilever(), "016 soft bar, Held": soft_bar(),
               "016 soft bar, Map (12 dense columns)": soft_bar(reduced=True)}
    print(f"best CPU ms per step over {ROUNDS} alternating runs; load average {os.getloadavg()[0]:.1f}")
    print(f"{'system':<40}{'bare loop':>12}{'simulate':>12}{'ratio':>9}{'unconverged':>13}")
    for name, (potential, M, x0, h, steps, options, named) in systems.items():
        sides = {"bare": lambda: bare_loop(potential, M, x0, h, steps, options),
                 "simulate": lambda: simulate(potential, M, x0, h, steps, energies=named, **options)}
        best = {side: float("inf") for side in sides}
        for r in range(ROUNDS):
            for side in (list(sides) if r % 2 == 0 else list(sides)[::-1]):
                best[side] = min(best[side], cpu(sides[side]))
        run = simulate(potential, M, x0, h, steps, **options)
        print(f"{name:<40}{1e3 * best['bare'] / steps:>12.3f}{1e3 * best['simulate'] / steps:>12.3f}"
              f"{best['simulate'] / best['bare']:>9.3f}{run.unconverged:>13d}")


if __name__ == "__main__":
    main()
