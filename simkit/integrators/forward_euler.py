r"""Explicit (forward) Euler step with a lumped mass matrix.

``x_{n+1} = x_n + h v_n``, ``v_{n+1} = v_n - h M_L^{-1} grad Phi(x_n)``, with ``M_L`` the
row-sum lumping of M (M itself when it is diagonal), as upstream simkit.
"""
import numpy as np

from .. import _validate


def forward_euler(x_curr, v_curr, gradient_func, M, h):
    r"""One explicit Euler step.

    :math:`x_{n+1} = x_n + h v_n`, :math:`v_{n+1} = v_n - h M_L^{-1} \nabla \Phi(x_n)`, :math:`(M_L)_{ii} = \sum_j M_{ij}`

    Parameters
    ----------
    x_curr : (N, 1) float array
        Positions at step n.
    v_curr : (N, 1) float array
        Velocities at step n.
    gradient_func : callable
        ``gradient_func(x) -> (N, 1)``, the gradient of the potential (minus the force).
    M : (N, N) sparse or dense float matrix
        Mass matrix: symmetric, positive diagonal; lumped by row sums (which must be > 0).
    h : float
        Time step, > 0 (with h**2 a normal float).

    Returns
    -------
    x_next : (N, 1) float array
    v_next : (N, 1) float array

    Raises
    ------
    FloatingPointError
        The step produced a non-finite state (h too large for the stiffness, or a diverged run).
    """
    x = _validate.stacked(x_curr, "x_curr")
    v = _validate.stacked(v_curr, "v_curr", size=x.shape[0])
    _validate.callables(gradient_func=gradient_func)
    _, rows = _validate.mass_matrix(M, "M", x.shape[0])
    if not np.minimum.reduce(rows) > 0:
        raise ValueError(f"M: expected positive row sums (the lumped masses), found min {rows.min():g}")
    h = _validate.time_step(h)
    g = _validate.returned_column(gradient_func(x), "gradient_func", "x_curr", x.shape[0])
    with np.errstate(over="ignore", invalid="ignore"):
        x_next, v_next = x + h * v, v - h * g / rows.reshape(-1, 1)
    if not (np.isfinite(x_next).all() and np.isfinite(v_next).all()):
        raise FloatingPointError("forward_euler: the step produced a non-finite state (overflow in x_next or "
                                 "v_next); h is likely too large for the stiffness, or the run has diverged")
    return x_next, v_next
