"""Backward (implicit) Euler step as an energy minimization.

``x_{n+1} = argmin_x 1/(2 h^2) ||x - x_tilde||_M^2 + Phi(x)``, ``x_tilde = 2 x_n - x_{n-1}``,
whose optimality condition ``M (x_{n+1} - x_tilde) = -h^2 grad Phi(x_{n+1})`` is the scheme.
"""
from .. import _validate
from ..energies.kinetic import be_target, kinetic_energy_be, kinetic_gradient_be, kinetic_hessian_be
from ._implicit import check_arguments, minimize_step


def backward_euler(x_curr, x_prev, energy, gradient, hessian, M, h, tolerance=1e-6, max_iter=1,
                   do_line_search=True):
    """One Backward-Euler step, solved with Newton from the inertial target.

    Parameters
    ----------
    x_curr, x_prev : (N, 1) float arrays
        Positions at steps n and n-1 (velocity ``(x_curr - x_prev) / h``).
    energy, gradient, hessian : callables
        The potential Phi only (no inertia): ``(N, 1) -> float``, ``(N, 1)``, ``(N, N)``.
    M : (N, N) sparse or dense float matrix
        Mass matrix.
    h : float
        Time step, > 0.
    tolerance, max_iter, do_line_search
        Passed to ``newton_solver``.

    Returns
    -------
    x_next : (N, 1) float array
        ``argmin_x 1/(2 h^2) ||x - x_tilde||_M^2 + Phi(x)`` (to the Newton tolerance).
    """
    check_arguments(energy, gradient, hessian, tolerance, max_iter)
    x_tilde = be_target(x_curr, x_prev, h)
    x_curr = _validate.stacked(x_curr, "x_curr")
    x_prev = _validate.stacked(x_prev, "x_prev")
    M = _validate.square_matrix(M, "M", x_tilde.shape[0])
    H_in = kinetic_hessian_be(M, h)
    inertia = (lambda y: kinetic_energy_be(y, x_curr, x_prev, M, h),
               lambda y: kinetic_gradient_be(y, x_curr, x_prev, M, h), H_in)
    return minimize_step(x_tilde, energy, gradient, hessian, inertia, tolerance, max_iter, do_line_search)
