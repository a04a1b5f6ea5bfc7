"""Newton's method with Armijo backtracking line search.

Each iteration solves ``H dx = -g`` and moves ``x <- x + alpha dx`` where alpha starts at 1
and is halved until the sufficient-decrease (Armijo) condition
``E(x + alpha dx) <= E(x) + c alpha g^T dx`` holds, with ``c = 0.01``. It stops after
`max_iter` iterations or as soon as the step ``||alpha dx||`` is below `tolerance`.
"""
import warnings

import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

from .. import _validate
from .sparse_solve import sparse_solve

ARMIJO_CONSTANT = 0.01
MAX_HALVINGS = 60


def _solve(H, rhs):
    """Solve ``H u = rhs`` for sparse, dense ndarray or numpy.matrix H; rhs (N, 1)."""
    N = rhs.shape[0]
    if np.shape(H) != (N, N):
        raise ValueError(f"hessian: expected the callable to return an ({N}, {N}) matrix, got shape {np.shape(H)}")
    with warnings.catch_warnings():
        warnings.simplefilter("error", spla.MatrixRankWarning)
        try:
            if sps.issparse(H):
                u = sparse_solve(H, rhs[:, 0])
            else:
                u = np.linalg.solve(np.asarray(H, dtype=float), rhs[:, 0])
        except (spla.MatrixRankWarning, RuntimeError, np.linalg.LinAlgError) as err:
            raise np.linalg.LinAlgError(f"newton_solver: the Hessian is singular ({err})") from None
    u = np.asarray(u, dtype=float).reshape(N, 1)
    if not np.isfinite(u).all():
        raise np.linalg.LinAlgError("newton_solver: the Newton step is not finite (singular or ill-posed Hessian)")
    return u


def _armijo(energy, x, g, dx):
    """Largest alpha in 1, 1/2, 1/4, ... with sufficient decrease; 0 if none within MAX_HALVINGS."""
    e0 = float(energy(x))
    slope = (g.T @ dx).item()
    alpha = 1.0
    for _ in range(MAX_HALVINGS):
        if float(energy(x + alpha * dx)) <= e0 + ARMIJO_CONSTANT * alpha * slope:
            return alpha
        alpha *= 0.5
    return 0.0


def newton_solver(x0, energy, gradient, hessian, tolerance=1e-6, max_iter=1, do_line_search=True,
                  return_info=False):
    """Minimize ``energy`` with Newton's method from x0.

    Parameters
    ----------
    x0 : (N, 1) or (N,) float array
        Starting point.
    energy : callable
        ``energy(x) -> float`` for x of shape (N, 1).
    gradient : callable
        ``gradient(x) -> (N, 1)`` (or (N,)) float array.
    hessian : callable
        ``hessian(x) -> (N, N)``: scipy sparse, dense ndarray or numpy.matrix (e.g. a dense
        block plus a sparse mass matrix).
    tolerance : float, optional
        Stop when the step ``||alpha dx||`` is below it (default 1e-6), > 0.
    max_iter : int, optional
        Maximum number of Newton iterations (default 1), >= 1.
    do_line_search : bool, optional
        Armijo backtracking (c = 0.01, halving from alpha = 1); if False take full steps. When
        an indefinite Hessian gives a Newton step that is not a descent direction, the line
        search uses the steepest-descent direction -g for that iteration instead, so the
        energy never increases.
    return_info : bool, optional
        Also return a dict: ``iterations``, ``converged``, ``step_norms``, ``alphas``,
        ``line_search_failed`` (no alpha >= 2^-60 decreased the energy; x is then left in place).

    Returns
    -------
    x : float array of x0's shape
        The last iterate, ``x_{k+1} = x_k - alpha_k H(x_k)^{-1} grad E(x_k)``.
    info : dict
        Only when `return_info` is True.
    """
    _validate.callables(energy=energy, gradient=gradient, hessian=hessian)
    shape = np.shape(x0)
    x = _validate.stacked(x0, "x0").copy()
    tolerance = _validate.positive_scalar(tolerance, "tolerance")
    max_iter = _validate.iteration_count(max_iter, "max_iter")
    info = {"iterations": 0, "converged": False, "step_norms": [], "alphas": [], "line_search_failed": False}
    for _ in range(max_iter):
        g = np.asarray(gradient(x), dtype=float).reshape(-1, 1)
        if g.shape != x.shape or not np.isfinite(g).all():
            raise ValueError(f"gradient: expected a finite ({x.shape[0]}, 1) array, got shape {g.shape}")
        dx = _solve(hessian(x), -g)
        if do_line_search and (g.T @ dx).item() >= 0.0:
            dx = -g
        alpha = _armijo(energy, x, g, dx) if do_line_search else 1.0
        step = alpha * dx
        x = x + step
        norm = float(np.linalg.norm(step))
        info["iterations"] += 1
        info["step_norms"].append(norm)
        info["alphas"].append(alpha)
        info["line_search_failed"] = alpha == 0.0
        if norm < tolerance:
            info["converged"] = alpha > 0.0
            break
    x = x.reshape(shape)
    return (x, info) if return_info else x
