"""Inertia terms of implicit time stepping, and the velocities of the position history.

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


def _mass(M, size):
    return _validate.square_matrix(M, "M", size)


def _scaled(M, c):
    """``c * M`` as CSC (sparse M) or a dense array."""
    return sps.csc_matrix(M * c) if sps.issparse(M) else np.asarray(M) * c


def velocity_be(x_curr, x_prev, h):
    """Backward-difference velocity.

    Parameters
    ----------
    x_curr, x_prev : (N, 1) float arrays
        Positions at steps n and n-1.
    h : float
        Time step, > 0.

    Returns
    -------
    v : (N, 1) float array
        ``(x_curr - x_prev) / h``.
    """
    x_curr, x_prev = _columns(("x_curr", "x_prev"), (x_curr, x_prev))
    h = _validate.positive_scalar(h, "h")
    return (x_curr - x_prev) / h


def _bdf2_velocity(x_curr, x_prev, x_prev2, h):
    return (3.0 * x_curr - 4.0 * x_prev + x_prev2) / (2.0 * h)


def velocity_bdf2(x_curr, x_prev, x_prev2, h):
    """Second-order backward-difference velocity.

    Parameters
    ----------
    x_curr, x_prev, x_prev2 : (N, 1) float arrays
        Positions at steps n, n-1 and n-2.
    h : float
        Time step, > 0.

    Returns
    -------
    v : (N, 1) float array
        ``(3 x_curr - 4 x_prev + x_prev2) / (2 h)``.
    """
    x_curr, x_prev, x_prev2 = _columns(("x_curr", "x_prev", "x_prev2"), (x_curr, x_prev, x_prev2))
    return _bdf2_velocity(x_curr, x_prev, x_prev2, _validate.positive_scalar(h, "h"))


def be_target(x_curr, x_prev, h):
    """Inertial target of a Backward-Euler step.

    Parameters
    ----------
    x_curr, x_prev : (N, 1) float arrays
        Positions at steps n and n-1.
    h : float
        Time step, > 0 (validated; the target does not depend on it).

    Returns
    -------
    x_tilde : (N, 1) float array
        ``2 x_curr - x_prev = x_curr + h v_n``.
    """
    x_curr, x_prev = _columns(("x_curr", "x_prev"), (x_curr, x_prev))
    _validate.positive_scalar(h, "h")
    return 2.0 * x_curr - x_prev


def bdf2_target(x_curr, x_prev, x_prev2, x_prev3, h):
    """Inertial target of a BDF2 step.

    Parameters
    ----------
    x_curr, x_prev, x_prev2, x_prev3 : (N, 1) float arrays
        Positions at steps n, n-1, n-2 and n-3.
    h : float
        Time step, > 0.

    Returns
    -------
    x_tilde : (N, 1) float array
        ``4/3 x_n - 1/3 x_{n-1} + 2/9 h (4 v_n - v_{n-1})``, with ``v_n = velocity_bdf2(x_n, x_{n-1},
        x_{n-2})`` and ``v_{n-1} = velocity_bdf2(x_{n-1}, x_{n-2}, x_{n-3})``.
    """
    x_n, x_1, x_2, x_3 = _columns(("x_curr", "x_prev", "x_prev2", "x_prev3"), (x_curr, x_prev, x_prev2, x_prev3))
    h = _validate.positive_scalar(h, "h")
    v_n = _bdf2_velocity(x_n, x_1, x_2, h)
    v_prev = _bdf2_velocity(x_1, x_2, x_3, h)
    return 4.0 / 3.0 * x_n - 1.0 / 3.0 * x_1 + 2.0 / 9.0 * h * (4.0 * v_n - v_prev)


def _be_args(x, x_curr, x_prev, M, h):
    x, x_curr, x_prev = _columns(("x", "x_curr", "x_prev"), (x, x_curr, x_prev))
    h = _validate.positive_scalar(h, "h")
    return x, 2.0 * x_curr - x_prev, _mass(M, x.shape[0]), h


def _bdf2_args(x, x_curr, x_prev, x_prev2, x_prev3, M, h):
    x, x_curr, x_prev, x_prev2, x_prev3 = _columns(("x", "x_curr", "x_prev", "x_prev2", "x_prev3"),
                                                   (x, x_curr, x_prev, x_prev2, x_prev3))
    return x, bdf2_target(x_curr, x_prev, x_prev2, x_prev3, h), _mass(M, x.shape[0]), float(h)


def _inertia_energy(x, x_tilde, M, c, h):
    r = x - x_tilde
    return float(0.5 * c / h**2 * (r.T @ np.asarray(M @ r)).item())


def _inertia_gradient(x, x_tilde, M, c, h):
    return c / h**2 * np.asarray(M @ (x - x_tilde))


def kinetic_energy_be(x, x_curr, x_prev, M, h):
    """Backward-Euler inertia energy.

    Parameters
    ----------
    x : (N, 1) float array
        Candidate next positions.
    x_curr, x_prev : (N, 1) float arrays
        Positions at steps n and n-1.
    M : (N, N) sparse or dense float matrix
        Mass matrix.
    h : float
        Time step, > 0.

    Returns
    -------
    energy : float
        ``1/(2 h^2) (x - x_tilde)^T M (x - x_tilde)``, ``x_tilde = be_target(x_curr, x_prev, h)``.
    """
    x, x_tilde, M, h = _be_args(x, x_curr, x_prev, M, h)
    return _inertia_energy(x, x_tilde, M, 1.0, h)


def kinetic_gradient_be(x, x_curr, x_prev, M, h):
    """Gradient of ``kinetic_energy_be``.

    Parameters
    ----------
    x, x_curr, x_prev : (N, 1) float arrays
        Candidate, current and previous positions.
    M : (N, N) sparse or dense float matrix
        Mass matrix.
    h : float
        Time step, > 0.

    Returns
    -------
    g : (N, 1) float array
        ``M (x - x_tilde) / h^2``.
    """
    x, x_tilde, M, h = _be_args(x, x_curr, x_prev, M, h)
    return _inertia_gradient(x, x_tilde, M, 1.0, h)


def kinetic_hessian_be(M, h):
    """Hessian of ``kinetic_energy_be``.

    Parameters
    ----------
    M : (N, N) sparse or dense float matrix
        Mass matrix.
    h : float
        Time step, > 0.

    Returns
    -------
    H : (N, N) scipy.sparse.csc_matrix (dense array if M is dense)
        ``M / h^2``.
    """
    h = _validate.positive_scalar(h, "h")
    return _scaled(_mass(M, np.shape(M)[0]), 1.0 / h**2)


def kinetic_energy_bdf2(x, x_curr, x_prev, x_prev2, x_prev3, M, h):
    """BDF2 inertia energy.

    Parameters
    ----------
    x : (N, 1) float array
        Candidate next positions.
    x_curr, x_prev, x_prev2, x_prev3 : (N, 1) float arrays
        Positions at steps n, n-1, n-2 and n-3.
    M : (N, N) sparse or dense float matrix
        Mass matrix.
    h : float
        Time step, > 0.

    Returns
    -------
    energy : float
        ``9/(8 h^2) (x - x_tilde)^T M (x - x_tilde)``, ``x_tilde = bdf2_target(...)``.
    """
    x, x_tilde, M, h = _bdf2_args(x, x_curr, x_prev, x_prev2, x_prev3, M, h)
    return _inertia_energy(x, x_tilde, M, BDF2_COEFFICIENT, h)


def kinetic_gradient_bdf2(x, x_curr, x_prev, x_prev2, x_prev3, M, h):
    """Gradient of ``kinetic_energy_bdf2``.

    Parameters
    ----------
    x, x_curr, x_prev, x_prev2, x_prev3 : (N, 1) float arrays
        Candidate positions and the position history.
    M : (N, N) sparse or dense float matrix
        Mass matrix.
    h : float
        Time step, > 0.

    Returns
    -------
    g : (N, 1) float array
        ``9/4 M (x - x_tilde) / h^2``.
    """
    x, x_tilde, M, h = _bdf2_args(x, x_curr, x_prev, x_prev2, x_prev3, M, h)
    return _inertia_gradient(x, x_tilde, M, BDF2_COEFFICIENT, h)


def kinetic_hessian_bdf2(M, h):
    """Hessian of ``kinetic_energy_bdf2``.

    Parameters
    ----------
    M : (N, N) sparse or dense float matrix
        Mass matrix.
    h : float
        Time step, > 0.

    Returns
    -------
    H : (N, N) scipy.sparse.csc_matrix (dense array if M is dense)
        ``9/4 M / h^2``.
    """
    h = _validate.positive_scalar(h, "h")
    return _scaled(_mass(M, np.shape(M)[0]), BDF2_COEFFICIENT / h**2)
