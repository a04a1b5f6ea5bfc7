"""Costs of simkit.contact's batched primitives per 1e5 stencils, and of its exact intersection test per mesh state.

Run from the repository root, in the project's environment (``make bench`` runs it; ipctk comes
from ``tests/requirements-oracle.lock``, which ``make`` installs)::

    python benchmarks/bench_contact_primitives.py            # 1e5 stencils, 30x30 and 64x64 sheets
    python benchmarks/bench_contact_primitives.py --quick    # 2e4 stencils, 30x30 only

Tables (best of several warm calls, wall time, milliseconds, scaled to 1e5 stencils; no assertions):

1. Distances on two kinds of stencils: random ones (standard normal points, unfriendly: every
   region, skew and nearly degenerate configurations) and near-contact ones (a point 1 to 3 mm
   over a noisy 1 cm triangle, or two 1 cm edges crossing 1 to 3 mm apart at a random angle, the
   stencils a cloth's collision set holds). Columns: the distance alone (the region
   classification), with the gradient, with the dense Hessian, and with the Hessian's rank-4
   factors only (``dense=False``); the edge-edge mollifier with its derivatives.
2. CCD (``point_triangle_ccd``, ``edge_edge_ccd``, 2D ``point_edge_ccd``) on random motions (each
   point moves by 0.3 of the stencil's size: many impacts) and on near-contact steps (the
   stencils above, the point or upper edge moving 4 mm down through the other, plus 1 mm of noise
   on every point).
3. The exact intersection test of a whole mesh state (``has_intersections``) on a 30x30 and a
   64x64 sheet, flat, folded over itself and crumpled through itself, next to
   ``ipctk.has_intersections`` on the same state (both whole-mesh calls: a fair ratio).

The IPC Toolkit has no batched distance or narrow-phase CCD: its Python functions take one stencil
per call, so a loop over them measures the bindings' call overhead more than the arithmetic, and
is not a fair comparison. Its per-call time is printed once for reference, not as a ratio. The
mesh-level comparison of CCD (``compute_collision_free_stepsize``) and of the contact potential is
``benchmarks/bench_contact.py``'s.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import simkit  # noqa: E402
from simkit import contact  # noqa: E402
from simkit.contact.edge_edge_ccd import _edge_edge_ccd  # noqa: E402
from simkit.contact.edge_edge_distance import _edge_edge  # noqa: E402
from simkit.contact.edge_edge_mollifier import _edge_edge_mollifier  # noqa: E402
from simkit.contact.point_edge_ccd import _point_edge_ccd  # noqa: E402
from simkit.contact.point_edge_distance import _point_edge  # noqa: E402
from simkit.contact.point_triangle_ccd import _point_triangle_ccd  # noqa: E402
from simkit.contact.point_triangle_distance import _point_triangle  # noqa: E402
from bench_simkit import best_of  # noqa: E402

try:
    import ipctk
except ImportError:               # the test-only lock is not installed: simkit's columns only
    ipctk = None

PER = 100_000


def random_stencils(rng, k, m, dim):
    return rng.standard_normal((k, m, dim))


def near_point_triangle(rng, k):
    """A point 1-3 mm over a noisy 1 cm triangle (closest to its face, an edge or a corner)."""
    tri = np.array([[0.0, 0.0, 0.0], [0.01, 0.0, 0.0], [0.0, 0.0, 0.01]]) + 5e-4 * rng.standard_normal((k, 3, 3))
    foot = rng.dirichlet([1.0, 1.0, 1.0], k) @ np.array([[0, 0, 0], [0.012, 0, 0], [-0.001, 0, 0.012]])
    p = foot + np.c_[np.zeros(k), rng.uniform(1e-3, 3e-3, k), np.zeros(k)]
    return np.concatenate([p[:, None], tri], axis=1)


def near_edge_edge(rng, k):
    """Two 1 cm edges crossing 1-3 mm apart at a random angle (some nearly parallel)."""
    angle = rng.uniform(0, np.pi, k)
    a = np.array([[-0.005, 0.0, 0.0], [0.005, 0.0, 0.0]]) + 3e-4 * rng.standard_normal((k, 2, 3))
    b = 0.005 * np.stack([np.c_[-np.cos(angle), np.zeros(k), -np.sin(angle)],
                          np.c_[np.cos(angle), np.zeros(k), np.sin(angle)]], axis=1)
    b[:, :, 1] += rng.uniform(1e-3, 3e-3, k)[:, None]
    return np.concatenate([a, b + 3e-4 * rng.standard_normal((k, 2, 3))], axis=1)


def through(rng, X, moving):
    """The near-contact stencils' step: the points `moving` 4 mm down through the others, 1 mm noise on all."""
    X1 = X + 1e-3 * rng.standard_normal(X.shape)
    X1[:, moving, 1] -= 4e-3
    return X1


