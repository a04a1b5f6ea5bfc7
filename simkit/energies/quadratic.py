"""Quadratic energy ``1/2 x^T Q x + b^T x`` (soft pins, linear springs, any fixed quadratic form).

Density: ``E(x) = 1/2 x^T Q x + b^T x``, gradient ``Q x + b``, Hessian ``Q`` (Q symmetric).
"""
import numpy as np
import scipy.sparse as sps

from .. import _validate


def _args(x, Q, b):
    x = _validate.stacked(x, "x")
    Q = _validate.square_matrix(Q, "Q", x.shape[0])
    b = _validate.stacked(b, "b", size=x.shape[0])
    return x, Q, b


def quadratic_energy(x, Q, b):
    """Value of the quadratic form.

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
        ``1/2 x^T Q x + b^T x``.
    """
    x, Q, b = _args(x, Q, b)
    return float(0.5 * (x.T @ np.asarray(Q @ x)).item() + (b.T @ x).item())


def quadratic_gradient(x, Q, b):
    """Gradient of the quadratic form.

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
        ``Q x + b``.
    """
    x, Q, b = _args(x, Q, b)
    return np.asarray(Q @ x) + b


def quadratic_hessian(Q):
    """Hessian of the quadratic form.

    Parameters
    ----------
    Q : (N, N) sparse or dense float matrix
        Symmetric.

    Returns
    -------
    H : (N, N) scipy.sparse.csc_matrix
        ``Q`` (a CSC copy).
    """
    if not sps.issparse(Q):
        Q = np.asarray(Q, dtype=float)
    if Q.ndim != 2 or Q.shape[0] != Q.shape[1]:
        raise ValueError(f"Q: expected a square matrix of shape (N, N), got {Q.shape}")
    return sps.csc_matrix(_validate.square_matrix(Q, "Q", Q.shape[0]), copy=True)
