"""Timings of simkit's reduced models against upstream simkit 0.1.8, and of a reduced step against the full step.

Run from the repository root, in the project's environment::

    python benchmarks/bench_reduced.py                                   # simkit only
    python benchmarks/bench_reduced.py --upstream /tmp/upstream/lib/python3.11/site-packages

Tables (best of several warm calls, milliseconds; no assertions):

1. The issue's bar: a 4 x 0.5 x 0.5 box of 16,464 tetrahedra (``grid_box(57, 8, 8)``, cubes of
   1/14), k = 10, its vertices at x = 0 clamped. ``linear_modal_analysis`` and
   ``skinning_eigenmodes`` against upstream's functions of the same names on the same arrays
   (upstream's defaults: unit constants), with the largest relative difference of their
   eigenvalues. Our first (cold) call is shown too: warm calls reuse the cached assembly
   patterns and symbolic Cholesky factorization.
2. One backward-Euler step of the same bar (neo-Hookean, E = 1e8 Pa, nu = 0.3, rho = 1000,
   h = 0.01 s, gravity) from a bent, moving state: the full step (every free coordinate, through
   ``simkit.terms.Held``) against the reduced step in the clamped skinning-eigenmode subspace
   (10 modes, 120 coordinates) with 100 spectral-cubature elements, both Newton to
   ``||dx|| < 1e-6`` from the same state (the reduced state after 0.25 s of reduced simulation).
3. The reduced step's cost over bars of 2k to 50k tetrahedra (same subspace size, same cubature
   count).

Upstream (never a dependency) runs in a worker subprocess of this interpreter that imports only
upstream's ``simkit`` package from the given site-packages folder (its eigensolvers need
``cvxopt``, which this environment has); simkit and upstream alternate in blocks of warm calls
so both sample the same machine load; the ratio column is upstream / simkit (table 1) and
full / reduced (table 2).
"""
import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sps

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import simkit  # noqa: E402
from simkit.integrators import backward_euler  # noqa: E402
from simkit.terms import ElasticEnergy, Gravity, Held, ReducedElasticEnergy, Sum  # noqa: E402
import _upstream  # noqa: E402  (same folder)
from bench_simkit import best_of  # noqa: E402

K = 10
CUBATURE = 100
YOUNG, NU, RHO, H = 1e8, 0.3, 1000.0, 0.01
SETTLE_STEPS = 25                       # 0.25 s of reduced motion: the bar is bent and moving
TOLERANCE, MAX_ITER = 1e-6, 50
# warm calls per block and per --repeats on each side: the short skinning solve samples the load more often
CALLS_PER_REPEAT = {"linear_modal_analysis": 1, "skinning_eigenmodes": 3}
GOALS = {"linear_modal_analysis": 5.0, "skinning_eigenmodes": 3.0, "step": 50.0, "scaling": 2.0}
# bars of aspect 8 : 1 : 1 (cells along x, y, z): 1,998 / 16,464 / 50,400 tetrahedra
SIZES = ((37, 3, 3), (56, 7, 7), (84, 10, 10))


def bar(cells=(56, 7, 7)):
    nx, ny, nz = cells
    X, T = simkit.grid_box(nx + 1, ny + 1, nz + 1, 4.0, 0.5, 0.5)
    return X, T, np.flatnonzero(X[:, 0] == 0)


# the worker's body (benchmarks/_upstream.py): upstream's functions of the same names, same arrays
UPSTREAM_BODY = r"""
from simkit.linear_modal_analysis import linear_modal_analysis
from simkit.skinning_eigenmodes import skinning_eigenmodes
X, T, bI, k = d["X"], d["T"], d["bI"], int(d["k"])
kernels["bar"] = {"linear_modal_analysis": lambda: linear_modal_analysis(X, T, k, bI),
                  "skinning_eigenmodes": lambda: skinning_eigenmodes(X, T, k, bI=bI)}
E_modal = linear_modal_analysis(X, T, k, bI)[0]
E_skin = skinning_eigenmodes(X, T, k, bI=bI)[1]
energies.update({f"modal{i}": float(e) for i, e in enumerate(E_modal)})
energies.update({f"skin{i}": float(e) for i, e in enumerate(E_skin)})
"""


