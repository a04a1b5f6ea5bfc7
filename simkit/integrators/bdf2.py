r"""BDF2 step as an energy minimization.

``x_{n+1} = argmin_x 9/(8 h^2) ||x - x_tilde||_M^2 + Phi(x)`` with
``x_tilde = 4/3 x_n - 1/3 x_{n-1} + 2/9 h (4 v_n - v_{n-1})`` and BDF2 velocities of the
position history; the optimality condition is
``3 x_{n+1} - 4 x_n + x_{n-1} = 2 h v_{n+1}``, ``3 v_{n+1} - 4 v_n + v_{n-1} = -2 h M^{-1} grad Phi(x_{n+1})``.
"""
from .. import _validate
from ..energies.kinetic import BDF2_COEFFICIENT, bdf2_target
from ._implicit import implicit_step


def bdf2(x_curr, x_prev, x_prev2, x_prev3, energy_func, gradient_func, hessian_func=None, M=None, h=None,
         tolerance=1e-6, max_iter=1, do_line_search=True, return_info=False, *, max_step=None, step_norm=None):
    r"""One BDF2 step, solved with Newton from the inertial target.

    :math:`x_{n+1} = \operatorname{argmin}_x \tfrac{9}{8h^2} \lVert x - \tilde{x} \rVert_M^2 + \Phi(x)`, :math:`\tilde{x}` = ``bdf2_target``

    Called as upstream, or with a term as the potential,
    ``bdf2(x_curr, x_prev, x_prev2, x_prev3, potential, M, h, tolerance=..., ...)``, as
    ``backward_euler``.

    Parameters
    ----------
    x_curr, x_prev, x_prev2, x_prev3 : (N, 1) float arrays
        Positions at steps n, n-1, n-2, n-3 (repeat x_curr to start at rest).
    energy_func, gradient_func, hessian_func : callables
        The potential Phi only (no inertia); or a term in energy_func's place, then M and h.
    M : (N, N) sparse or dense float matrix
        Mass matrix: symmetric, positive diagonal.
    h : float
        Time step, > 0 (with h**2 a normal float).
    tolerance, max_iter, do_line_search, return_info
        Passed to ``newton_solver`` (same defaults).
    max_step, step_norm : callables, optional, keyword-only
        As ``backward_euler``.

    Returns
    -------
    x_next : (N, 1) float array
        Positions at step n+1 (``info`` is appended with `return_info`, as ``backward_euler``).

    Raises
    ------
    FloatingPointError
        The target or the step overflowed to a non-finite state.
    """
    x_curr = _validate.stacked(x_curr, "x_curr")
    N = x_curr.shape[0]
    history = (x_curr, _validate.stacked(x_prev, "x_prev", size=N), _validate.stacked(x_prev2, "x_prev2", size=N),
               _validate.stacked(x_prev3, "x_prev3", size=N))
    return implicit_step(bdf2, bdf2_target, BDF2_COEFFICIENT, history, (energy_func, gradient_func, hessian_func, M, h),
                         tolerance=tolerance, max_iter=max_iter, do_line_search=do_line_search,
                         return_info=return_info, max_step=max_step, step_norm=step_norm)
