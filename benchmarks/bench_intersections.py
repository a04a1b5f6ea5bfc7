"""Benchmark: simkit.contact.intersections_2d on crowded, interpenetrating scenes of growing size; prints a table.

Run from the repository root::

    python benchmarks/bench_intersections.py

Scenes: random star-shaped polygons of 10 sides scattered so densely that about a fifth of the
segments cross another body's (the unfriendly case: the exact predicates and the even-odd counts
all do work), from 1e3 to 1e5 segments, and a 017-sized run (3 bodies, 121 states) through
``count_intersections_2d``. Each figure is the best of several warm calls. A broad phase that
works keeps the time per segment flat as the scene grows; an all-pairs test would grow it
linearly (1e5 segments: 5e9 pairs).
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


if __name__ == "__main__":
    main()
