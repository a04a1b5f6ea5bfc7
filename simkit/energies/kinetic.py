r"""Inertia terms of implicit time stepping, and the velocities of the position history.

Backward Euler (BE), with ``x_tilde = 2 x_n - x_{n-1}`` (= ``x_n + h v_n``)::

    E_BE(x) = 1/(2 h^2) ||x - x_tilde||_M^2

BDF2, with ``v_n`` and ``v_{n-1}`` from ``velocity_bdf2`` of the position history and
``x_tilde = 4/3 x_n - 1/3 x_{n-1} + 2/9 h (4 v_n - v_{n-1})``::

    E_BDF2(x) = 9/(8 h^2) ||x - x_tilde||_M^2        (coefficient 9/4 on M / h^2 in the Hessian)

Minimizing ``E(x) + Phi(x)`` gives ``M (x - x_tilde) = -c h^2 grad Phi(x)`` with c = 1 (BE) or
4/9 (BDF2), i.e. exactly one step of the scheme.
"""
import numpy as np
import scipy.sparse as sps

from .. import _validate

BDF2_COEFFICIENT = 9.0 / 4.0


def _columns(names, values):
    first = _validate.stacked(values[0], names[0])
    return [first] + [_validate.stacked(v, n, size=first.shape[0]) for n, v in zip(names[1:], values[1:])]


def _mass(M, size=None):
    """A validated mass matrix (square, finite, symmetric, positive diagonal)."""
    return _validate.mass_matrix(M, "M", size)[0]


def inertia_hessian(M, c, h):
    """``c / h^2 * M`` for a validated M, of M's own type (sparse format, ndarray or numpy.matrix)."""
    if not sps.issparse(M):
        M = np.asanyarray(M, dtype=float)
    return M * (c / h**2)


def velocity_be(x_curr, x_prev, h):
    r"""Backward-difference velocity.

    :math:`v = (x_n - x_{n-1}) / h`

    Parameters
    ----------
    x_curr, x_prev : (N, 1) float arrays
        Positions at steps n and n-1.
    h : float
        Time step, > 0 (with h**2 a normal float).

    Returns
    -------
    v : (N, 1) float array
    """
    x_curr, x_prev = _columns(("x_curr", "x_prev"), (x_curr, x_prev))
    h = _validate.time_step(h)
    return (x_curr - x_prev) / h


def _bdf2_velocity(x_curr, x_prev, x_prev2, h):
    return (3.0 * x_curr - 4.0 * x_prev + x_prev2) / (2.0 * h)


def velocity_bdf2(x_curr, x_prev, x_prev2, h):
    r"""Second-order backward-difference velocity.

    :math:`v = (3 x_n - 4 x_{n-1} + x_{n-2}) / (2h)`

    Parameters
    ----------
    x_curr, x_prev, x_prev2 : (N, 1) float arrays
        Positions at steps n, n-1 and n-2.
    h : float
        Time step, > 0 (with h**2 a normal float).

    Returns
    -------
    v : (N, 1) float array
    """
    x_curr, x_prev, x_prev2 = _columns(("x_curr", "x_prev", "x_prev2"), (x_curr, x_prev, x_prev2))
    return _bdf2_velocity(x_curr, x_prev, x_prev2, _validate.time_step(h))


def be_target(x_curr, x_prev, h):
    r"""Inertial target of a Backward-Euler step.

    :math:`\tilde{x} = x_n + h v_n = 2 x_n - x_{n-1}`

    Parameters
    ----------
    x_curr, x_prev : (N, 1) float arrays
        Positions at steps n and n-1.
    h : float
        Time step, > 0 (validated; the target does not depend on it).

    Returns
    -------
    x_tilde : (N, 1) float array
        Computed as ``2 x_curr - x_prev``.
    """
    x_curr, x_prev = _columns(("x_curr", "x_prev"), (x_curr, x_prev))
    _validate.time_step(h)
    return 2.0 * x_curr - x_prev


def bdf2_target(x_curr, x_prev, x_prev2, x_prev3, h):
    r"""Inertial target of a BDF2 step.

    :math:`\tilde{x} = \tfrac{4}{3} x_n - \tfrac{1}{3} x_{n-1} + \tfrac{2}{9} h (4 v_n - v_{n-1})`, BDF2 velocities

    Parameters
    ----------
    x_curr, x_prev, x_prev2, x_prev3 : (N, 1) float arrays
        Positions at steps n, n-1, n-2 and n-3.
    h : float
        Time step, > 0 (with h**2 a normal float).

    Returns
    -------
    x_tilde : (N, 1) float array
        ``4/3 x_n - 1/3 x_{n-1} + 2/9 h (4 v_n - v_{n-1})``, with ``v_n = velocity_bdf2(x_n, x_{n-1},
        x_{n-2})`` and ``v_{n-1} = velocity_bdf2(x_{n-1}, x_{n-2}, x_{n-3})``.
    """
    x_n, x_1, x_2, x_3 = _columns(("x_curr", "x_prev", "x_prev2", "x_prev3"), (x_curr, x_prev, x_prev2, x_prev3))
    h = _validate.time_step(h)
    v_n = _bdf2_velocity(x_n, x_1, x_2, h)
    v_prev = _bdf2_velocity(x_1, x_2, x_3, h)
    return 4.0 / 3.0 * x_n - 1.0 / 3.0 * x_1 + 2.0 / 9.0 * h * (4.0 * v_n - v_prev)


def _be_args(x, x_curr, x_prev, M, h):
    x, x_curr, x_prev = _columns(("x", "x_curr", "x_prev"), (x, x_curr, x_prev))
    h = _validate.time_step(h)
    return x, 2.0 * x_curr - x_prev, _mass(M, x.shape[0]), h