def ms_per(f, k, repeats):
    return 1e3 * best_of(f, repeats) * PER / k


def distance_table(k, repeats):
    rng = np.random.default_rng(0)
    sets = {"point-triangle": (_point_triangle, {"random": random_stencils(rng, k, 4, 3),
                                                 "near contact": near_point_triangle(rng, k)}),
            "edge-edge": (_edge_edge, {"random": random_stencils(rng, k, 4, 3), "near contact": near_edge_edge(rng, k)}),
            "point-edge 3D": (_point_edge, {"random": random_stencils(rng, k, 3, 3)}),
            "point-edge 2D": (_point_edge, {"random": random_stencils(rng, k, 3, 2)})}
    print(f"\n1. Distances, ms per {PER:,} stencils (best of {repeats} warm calls)\n")
    print("| pair | stencils | distance | + gradient | + Hessian | + Hessian factors only |")
    print("|---|---|---:|---:|---:|---:|")
    for pair, (entry, stencils) in sets.items():
        for kind, X in stencils.items():
            cols = [ms_per(lambda: entry(X, order), k, repeats) for order in (0, 1, 2)]
            cols.append(ms_per(lambda: entry(X, 2, dense=False), k, repeats))
            print(f"| {pair} | {kind} | " + " | ".join(f"{c:.0f}" for c in cols) + " |")
    X = near_edge_edge(rng, k)
    eps = contact.edge_edge_mollifier_threshold(*X.transpose(1, 0, 2))
    cols = [ms_per(lambda: _edge_edge_mollifier(X, eps, order), k, repeats) for order in (0, 1, 2)]
    print("| edge-edge mollifier | near contact | " + " | ".join(f"{c:.0f}" for c in cols) + " | |")
    if ipctk is not None:
        Xs = near_point_triangle(rng, 2000)
        per_call = best_of(lambda: [(ipctk.point_triangle_distance(*x), ipctk.point_triangle_distance_gradient(*x),
                                     ipctk.point_triangle_distance_hessian(*x)) for x in Xs], 3) / len(Xs)
        print(f"\nipctk (reference only, not a ratio): one point-triangle distance + gradient + Hessian through "
              f"its Python bindings costs {1e6 * per_call:.1f} us per stencil, {1e3 * per_call * PER:.0f} ms per "
              f"{PER:,}; it has no batched call.")


