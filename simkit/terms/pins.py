r"""Soft pins: a quadratic penalty pulling chosen nodes to targets.

Density: ``k/2 * ||x_i - t_i||^2`` per pinned node i, through ``simkit.dirichlet_penalty``'s
``1/2 x^T Q x + b^T x`` plus the constant it drops.
"""
import numpy as np
import scipy.sparse as sps

from .. import _validate
from ..dirichlet_penalty import dirichlet_penalty
from .base import Term


class PenaltySpring(Term):
    r"""Soft pins, zero until ``set`` is called.

    :math:`\Psi(x) = \tfrac{k}{2} \sum_{i \in \text{idx}} \lVert x_i - t_i \rVert^2`

    Parameters
    ----------
    n : int
        Number of nodes, >= 1.
    dim : int
        Spatial dimension (2 or 3).
    k : float
        Penalty stiffness, > 0.
    """

    def __init__(self, n, dim, k):
        self.n = _validate.integer(n, "n", low=1)
        self.dim = _validate.integer(dim, "dim")
        if self.dim not in (2, 3):
            raise ValueError(f"dim: expected 2 or 3, got {self.dim}")
        self.k = _validate.positive_scalar(k, "k")
        self.size = self.n * self.dim
        self.Q = sps.csc_matrix((self.size, self.size))
        self.b = np.zeros((self.size, 1))
        self.c = 0.0

    def set(self, idx, targets):
        """Pin nodes ``idx`` to ``targets``, replacing earlier pins.

        Parameters
        ----------
        idx : (p,) int array
            Pinned node indices in [0, n).
        targets : (p, dim) float array
            Target positions.

        Returns
        -------
        self : PenaltySpring
        """
        idx = _validate.index_vector(np.reshape(idx, -1), "idx", self.n)
        targets = _validate.finite_array(targets, "targets")
        if targets.size == 0:
            targets = targets.reshape(0, self.dim)
        if targets.shape != (idx.size, self.dim):
            raise ValueError(f"targets: expected shape ({idx.size}, {self.dim}), one row per pinned node, "
                             f"got {targets.shape}")
        self.Q, self.b = dirichlet_penalty(idx, targets, self.n, self.k)
        self.c = 0.5 * self.k * float(np.sum(targets ** 2))   # the constant dirichlet_penalty drops
        return self

    def energy(self, x):
        """Penalty energy, float."""
        x = self._x(x)
        return float(0.5 * (x.T @ np.asarray(self.Q @ x)).item() + (self.b.T @ x).item()) + self.c

    def gradient(self, x):
        """Gradient ``Q x + b``, (N, 1) float array."""
        return np.asarray(self.Q @ self._x(x)) + self.b

    def hessian(self, x):
        """Constant Hessian ``Q``, (N, N) sparse matrix."""
        self._x(x)
        return self.Q
