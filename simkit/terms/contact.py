r"""Contact energy terms on stacked positions: barrier contact against half-spaces, and friction.

Each term is a ``simkit.terms.Term`` of stacked ``x`` (N = n*dim, node-major):
``energy(x) -> float``, ``gradient(x) -> (N, 1)``, ``hessian(x) -> (N, N)`` sparse, and the
contact terms' line-search filter ``max_step(x, dx) -> float`` in (0, 1] (continuous collision
detection times a safety factor), which ``Sum.max_step``, the integrators given a term and
``simkit.integrators.simulate`` use by themselves (``newton_solver`` takes it as ``max_step=``).
Contact between meshes (segments in 2D, triangles and edges in 3D) is ``simkit.terms.MeshContact``;
``Friction`` carries the friction of either, lagging its normal forces in ``update(x_n)``, which
the time loop calls at the start of each step. The arguments are validated once, in the
constructor; the methods call the unchecked kernels of ``simkit.energies.contact_barrier`` and
``simkit.ccd`` (a configuration that interpenetrates still raises ``ValueError`` naming the
vertices, from the gradient, the Hessian and ``max_step``; its energy is ``+inf``). Each term
states its ``size`` N, so ``simkit.terms.Sum`` can check that its terms agree.
"""
import numpy as np

from .. import _assembly, _validate, ccd
from ..energies import contact_barrier as cb
from ..energies import friction as fr
from .base import Term


class HalfSpaceContact(Term):
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
        self.points, self.normals = cb._half_spaces(points, normals)
        if self.points.shape[1] != self.dim:
            raise ValueError(f"points: expected {self.dim}D half-spaces, got shape {self.points.shape}")
        self.d_hat, self.kappa, self.weight, self.vertices = cb._contact_parameters(d_hat, kappa, weight, self.n,
                                                                                   vertices)
        self.safety = ccd._check_safety(safety)
        self.size = self.n * self.dim
        self._pattern = _assembly.element_pattern(self.vertices[:, None], self.dim, self.size)

    def _args(self, x):
        return (np.reshape(x, (self.n, self.dim)), self.points, self.normals, self.d_hat, self.kappa, self.weight,
                self.vertices)

    def distances(self, x):
        """(nv, k) signed distance of each listed vertex to each half-space."""
        return cb._distances(np.reshape(x, (self.n, self.dim)), self.points, self.normals, self.vertices)

    def energy(self, x):
        """Barrier energy (``+inf`` if a vertex is on or behind a boundary)."""
        return cb._energy(*self._args(x))

    def gradient(self, x):
        """(N, 1) gradient; minus it is the contact force on each vertex."""
        return cb._gradient(*self._args(x))

    def hessian(self, x):
        """(N, N) CSC Hessian: exact, block diagonal and positive semi-definite."""
        return self._pattern.matrix(cb._hessian_blocks(*self._args(x)))

    def max_step(self, x, dx):
        """Largest fraction in (0, 1] of the step dx from x that keeps every distance positive, times safety."""
        X = np.reshape(x, (self.n, self.dim))
        t = ccd._half_space_impact(X, np.reshape(dx, X.shape), self.points, self.normals, self.vertices)
        return ccd._step_fraction(t, self.safety)

    def friction_frame(self, x_start):
        """The lagged ``FrictionFrame`` (normal forces, tangents) of the contacts active at x_start."""
        return cb._friction_frame(*self._args(x_start))


class Friction(Term):
    r"""IPC's smoothed Coulomb friction of a contact term, lagged at the start of each step.

    :math:`D(x) = \sum_k \mu \lambda_k f_0(\lVert u_k \rVert)`, :math:`u_k = T_k^\top \sum_a c_{ka} (x_a - x_a^n)`, :math:`f_0` = ``stick_slip_friction_interpolant``

    Call ``update(x_n)`` at the start of every step: it freezes the normal forces
    :math:`\lambda_k`, tangent bases :math:`T_k` and coefficients of the contacts active at
    :math:`x_n` (one update per step; calling it again with a step's solution and re-solving
    iterates the lagging towards fully implicit friction).

    Parameters
    ----------
    contact : HalfSpaceContact or MeshContact
        The contact term whose contacts carry friction (any term with ``friction_frame(x_start)``).
    mu : float
        Friction coefficient, >= 0.
    epsilon_v : float
        Smoothing speed, > 0: a "sticking" contact creeps below it.
    h : float
        Time step, > 0 (the step's displacement threshold is ``epsilon_v h``).
    """

    def __init__(self, contact, mu, epsilon_v, h):
        if not hasattr(contact, "friction_frame"):
            raise TypeError(f"contact: expected a contact term with friction_frame(x_start), got "
                            f"{type(contact).__name__}")
        self.contact, self.size = contact, getattr(contact, "size", None)
        self.mu = fr._friction_coefficient(mu)
        self.threshold = fr._threshold(epsilon_v, h)
        self.frame = None

    def update(self, x_n):
        """Lag the normal forces and tangent bases from x_n, the start of the step. Returns self."""
        self.frame = self.contact.friction_frame(x_n)
        self._pattern = _assembly.dof_pattern(self.frame.dofs, self.frame.x_start.size)
        return self

    def _args(self, x):
        if self.frame is None:
            raise RuntimeError("Friction: call update(x_n) at the start of the step before evaluating it")
        return np.reshape(x, self.frame.x_start.shape), self.frame, self.mu, self.threshold

    def energy(self, x):
        """The friction potential of the step to x."""
        return fr._energy(*self._args(x))

    def gradient(self, x):
        """(N, 1) gradient; minus it is the friction force."""
        return fr._gradient(*self._args(x))

    def hessian(self, x):
        """(N, N) CSC Hessian, exact and positive semi-definite."""
        return self._pattern.matrix(fr._hessian_blocks(*self._args(x)))

