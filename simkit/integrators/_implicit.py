"""Shared driver of the implicit integrators: Newton on potential + inertia from the inertial target.

The potential is a term (``simkit.terms``), or upstream's three callables wrapped as one; the
inertia is ``simkit.terms.Inertia``; their ``Sum`` is minimized by the public ``newton_solver``,
with the potential's ``max_step`` as the line-search filter.
"""
import numpy as np

from .. import _validate
from ..solvers import newton_solver
from ..terms.base import Sum, Term, is_term, line_search_filter
from ..terms.inertia import Inertia


class Callables(Term):
    """Upstream's potential as three callables, a term whose values are checked as Newton checks its own."""

    def __init__(self, energy_func, gradient_func, hessian_func, size, where):
        self.funcs, self.size, self._where = (energy_func, gradient_func, hessian_func), size, where

    def energy(self, x):
        return _validate.returned_scalar(self.funcs[0](x), "energy_func", self._where)

    def gradient(self, x):
        return _validate.returned_column(self.funcs[1](x), "gradient_func", self._where, self.size)

    def hessian(self, x):
        return _validate.returned_matrix(self.funcs[2](x), "hessian_func", self._where, self.size)


def potential_term(integrator, energy_func, gradient_func, hessian_func, M, h, size, max_step, step_norm):
    """The potential, mass matrix, time step and line-search filter of an integrator's arguments.

    Either upstream's ``(energy_func, gradient_func, hessian_func, M, h)`` or a term in
    energy_func's place, ``(term, M, h)``: the next two slots then hold M and h, the options are
    keyword arguments, and the term's ``max_step`` is the filter.
    """
    name = integrator.__name__
    if is_term(energy_func):
        if M is not None or h is not None:
            raise TypeError(f"{name}: with a term, call {name}(..., term, M, h) and pass the options by keyword; "
                            "got more positional arguments")
        if max_step is not None:
            raise TypeError("max_step: a term brings its own line-search filter (its max_step method); pass "
                            "max_step= only with upstream's three callables")
        term, M, h = energy_func, gradient_func, hessian_func
        if M is None or h is None:
            raise TypeError(f"{name}: with a term, expected {name}(..., term, M, h), got no {'M' if M is None else 'h'}")
        term_size = getattr(term, "size", None)
        if term_size is not None and term_size != size:
            raise ValueError(f"energy_func: the term acts on {term_size} coordinates, but x_curr has {size} rows")
        _validate.callables(**({} if step_norm is None else {"step_norm": step_norm}))
        return term, M, h, line_search_filter(term)
    if hessian_func is None or M is None or h is None:
        raise TypeError(f"{name}: expected (energy_func, gradient_func, hessian_func, M, h) or (term, M, h)")
    _validate.callables(energy_func=energy_func, gradient_func=gradient_func, hessian_func=hessian_func,
                        **{k: f for k, f in (("max_step", max_step), ("step_norm", step_norm)) if f is not None})
    return Callables(energy_func, gradient_func, hessian_func, size, f"{name}'s Newton solve"), M, h, max_step


def inertial_target(name, target, history, h):
    """``target(*history, h)``, FloatingPointError if the position history has overflowed."""
    with np.errstate(over="ignore", invalid="ignore"):
        x_tilde = target(*history, h)
    if not np.isfinite(x_tilde).all():
        raise FloatingPointError(f"{name}: the inertial target of the position history overflowed "
                                 "(non-finite x_tilde); the state has diverged")
    return x_tilde


def solve_step(name, objective, inertia, x_curr, x_tilde, options, max_step=None, step_norm=None):
    """Minimize ``objective = Sum(potential, inertia)`` with Newton, the inertia's target set to x_tilde.

    Newton starts from x_tilde or, with a filter `max_step`, from
    ``x_curr + max_step(x_curr, x_tilde - x_curr) (x_tilde - x_curr)``, the farthest point towards
    x_tilde that the filter allows (x_tilde may interpenetrate). `options` are validated
    ``(tolerance, max_iter, do_line_search)``. Returns ``(x, info)``, Newton's info.
    """
    inertia.set_target(x_tilde)
    x0 = x_tilde
    if max_step is not None:
        toward = x_tilde - x_curr
        x0 = x_curr + _validate.step_fraction(max_step(x_curr, toward), f"the start of {name}'s step") * toward
    tolerance, max_iter, do_line_search = options
    try:
        return newton_solver(x0, objective.energy, objective.gradient, objective.hessian, tolerance=tolerance,
                             max_iter=max_iter, do_line_search=do_line_search, return_info=True,
                             max_step=max_step, step_norm=step_norm)
    except FloatingPointError as err:
        raise FloatingPointError(f"{name}: the step produced a non-finite state ({err})") from None


def solver_options(tolerance, max_iter, do_line_search):
    """Newton's options, validated before any work: (tolerance, max_iter, do_line_search)."""
    return (_validate.positive_scalar(tolerance, "tolerance"), _validate.iteration_count(max_iter, "max_iter"),
            _validate.boolean(do_line_search, "do_line_search"))


def implicit_step(integrator, target, coefficient, history, args, *, tolerance, max_iter, do_line_search,
                  return_info, max_step, step_norm):
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
    args : tuple
        The integrator's ``(energy_func, gradient_func, hessian_func, M, h)`` slots (see
        ``potential_term``).
    tolerance, max_iter, do_line_search, return_info, max_step, step_norm
        As ``newton_solver``.
    """
    name = integrator.__name__
    x_curr = history[0]
    potential, M, h, max_step = potential_term(integrator, *args, x_curr.shape[0], max_step, step_norm)
    options = solver_options(tolerance, max_iter, do_line_search)
    return_info = _validate.boolean(return_info, "return_info")
    inertia = Inertia(_validate.mass_matrix(M, "M", x_curr.shape[0])[0], h, coefficient=coefficient)
    x_tilde = inertial_target(name, target, history, inertia.h)
    x, info = solve_step(name, Sum(potential, inertia), inertia, x_curr, x_tilde, options, max_step, step_norm)
    return (x, info) if return_info else x
