r"""Hinge bending energy: 2D polylines (vertex triples) and 3D triangle pairs (quads).

Density per hinge, in its signed hinge angle theta (``simkit.dihedral_angles``)::

    psi(theta) = 1/2 * kappa * (theta - theta0)^2

``theta - theta0`` is wrapped into [-pi, pi) (``simkit._hinge_angle.angle_difference``), so a
hinge whose angle crosses the branch cut of atan2 keeps a continuous energy. The total is
``E(x) = sum_h psi(theta_h(x))``.

Folded past pi: a hinge whose angle moves more than pi away from its rest angle is measured
the short way round, so its energy peaks at ``1/2 kappa pi^2`` (``|theta - theta0| = pi``) and
falls again beyond: the hinge then unfolds towards its rest angle from the other side, as if
it had turned the other way (the gradient changes sign at pi, where it is discontinuous).
A hinge folded flat onto itself sits at that maximum.

Hessian
-------
Exact, per hinge: ``kappa grad(theta) grad(theta)^T + kappa (theta - theta0) hess(theta)``
(closed forms in ``simkit._hinge_angle``), assembled from the independent entries of each
symmetric block (``simkit._hinge_hessian``). A positive semi-definite replacement of each
hinge block (6x6 in 2D, 12x12 in 3D), eigenvalue floor 1e-6, is chosen with ``psd``:

- ``psd="exact"``: ``simkit.psd_project`` of the exact block, in closed form in 2D, with a
  batched eigensolver on the translation-free 9x9 block in 3D (the 3D block's eigenvalues
  have no closed form; see ``simkit._hinge_hessian``);
- ``psd="gauss-newton"``: ``psd_project`` of the Gauss-Newton term ``kappa g g^T`` alone,
  ``1e-6 I + max(kappa |g|^2 - 1e-6, 0) g g^T / |g|^2``, in closed form. The curvature term
  ``kappa (theta - theta0) hess(theta)`` it drops is indefinite (four negative eigenvalues
  whenever theta != theta0), so the exact projection keeps only part of it anyway;
- ``psd=True``: the default of the dimension, ``DEFAULT_PROJECTION``, chosen by measured
  Newton iterations and time per converged step (``benchmarks/bench_step.py``, table in
  ``benchmarks/README.md``): Gauss-Newton in both. On a 3D cloth step it needs fewer
  iterations than the exact projection, and on chapter 014's 2D beam 13 instead of 38
  (N = 21) and of more than 120 (N = 129, where the exact projection stalls 1.5e-4 off).

Degenerate hinge (a collapsed edge or flap)
-------------------------------------------
A hinge counts as degenerate when a flap's altitude over the hinge edge is below 1e-8 times
the edge's length (3D), or an edge is shorter than 1e-8 times the triple's size (2D)
(``simkit._hinge_angle.SLIVER_TOLERANCE``: a relative test, so that a sliver is caught
before its derivatives, of order 1/altitude^2, have lost their digits). The angle is then
(nearly) undefined: theta keeps atan2's value (0 for a zero-length 2D edge) in the energy,
and the hinge contributes zero gradient and a zero Hessian block (``1e-6 I`` when projected,
as ``psd_project`` of a zero block): a clamp, not an error.
"""
import numpy as np

from .. import _assembly, _validate
from .._hinge_hessian import PROJECTIONS, upper_blocks
from . import _bending_kernels as _bk

# what psd=True means, per dimension (see the module docstring)
DEFAULT_PROJECTION = {2: "gauss-newton", 3: "gauss-newton"}


def _element_args(theta, theta0, kappa):
    theta = _validate.finite(np.asarray(theta, dtype=float).reshape(-1), "theta")
    c = theta.size
    return theta, _validate.element_values(theta0, "theta0", c), _validate.element_param(kappa, "kappa", c)


def bending_energy_element_theta(theta, theta0, kappa):
    """Per-hinge bending energy.

    Parameters
    ----------
    theta : (c, 1) or (c,) float array
        Current hinge angles.
    theta0 : (c, 1) or (c,) float array
        Rest hinge angles (a scalar is broadcast).
    kappa : (c, 1) or (c,) float array
        Bending stiffness, >= 0 (a scalar is broadcast).

    Returns
    -------
    psi : (c, 1) float array
        ``1/2 kappa wrap(theta - theta0)^2``.
    """
    return _bk.psi(*_element_args(theta, theta0, kappa)).reshape(-1, 1)


def bending_gradient_element_theta(theta, theta0, kappa):
    """Per-hinge derivative of the bending energy with respect to theta.

    Parameters
    ----------
    theta, theta0 : (c, 1) or (c,) float arrays
        Current and rest hinge angles.
    kappa : (c, 1) or (c,) float array
        Bending stiffness, >= 0.

    Returns
    -------
    dpsi : (c, 1) float array
        ``kappa wrap(theta - theta0)``.
    """
    return _bk.dpsi(*_element_args(theta, theta0, kappa)).reshape(-1, 1)


