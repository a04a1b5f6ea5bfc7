"""Shared inputs of the FEM tests."""
import numpy as np


def random_rotation(dim, rng):
    """A uniformly random proper rotation (det +1) of R^dim."""
    Q, R = np.linalg.qr(rng.standard_normal((dim, dim)))
    Q = Q * np.sign(np.diag(R))
    if np.linalg.det(Q) < 0:
        Q[:, 0] *= -1
    return Q
