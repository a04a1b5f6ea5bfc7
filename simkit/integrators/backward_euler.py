r"""Backward (implicit) Euler step as an energy minimization.

``x_{n+1} = argmin_x 1/(2 h^2) ||x - x_tilde||_M^2 + Phi(x)``, ``x_tilde = 2 x_n - x_{n-1}``,
whose optimality condition ``M (x_{n+1} - x_tilde) = -h^2 grad Phi(x_{n+1})`` is the scheme.
"""
from .. import _validate
from ..energies.kinetic import be_target
from ._implicit import implicit_step


def backward_euler(x_curr, x_prev, energy_func, gradient_func, hessian_func=None, M=None, h=None, tolerance=1e-6,
                   max_iter=1, do_line_search=True, return_info=False, *, max_step=None, step_norm=None):
    r"""One Backward-Euler step, solved with Newton from the inertial target.

    :math:`x_{n+1} = \operatorname{argmin}_x \tfrac{1}{2h^2} \lVert x - \tilde{x} \rVert_M^2 + \Phi(x)`, :math:`\tilde{x} = 2 x_n - x_{n-1}`

    Called as upstream, ``backward_euler(x_curr, x_prev, energy_func, gradient_func, hessian_func,
    M, h, ...)``, or with a term (``simkit.terms``) as the potential,
    ``backward_euler(x_curr, x_prev, potential, M, h, tolerance=..., ...)``: the options are then
    keyword arguments and the term's ``max_step`` filters the line search.

    Parameters
    ----------
    x_curr, x_prev : (N, 1) float arrays
        Positions at steps n and n-1 (velocity ``(x_curr - x_prev) / h``).
    energy_func, gradient_func, hessian_func : callables
        The potential Phi only (no inertia): ``(N, 1) -> float``, ``(N, 1)``, ``(N, N)``. Or a
        term in energy_func's place, then M and h in the next two places.
    M : (N, N) sparse or dense float matrix
        Mass matrix: symmetric, positive diagonal.
    h : float
        Time step, > 0 (with h**2 a normal float).
    tolerance, max_iter, do_line_search, return_info
        Passed to ``newton_solver`` (same defaults).
    max_step, step_norm : callables, optional, keyword-only
        Passed to ``newton_solver``: the line-search filter ``max_step(x, dx)`` (e.g. a contact
        term's CCD; with a term as the potential, its own ``max_step`` is used and this must be
        None) and the stopping measure ``step_norm(dx)``. With a filter Newton starts from the
        farthest point from x_curr towards x_tilde that the filter allows (x_tilde may
        interpenetrate), so x_curr must be free of interpenetration.

    Returns
    -------
    x_next : (N, 1) float array
        The minimizer, to the Newton tolerance.
    info : dict
        Newton's info, only when `return_info` is True.

    Raises
    ------
    FloatingPointError
        The step produced a non-finite state.
    """
    x_curr = _validate.stacked(x_curr, "x_curr")
    x_prev = _validate.stacked(x_prev, "x_prev", size=x_curr.shape[0])
    return implicit_step(backward_euler, be_target, 1.0, (x_curr, x_prev),
                         (energy_func, gradient_func, hessian_func, M, h), tolerance=tolerance, max_iter=max_iter,
                         do_line_search=do_line_search, return_info=return_info, max_step=max_step,
                         step_norm=step_norm)
