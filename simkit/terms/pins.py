r"""Soft pins: a quadratic penalty pulling chosen nodes to targets.

Density: ``k/2 * ||x_i - t_i||^2`` per pinned node i. The energy and the gradient ``k (x_I - t)`` are
evaluated in that form, on the held coordinates I: the expanded ``1/2 x^T Q x + b^T x + c`` of
``simkit.dirichlet_penalty`` and its gradient ``Q x + b`` cancel terms of size k |x|^2 and k |x|, and
at k = 1e10 lose the small stretch, and the force, to round-off. The constant Hessian ``Q`` comes
from ``simkit.dirichlet_penalty``.
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
        self._held = np.zeros(0, dtype=int)          # the pinned nodes' coordinates in stacked x
        self._targets = np.zeros((0, 1))

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
        self._held = (idx[:, None] * self.dim + np.arange(self.dim)).reshape(-1)
        self._targets = np.asarray(targets, dtype=float).reshape(-1, 1)
        return self

    def energy(self, x):
        """Penalty energy, float."""
        r = self._x(x)[self._held] - self._targets
        return 0.5 * self.k * float(np.sum(r * r))

    def gradient(self, x):
        """Gradient ``k (x_I - t)`` on the held coordinates I, zero elsewhere: (N, 1) float array."""
        x = self._x(x)
        g = np.zeros_like(x)
        g[self._held] = self.k * (x[self._held] - self._targets)
        return g

    def hessian(self, x):
        """Constant Hessian ``Q``, (N, N) sparse matrix."""
        self._x(x)
        return self.Q
