"""Small 3D contact scenes shared by the mesh-contact tests: noisy sheets, crossing rods, a point over a face."""
import numpy as np

import simkit

D_HAT = 3e-3


def two_sheets(m=5, spacing=0.01, gap=2e-3, noise=2e-4, shift=0.5, seed=0):
    """Two noisy m x m grid sheets `gap` apart, the upper one shifted by `shift` cells (0: vertex over vertex).

    With the defaults every collision group but point-point appears (parallel diagonals above each
    other give mollified edge pairs); with shift 0 point-point pairs appear.
    """
    V, F = simkit.grid_sheet(m, m, (m - 1) * spacing, (m - 1) * spacing, diagonals="right")
    upper = V + [shift * spacing, gap, shift * spacing]
    X = np.concatenate([V, upper]) + noise * np.random.default_rng(seed).uniform(-1, 1, (2 * m * m, 3))
    F = np.concatenate([F, F + m * m])
    return X, F, simkit.edges(F)


def folded_sheet(m=6, spacing=0.01, gap=2.2e-3, noise=2e-4, seed=0):
    """One m x (2m - 1) sheet folded over itself at its middle row: the far half lies `gap` above the near half."""
    X, F = simkit.grid_sheet(m, 2 * m - 1, (m - 1) * spacing, 2 * (m - 1) * spacing)
    half = (m - 1) * spacing
    over = X[:, 2] > half + 1e-12
    X[over, 1] = gap
    X[over, 2] = 2 * half - X[over, 2]
    X += noise * np.random.default_rng(seed).uniform(-1, 1, X.shape) * [1.0, 0.3, 1.0]
    return X, F, simkit.edges(F)


def crossing_rods(angle=np.pi / 2, gap=2e-3, s=0.4, t=0.6):
    """Two free edges (no faces): A along x, B at `angle` to it, `gap` above A's point s and at B's parameter t."""
    a0, a1 = np.array([0.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0])
    direction = np.array([np.cos(angle), 0.0, np.sin(angle)])
    b0 = a0 + s * (a1 - a0) + [0.0, gap, 0.0] - t * 0.8 * direction
    return np.array([a0, a1, b0, b0 + 0.8 * direction]), np.array([[0, 1], [2, 3]])


def point_over_face(height=2e-3, where=(0.3, 0.2)):
    """A triangle (1, 2, 3) and a point 0 `height` above the barycentric point `where` (the face region).

    The point is a corner of a small triangle (0, 4, 5) on its side of the face, far from the big
    triangle's edges. "Above" is along the face's normal (b - a) x (c - a), which points to -y.
    """
    a, b, c = np.array([0.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.1]), np.array([0.1, 0.0, 1.0])
    u, v = where
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n)
    p = a + u * (b - a) + v * (c - a) + height * n
    X = np.array([p, a, b, c, p + 0.05 * (n + [1.0, 0.0, 0.0]), p + 0.05 * (n + [0.0, 0.0, 1.0])])
    F = np.array([[1, 2, 3], [0, 4, 5]])
    return X, F, simkit.edges(F)


def parallel_rods(gap=1e-3, shift=0.3, n=3, tilt=0.0):
    """Two rods of n - 1 edges along x (no faces), 1 m long: B `gap` above A and `shift` further along x, turned
    by `tilt` (rad) about y. Returns (X, E): A's nodes first."""
    s = np.linspace(0.0, 1.0, n)
    A = np.column_stack([s, np.zeros(n), np.zeros(n)])
    B = np.column_stack([shift + s * np.cos(tilt), np.full(n, gap), s * np.sin(tilt)])
    E = np.column_stack([np.arange(n - 1), np.arange(1, n)])
    return np.vstack([A, B]), np.vstack([E, E + n])
