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
2. The reduced model of the same bar (neo-Hookean, E = 1e8 Pa, nu = 0.3, rho = 1000, h = 0.01 s,
   gravity) in the clamped skinning-eigenmode subspace (10 modes, 120 coordinates), with
   ``optimized_cubature`` of 100, 150 and 200 elements fitted to 30 ``modal_training_poses``.
   Accuracy: 30 steps from rest of each cubature model against the same subspace without
   cubature (every element: the Map of the full terms) and against the full model, the
   trajectory difference ``max_t |x(t) - x_ref(t)|_M / max_t |x_full(t) - X|_M``. Speed: one
   backward-Euler step of each from the same bent, moving state (the 150-point run's after
   0.25 s) against the full step (every free coordinate, through ``simkit.terms.Held``), all
   Newton to ``||dx|| < 1e-6``, best wall and CPU time of warm calls alternating in blocks.
3. The reduced step's cost over bars of 2k to 50k tetrahedra (same subspace size, 150 optimized
   cubature points fitted on each mesh).

One BLAS thread unless OPENBLAS_NUM_THREADS says otherwise, for both sides (the reduced step is
small dense products, which threads slow down on a busy 2-core machine; the book runs its
chapters with one thread each).

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

# small dense products (a reduced step) and a sparse Cholesky alike: one BLAS thread unless the caller
# sets another count, as the book builds its chapters on this 2-core machine; both steps share it
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", os.environ["OPENBLAS_NUM_THREADS"])

import numpy as np
import scipy.sparse as sps

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import simkit  # noqa: E402
from simkit.integrators import backward_euler, simulate  # noqa: E402
from simkit.terms import ElasticEnergy, Gravity, Held, ReducedElasticEnergy, Sum  # noqa: E402
import _upstream  # noqa: E402  (same folder)
from bench_simkit import best_of  # noqa: E402

K = 10
CUBATURE_POINTS = (100, 150, 200)       # optimized cubatures compared, by their accuracy and step time
FEATURED_POINTS = 150                   # the one timed against the full step and over the mesh sizes
TRAINING_POSES, TRAINING_DISPLACEMENT = 30, 0.25    # modal_training_poses: count, m
YOUNG, NU, RHO, H = 1e8, 0.3, 1000.0, 0.01
RUN_STEPS = 30                          # 0.3 s from rest: the accuracy runs
SETTLE_STEPS = 25                       # the timed steps start at 0.25 s: the bar is bent and moving
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


def exact_reduced(X, T, bI, mu, lam, M, f):
    """Skinning eigenmodes, B^T M B, B^T f, and the reduced elastic energy of every element (full integration)."""
    W, _, B = simkit.skinning_eigenmodes(X, T, K, bI=bI)
    Mr = (B.T @ (M @ B)).toarray()
    Mr = 0.5 * (Mr + Mr.T)
    exact = ReducedElasticEnergy(X, T, B, mu, lam, x0=X.reshape(-1, 1))
    return B, Mr, Gravity(B.T @ f), exact


def cubature(X, T, B, Mr, mu, lam, exact, points):
    """The optimized cubature of `points` elements, fitted to TRAINING_POSES modal poses: (cI, cW, training error)."""
    Z = simkit.modal_training_poses(B, exact.hessian(np.zeros((B.shape[1], 1))), Mr, TRAINING_POSES,
                                    TRAINING_DISPLACEMENT)
    cI, cW = simkit.optimized_cubature(X, T, B, Z, points, mu, lam, x0=X.reshape(-1, 1), tolerance=1e-6)
    fast = ReducedElasticEnergy(X, T, B, mu, lam, x0=X.reshape(-1, 1), cI=cI, cW=cW)
    error = np.sqrt(np.mean([np.sum((fast.gradient(z) - exact.gradient(z)) ** 2) / np.sum(exact.gradient(z) ** 2)
                             for z in Z.T]))
    return cI, cW, error


def reduced_potential(X, T, B, mu, lam, gravity, cI, cW):
    return Sum(ReducedElasticEnergy(X, T, B, mu, lam, x0=X.reshape(-1, 1), cI=cI, cW=cW), gravity)


def reduced_step(z, z_prev, Mr, potential, return_info=False):
    return backward_euler(z, z_prev, potential, Mr, H, tolerance=TOLERANCE, max_iter=MAX_ITER,
                          return_info=return_info)


def setup(cells):
    X, T, bI = bar(cells)
    mu, lam = simkit.ympr_to_lame(YOUNG, NU)
    M = sps.kron(simkit.massmatrix(X, T, RHO), sps.identity(3), format="csc")
    f = simkit.gravity_force(X, T, rho=RHO).reshape(-1, 1)
    return X, T, bI, mu, lam, M, f