def bending_hessian_element_theta(theta, theta0, kappa):
    """Per-hinge second derivative of the bending energy with respect to theta.

    Parameters
    ----------
    theta, theta0 : (c, 1) or (c,) float arrays
        Current and rest hinge angles (the density is quadratic in theta).
    kappa : (c, 1) or (c,) float array
        Bending stiffness, >= 0.

    Returns
    -------
    d2psi : (c, 1) float array
        ``kappa``.
    """
    return _element_args(theta, theta0, kappa)[2].reshape(-1, 1)


def _args(x, C, theta0, kappa):
    """Validate; return (C (c, q), positions Xt (dim, n), theta0 (c,), kappa (c,), N = len(x))."""
    C_arr = np.asarray(C)
    q = C_arr.shape[1] if C_arr.ndim == 2 else 0
    if q not in (3, 4):
        raise ValueError(f"C: expected hinge triples (c, 3) in 2D or quads (c, 4) in 3D, got shape {C_arr.shape}")
    X = _validate.node_positions(x, q - 1, "x", dims=(q - 1,))
    n, dim = X.shape
    C = _validate.index_array(C, "C", q, n)
    c = C.shape[0]
    theta0 = _validate.element_values(theta0, "theta0", c, what="hinge")
    kappa = _validate.element_param(kappa, "kappa", c, what="hinge")
    return C, np.ascontiguousarray(X.T), theta0, kappa, n * dim


def bending_energy_x(x, C, theta0, kappa):
    r"""Total bending energy; 2D (C triples) or 3D (C quads), inferred from C.

    Parameters
    ----------
    x : (n*dim, 1) float array
        Stacked positions, node-major (dim = 2 for triples, 3 for quads); (n, dim)
        positions are accepted too, as upstream simkit.
    C : (c, 3) or (c, 4) int array
        Hinges, as for ``simkit.dihedral_angles``.
    theta0 : (c, 1) or (c,) float array
        Rest angles.
    kappa : (c, 1) or (c,) float array
        Bending stiffness of each hinge, >= 0.

    Returns
    -------
    energy : float
        :math:`E = \sum_h \tfrac12 \kappa_h (\theta_h - \theta_{0,h})^2`.
    """
    C, Xt, theta0, kappa, _ = _args(x, C, theta0, kappa)
    return _bk.energy(Xt, C, theta0, kappa)


def bending_gradient_x(x, C, theta0, kappa):
    r"""Gradient of ``bending_energy_x``.

    Parameters
    ----------
    x : (n*dim, 1) float array
        Stacked positions.
    C : (c, 3) or (c, 4) int array
        Hinges.
    theta0, kappa : (c, 1) or (c,) float arrays
        Rest angles and stiffness.

    Returns
    -------
    g : (n*dim, 1) float array
        :math:`\nabla E = \sum_h \kappa_h (\theta_h - \theta_{0,h}) \nabla\theta_h`.
    """
    C, Xt, theta0, kappa, N = _args(x, C, theta0, kappa)
    return _assembly.vector_scatter(C, Xt.shape[0], N).vector(_bk.gradient_values(Xt, C, theta0, kappa))


def bending_hessian_x(x, C, theta0, kappa, *, psd=False):
    r"""Hessian of ``bending_energy_x``.

    Parameters
    ----------
    x : (n*dim, 1) float array
        Stacked positions.
    C : (c, 3) or (c, 4) int array
        Hinges.
    theta0, kappa : (c, 1) or (c,) float arrays
        Rest angles and stiffness.
    psd : bool or {"exact", "gauss-newton"}, keyword-only, optional
        False (default): the exact Hessian. Otherwise every hinge block is replaced by a
        positive semi-definite one (eigenvalues >= 1e-6): "exact" is ``simkit.psd_project`` of
        the exact block, "gauss-newton" that of ``kappa g g^T``, True the measured default of
        the dimension, ``DEFAULT_PROJECTION`` (Gauss-Newton in 2D and 3D).

    Returns
    -------
    H : (n*dim, n*dim) scipy.sparse.csc_matrix
        The exact Hessian

        .. math:: H = \sum_h \kappa_h \left(\nabla\theta_h \nabla\theta_h^T
                  + (\theta_h - \theta_{0,h}) \nabla^2\theta_h\right),

        or its projection (``psd``).
    """
    C, Xt, theta0, kappa, N = _args(x, C, theta0, kappa)
    psd = projection(psd, Xt.shape[0])
    return _assembly.symmetric_pattern(C, Xt.shape[0], N).matrix(upper_blocks(Xt, C, theta0, kappa, psd))


def projection(psd, dim):
    """The validated ``psd`` argument of the hinge Hessians: False, "exact" or "gauss-newton"."""
    if isinstance(psd, str):
        return _validate.choice(psd, "psd", PROJECTIONS)
    if not isinstance(psd, (bool, np.bool_)):
        raise TypeError(f"psd: expected True, False, 'exact' or 'gauss-newton', got {type(psd).__name__} {psd!r}")
    return DEFAULT_PROJECTION[dim] if psd else False
