r"""Constant forces (gravity): the potential ``-f^T x``, linear in x."""
import scipy.sparse as sps

from .. import _validate
from .base import Term


class Gravity(Term):
    r"""Work of constant forces, with gradient ``-f_g`` and a zero Hessian.

    :math:`\Psi(x) = -f_g^\top x`

    Parameters
    ----------
    f_g : (N, 1) or (n, dim) float array
        Force on every degree of freedom (e.g. ``simkit.gravity_force``), node-major.
    """

    def __init__(self, f_g):
        self.f_g = _validate.finite_array(f_g, "f_g").reshape(-1, 1)
        if self.f_g.shape[0] == 0:
            raise ValueError("f_g: expected at least one degree of freedom, got an empty array")
        self.size = self.f_g.shape[0]
        self._zero = sps.csc_matrix((self.size, self.size))

    def energy(self, x):
        """Potential of the forces, float."""
        return -float((self.f_g.T @ self._x(x)).item())

    def gradient(self, x):
        """Gradient ``-f_g``, (N, 1) float array."""
        self._x(x)
        return -self.f_g

    def hessian(self, x):
        """Zero Hessian, (N, N) sparse matrix (the same empty matrix every call)."""
        self._x(x)
        return self._zero
