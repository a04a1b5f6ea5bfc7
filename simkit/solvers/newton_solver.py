r"""Newton's method with Armijo backtracking line search.

Each iteration solves ``H dx = -g`` and moves ``x <- x + alpha dx`` where alpha starts at 1
and is halved until the sufficient-decrease (Armijo) condition
``E(x + alpha dx) <= E(x) + c alpha g^T dx`` holds, with ``c = 0.01``. It stops after
`max_iter` iterations or as soon as the step ``||alpha dx||`` is below `tolerance`.
Optionally a filter ``max_step(x, dx)`` caps alpha before backtracking (Li et al. 2020's
filtered line search for contact) and ``step_norm(dx)`` replaces the stopping measure.

Near a minimum the decrease ``c alpha g^T dx`` falls below the round-off of the energy itself
(a 1e10 penalty pin written as ``1/2 x^T Q x + b^T x`` sums terms of 1e9 J, so E is known to
about 1e-6 J while a Newton step there gains 1e-12 J). The energy test then fails on noise and
halving would shrink the step to nothing. So when the trial energy is within
``ROUNDOFF_ALLOWANCE * |E(x)|`` of E(x), the step is also accepted by the approximate Armijo
condition of Hager and Zhang (SIAM J. Optim. 16, 2005), which reads the decrease off the
gradient: ``grad E(x + alpha dx)^T dx <= (2c - 1) g^T dx`` (the trapezoidal rule for
``E(x + alpha dx) - E(x)``, exact for a quadratic, shows ``c alpha g^T dx`` of decrease). Its
gradient is reused by the next iteration. A rise within the allowance passes that test, and a
real one may too where the energy is far from quadratic over the step (a barrier, friction),
so the rises it accepts are summed over the solve and together may not exceed the allowance:
no iterate's energy exceeds an earlier one's by more, and Newton cannot cycle between two
iterates, one step down and the next back up (chapter 017's stack did, for 50 iterations).

A short step is not convergence when the line search made it short. Given a gradient of the
wrong sign, the search halves alpha until the energy's rise fits the allowance (alpha ~ 5e-7) and
the step then passes the step-size test. So a solve reports ``converged`` only when the step
offered to the line search (``dx``, or the filter's fraction of it) passes the test, not just the
step it kept: a step that backtracking shortened below the tolerance ends the solve unconverged.

Every value the three callables return is checked: a non-scalar or NaN energy, a gradient
of the wrong shape or with NaN/inf, a Hessian of the wrong shape or with NaN/inf raise an
error naming the callable and the iteration (an energy of ``+inf`` at a trial point of the
line search is allowed: that step is simply too long).
"""
import math
import warnings

import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

from .. import _validate
from .sparse_solve import sparse_solve

ARMIJO_CONSTANT = 0.01
MAX_HALVINGS = 60
# relative size of an energy change that may be round-off (Hager and Zhang's epsilon)
ROUNDOFF_ALLOWANCE = 1e-6


def _solve(H, rhs):
    """Solve ``H u = rhs`` for sparse, dense ndarray or numpy.matrix H; rhs (N, 1)."""
    N = rhs.shape[0]
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


class Objective:
    """The three callables of a minimization, their outputs checked (the error names the callable and the iteration)."""

    def __init__(self, energy_func, gradient_func, hessian_func, size):
        self.funcs = (energy_func, gradient_func, hessian_func)
        self.size = size
        self.iteration = 0

    def _where(self):
        return f"Newton iteration {self.iteration}"

    def energy(self, x):
        return _validate.returned_scalar(self.funcs[0](x), "energy_func", self._where())

    def gradient(self, x):
        return _validate.returned_column(self.funcs[1](x), "gradient_func", self._where(), self.size)

    def hessian(self, x):
        return _validate.returned_matrix(self.funcs[2](x), "hessian_func", self._where(), self.size)


