r"""Inertia: the kinetic part of one implicit time step's objective, the one place it is built.

``c/(2 h^2) ||x - x_tilde||_M^2`` around the inertial target ``x_tilde``: c = 1 and
``x_tilde = x_n + h v_n`` for Backward Euler (``simkit.energies.kinetic_*_be`` with
``x_prev = x_n - h v_n``), c = 9/4 and ``simkit.energies.bdf2_target`` for BDF2. The
integrators (``backward_euler``, ``bdf2``, ``simulate``) add this term to the potential and
minimize the sum.
"""
from .. import _validate
from ..energies.kinetic import inertia_energy, inertia_gradient, inertia_hessian
from .base import Term


class Inertia(Term):
    r"""Inertia of one implicit step, its target set per step by ``update`` or ``set_target``.

    :math:`\Psi(x) = \tfrac{c}{2h^2} \lVert x - \tilde x \rVert_M^2`, :math:`\tilde x = x_n + h v_n` after ``update(x_n, v_n)``

    With c = 1 it equals ``simkit.energies.kinetic_*_be(x, x_n, x_n - h v_n, M, h)``.

    Parameters
    ----------
    M : (N, N) sparse matrix or float array
        Mass matrix on the stacked degrees of freedom: symmetric, positive diagonal. Its type
        is kept (a dense M gives a dense Hessian, which Newton solves without sparse machinery).
    h : float
        Time step, > 0 (with h**2 a normal float).
    coefficient : float, optional, keyword-only
        c > 0: 1 (default) for Backward Euler, 9/4 for BDF2.

    Notes
    -----
    Inertia is not part of a potential: its ``update`` takes the velocity too, so it does not
    join the ``Sum`` a time loop updates with ``update(x_n)``. ``hessian`` returns the same
    constant matrix ``c M / h^2`` on every call.
    """

    def __init__(self, M, h, *, coefficient=1.0):
        self.M = _validate.mass_matrix(M, "M")[0]
        self.h = _validate.time_step(h)
        self.coefficient = _validate.positive_scalar(coefficient, "coefficient")
        self.size = self.M.shape[0]
        self.x_n = None
        self.x_prev = None
        self._target = None
        self._hessian = inertia_hessian(self.M, self.coefficient, self.h)

    def update(self, x_n, v_n):
        """Set the state of the step: position ``x_n`` and velocity ``v_n``, both (N, 1); target ``x_n + h v_n``.

        Returns
        -------
        self : Inertia
        """
        self.x_n = _validate.stacked(x_n, "x_n", size=self.size)
        self.x_prev = self.x_n - self.h * _validate.stacked(v_n, "v_n", size=self.size)
        self._target = 2.0 * self.x_n - self.x_prev       # as kinetic_*_be form it from (x_n, x_prev)
        return self

    def set_target(self, x_tilde):
        """Set the inertial target x_tilde (N, 1) directly (e.g. ``simkit.energies.bdf2_target``). Returns self."""
        self._target = _validate.stacked(x_tilde, "x_tilde", size=self.size)
        return self

    @property
    def target(self):
        """The inertial target x_tilde, (N, 1) (None before ``update`` or ``set_target``)."""
        return self._target

    def _state(self, x):
        if self._target is None:
            raise RuntimeError("Inertia has no state yet: call update(x_n, v_n) before evaluating it")
        return self._x(x)

    def energy(self, x):
        """Inertia energy, float."""
        return inertia_energy(self._state(x), self._target, self.M, self.coefficient, self.h)

    def gradient(self, x):
        """Gradient ``c M (x - x_tilde) / h^2``, (N, 1) float array."""
        return inertia_gradient(self._state(x), self._target, self.M, self.coefficient, self.h)

    def hessian(self, x):
        """Constant Hessian ``c M / h^2``, of M's matrix type."""
        self._state(x)
        return self._hessian