def ccd_table(k, repeats):
    rng = np.random.default_rng(1)
    pt, ee = near_point_triangle(rng, k), near_edge_edge(rng, k)
    cases = {
        ("point-triangle", "random"): (_point_triangle_ccd, random_stencils(rng, k, 4, 3), 0.3),
        ("point-triangle", "near contact, through"): (_point_triangle_ccd, pt, through(rng, pt, [0])),
        ("edge-edge", "random"): (_edge_edge_ccd, random_stencils(rng, k, 4, 3), 0.3),
        ("edge-edge", "near contact, through"): (_edge_edge_ccd, ee, through(rng, ee, [2, 3])),
        ("point-edge 2D", "random"): (_point_edge_ccd, random_stencils(rng, k, 3, 2), 0.3),
    }
    print(f"\n2. CCD, ms per {PER:,} stencils (best of {repeats} warm calls)\n")
    print("| pair | motion | time | impacts |")
    print("|---|---|---:|---:|")
    for (pair, motion), (f, X0, X1) in cases.items():
        if np.isscalar(X1):
            X1 = X0 + X1 * rng.standard_normal(X0.shape)
        t = f(X0, X1)
        print(f"| {pair} | {motion} | {ms_per(lambda: f(X0, X1), k, repeats):.0f} | "
              f"{np.isfinite(t).mean():.0%} |")
    if ipctk is not None:
        X0, X1 = pt[:300], through(rng, pt[:300], [0])
        ccd = ipctk.TightInclusionCCD()
        per_call = best_of(lambda: [ccd.point_triangle_ccd(*x0, *x1) for x0, x1 in zip(X0, X1)], 3) / len(X0)
        print(f"\nipctk (reference only, not a ratio): one TightInclusionCCD point_triangle_ccd call on these "
              f"stencils costs {1e6 * per_call:.0f} us; its batched CCD is mesh-level "
              "(compute_collision_free_stepsize, in bench_contact.py).")


def sheet_states(n):
    X, F = simkit.grid_sheet(n, n)
    rng = np.random.default_rng(2)
    s = X[:, 0] - 0.5
    r = 0.03
    bend, back = (s > 0) & (s < np.pi * r), s >= np.pi * r
    folded = X.copy()
    folded[bend, 0], folded[bend, 1] = 0.5 + r * np.sin(s[bend] / r), r - r * np.cos(s[bend] / r)
    folded[back, 0], folded[back, 1] = 0.5 - (s[back] - np.pi * r), 2 * r
    crumpled = folded.copy()
    crumpled[back, 1] += 0.1 * np.sin(20 * X[back, 2])
    crumpled += 1e-4 * rng.standard_normal(X.shape)
    return F, {"flat": X, "folded": folded, "crumpled through itself": crumpled}


def intersection_table(sizes, repeats):
    print(f"\n3. Exact intersection test of one mesh state, ms (best of {repeats} warm calls)\n")
    print("| sheet | state | simkit `has_intersections` | ipctk `has_intersections` | ipctk / simkit | verdicts |")
    print("|---|---|---:|---:|---:|---|")
    for n in sizes:
        F, states = sheet_states(n)
        for name, x in states.items():
            ours = best_of(lambda: contact.has_intersections(x, F), repeats)
            verdict = contact.has_intersections(x, F)
            if ipctk is not None:
                mesh = ipctk.CollisionMesh(x, ipctk.edges(F), F)
                theirs = best_of(lambda: ipctk.has_intersections(mesh, x), repeats)
                agree = "agree" if ipctk.has_intersections(mesh, x) == verdict else "DIFFER"
                print(f"| {n}x{n} | {name} | {1e3 * ours:.1f} | {1e3 * theirs:.1f} | {theirs / ours:.2f} | "
                      f"{verdict} ({agree}) |")
            else:
                print(f"| {n}x{n} | {name} | {1e3 * ours:.1f} | (ipctk not installed) | | {verdict} |")
        frames = np.array([states["folded"]] * 50)
        batch = best_of(lambda: contact.count_intersections(frames, F), max(1, repeats // 2))
        print(f"| {n}x{n} | 50 folded frames, `count_intersections` | {1e3 * batch / 50:.1f} per frame | | | |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2e4 stencils, the 30x30 sheet only")
    args = parser.parse_args()
    k = 20_000 if args.quick else PER
    distance_table(k, 5)
    ccd_table(k, 3)
    intersection_table((30,) if args.quick else (30, 64), 5)


if __name__ == "__main__":
    main()
