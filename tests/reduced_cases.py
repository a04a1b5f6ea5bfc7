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


def symmetric_bar(cells=(4, 2, 2), size=(1.0, 0.5, 0.5)):
    """A box of 24 tetrahedra per cube (each face's four triangles joined to the cube's centre), and its vertices
    at x = 0.

    Unlike ``grid_box``'s six tetrahedra around a diagonal, each cube is as symmetric as the cube: with a square
    section the mesh maps to itself under a quarter turn about the long axis, so the bending modes and the
    Laplacian's eigenfunctions across the section come in pairs of exactly equal eigenvalues.
    """
    n = np.array(cells)
    lattice = 2 * n + 1                                         # corners at even, face and cube centres at odd
    centres = np.stack(np.meshgrid(*[2 * np.arange(c) + 1 for c in n], indexing="ij"), -1).reshape(-1, 1, 3)
    ring = np.array([[1, 1], [1, -1], [-1, -1], [-1, 1]])
    tets = []
    for axis in range(3):                                       # each face: four triangles about its centre
        others = [(axis + 1) % 3, (axis + 2) % 3]
        for side in (-1, 1):
            face = centres.copy()
            face[..., axis] += side
            corners = np.repeat(face, 4, axis=1)
            corners[..., others] += ring
            tets.append(np.stack([corners, np.roll(corners, -1, axis=1), np.repeat(face, 4, axis=1),
                                  np.repeat(centres, 4, axis=1)], axis=2))
    L = np.concatenate(tets, axis=1).reshape(-1, 4, 3)
    used, T = np.unique(np.ravel_multi_index(L.reshape(-1, 3).T, lattice), return_inverse=True)
    X = np.column_stack(np.unravel_index(used, lattice)) * (np.asarray(size) / (2 * n))
    T = T.reshape(-1, 4)
    a, b, c, d = (X[T[:, i]] for i in range(4))
    negative = np.einsum("ij,ij->i", b - a, np.cross(c - a, d - a)) < 0
    T[negative] = T[negative][:, [1, 0, 2, 3]]
    return X, T, np.flatnonzero(X[:, 0] == 0)
