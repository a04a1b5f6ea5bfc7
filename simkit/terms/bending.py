r"""Hinge bending: the term of beams (2D vertex triples) and shells or cloth (3D triangle pairs).

Density per hinge, in its signed angle theta (``simkit.dihedral_angles``)::

    psi = 1/2 * kappa * (theta - theta0)^2

as ``simkit.energies.bending_*_x``: energy and gradient (the calls a line search repeats) run
their kernels on hinges checked once; the Hessian is ``bending_hessian_x`` itself, the one place
that says what ``psd=True`` projects (its checks cost a small part of one Hessian).
"""
import numpy as np

from .. import _assembly, _validate
from ..energies import _bending_kernels as _bk
from ..energies.bending import bending_hessian_x
from .base import Term


class Bending(Term):
    r"""Hinge bending energy over triples (2D) or quads (3D), on simkit's ``bending_*_x``.

    :math:`\Psi(x) = \sum_h \tfrac12 \kappa_h (\theta_h(x) - \theta_{0,h})^2`

    The size of x is read from each call (any number of nodes covering the hinges); the
    gradient's assembly pattern is kept per size.

    Parameters
    ----------
    C : (c, 3) or (c, 4) int array
        Hinges: vertex triples ``(prev, mid, next)`` of a 2D polyline, or 3D quads
        ``(e0, e1, o0, o1)`` (the shared edge, then each triangle's apex), as for
        ``simkit.dihedral_angles``.
    theta0 : (c, 1) or (c,) float array, or a scalar
        Rest angles.
    kappa : (c, 1) or (c,) float array, or a scalar
        Bending stiffness of each hinge, >= 0.
    psd : bool or str, default True, keyword-only
        The Hessian's ``psd`` of ``bending_hessian_x``: True its default projection (what
        Newton needs), False the exact Hessian.
    """

    def __init__(self, C, theta0, kappa, *, psd=True):
        shape = np.shape(C)
        if len(shape) != 2 or shape[1] not in (3, 4):
            raise ValueError(f"C: expected hinge triples (c, 3) in 2D or quads (c, 4) in 3D, got shape {shape}")
        self.C = _validate.index_array(C, "C", shape[1], np.iinfo(np.int64).max)
        self.dim = shape[1] - 1
        c = self.C.shape[0]
        self.theta0 = _validate.element_values(theta0, "theta0", c, what="hinge")
        self.kappa = _validate.element_param(kappa, "kappa", c, what="hinge")
        if not isinstance(psd, (bool, np.bool_, str)):
            raise TypeError(f"psd: expected True, False or the name of a projection, got {type(psd).__name__}")
        self.psd = psd
        self._nodes = int(self.C.max()) + 1 if c else 0
        self._scatters = {}

    def _geometry(self, x):
        """Positions transposed (dim, n), and the gradient's assembly pattern for their size."""
        X = _validate.node_positions(x, self.dim, "x", dims=(self.dim,))
        n = X.shape[0]
        if n < self._nodes:
            raise ValueError(f"x: the hinges C reach node {self._nodes - 1}, but x holds {n} nodes")
        N = n * self.dim
        if N not in self._scatters:
            self._scatters[N] = _assembly.vector_scatter(self.C, self.dim, N)
        return np.ascontiguousarray(X.T), self._scatters[N]

    def energy(self, x):
        """Total bending energy, float."""
        Xt, _ = self._geometry(x)
        return _bk.energy(Xt, self.C, self.theta0, self.kappa)

    def gradient(self, x):
        """Gradient, (N, 1) float array."""
        Xt, scatter = self._geometry(x)
        return scatter.vector(_bk.gradient_values(Xt, self.C, self.theta0, self.kappa))

    def hessian(self, x):
        """Hessian (projected per hinge when ``psd``), (N, N) sparse matrix."""
        return bending_hessian_x(x, self.C, self.theta0, self.kappa, psd=self.psd)
