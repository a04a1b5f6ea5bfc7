r"""The IPC log barrier of a distance (Li et al. 2020, "Incremental Potential Contact").

Density per contact, in the distance ``d`` and the activation distance ``d_hat``::

    b(d) = -(d - d_hat)^2 ln(d / d_hat)   for 0 < d < d_hat,   0 for d >= d_hat

It is zero with zero first and second derivatives at ``d_hat`` (C2 there), positive and
convex on ``(0, d_hat)`` and grows without bound as ``d -> 0``, so an energy that contains it
is infinite at contact. The assembled tiers (``contact_barrier``) scale it by a stiffness
``kappa`` and a per-contact weight::

    b'(d)  = -2 (d - d_hat) ln(d / d_hat) - (d - d_hat)^2 / d
    b''(d) = -2 ln(d / d_hat) - 4 (d - d_hat) / d + (d - d_hat)^2 / d^2   (> 0 on (0, d_hat))

Element tier, with upstream simkit's names, argument order and (m, 1) outputs; the only copy
of the formula. At ``d <= 0`` (contact or interpenetration) the energy is ``+inf`` (a line
search rejects such a trial point) and the gradient and Hessian raise ``ValueError``.
"""
import numpy as np

from .. import _validate


def _distances(d):
    d = _validate.finite_array(d, "d")
    if d.ndim > 2 or (d.ndim == 2 and d.shape[1] != 1):
        raise ValueError(f"d: expected distances of shape (m,) or (m, 1), got {d.shape}")
    return d.reshape(-1)


def _barrier_args(d, d_hat, derivative):
    d = _distances(d)
    d_hat = _validate.positive_scalar(d_hat, "d_hat")
    if derivative and d.size and not np.minimum.reduce(d) > 0:
        bad = np.flatnonzero(d <= 0)
        raise ValueError(f"d: the barrier's {derivative} is undefined at d <= 0 (contact or interpenetration), "
                         f"found d = {d[bad[0]]:g} at contact(s) {bad[:10].tolist()}")
    return d, d_hat


def _b(d, d_hat):
    """b(d) per distance (m,) -> (m,), +inf where d <= 0."""
    out = np.zeros_like(d)
    active = d < d_hat
    da = d[active]
    with np.errstate(divide="ignore", invalid="ignore"):
        out[active] = np.where(da > 0, -(da - d_hat) ** 2 * np.log(da / d_hat), np.inf)
    return out


def _db(d, d_hat):
    """b'(d) for 0 < d, (m,) -> (m,)."""
    out = np.zeros_like(d)
    active = d < d_hat
    da = d[active]
    out[active] = -2.0 * (da - d_hat) * np.log(da / d_hat) - (da - d_hat) ** 2 / da
    return out


def _d2b(d, d_hat):
    """b''(d) for 0 < d, (m,) -> (m,)."""
    out = np.zeros_like(d)
    active = d < d_hat
    da = d[active]
    r = (da - d_hat) / da
    out[active] = -2.0 * np.log(da / d_hat) - 4.0 * r + r * r
    return out


def ipc_barrier_energy(d, d_hat):
    r"""Per-contact IPC barrier energy.

    :math:`b(d) = -(d - \hat d)^2 \ln(d / \hat d)` for :math:`0 < d < \hat d`, 0 for :math:`d \ge \hat d`, :math:`+\infty` for :math:`d \le 0`

    Parameters
    ----------
    d : (m,) or (m, 1) float array
        Distances.
    d_hat : float
        Activation distance, > 0.

    Returns
    -------
    b : (m, 1) float array
        Unweighted (no kappa) energy of each contact.
    """
    return _b(*_barrier_args(d, d_hat, None)).reshape(-1, 1)


def ipc_barrier_gradient(d, d_hat):
    r"""Per-contact derivative of the IPC barrier with respect to d.

    :math:`b'(d) = -2 (d - \hat d) \ln(d / \hat d) - (d - \hat d)^2 / d` on :math:`(0, \hat d)`, 0 beyond

    Parameters
    ----------
    d : (m,) or (m, 1) float array
        Distances, > 0.
    d_hat : float
        Activation distance, > 0.

    Returns
    -------
    db : (m, 1) float array
        Non-positive: the barrier pushes the distance up.

    Raises
    ------
    ValueError
        A distance <= 0 (the message lists the contacts).
    """
    return _db(*_barrier_args(d, d_hat, "gradient")).reshape(-1, 1)


def ipc_barrier_hessian(d, d_hat):
    r"""Per-contact second derivative of the IPC barrier with respect to d.

    :math:`b''(d) = -2 \ln(d / \hat d) - 4 (d - \hat d) / d + (d - \hat d)^2 / d^2` on :math:`(0, \hat d)`, 0 beyond

    Parameters
    ----------
    d : (m,) or (m, 1) float array
        Distances, > 0.
    d_hat : float
        Activation distance, > 0.

    Returns
    -------
    d2b : (m, 1) float array
        Non-negative (b is convex in d).

    Raises
    ------
    ValueError
        A distance <= 0 (the message lists the contacts).
    """
    return _d2b(*_barrier_args(d, d_hat, "Hessian")).reshape(-1, 1)