def _armijo(objective, x, g, dx, alpha=1.0, risen=0.0):
    """Largest alpha in a0, a0/2, a0/4, ... (a0 = `alpha`) with sufficient decrease; 0 if none within MAX_HALVINGS.

    `risen` is the energy the solve's earlier steps already rose by under the approximate test;
    a step may rise only by what is left of the allowance. Returns (alpha, gradient at
    x + alpha dx or None when it was not needed, energy change E(x + alpha dx) - E(x)).
    """
    e0 = objective.energy(x)
    if not math.isfinite(e0):
        raise ValueError(f"energy_func: returned {e0} at the current iterate ({objective._where()}); "
                         "expected a finite energy")
    slope = (g.T @ dx).item()
    noise = ROUNDOFF_ALLOWANCE * abs(e0) - risen
    for _ in range(MAX_HALVINGS):
        trial = x + alpha * dx
        e = objective.energy(trial)
        if e <= e0 + ARMIJO_CONSTANT * alpha * slope:
            return alpha, None, e - e0
        if e <= e0 + noise:
            g_trial = objective.gradient(trial)
            if (g_trial.T @ dx).item() <= (2.0 * ARMIJO_CONSTANT - 1.0) * slope:
                return alpha, g_trial, e - e0
        alpha *= 0.5
    return 0.0, None, 0.0


def filtered_step(max_step, x, dx, where):
    """The step fraction the line-search filter allows, checked to lie in (0, 1]."""
    return _validate.step_fraction(max_step(x, dx), where)


def _measure(step_norm, dx, where):
    return _validate.returned_scalar(step_norm(dx), "step_norm", where)


def minimize(x0, objective, tolerance, max_iter, do_line_search, return_info, max_step=None, step_norm=None):
    """Newton iterations on a validated (N, 1) start and an ``Objective``; see ``newton_solver``."""
    x = x0.copy()
    info = {"iterations": 0, "converged": False, "step_norms": [], "alphas": [], "line_search_failed": False,
            "g": [], "dx": [], "iters": -1}
    g_next = None
    risen = 0.0     # the energy the approximate Armijo test let rise so far, at most the allowance in all
    for i in range(max_iter):
        objective.iteration = i + 1
        g = objective.gradient(x) if g_next is None else g_next
        dx = _solve(objective.hessian(x), -g)
        if do_line_search and (g.T @ dx).item() >= 0.0:
            dx = -g
        offered = 1.0 if max_step is None else filtered_step(max_step, x, dx, objective._where())
        alpha, g_next = offered, None
        if do_line_search:
            alpha, g_next, change = _armijo(objective, x, g, dx, offered, risen)
            risen += max(change, 0.0)
        with np.errstate(over="ignore", invalid="ignore"):
            step = alpha * dx
            x = x + step
        if not np.isfinite(x).all():
            raise FloatingPointError(f"newton_solver: Newton iteration {i + 1} produced a non-finite iterate "
                                     "(the step overflowed)")
        norm = float(np.linalg.norm(step))
        info["iterations"] = i + 1
        info["iters"] = i
        info["step_norms"].append(norm)
        info["alphas"].append(alpha)
        info["line_search_failed"] = alpha == 0.0
        if return_info:
            info["g"].append(g)
            info["dx"].append(dx)
        measure = norm if step_norm is None else _measure(step_norm, dx, objective._where())
        if measure < tolerance:
            # a step the line search had to shorten is small because the energy refused it, not because
            # x is at a minimum: converged only when the step offered (before backtracking) passes too
            full = measure if step_norm is not None or alpha == offered else float(np.linalg.norm(offered * dx))
            info["converged"] = alpha > 0.0 and full < tolerance
            break
    return x, info


def check_options(tolerance, max_iter, do_line_search, return_info):
    """Validate the solver options; return them converted."""
    return (_validate.positive_scalar(tolerance, "tolerance"), _validate.iteration_count(max_iter, "max_iter"),
            _validate.boolean(do_line_search, "do_line_search"), _validate.boolean(return_info, "return_info"))