def full_model(X, T, bI, mu, lam, M, f):
    """The full bar: every free coordinate (Held), its mass."""
    full = Held(Sum(ElasticEnergy(X, T, mu, lam), Gravity(f)), X.reshape(-1, 1), (bI[:, None] * 3 + np.arange(3)).ravel())
    return full, full.project(M)


def run(potential, M, x0, steps=RUN_STEPS):
    trajectory = simulate(potential, M, x0, H, steps, tolerance=TOLERANCE, max_iter=MAX_ITER)
    if trajectory.unconverged:
        raise RuntimeError(f"{trajectory.unconverged} unconverged steps")
    return trajectory.states


def timed(steps, repeats, blocks):
    """Best wall and CPU time (s) of each step(), the steps alternating in blocks so that all sample the same load."""
    wall, cpu = np.full(len(steps), np.inf), np.full(len(steps), np.inf)
    for step in steps:
        step()                                                        # warm
    for _ in range(blocks):
        for i, (step, calls) in enumerate(zip(steps, repeats)):
            for _ in range(calls):
                w, c = time.perf_counter(), time.process_time()
                step()
                wall[i] = min(wall[i], time.perf_counter() - w)
                cpu[i] = min(cpu[i], time.process_time() - c)
    return wall, cpu


def step_table(repeats, blocks=5):
    X, T, bI, mu, lam, M, f = setup(SIZES[1])
    B, Mr, gravity, exact = exact_reduced(X, T, bI, mu, lam, M, f)
    full, Mf = full_model(X, T, bI, mu, lam, M, f)
    x_rest = X.reshape(-1, 1)
    mass = M.diagonal()

    def lift(states_z):
        return states_z @ B.T.toarray() if states_z.shape[1] == B.shape[1] else states_z

    def m_norm(U):
        return np.sqrt((U ** 2 * mass).sum(axis=1))
    t = time.perf_counter()
    full_states = run(full, Mf, x_rest[full.free]) - x_rest[:, 0]        # a Held run records every coordinate
    t_full_run = time.perf_counter() - t
    t = time.perf_counter()
    exact_states = lift(run(Sum(exact, gravity), Mr, np.zeros((B.shape[1], 1))))
    t_exact_run = time.perf_counter() - t
    scale = m_norm(full_states).max()

    def difference(states, reference):
        return m_norm(states - reference).max() / scale
    tip = X[:, 0] == 4.0
    drop = -full_states.reshape(RUN_STEPS + 1, -1, 3)[:, tip, 1].mean(axis=1).min()
    print(f"\n2. one backward-Euler step of the bar (neo-Hookean, E = {YOUNG:g} Pa, nu = {NU}, rho = {RHO:g}, "
          f"h = {H} s, gravity), reduced: {K} clamped skinning eigenmodes ({B.shape[1]} coordinates)")
    print(f"   accuracy: {RUN_STEPS} steps from rest (the tip falls {drop:.3f} m); trajectory difference "
          "max_t |x(t) - x_ref(t)|_M / max_t |x_full(t) - X|_M")
    print(f"   full run {t_full_run:.1f} s; the reduced model without cubature (every element, as Map of the full terms) "
          f"{t_exact_run:.1f} s, {100 * difference(exact_states, full_states):.2f} % from the full run")
    print(f"   cubature: {TRAINING_POSES} modal training poses (each mode the same force spread, the lowest "
          f"{TRAINING_DISPLACEMENT} m at one standard deviation), optimized_cubature")
    rows = []
    for points in CUBATURE_POINTS:
        t = time.perf_counter()
        cI, cW, error = cubature(X, T, B, Mr, mu, lam, exact, points)
        t_fit = time.perf_counter() - t
        potential = reduced_potential(X, T, B, mu, lam, gravity, cI, cW)
        states = run(potential, Mr, np.zeros((B.shape[1], 1)))
        rows.append((points, cI.size, error, t_fit, difference(lift(states), exact_states),
                     difference(lift(states), full_states), potential, states))
    header = f"{'points':>7}{'fit (s)':>9}{'force error':>13}{'vs no cubature':>16}{'vs full':>9}"
    print(header)
    print("-" * len(header))
    for points, count, error, t_fit, d_exact, d_full, *_ in rows:
        print(f"{count:>7d}{t_fit:>9.1f}{100 * error:>12.2f}%{100 * d_exact:>15.2f}%{100 * d_full:>8.2f}%")
    print("(force error: root mean square relative error of the reduced forces on the training poses)")

    # timing: every step from the same state, the reduced run's at SETTLE_STEPS lifted to the full coordinates
    _, _, _, _, _, _, featured, states = next(row for row in rows if row[0] == FEATURED_POINTS)
    z, z_prev = states[SETTLE_STEPS].reshape(-1, 1), states[SETTLE_STEPS - 1].reshape(-1, 1)
    y, y_prev = (B @ z + x_rest)[full.free], (B @ z_prev + x_rest)[full.free]

    def full_step(return_info=False):
        return backward_euler(y, y_prev, full, Mf, H, tolerance=TOLERANCE, max_iter=MAX_ITER, return_info=return_info)
    reduced = [lambda row=row: reduced_step(z, z_prev, Mr, row[6]) for row in rows]
    its_full = full_step(True)[1]["iterations"]
    its = [reduced_step(z, z_prev, Mr, row[6], True)[1]["iterations"] for row in rows]
    wall, cpu = timed([full_step] + reduced, [1] + [4 * repeats] * len(rows), blocks)
    print(f"\n   the step from a bent moving state (after {SETTLE_STEPS * H:g} s); best of warm calls, the steps "
          f"alternating in {blocks} blocks; {os.environ.get('OPENBLAS_NUM_THREADS', 'default')} BLAS thread(s)")
    header = f"{'step':<38}{'unknowns':>9}{'Newton its':>11}{'wall ms':>9}{'CPU ms':>9}{'wall ratio':>11}{'CPU ratio':>10}"
    print(header)
    print("-" * len(header))
    print(f"{'full (every free coordinate)':<38}{full.free.size:>9,d}{its_full:>11d}{1e3 * wall[0]:>9.1f}"
          f"{1e3 * cpu[0]:>9.1f}")
    for row, n_its, w, c in zip(rows, its, wall[1:], cpu[1:]):
        print(f"{f'reduced, {row[1]} cubature points':<38}{B.shape[1]:>9,d}{n_its:>11d}{1e3 * w:>9.2f}{1e3 * c:>9.2f}"
              f"{wall[0] / w:>10.0f}x{cpu[0] / c:>9.0f}x")
    featured = 1 + CUBATURE_POINTS.index(FEATURED_POINTS)
    verdicts = [f"{kind} {ratio:.0f}x: {'met' if ratio >= GOALS['step'] else 'NOT met'}"
                for kind, ratio in (("wall", wall[0] / wall[featured]), ("CPU", cpu[0] / cpu[featured]))]
    print(f"(goal: the {FEATURED_POINTS}-point step >= {GOALS['step']:.0f}x faster than the full step; "
          f"{', '.join(verdicts)})")


