r"""Hinge bending: the term of beams (2D vertex triples) and shells or cloth (3D triangle pairs).

Density per hinge, in its signed angle theta (``simkit.dihedral_angles``)::

    psi = 1/2 * kappa * (theta - theta0)^2

as ``simkit.energies.bending_*_x``, whose kernels it calls with the hinges checked once.
"""
import numpy as np

from .. import _assembly, _validate
from .._hinge_angle import chunks, hinges
from .._hinge_hessian import upper_blocks
from ..energies.bending import _dpsi, _psi
from .base import Term


class Bending(Term):
    r"""Hinge bending energy over triples (2D) or quads (3D), on simkit's ``bending_*_x``.

    :math:`\Psi(x) = \sum_h \tfrac12 \kappa_h (\theta_h(x) - \theta_{0,h})^2`

    The size of x is read from each call (any number of nodes covering the hinges); the
    assembly patterns are kept per size.

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
    psd : bool, default True, keyword-only
        Hessian: the projected one of ``bending_hessian_x(..., psd=True)`` (what Newton needs),
        or the exact one.
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
        self.psd = _validate.boolean(psd, "psd")
        self._nodes = int(self.C.max()) + 1 if c else 0
        self._patterns = {}

    def _geometry(self, x):
        """Positions transposed (dim, n), and the (vector, matrix) assembly patterns of their size."""
        X = _validate.node_positions(x, self.dim, "x", dims=(self.dim,))
        n = X.shape[0]
        if n < self._nodes:
            raise ValueError(f"x: the hinges C reach node {self._nodes - 1}, but x holds {n} nodes")
        N = n * self.dim
        if N not in self._patterns:
            self._patterns[N] = (_assembly.vector_scatter(self.C, self.dim, N),
                                 _assembly.symmetric_pattern(self.C, self.dim, N))
        return np.ascontiguousarray(X.T), self._patterns[N]

    def energy(self, x):
        """Total bending energy, float."""
        Xt, _ = self._geometry(x)
        C, theta0, kappa = self.C, self.theta0, self.kappa
        return float(sum(_psi(hinges(Xt, C[sl]).theta, theta0[sl], kappa[sl]).sum() for sl in chunks(C.shape[0])))

    def gradient(self, x):
        """Gradient, (N, 1) float array."""
        Xt, (scatter, _) = self._geometry(x)
        C = self.C
        g = np.empty((Xt.shape[0] * C.shape[1], C.shape[0]))
        for sl in chunks(C.shape[0]):
            h = hinges(Xt, C[sl])
            g[:, sl] = h.gradient(_dpsi(h.theta, self.theta0[sl], self.kappa[sl]))
        return scatter.vector(g)

    def hessian(self, x):
        """Hessian (projected per hinge when ``psd``), (N, N) sparse matrix."""
        Xt, (_, pattern) = self._geometry(x)
        return pattern.matrix(upper_blocks(Xt, self.C, self.theta0, self.kappa, self.psd))
