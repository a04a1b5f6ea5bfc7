r"""Quadratic energy ``1/2 x^T Q x + b^T x`` (soft pins, linear springs, any fixed quadratic form).

Density: ``E(x) = 1/2 x^T Q x + b^T x``, gradient ``Q x + b``, Hessian ``Q`` (Q symmetric).
"""
import numpy as np

from .. import _validate


def _args(x, Q, b):
    x = _validate.stacked(x, "x")
    Q = _validate.square_matrix(Q, "Q", x.shape[0])
    b = _validate.stacked(b, "b", size=x.shape[0])
    return x, Q, b


def quadratic_energy(x, Q, b):
    r"""Value of the quadratic form.

    :math:`E(x) = \tfrac{1}{2} x^\top Q x + b^\top x`

    Parameters
    ----------
    x : (N, 1) float array
        Stacked positions.
    Q : (N, N) sparse or dense float matrix
        Symmetric.
    b : (N, 1) float array
        Linear term.

    Returns
    -------
    energy : float
    """
    x, Q, b = _args(x, Q, b)
    return float(0.5 * (x.T @ np.asarray(Q @ x)).item() + (b.T @ x).item())


def quadratic_gradient(x, Q, b):
    r"""Gradient of the quadratic form.

    :math:`\nabla E(x) = Q x + b`

    Parameters
    ----------
    x : (N, 1) float array
        Stacked positions.
    Q : (N, N) sparse or dense float matrix
        Symmetric.
    b : (N, 1) float array
        Linear term.

    Returns
    -------
    g : (N, 1) float array
    """
    x, Q, b = _args(x, Q, b)
    return np.asarray(Q @ x) + b


def quadratic_hessian(Q):
    r"""Hessian of the quadratic form: Q itself, of the type it was given (as upstream simkit).

    :math:`\nabla^2 E = Q`

    Parameters
    ----------
    Q : (N, N) sparse or dense float matrix
        Symmetric.

    Returns
    -------
    H : (N, N) matrix
        The same object as `Q` (validated: square, finite), so a CSC matrix stays CSC and a
        dense array stays dense; copy it before changing it in place.
    """
    _validate.square_matrix(Q, "Q")
    return Q
