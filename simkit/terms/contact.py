r"""Contact energy terms on stacked positions: barrier contact with its line-search filter.

Each term has ``energy(x) -> float``, ``gradient(x) -> (N, 1)`` and ``hessian(x) -> (N, N)``
sparse for stacked ``x`` (N = n*dim, node-major), and ``max_step(x, dx) -> float`` in (0, 1]
(continuous collision detection times a safety factor) to pass to
``newton_solver``/``backward_euler`` as ``max_step=``. The arguments are validated once, in the
constructor; the methods call the unchecked kernels of ``simkit.energies.contact_barrier`` and
``simkit.ccd`` (a configuration that interpenetrates still raises ``ValueError`` naming the
vertices, from the gradient, the Hessian and ``max_step``; its energy is ``+inf``).
"""
import numpy as np

from .. import _validate, ccd
from .._assembly import element_pattern
from ..energies import contact_barrier as cb


class HalfSpaceContact:
    r"""Barrier contact of vertices against half-spaces (ground, walls), 2D or 3D.

    :math:`E(x) = \kappa \sum_i \sum_j w_i\, b\big((x_i - p_j) \cdot n_j\big)`, :math:`b(d) = -(d - \hat d)^2 \ln(d / \hat d)` on :math:`(0, \hat d)`

    Parameters
    ----------
    n, dim : int
        Number of vertices and dimension (2 or 3) of the stacked positions.
    points, normals : (dim,) or (k, dim) float arrays
        A boundary point and the unit outward normal of each half-space.
    d_hat : float
        Activation distance, > 0.
    kappa : float
        Barrier stiffness, > 0.
    weight : float or (n,) float array, optional
        Per-vertex weight > 0 (lumped area or mass; default 1).
    vertices : (nv,) int array, optional, keyword-only
        Distinct indices of the vertices that can touch (default all).
    safety : float, optional, keyword-only
        Fraction in (0, 1) of the time of impact that ``max_step`` allows (default 0.9).
    """

    def __init__(self, n, dim, points, normals, d_hat, kappa, weight=1.0, *, vertices=None, safety=ccd.SAFETY):
        self.n = _validate.integer(n, "n", low=1)
        self.dim = _validate.integer(dim, "dim")
        if self.dim not in (2, 3):
            raise ValueError(f"dim: expected 2 or 3, got {self.dim}")
        self.points, self.normals = cb.half_spaces(points, normals)
        if self.points.shape[1] != self.dim:
            raise ValueError(f"points: expected {self.dim}D half-spaces, got shape {self.points.shape}")
        self.d_hat, self.kappa, self.weight, self.vertices = cb.contact_parameters(d_hat, kappa, weight, self.n,
                                                                                   vertices)
        self.safety = ccd.check_safety(safety)
        self._pattern = element_pattern(self.vertices[:, None], self.dim, self.n * self.dim)

    def _args(self, x):
        return (np.reshape(x, (self.n, self.dim)), self.points, self.normals, self.d_hat, self.kappa, self.weight,
                self.vertices)

    def distances(self, x):
        """(nv, k) signed distance of each listed vertex to each half-space."""
        return cb.distances(np.reshape(x, (self.n, self.dim)), self.points, self.normals, self.vertices)

    def energy(self, x):
        """Barrier energy (``+inf`` if a vertex is on or behind a boundary)."""
        return cb.energy_kernel(*self._args(x))

    def gradient(self, x):
        """(N, 1) gradient; minus it is the contact force on each vertex."""
        return cb.gradient_kernel(*self._args(x))

    def hessian(self, x):
        """(N, N) CSC Hessian: exact, block diagonal and positive semi-definite."""
        return self._pattern.matrix(cb.hessian_blocks(*self._args(x)))

    def max_step(self, x, dx):
        """Largest fraction in (0, 1] of the step dx from x that keeps every distance positive, times safety."""
        X = np.reshape(x, (self.n, self.dim))
        t = ccd.half_space_impact_kernel(X, np.reshape(dx, X.shape), self.points, self.normals, self.vertices)
        return ccd.step_fraction(t, self.safety)
