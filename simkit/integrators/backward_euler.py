r"""Backward (implicit) Euler step as an energy minimization.

``x_{n+1} = argmin_x 1/(2 h^2) ||x - x_tilde||_M^2 + Phi(x)``, ``x_tilde = 2 x_n - x_{n-1}``,
whose optimality condition ``M (x_{n+1} - x_tilde) = -h^2 grad Phi(x_{n+1})`` is the scheme.
"""
from ..energies.kinetic import be_target
from ._implicit import implicit_step


def backward_euler(x_curr, x_prev, energy_func, gradient_func, hessian_func, M, h, tolerance=1e-6, max_iter=1,
                   do_line_search=True, return_info=False):
    r"""One Backward-Euler step, solved with Newton from the inertial target.

    :math:`x_{n+1} = \operatorname{argmin}_x \tfrac{1}{2h^2} \lVert x - \tilde{x} \rVert_M^2 + \Phi(x)`, :math:`\tilde{x} = 2 x_n - x_{n-1}`

    Parameters
    ----------
    x_curr, x_prev : (N, 1) float arrays
        Positions at steps n and n-1 (velocity ``(x_curr - x_prev) / h``).
    energy_func, gradient_func, hessian_func : callables
        The potential Phi only (no inertia): ``(N, 1) -> float``, ``(N, 1)``, ``(N, N)``.
    M : (N, N) sparse or dense float matrix
        Mass matrix: symmetric, positive diagonal.
    h : float
        Time step, > 0 (with h**2 a normal float).
    tolerance, max_iter, do_line_search, return_info
        Passed to ``newton_solver`` (same defaults).

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
    return implicit_step("backward_euler", {"x_curr": x_curr, "x_prev": x_prev}, be_target, 1.0,
                         {"energy_func": energy_func, "gradient_func": gradient_func, "hessian_func": hessian_func},
                         M, h, (tolerance, max_iter, do_line_search, return_info))
