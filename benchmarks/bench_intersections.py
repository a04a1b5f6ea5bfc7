"""Benchmark: simkit.contact's exact intersection tests of states: 2D scenes of growing size, 3D runs; prints tables.

Run from the repository root::

    python benchmarks/bench_intersections.py

Scenes: random star-shaped polygons of 10 sides scattered so densely that about a fifth of the
segments cross another body's (the unfriendly case: the exact predicates and the even-odd counts
all do work), from 1e3 to 1e5 segments, and a 017-sized run (3 bodies, 121 states) through
``count_intersections_2d``. Each figure is the best of several warm calls. A broad phase that
works keeps the time per segment flat as the scene grows; an all-pairs test would grow it
linearly (1e5 segments: 5e9 pairs).

Then ``count_intersections`` (3D) over the frames of a run, batched (a few frames per call, as it
takes them) against one call per frame, on runs shaped like the chapters': a 40 x 13 cloth sinking
just above a ground of two big triangles (018's fold, 46 frames), eight cubes 1 cm apart (019's
blocks, 61 frames) and a 30 x 30 cloth (018's drape, 46 frames), every vertex moved by about 1-2 mm
at random (no frame intersects, as in a run that works). The batched call must be no slower than
the loop.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simkit  # noqa: E402
from bench_simkit import best_of  # noqa: E402  (same folder)


def polygons(rng, count, sides=10):
    """`count` star-shaped polygons of radius <= 1 over a square of side 2 sqrt(count): crowded."""
    spread = 2.0 * np.sqrt(count)
    angles = np.sort(rng.uniform(0, 2 * np.pi, (count, sides)), axis=1)
    radii = rng.uniform(0.3, 1.0, (count, sides))
    X = rng.uniform(0, spread, (count, 1, 2)) + np.stack([radii * np.cos(angles), radii * np.sin(angles)], axis=-1)
    ring = np.column_stack([np.arange(sides), (np.arange(sides) + 1) % sides])
    S = (np.arange(count)[:, None, None] * sides + ring).reshape(-1, 2)
    return X.reshape(-1, 2), S, np.repeat(np.arange(count), sides)


def main():
    rng = np.random.default_rng(0)
    print(f"{'segments':>9s} {'crossing pairs':>15s} {'vertices inside':>16s} {'time (ms)':>10s} {'us/segment':>11s}")
    for count in [100, 1_000, 10_000]:
        X, S, bodies = polygons(rng, count)
        pairs, inside = simkit.contact.intersections_2d(X, S, bodies)
        seconds = best_of(lambda: simkit.contact.intersections_2d(X, S, bodies), 5 if count < 10_000 else 2)
        print(f"{len(S):9d} {len(pairs):15d} {len(inside):16d} {1e3 * seconds:10.1f} {1e6 * seconds / len(S):11.2f}")
    X, S, bodies = polygons(rng, 3, sides=12)
    states = X[None] + 0.05 * rng.standard_normal((121, 1, 2))
    seconds = best_of(lambda: simkit.contact.count_intersections_2d(states, S, bodies), 5)
    print(f"count_intersections_2d, 3 bodies of 12 segments, 121 states: {1e3 * seconds:.1f} ms")
    print("\ncount_intersections (3D) over the frames of a run: batched against one call per frame (ms)")
    print(f"{'run':>28s} {'frames':>7s} {'intersecting':>13s} {'batched':>8s} {'per frame':>10s} {'ratio':>6s}")
    for name, (states, faces) in runs_3d(rng).items():
        counts = simkit.contact.count_intersections(states, faces)
        batched = best_of(lambda: simkit.contact.count_intersections(states, faces), 3)
        looped = best_of(lambda: [simkit.contact.count_intersections(x[None], faces) for x in states], 3)
        print(f"{name:>28s} {len(states):7d} {int((counts > 0).sum()):13d} {1e3 * batched:8.1f} {1e3 * looped:10.1f} "
              f"{looped / batched:6.2f}")


def runs_3d(rng):
    """{name: (states (N, n, 3), faces)}: noisy frames of three chapter-shaped 3D runs."""
    V, F = simkit.grid_sheet(40, 13, 1.35, 0.4)
    ground = np.array([[-1.5, 0.0, -1.5], [1.5, 0.0, -1.5], [1.5, 0.0, 1.5], [-1.5, 0.0, 1.5]]) + [0.65, 0.0, 0.2]
    X = np.vstack([V, ground])
    sheet = (np.arange(len(X)) < len(V))[:, None]
    fold = X[None] + sheet * ([0.0, 0.005, 0.0] + 0.001 * rng.standard_normal((46,) + X.shape))
    cube, T = simkit.grid_box(2, 2, 2, 0.2, 0.2, 0.2)
    blocks = np.vstack([cube + [0.0, 0.21 * k, 0.0] for k in range(8)])
    Fb = np.vstack([simkit.boundary_faces(T) + 8 * k for k in range(8)])
    cloth, Fc = simkit.grid_sheet(30, 30)
    return {"cloth 40x13 on a ground": (fold, np.vstack([F, np.array([[0, 2, 1], [0, 3, 2]]) + len(V)])),
            "8 cubes": (blocks[None] + 0.001 * rng.standard_normal((61,) + blocks.shape), Fb),
            "cloth 30x30": (cloth[None] + 0.002 * rng.standard_normal((46,) + cloth.shape), Fc)}


if __name__ == "__main__":
    main()
