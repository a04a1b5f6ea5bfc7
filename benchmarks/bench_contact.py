"""Mesh contact against the IPC Toolkit (ipctk 1.6.1) on the same states, and the 2D scaling of MeshContact.

Run from the repository root, in the project's environment (``make bench`` runs it; ipctk comes
from ``tests/requirements-oracle.lock``, which ``make`` installs)::

    python benchmarks/bench_contact.py            # 64x64 and 128x128 sheets
    python benchmarks/bench_contact.py --quick    # 64x64 only

States: two noisy m x m grid sheets (a unit square, spacing 1/(m-1)) 2 mm apart, the upper one
shifted by half a cell in x and z (so its diagonals lie over the lower one's: near-parallel edge
pairs that need the mollifier), every vertex moved by up to 0.1 mm at random; d_hat = 3 mm,
kappa = 1. The step for the collision-free step size moves the upper sheet 4 mm down (through
the lower one) plus up to 1 mm of noise on every vertex.

Tables (best of several warm calls, wall time, milliseconds; no assertions):

1. Collision set + energy + gradient + projected Hessian. simkit: a fresh ``MeshContact`` cache,
   then ``energy``, ``gradient`` and ``hessian``, with each of its two PSD Hessians: Gauss-Newton
   (``psd=True``, the default) and the eigenvalue clamp of each exact block (``psd="project"``,
   the same matrix as ipctk's). ipctk: ``NormalCollisions.build``, then ``BarrierPotential``'s
   energy, gradient and Hessian with ``PSDProjectionMethod.CLAMP``. Both build the same collision set (counts printed; ipctk's
   potential is on squared distances, so the energies differ). ipctk runs on its own thread pool
   (both cores), and again on one thread; simkit runs on one.
2. Collision-free step size: ``MeshContact.max_step`` divided by its safety factor (the certified
   time of impact) against ``ipctk.compute_collision_free_stepsize`` (default broad phase,
   Tight Inclusion CCD).
3. Where simkit's time goes (one profiled evaluation): broad phase, narrow phase, potential,
   Hessian assembly.
4. 2D: MeshContact on N rings of 16 vertices at a fixed density (a square lattice, 0.05 gaps
   between neighbours), collision set + energy + gradient + Hessian, N and 16 N bodies.
5. Newton with the Gauss-Newton Hessian against the eigenvalue clamp (``psd="project"``): a 12x12
   cloth (springs, friction 0.3) dropped on a fixed sphere of 360 triangles, backward Euler at
   60 Hz for 30 steps, Newton to ``max |dx| / h < 1e-6``: the iterations and the time of each.
6. The drape of table 5 (Gauss-Newton) with the pairs a Newton step keeps for the line search and
   the next steps (``CollisionMesh.swept_candidates(..., keep=d_hat)``, the default) against a
   broad-phase query at every distance query and step: the queries, and the time.

Goals (issue 27): ratio ipctk / simkit >= 1.0 in tables 1 and 2; in 2D, 16x the bodies cost at
most 25x the time.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import simkit  # noqa: E402
from simkit.contact import barrier_potential as potential  # noqa: E402
from simkit.contact.collisions import _build_3d, build_collisions  # noqa: E402
from simkit.contact.step import earliest_contact  # noqa: E402
from simkit.terms.mesh_contact import MeshContact  # noqa: E402

try:
    import ipctk
except ImportError:               # the test-only lock is not installed: simkit's columns only
    ipctk = None

D_HAT, GAP, NOISE, KAPPA = 3e-3, 2e-3, 1e-4, 1.0
REPEATS = 5


def sheets(m, seed=0):
    """Two noisy m x m sheets GAP apart, the upper one shifted half a cell; positions, faces, edges."""
    V, F = simkit.grid_sheet(m, m, diagonals="right")
    spacing = 1.0 / (m - 1)
    X = np.concatenate([V, V + [0.5 * spacing, GAP, 0.5 * spacing]])
    X += NOISE * np.random.default_rng(seed).uniform(-1.0, 1.0, X.shape)
    F = np.concatenate([F, F + m * m])
    return X, F, simkit.edges(F)


def sheet_step(X, m, seed=1):
    """The upper sheet 4 mm down (through the lower), every vertex up to 1 mm of noise."""
    dX = 1e-3 * np.random.default_rng(seed).uniform(-1.0, 1.0, X.shape)
    dX[m * m:, 1] -= 4e-3
    return dX


def interleaved_best(funcs, repeats=REPEATS):
    """Best wall time (s) of each of `funcs` ({name: f}), the calls alternating so both see the same load."""
    for f in funcs.values():
        f()
    best = {name: np.inf for name in funcs}
    for r in range(repeats):
        for name in (list(funcs) if r % 2 == 0 else list(funcs)[::-1]):
            t = time.perf_counter()
            funcs[name]()
            best[name] = min(best[name], time.perf_counter() - t)
    return best


def simkit_evaluation(term, x, psd=True):
    term._key = None                      # a new iterate: the collision set is rebuilt
    term.psd = psd
    return term.energy(x), term.gradient(x), term.hessian(x)


def ipctk_evaluation(mesh, X):
    collisions = ipctk.NormalCollisions()
    collisions.build(mesh, X, D_HAT)
    barrier = ipctk.BarrierPotential(D_HAT, KAPPA)
    return (barrier(collisions, mesh, X), barrier.gradient(collisions, mesh, X),
            barrier.hessian(collisions, mesh, X, ipctk.PSDProjectionMethod.CLAMP), collisions)


def ipctk_on_one_thread(f):
    """f() with ipctk's thread pool limited to one thread (simkit's numpy runs on one)."""
    threads = ipctk.get_num_threads()
    ipctk.set_num_threads(1)
    try:
        return f()
    finally:
        ipctk.set_num_threads(threads)


def table_sheets(sizes):
    print("\n1. collision set + energy + gradient + projected Hessian (ms); ratio = ipctk / simkit")
    print(f"{'sheets':>10} {'collisions':>11} {'ipctk':>11} {'simkit GN':>10} {'simkit clamp':>13} {'ipctk':>9} "
          f"{'ratio GN':>9} {'ratio clamp':>12} {'ipctk 1 thread':>15} {'ratio GN':>9} {'ratio clamp':>12}")
    steps = []
    for m in sizes:
        X, F, E = sheets(m)
        x = X.reshape(-1, 1)
        term = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F)
        count = len(term.collisions(x))
        row = {"simkit GN": lambda: simkit_evaluation(term, x),
               "simkit clamp": lambda: simkit_evaluation(term, x, potential.PROJECTED)}
        theirs = "-"
        if ipctk is not None:
            mesh = ipctk.CollisionMesh(X, E, F)
            theirs = len(ipctk_evaluation(mesh, X)[3])
            row["ipctk"] = lambda: ipctk_evaluation(mesh, X)
            row["ipctk 1 thread"] = lambda: ipctk_on_one_thread(lambda: ipctk_evaluation(mesh, X))
        best = interleaved_best(row)
        term.psd = True
        ms = {side: 1e3 * best.get(side, np.nan) for side in ("simkit GN", "simkit clamp", "ipctk", "ipctk 1 thread")}
        gn, clamp = ms["simkit GN"], ms["simkit clamp"]
        print(f"{f'{m}x{m}':>10} {count:>11,} {theirs:>11,} {gn:>10.1f} {clamp:>13.1f} {ms['ipctk']:>9.1f} "
              f"{ms['ipctk'] / gn:>9.2f} {ms['ipctk'] / clamp:>12.2f} {ms['ipctk 1 thread']:>15.1f} "
              f"{ms['ipctk 1 thread'] / gn:>9.2f} {ms['ipctk 1 thread'] / clamp:>12.2f}")
        steps.append((m, X, F, E, term))
    return steps


def table_step(steps):
    print("\n2. collision-free step size (ms; the step: upper sheet 4 mm down + 1 mm noise)")
    print(f"{'sheets':>10} {'simkit t':>9} {'ipctk t':>9} {'simkit':>9} {'ipctk':>9} {'ratio':>7}")
    for m, X, F, E, term in steps:
        dX = sheet_step(X, m)
        x, dx = X.reshape(-1, 1), dX.reshape(-1, 1)
        row = {"simkit": lambda: term.max_step(x, dx)}
        t_ours, t_theirs = term.max_step(x, dx) / term.safety, np.nan
        if ipctk is not None:
            mesh = ipctk.CollisionMesh(X, E, F)
            row["ipctk"] = lambda: ipctk.compute_collision_free_stepsize(mesh, X, X + dX)
            t_theirs = row["ipctk"]()
        best = interleaved_best(row, repeats=3)
        ours_ms, their_ms = 1e3 * best["simkit"], 1e3 * best.get("ipctk", np.nan)
        print(f"{f'{m}x{m}':>10} {t_ours:>9.4f} {t_theirs:>9.4f} {ours_ms:>9.1f} {their_ms:>9.1f} "
              f"{their_ms / ours_ms:>7.2f}")


def table_profile(steps):
    m, X, F, E, term = steps[-1]
    X1 = X + sheet_step(X, m)
    point_face, edge_edge = term.mesh.candidates(X, D_HAT)
    swept = term.mesh.swept_candidates(X, X1)
    collisions = build_collisions(term.mesh, X, D_HAT, term.weight)
    best = interleaved_best({
        "broad phase (CollisionMesh.candidates)": lambda: term.mesh.candidates(X, D_HAT),
        "narrow phase, reduction, merging": lambda: _build_3d(term.mesh, X, D_HAT, term.weight, point_face, edge_edge),
        "energy": lambda: potential.energy(collisions, D_HAT, KAPPA),
        "gradient": lambda: potential.gradient(collisions, D_HAT, KAPPA),
        "Gauss-Newton Hessian (W W^T)": lambda: potential.hessian(collisions, D_HAT, KAPPA),
        "swept broad phase (CollisionMesh.swept_candidates)": lambda: term.mesh.swept_candidates(X, X1),
        "CCD: bounds, order, additive CCD of the earliest pairs": lambda: earliest_contact(term.mesh, X, X1, *swept)})
    print(f"\n3. where simkit's time goes, {m}x{m} sheets (ms; {len(point_face):,} point-face and {len(edge_edge):,} "
          f"edge-edge candidates, {len(swept[0]):,} and {len(swept[1]):,} swept)")
    for label, seconds in best.items():
        print(f"   {label:<56} {1e3 * seconds:>8.1f}")


def rings(n_side, k=16, radius=1.0, gap=0.05, seed=0):
    """n_side^2 rings of k vertices on a square lattice, neighbours `gap` apart, slightly jittered."""
    t = np.linspace(0.0, 2 * np.pi, k, endpoint=False)
    ring = radius * np.column_stack([np.cos(t), np.sin(t)])
    pitch = 2 * radius + gap
    centres = pitch * np.stack(np.meshgrid(np.arange(n_side), np.arange(n_side)), axis=-1).reshape(-1, 2)
    X = (centres[:, None, :] + ring[None]).reshape(-1, 2)
    X += 0.2 * gap * np.random.default_rng(seed).uniform(-1.0, 1.0, X.shape)
    loop = np.column_stack([np.arange(k), (np.arange(k) + 1) % k])
    S = (np.arange(n_side * n_side)[:, None, None] * k + loop[None]).reshape(-1, 2)
    return X, S, np.repeat(np.arange(n_side * n_side), k)


def table_2d():
    print("\n4. 2D: N rings of 16 vertices at one density, collision set + energy + gradient + Hessian (ms)")
    print(f"{'bodies':>8} {'collisions':>11} {'ms':>9} {'cost ratio':>11}")
    base = None
    for n_side in (8, 32):
        X, S, bodies = rings(n_side)
        term = MeshContact(X, 0.1, KAPPA, edges=S, bodies=bodies)
        x = X.reshape(-1, 1)
        best = interleaved_best({"simkit": lambda: simkit_evaluation(term, x)})["simkit"]
        base = base or best
        print(f"{n_side * n_side:>8} {len(term.collisions(x)):>11,} {1e3 * best:>9.1f} {best / base:>11.1f}")


def sphere(radius, around=20, rings_=11):
    """A UV sphere: the poles and rings_ - 2 rings of `around` vertices, outward triangles."""
    theta = np.linspace(0.0, np.pi, rings_)[1:-1]
    phi = np.linspace(0.0, 2 * np.pi, around, endpoint=False)
    ring = np.stack([np.sin(theta)[:, None] * np.cos(phi), np.cos(theta)[:, None] * np.ones_like(phi),
                     np.sin(theta)[:, None] * np.sin(phi)], axis=-1).reshape(-1, 3)
    V = radius * np.concatenate([[[0.0, 1.0, 0.0]], ring, [[0.0, -1.0, 0.0]]])
    j, i = np.meshgrid(np.arange(around), np.arange(len(theta) - 1))
    a, b = 1 + i * around + j, 1 + i * around + (j + 1) % around
    band = np.concatenate([np.stack([a, b, b + around], -1).reshape(-1, 3), np.stack([a, b + around, a + around],
                                                                                     -1).reshape(-1, 3)])
    j = np.arange(around)
    last = len(V) - 1
    caps = np.concatenate([np.stack([np.zeros(around, int), 1 + (j + 1) % around, 1 + j], -1),
                           np.stack([np.full(around, last), last - around + j, last - around + (j + 1) % around], -1)])
    return V, np.concatenate([band, caps])


def drape(psd, steps=30, n=12, h=1 / 60):
    """Newton iterations per step of a cloth dropped on a fixed sphere."""
    import scipy.sparse as sps
    from simkit import terms
    from simkit.integrators import backward_euler
    V, F = simkit.grid_sheet(n, n)
    V += [-0.5 + 0.03, 0.33, -0.5 + 0.01]
    S, FS = sphere(0.3)
    X, faces = np.concatenate([V, S]), np.concatenate([F, FS + len(V)])
    m = simkit.massmatrix(V, F, 0.2).diagonal()
    contact = MeshContact(X, 5e-3, 10.0, edges=simkit.edges(faces), faces=faces, fixed=np.arange(len(X)) >= len(V),
                          weight=np.concatenate([m, np.full(len(S), m.mean())]) / m.mean(), psd=psd)
    friction = terms.Friction(contact, 0.3, 1e-2, h)
    E = simkit.edges(F)
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(3))
    l0 = simkit.edge_lengths(X, E)
    f_g = np.zeros((len(X), 3))
    f_g[:len(V), 1] = -9.8 * m
    potential_ = terms.Sum(terms.SpringEnergy(J, 200.0, l0, l0), terms.Gravity(f_g), contact, friction)
    M = sps.diags(np.repeat(np.concatenate([m, np.full(len(S), 1e8)]), 3)).tocsc()   # the sphere: held by its mass
    x = x_prev = X.reshape(-1, 1)
    iterations = []
    for _ in range(steps):
        friction.update(x)
        x_new, info = backward_euler(x, x_prev, potential_.energy, potential_.gradient, potential_.hessian, M, h,
                                     tolerance=1e-6, max_iter=200, max_step=contact.max_step,
                                     step_norm=lambda dx: np.abs(dx).max() / h, return_info=True)
        x, x_prev = x_new, x
        iterations.append(info["iterations"])
    return np.array(iterations)


def table_newton():
    print("\n5. Newton, cloth on a sphere (30 steps): Gauss-Newton against the eigenvalue clamp")
    print(f"{'Hessian':>26} {'iterations':>11} {'max/step':>9} {'s':>7}")
    for label, psd in (("Gauss-Newton (psd=True)", True), ('clamp (psd="project")', potential.PROJECTED)):
        t = time.perf_counter()
        its = drape(psd)
        print(f"{label:>26} {its.sum():>11} {its.max():>9} {time.perf_counter() - t:>7.2f}")


def table_kept():
    print("\n6. the drape of table 5 (Gauss-Newton): a step's kept pairs (CollisionMesh.swept_candidates' keep) "
          "against a broad-phase query per call")
    print(f"{'broad phase':>30} {'queries':>8} {'iterations':>11} {'s (best of 2)':>14}")
    from simkit.contact.collision_mesh import CollisionMesh
    pairs, swept = CollisionMesh._pairs, CollisionMesh.swept_candidates
    count = [0]

    def counted(self, *args):
        count[0] += 1
        return pairs(self, *args)

    CollisionMesh._pairs = counted
    try:
        for label, keep in (("kept pairs (the default)", True), ("a query per call", False)):
            CollisionMesh.swept_candidates = swept if keep else lambda self, X0, X1, keep=None: swept(self, X0, X1)
            seconds = []
            for _ in range(2):
                count[0] = 0
                t = time.perf_counter()
                its = drape(True)
                seconds.append(time.perf_counter() - t)
            print(f"{label:>30} {count[0]:>8} {its.sum():>11} {min(seconds):>14.2f}")
    finally:
        CollisionMesh._pairs, CollisionMesh.swept_candidates = pairs, swept


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="64x64 sheets only")
    args = parser.parse_args()
    print(f"mesh contact benchmark: numpy {np.__version__}, ipctk {getattr(ipctk, '__version__', 'not installed')}"
          f"{f' on {ipctk.get_num_threads()} threads' if ipctk else ''}")
    steps = table_sheets([64] if args.quick else [64, 128])
    table_step(steps)
    table_profile(steps)
    table_2d()
    table_newton()
    table_kept()


if __name__ == "__main__":
    main()