def eigen_table(upstream, repeats, blocks=4):
    X, T, bI = bar()
    ours = {"linear_modal_analysis": lambda: simkit.linear_modal_analysis(X, T, K, bI),
            "skinning_eigenmodes": lambda: simkit.skinning_eigenmodes(X, T, K, bI=bI)}
    cold = {}
    for name, f in ours.items():
        t = time.perf_counter()
        f()
        cold[name] = time.perf_counter() - t
    E_ours = {"linear_modal_analysis": ours["linear_modal_analysis"]()[0],
              "skinning_eigenmodes": ours["skinning_eigenmodes"]()[1]}
    mine, theirs = {}, {}
    for name, f in ours.items():
        calls = repeats * CALLS_PER_REPEAT[name]
        t_ours, t_up = [], []
        for _ in range(blocks):
            t_ours.append(best_of(f, calls))
            if upstream:
                t_up.append(upstream.time("bar", name, calls + 1))
        mine[name] = min(t_ours)
        theirs[name] = min(t_up) if upstream else None
    print(f"\n1. eigenmodes of the bar: {len(T):,d} tets, {len(X):,d} nodes, k = {K}, {len(bI)} nodes clamped at "
          "x = 0; milliseconds, best of warm calls")
    header = f"{'function':<24}{'simkit':>9}{'(cold)':>9}{'upstream':>10}{'ratio':>8}  goal"
    print(header)
    print("-" * (len(header) + 18))
    for name in ours:
        row = f"{name:<24}{1e3 * mine[name]:>9.1f}{1e3 * cold[name]:>9.1f}"
        if theirs[name]:
            ratio = theirs[name] / mine[name]
            verdict = "met" if ratio >= GOALS[name] else "NOT met"
            row += f"{1e3 * theirs[name]:>10.1f}{ratio:>7.1f}x  >= {GOALS[name]:.0f}x: {verdict}"
        print(row)
    if upstream:
        for name, key in (("linear_modal_analysis", "modal"), ("skinning_eigenmodes", "skin")):
            up = np.array([upstream.energies[f"{key}{i}"] for i in range(K)])
            print(f"{'':<24}(eigenvalues: max relative difference from upstream "
                  f"{np.max(np.abs(E_ours[name] - up) / np.abs(up)):.1e})")


def reduced_model(X, T, bI, mu, lam, M, f):
    """Skinning eigenmodes, spectral cubature, B^T M B, B^T f: everything a reduced step needs, built once."""
    W, _, B = simkit.skinning_eigenmodes(X, T, K, bI=bI)
    cI, cW = simkit.spectral_cubature(X, T, W, CUBATURE)
    Mr = (B.T @ (M @ B)).toarray()
    Mr = 0.5 * (Mr + Mr.T)
    potential = Sum(ReducedElasticEnergy(X, T, B, mu, lam, x0=X.reshape(-1, 1), cI=cI, cW=cW), Gravity(B.T @ f))
    return B, Mr, potential


def bent_state(B, Mr, potential):
    """z after SETTLE_STEPS reduced steps from rest, and the one before."""
    z_prev = z = np.zeros((B.shape[1], 1))
    for _ in range(SETTLE_STEPS):
        z, z_prev = reduced_step(z, z_prev, Mr, potential), z
    return z, z_prev


def reduced_step(z, z_prev, Mr, potential, return_info=False):
    return backward_euler(z, z_prev, potential, Mr, H, tolerance=TOLERANCE, max_iter=MAX_ITER,
                          return_info=return_info)


def setup(cells):
    X, T, bI = bar(cells)
    mu, lam = simkit.ympr_to_lame(YOUNG, NU)
    M = sps.kron(simkit.massmatrix(X, T, RHO), sps.identity(3), format="csc")
    f = simkit.gravity_force(X, T, rho=RHO).reshape(-1, 1)
    return X, T, bI, mu, lam, M, f


