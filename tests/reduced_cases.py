"""Meshes shared by the reduced-model tests (and the upstream reference data they are compared with)."""
import numpy as np

import simkit


def bar_3d():
    """A 3 x 0.5 x 0.5 box of 648 tetrahedra (208 nodes), and its vertices at x = 0."""
    X, T = simkit.grid_box(13, 4, 4, 3.0, 0.5, 0.5)
    return X, T, np.flatnonzero(X[:, 0] == 0)


def strip_2d():
    """A 2 x 0.3 rectangle of 120 triangles (84 nodes), and its vertices at x = 0."""
    X, T = simkit.grid_rectangle(21, 4, 2.0, 0.3)
    return X, T, np.flatnonzero(X[:, 0] == 0)


def upstream_meshes():
    """The arrays handed to upstream by ``tests/data/make_upstream_reduced.py``."""
    X3, T3, _ = bar_3d()
    X2, T2, _ = strip_2d()
    x = X3[:, 0]
    W3 = np.column_stack([np.ones(len(X3)), x, x ** 2, X3[:, 1] * x, np.sin(3 * x)])
    mu2 = np.where(X2[T2].mean(axis=1)[:, 0] < 1.0, 1e3, 1.0)     # upstream's stiff-half strip
    return {"X3": X3, "T3": T3, "X2": X2, "T2": T2, "W3": W3, "mu2": mu2}
