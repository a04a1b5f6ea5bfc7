"""BDF2 step as an energy minimization.

``x_{n+1} = argmin_x 9/(8 h^2) ||x - x_tilde||_M^2 + Phi(x)`` with
``x_tilde = 4/3 x_n - 1/3 x_{n-1} + 2/9 h (4 v_n - v_{n-1})`` and BDF2 velocities of the
position history; the optimality condition is
``3 x_{n+1} - 4 x_n + x_{n-1} = 2 h v_{n+1}``, ``3 v_{n+1} - 4 v_n + v_{n-1} = -2 h M^{-1} grad Phi(x_{n+1})``.
"""
from .. import _validate
from ..energies.kinetic import bdf2_target, kinetic_energy_bdf2, kinetic_gradient_bdf2, kinetic_hessian_bdf2
from ._implicit import check_arguments, minimize_step


def bdf2(x_curr, x_prev, x_prev2, x_prev3, energy, gradient, hessian, M, h, tolerance=1e-6, max_iter=1,
         do_line_search=True):
    """One BDF2 step, solved with Newton from the inertial target.

    Parameters
    ----------
    x_curr, x_prev, x_prev2, x_prev3 : (N, 1) float arrays
        Positions at steps n, n-1, n-2, n-3 (repeat x_curr to start at rest).
    energy, gradient, hessian : callables
        The potential Phi only (no inertia).
    M : (N, N) sparse or dense float matrix
        Mass matrix.
    h : float
        Time step, > 0.
    tolerance, max_iter, do_line_search
        Passed to ``newton_solver``.

    Returns
    -------
    x_next : (N, 1) float array
        ``argmin_x 9/(8 h^2) ||x - x_tilde||_M^2 + Phi(x)`` (to the Newton tolerance).
    """
    check_arguments(energy, gradient, hessian, tolerance, max_iter)
    x_tilde = bdf2_target(x_curr, x_prev, x_prev2, x_prev3, h)
    history = [_validate.stacked(a, n) for a, n in ((x_curr, "x_curr"), (x_prev, "x_prev"),
                                                     (x_prev2, "x_prev2"), (x_prev3, "x_prev3"))]
    M = _validate.square_matrix(M, "M", x_tilde.shape[0])
    H_in = kinetic_hessian_bdf2(M, h)
    inertia = (lambda y: kinetic_energy_bdf2(y, *history, M, h),
               lambda y: kinetic_gradient_bdf2(y, *history, M, h), H_in)
    return minimize_step(x_tilde, energy, gradient, hessian, inertia, tolerance, max_iter, do_line_search)