def _bdf2_args(x, x_curr, x_prev, x_prev2, x_prev3, M, h):
    x, x_curr, x_prev, x_prev2, x_prev3 = _columns(("x", "x_curr", "x_prev", "x_prev2", "x_prev3"),
                                                   (x, x_curr, x_prev, x_prev2, x_prev3))
    return x, bdf2_target(x_curr, x_prev, x_prev2, x_prev3, h), _mass(M, x.shape[0]), float(h)


def inertia_energy(x, x_tilde, M, c, h):
    """``c / (2 h^2) (x - x_tilde)^T M (x - x_tilde)`` for validated arguments."""
    r = x - x_tilde
    return float(0.5 * c / h**2 * (r.T @ np.asarray(M @ r)).item())


def inertia_gradient(x, x_tilde, M, c, h):
    """``c / h^2 M (x - x_tilde)`` for validated arguments."""
    return c / h**2 * np.asarray(M @ (x - x_tilde))


def kinetic_energy_be(x, x_curr, x_prev, M, h):
    r"""Backward-Euler inertia energy.

    :math:`E = \tfrac{1}{2h^2} (x - \tilde{x})^\top M (x - \tilde{x})`, :math:`\tilde{x}` = ``be_target(x_curr, x_prev, h)``

    Parameters
    ----------
    x : (N, 1) float array
        Candidate next positions.
    x_curr, x_prev : (N, 1) float arrays
        Positions at steps n and n-1.
    M : (N, N) sparse or dense float matrix
        Mass matrix: symmetric, positive diagonal.
    h : float
        Time step, > 0 (with h**2 a normal float).

    Returns
    -------
    energy : float
    """
    x, x_tilde, M, h = _be_args(x, x_curr, x_prev, M, h)
    return inertia_energy(x, x_tilde, M, 1.0, h)


def kinetic_gradient_be(x, x_curr, x_prev, M, h):
    r"""Gradient of ``kinetic_energy_be``.

    :math:`\nabla E = M (x - \tilde{x}) / h^2`

    Parameters
    ----------
    x, x_curr, x_prev : (N, 1) float arrays
        Candidate, current and previous positions.
    M : (N, N) sparse or dense float matrix
        Mass matrix: symmetric, positive diagonal.
    h : float
        Time step, > 0 (with h**2 a normal float).

    Returns
    -------
    g : (N, 1) float array
    """
    x, x_tilde, M, h = _be_args(x, x_curr, x_prev, M, h)
    return inertia_gradient(x, x_tilde, M, 1.0, h)


def kinetic_hessian_be(M, h):
    r"""Hessian of ``kinetic_energy_be``: M scaled, of M's own type (as upstream simkit).

    :math:`\nabla^2 E = M / h^2`

    Parameters
    ----------
    M : (N, N) sparse or dense float matrix
        Mass matrix: symmetric, positive diagonal.
    h : float
        Time step, > 0 (with h**2 a normal float).

    Returns
    -------
    H : (N, N) matrix
        Same sparse format as M (a dense array for a dense M).
    """
    h = _validate.time_step(h)
    _mass(M)
    return inertia_hessian(M, 1.0, h)


def kinetic_energy_bdf2(x, x_curr, x_prev, x_prev2, x_prev3, M, h):
    r"""BDF2 inertia energy.

    :math:`E = \tfrac{9}{8h^2} (x - \tilde{x})^\top M (x - \tilde{x})`, :math:`\tilde{x}` = ``bdf2_target(...)``

    Parameters
    ----------
    x : (N, 1) float array
        Candidate next positions.
    x_curr, x_prev, x_prev2, x_prev3 : (N, 1) float arrays
        Positions at steps n, n-1, n-2 and n-3.
    M : (N, N) sparse or dense float matrix
        Mass matrix: symmetric, positive diagonal.
    h : float
        Time step, > 0 (with h**2 a normal float).

    Returns
    -------
    energy : float
    """
    x, x_tilde, M, h = _bdf2_args(x, x_curr, x_prev, x_prev2, x_prev3, M, h)
    return inertia_energy(x, x_tilde, M, BDF2_COEFFICIENT, h)


def kinetic_gradient_bdf2(x, x_curr, x_prev, x_prev2, x_prev3, M, h):
    r"""Gradient of ``kinetic_energy_bdf2``.

    :math:`\nabla E = \tfrac{9}{4} M (x - \tilde{x}) / h^2`

    Parameters
    ----------
    x, x_curr, x_prev, x_prev2, x_prev3 : (N, 1) float arrays
        Candidate positions and the position history.
    M : (N, N) sparse or dense float matrix
        Mass matrix: symmetric, positive diagonal.
    h : float
        Time step, > 0 (with h**2 a normal float).

    Returns
    -------
    g : (N, 1) float array
    """
    x, x_tilde, M, h = _bdf2_args(x, x_curr, x_prev, x_prev2, x_prev3, M, h)
    return inertia_gradient(x, x_tilde, M, BDF2_COEFFICIENT, h)


def kinetic_hessian_bdf2(M, h):
    r"""Hessian of ``kinetic_energy_bdf2``: M scaled, of M's own type (as upstream simkit).

    :math:`\nabla^2 E = \tfrac{9}{4} M / h^2`

    Parameters
    ----------
    M : (N, N) sparse or dense float matrix
        Mass matrix: symmetric, positive diagonal.
    h : float
        Time step, > 0 (with h**2 a normal float).

    Returns
    -------
    H : (N, N) matrix
        Same sparse format as M (a dense array for a dense M).
    """
    h = _validate.time_step(h)
    _mass(M)
    return inertia_hessian(M, BDF2_COEFFICIENT, h)