def step_table(repeats, blocks=5):
    X, T, bI, mu, lam, M, f = setup(SIZES[1])
    B, Mr, reduced = reduced_model(X, T, bI, mu, lam, M, f)
    z, z_prev = bent_state(B, Mr, reduced)
    x_rest = X.reshape(-1, 1)
    full = Held(Sum(ElasticEnergy(X, T, mu, lam), Gravity(f)), x_rest, (bI[:, None] * 3 + np.arange(3)).ravel())
    free = full.free
    Mf = full.project(M)
    y, y_prev = (B @ z + x_rest)[free], (B @ z_prev + x_rest)[free]

    def full_step(return_info=False):
        return backward_euler(y, y_prev, full, Mf, H, tolerance=TOLERANCE, max_iter=MAX_ITER,
                              return_info=return_info)

    _, info_full = full_step(True)
    _, info_red = reduced_step(z, z_prev, Mr, reduced, True)
    t_full, t_red = [], []
    for _ in range(blocks):                   # alternate, so that both sample the same machine load
        t_full.append(best_of(full_step, 1))
        t_red.append(best_of(lambda: reduced_step(z, z_prev, Mr, reduced), 8 * repeats))
    t_full, t_red = min(t_full), min(t_red)
    tip = (B @ z).reshape(-1, 3)[X[:, 0] == 4.0].mean(axis=0)
    print(f"\n2. one backward-Euler step of the bar (neo-Hookean, E = {YOUNG:g} Pa, nu = {NU}, rho = {RHO:g}, "
          f"h = {H} s), from a bent moving state (tip displaced by {np.linalg.norm(tip):.3f} m); "
          f"milliseconds, best of warm calls")
    header = f"{'step':<50}{'unknowns':>9}{'Newton its':>11}{'ms':>9}{'ratio':>8}  goal"
    print(header)
    print("-" * (len(header) + 18))
    print(f"{'full (every free coordinate)':<50}{free.size:>9,d}{info_full['iterations']:>11d}{1e3 * t_full:>9.1f}")
    ratio = t_full / t_red
    verdict = "met" if ratio >= GOALS["step"] else "NOT met"
    print(f"{f'reduced ({K} skinning modes, {CUBATURE} cubature points)':<50}{B.shape[1]:>9,d}"
          f"{info_red['iterations']:>11d}{1e3 * t_red:>9.2f}{ratio:>7.0f}x  >= {GOALS['step']:.0f}x: {verdict}")
    print(f"{'':<50}(per Newton iteration: {t_full / info_full['iterations'] / (t_red / info_red['iterations']):.0f}x)")


def scaling_table(repeats, rounds=3):
    print("\n3. the reduced step's cost over the mesh size (same 120 coordinates and 100 cubature points)")
    steps = []
    for cells in SIZES:
        X, T, bI, mu, lam, M, f = setup(cells)
        B, Mr, reduced = reduced_model(X, T, bI, mu, lam, M, f)
        z, z_prev = bent_state(B, Mr, reduced)
        its = reduced_step(z, z_prev, Mr, reduced, True)[1]["iterations"]
        steps.append((len(T), len(X), its, lambda z=z, z_prev=z_prev, Mr=Mr, r=reduced: reduced_step(z, z_prev, Mr, r)))
    times = [min(ts) for ts in zip(*[[best_of(step, 2 * repeats) for *_, step in steps] for _ in range(rounds)])]
    header = f"{'tets':>8}{'nodes':>8}{'Newton its':>11}{'ms':>9}{'/ smallest':>12}"
    print(header)
    print("-" * len(header))
    for (t_count, n_count, its, _), t in zip(steps, times):
        print(f"{t_count:>8,d}{n_count:>8,d}{its:>11d}{1e3 * t:>9.2f}{t / times[0]:>11.2f}x")
    print(f"(goal: within {GOALS['scaling']:.0f}x of the smallest; the sizes alternate in {rounds} rounds)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    _upstream.add_upstream_argument(parser)
    parser.add_argument("--repeats", type=int, default=3, help="warm calls per figure (best is reported)")
    args = parser.parse_args()
    _upstream.print_machine()
    X, T, bI = bar()
    upstream = _upstream.start(args.upstream, UPSTREAM_BODY, {"X": X, "T": T, "bI": bI, "k": K})
    eigen_table(upstream, args.repeats)
    if upstream:
        upstream.close()
        print("(simkit and upstream alternate in blocks of warm calls, so both sample the same machine load)")
    step_table(args.repeats)
    scaling_table(args.repeats)


if __name__ == "__main__":
    main()
