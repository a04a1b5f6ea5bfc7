"""Explicit (forward) Euler step with a lumped mass matrix.

``x_{n+1} = x_n + h v_n``, ``v_{n+1} = v_n - h M^{-1} grad Phi(x_n)``.
"""
import numpy as np
import scipy.sparse as sps

from .. import _validate


def _lumped_mass_diagonal(M, size):
    """Diagonal of a lumped (diagonal, positive) mass matrix; ValueError otherwise."""
    M = _validate.square_matrix(M, "M", size)
    if sps.issparse(M):
        diag = M.diagonal()
        off = abs(sps.csr_matrix(M) - sps.diags(diag)).max()
    else:
        diag = np.diag(M).copy()
        off = np.abs(M - np.diag(diag)).max(initial=0.0)
    if off > 0:
        raise ValueError("M: expected a lumped (diagonal) mass matrix, found off-diagonal entries")
    if not (diag > 0).all():
        raise ValueError(f"M: expected positive diagonal masses, found min {diag.min():g}")
    return diag.reshape(-1, 1)


def forward_euler(x, v, gradient_func, M, h):
    """One explicit Euler step.

    Parameters
    ----------
    x : (N, 1) float array
        Positions at step n.
    v : (N, 1) float array
        Velocities at step n.
    gradient_func : callable
        ``gradient_func(x) -> (N, 1)``, the gradient of the potential (minus the force).
    M : (N, N) sparse or dense float matrix
        Lumped (diagonal, positive) mass matrix.
    h : float
        Time step, > 0.

    Returns
    -------
    x_next : (N, 1) float array
        ``x + h v``.
    v_next : (N, 1) float array
        ``v - h M^{-1} gradient_func(x)``.
    """
    x = _validate.stacked(x, "x")
    v = _validate.stacked(v, "v", size=x.shape[0])
    _validate.callables(gradient_func=gradient_func)
    m = _lumped_mass_diagonal(M, x.shape[0])
    h = _validate.positive_scalar(h, "h")
    g = np.asarray(gradient_func(x), dtype=float).reshape(-1, 1)
    if g.shape != x.shape:
        raise ValueError(f"gradient_func: expected an ({x.shape[0]}, 1) array, got shape {g.shape}")
    return x + h * v, v - h * g / m
