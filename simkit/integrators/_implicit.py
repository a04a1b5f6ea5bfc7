"""Shared driver of the implicit integrators: Newton on potential + inertia from the inertial target."""
import numpy as np

from .. import _validate
from ..energies.kinetic import inertia_energy, inertia_gradient, inertia_hessian
from ..solvers.newton_solver import Objective, check_options, minimize


def implicit_step(scheme, history, x_tilde_func, coefficient, callables, M, h, options):
    """Validate everything, then minimize ``Phi(x) + c/(2 h^2) ||x - x_tilde||_M^2`` with Newton from x_tilde.

    Parameters
    ----------
    scheme : str
        The integrator's name, for error messages.
    history : dict
        Name -> position column (x_curr, x_prev, ...), validated here to equal sizes.
    x_tilde_func : callable
        ``x_tilde_func(*history columns, h)`` -> the inertial target.
    coefficient : float
        c: 1 for Backward Euler, 9/4 for BDF2.
    callables : dict
        ``energy_func``, ``gradient_func``, ``hessian_func`` of the potential Phi.
    M, h, options
        Mass matrix, time step and (tolerance, max_iter, do_line_search, return_info).
    """
    _validate.callables(**callables)
    options = check_options(*options)
    names = list(history)
    first = _validate.stacked(history[names[0]], names[0])
    columns = [first] + [_validate.stacked(history[n], n, size=first.shape[0]) for n in names[1:]]
    h = _validate.time_step(h)
    M = _validate.mass_matrix(M, "M", first.shape[0])[0]
    with np.errstate(over="ignore", invalid="ignore"):
        x_tilde = x_tilde_func(*columns, h)
    if not np.isfinite(x_tilde).all():
        raise FloatingPointError(f"{scheme}: the inertial target of the position history overflowed "
                                 "(non-finite x_tilde); the state has diverged")
    inertia = (lambda y: inertia_energy(y, x_tilde, M, coefficient, h),
               lambda y: inertia_gradient(y, x_tilde, M, coefficient, h),
               inertia_hessian(M, coefficient, h))
    objective = Objective(callables["energy_func"], callables["gradient_func"], callables["hessian_func"],
                          first.shape[0], extra=inertia)
    try:
        x, info = minimize(x_tilde, objective, *options)
    except FloatingPointError as err:
        raise FloatingPointError(f"{scheme}: the step produced a non-finite state ({err})") from None
    return (x, info) if options[3] else x
