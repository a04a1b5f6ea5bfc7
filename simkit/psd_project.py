"""Batched projection of symmetric blocks onto the positive-definite cone."""
import numpy as np

from . import _validate

EIGENVALUE_FLOOR = 1e-6


def psd_project(H, floor=EIGENVALUE_FLOOR):
    """Raise every eigenvalue of each symmetric block to at least `floor`.

    Parameters
    ----------
    H : (k, d, d) float array
        A batch of symmetric blocks (any leading batch shape works; a single (d, d) block too).
        Only the symmetric part ``(H + H^T) / 2`` is used.
    floor : float, optional
        Smallest eigenvalue kept, 1e-6 by default. A floor of 0 would leave the flat cable's
        first Newton Hessian singular (its transverse stiffness is exactly zero).

    Returns
    -------
    P : (k, d, d) float array
        ``P = V diag(max(lambda, floor)) V^T`` with ``H = V diag(lambda) V^T``.
    """
    A = _validate.finite(np.asarray(H, dtype=float), "H")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"H: expected a batch of square blocks of shape (k, d, d), got {A.shape}")
    floor = _validate.real_scalar(floor, "floor")
    lam, V = np.linalg.eigh(0.5 * (A + np.swapaxes(A, -1, -2)))
    return (V * np.maximum(lam, floor)[..., None, :]) @ np.swapaxes(V, -1, -2)