def check_filters(max_step, step_norm):
    """TypeError unless each of max_step and step_norm is None or callable."""
    _validate.callables(**{name: f for name, f in (("max_step", max_step), ("step_norm", step_norm))
                           if f is not None})


def newton_solver(x0, energy_func, gradient_func, hessian_func, tolerance=1e-6, max_iter=1, do_line_search=True,
                  return_info=False, *, max_step=None, step_norm=None):
    r"""Minimize an energy with Newton's method from x0.

    :math:`x_{k+1} = x_k - \alpha_k H(x_k)^{-1} \nabla E(x_k)`, :math:`\alpha_k` the first of
    :math:`1, \tfrac12, \tfrac14, \ldots` with :math:`E(x_{k+1}) \le E(x_k) + 0.01\, \alpha_k \nabla E^\top \Delta x`

    Parameters
    ----------
    x0 : (N, 1) or (N,) float array
        Starting point.
    energy_func : callable
        ``energy_func(x) -> float`` for x of shape (N, 1) (a size-1 array is accepted). Only
        called when `do_line_search` is True.
    gradient_func : callable
        ``gradient_func(x) -> (N, 1)`` (or (N,)) float array.
    hessian_func : callable
        ``hessian_func(x) -> (N, N)``: scipy sparse, dense ndarray or numpy.matrix (e.g. a dense
        block plus a sparse mass matrix).
    tolerance : float, optional
        Stop when the step ``||alpha dx||`` is below it (default 1e-6), > 0.
    max_iter : int, optional
        Maximum number of Newton iterations (default 1: one step, as upstream simkit), >= 1.
    do_line_search : bool, optional
        Armijo backtracking (c = 0.01, halving from alpha = 1); if False take full steps. When
        an indefinite Hessian gives a Newton step that is not a descent direction, the line
        search uses the steepest-descent direction -g for that iteration instead, so the
        energy never increases.
    return_info : bool, optional
        Also return a dict. Upstream simkit's keys: ``g`` and ``dx`` (per iteration), ``alphas``,
        ``iters`` (index of the last iteration, from 0); and ``iterations`` (count),
        ``converged`` (the stopping test held for the step offered to the line search, before any
        backtracking), ``step_norms``, ``line_search_failed`` (no alpha >= 2^-60 decreased the
        energy; x is then left in place).
    max_step : callable, optional, keyword-only
        The line-search filter ``max_step(x, dx) -> float`` in (0, 1]: the largest safe fraction
        of the step dx from x (continuous collision detection times a safety factor, e.g. a
        contact term's ``max_step``). Backtracking starts from it instead of 1 (without the line
        search the step is that fraction), so no iterate leaves the region it keeps x in.
    step_norm : callable, optional, keyword-only
        ``step_norm(dx) -> float``: when given, stop when it is below `tolerance` for the Newton
        direction dx (before the line search scales it) instead of ``||alpha dx||``. With a
        filter a short step is not convergence: IPC stops on ``||dx||_inf / h``, i.e.
        ``step_norm=lambda dx: abs(dx).max() / h``.

    Returns
    -------
    x : float array of x0's shape
        The last iterate.
    info : dict
        Only when `return_info` is True.

    Raises
    ------
    TypeError, ValueError
        Bad arguments, or a callable returning a value of the wrong kind, shape, or a NaN /
        inf (the message names the callable and the Newton iteration).
    FloatingPointError
        A step overflowed to a non-finite iterate.

    Notes
    -----
    A singular Hessian raises ``numpy.linalg.LinAlgError``.
    """
    _validate.callables(energy_func=energy_func, gradient_func=gradient_func, hessian_func=hessian_func)
    check_filters(max_step, step_norm)
    shape = np.shape(x0)
    x = _validate.stacked(x0, "x0")
    options = check_options(tolerance, max_iter, do_line_search, return_info)
    x, info = minimize(x, Objective(energy_func, gradient_func, hessian_func, x.shape[0]), *options,
                       max_step=max_step, step_norm=step_norm)
    x = x.reshape(shape)
    return (x, info) if return_info else x
