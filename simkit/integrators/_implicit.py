"""Shared driver of the implicit integrators: Newton on potential + inertia from the inertial target."""
import numpy as np

from .. import _validate
from ..energies.kinetic import inertia_energy, inertia_gradient, inertia_hessian
from ..solvers.newton_solver import Objective, check_filters, check_options, filtered_step, minimize


def implicit_step(integrator, target, coefficient, history, energy_func, gradient_func, hessian_func, M, h, *,
                  tolerance, max_iter, do_line_search, return_info, max_step=None, step_norm=None):
    """Validate everything, then minimize ``Phi(x) + c/(2 h^2) ||x - x_tilde||_M^2`` with Newton.

    Parameters
    ----------
    integrator : callable
        The public integrator calling (its ``__name__`` starts the error messages).
    target : callable
        ``target(*history, h)`` -> the inertial target x_tilde.
    coefficient : float
        c: 1 for Backward Euler, 9/4 for BDF2.
    history : tuple of (N, 1) float arrays
        The validated position history, newest first (x_curr, x_prev, ...).
    energy_func, gradient_func, hessian_func : callables
        The potential Phi.
    M, h : mass matrix and time step.
    tolerance, max_iter, do_line_search, return_info, max_step, step_norm
        As ``newton_solver``. With a filter `max_step`, Newton starts from
        ``x_curr + max_step(x_curr, x_tilde - x_curr) (x_tilde - x_curr)``, the farthest point
        towards x_tilde that the filter allows (x_tilde itself when nothing is in the way),
        since x_tilde may interpenetrate; else from x_tilde.
    """
    name = integrator.__name__
    _validate.callables(energy_func=energy_func, gradient_func=gradient_func, hessian_func=hessian_func)
    check_filters(max_step, step_norm)
    options = check_options(tolerance, max_iter, do_line_search, return_info)
    x_curr = history[0]
    h = _validate.time_step(h)
    M = _validate.mass_matrix(M, "M", x_curr.shape[0])[0]
    with np.errstate(over="ignore", invalid="ignore"):
        x_tilde = target(*history, h)
    if not np.isfinite(x_tilde).all():
        raise FloatingPointError(f"{name}: the inertial target of the position history overflowed "
                                 "(non-finite x_tilde); the state has diverged")
    inertia = (lambda y: inertia_energy(y, x_tilde, M, coefficient, h),
               lambda y: inertia_gradient(y, x_tilde, M, coefficient, h),
               inertia_hessian(M, coefficient, h))
    objective = Objective(energy_func, gradient_func, hessian_func, x_curr.shape[0], extra=inertia)
    x0 = x_tilde
    if max_step is not None:
        toward = x_tilde - x_curr
        x0 = x_curr + filtered_step(max_step, x_curr, toward, f"the start of {name}'s step") * toward
    try:
        x, info = minimize(x0, objective, *options, max_step=max_step, step_norm=step_norm)
    except FloatingPointError as err:
        raise FloatingPointError(f"{name}: the step produced a non-finite state ({err})") from None
    return (x, info) if return_info else x

