"""Shared driver of the implicit integrators: Newton on potential + inertia from the target."""
from .. import _validate
from ..solvers.newton_solver import newton_solver


def check_arguments(energy, gradient, hessian, tolerance, max_iter):
    """Validate what the Newton solve will use, before anything is computed."""
    _validate.callables(energy=energy, gradient=gradient, hessian=hessian)
    _validate.positive_scalar(tolerance, "tolerance")
    _validate.iteration_count(max_iter, "max_iter")


def minimize_step(x_tilde, energy, gradient, hessian, inertia, tolerance, max_iter, do_line_search):
    """Newton from x_tilde on ``energy + inertia``; `inertia` = (energy, gradient, hessian matrix)."""
    e_in, g_in, H_in = inertia
    return newton_solver(x_tilde, lambda y: energy(y) + e_in(y), lambda y: gradient(y) + g_in(y),
                         lambda y: hessian(y) + H_in, tolerance=tolerance, max_iter=max_iter,
                         do_line_search=do_line_search)
