r"""Backward-Euler inertia: the kinetic part of one implicit step's objective.

``1/(2 h^2) ||x - x_tilde||_M^2`` with the inertial target ``x_tilde = x_n + h v_n``
(``simkit.energies.kinetic_*_be`` with ``x_prev = x_n - h v_n``).
"""
import scipy.sparse as sps

from .. import _validate
from ..energies.kinetic import inertia_energy, inertia_gradient, inertia_hessian
from .base import Term


class Inertia(Term):
    r"""Backward-Euler inertia, set per step by ``update``.

    :math:`\Psi(x) = \tfrac{1}{2h^2} \lVert x - (x_n + h v_n) \rVert_M^2`

    Equal to ``simkit.energies.kinetic_*_be(x, x_n, x_n - h v_n, M, h)``.

    Parameters
    ----------
    M : (N, N) sparse matrix or array
        Mass matrix on the stacked degrees of freedom: symmetric, positive diagonal.
    h : float
        Time step, > 0 (with h**2 a normal float).
    """

    def __init__(self, M, h):
        M = _validate.mass_matrix(M, "M")[0]
        self.M = sps.csc_matrix(M)
        self.h = _validate.time_step(h)
        self.size = self.M.shape[0]
        self.x_n = None
        self.x_prev = None
        self._target = None

    def update(self, x_n, v_n):
        """Set the state of the step: position ``x_n`` and velocity ``v_n``, both (N, 1).

        Returns
        -------
        self : Inertia
        """
        self.x_n = _validate.stacked(x_n, "x_n", size=self.size)
        self.x_prev = self.x_n - self.h * _validate.stacked(v_n, "v_n", size=self.size)
        self._target = 2.0 * self.x_n - self.x_prev       # as kinetic_*_be form it from (x_n, x_prev)
        return self

    def _state(self, x):
        if self._target is None:
            raise RuntimeError("Inertia has no state yet: call update(x_n, v_n) before evaluating it")
        return self._x(x)

    def energy(self, x):
        """Inertia energy, float."""
        return inertia_energy(self._state(x), self._target, self.M, 1.0, self.h)

    def gradient(self, x):
        """Gradient ``M (x - x_tilde) / h^2``, (N, 1) float array."""
        return inertia_gradient(self._state(x), self._target, self.M, 1.0, self.h)

    def hessian(self, x):
        """Constant Hessian ``M / h^2``, (N, N) sparse matrix."""
        self._state(x)
        return inertia_hessian(self.M, 1.0, self.h)