def scaling_table(repeats, rounds=3):
    print(f"\n3. the reduced step's cost over the mesh size (same {K} skinning weights, {FEATURED_POINTS} optimized "
          "cubature points fitted on each mesh)")
    steps = []
    for cells in SIZES:
        X, T, bI, mu, lam, M, f = setup(cells)
        B, Mr, gravity, exact = exact_reduced(X, T, bI, mu, lam, M, f)
        t = time.perf_counter()
        cI, cW, error = cubature(X, T, B, Mr, mu, lam, exact, FEATURED_POINTS)
        t_fit = time.perf_counter() - t
        potential = reduced_potential(X, T, B, mu, lam, gravity, cI, cW)
        states = run(potential, Mr, np.zeros((B.shape[1], 1)), SETTLE_STEPS)
        z, z_prev = states[-1].reshape(-1, 1), states[-2].reshape(-1, 1)
        its = reduced_step(z, z_prev, Mr, potential, True)[1]["iterations"]
        steps.append((len(T), len(X), error, t_fit, its,
                      lambda z=z, z_prev=z_prev, Mr=Mr, p=potential: reduced_step(z, z_prev, Mr, p)))
    wall, cpu = timed([step for *_, step in steps], [2 * repeats] * len(steps), rounds)
    header = f"{'tets':>8}{'nodes':>8}{'fit (s)':>9}{'force error':>13}{'Newton its':>11}{'wall ms':>9}{'CPU ms':>9}" \
             f"{'/ smallest':>12}"
    print(header)
    print("-" * len(header))
    for (t_count, n_count, error, t_fit, its, _), w, c in zip(steps, wall, cpu):
        print(f"{t_count:>8,d}{n_count:>8,d}{t_fit:>9.1f}{100 * error:>12.2f}%{its:>11d}{1e3 * w:>9.2f}{1e3 * c:>9.2f}"
              f"{w / wall[0]:>11.2f}x")
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
