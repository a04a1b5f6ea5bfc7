"""Batched projection of symmetric blocks onto the positive-(semi)definite cone."""
import numpy as np

from . import _validate

EIGENVALUE_FLOOR = 1e-6
METHODS = ("proj", "abs")


def psd_project(H, method="proj", *, floor=EIGENVALUE_FLOOR):
    r"""Make every symmetric block positive definite by changing its eigenvalues.

    :math:`P = V \operatorname{diag}(f(\lambda)) V^\top` for :math:`H = V \operatorname{diag}(\lambda) V^\top`,
    :math:`f(\lambda) = \max(\lambda, 10^{-6})` ('proj') or :math:`|\lambda|` ('abs')

    Parameters
    ----------
    H : (k, d, d) or (d, d) float array
        A batch of symmetric blocks (any leading batch shape works). Only the symmetric part
        ``(H + H^T) / 2`` is used.
    method : {'proj', 'abs'}, optional
        'proj' (default) raises eigenvalues below `floor` to `floor`; 'abs' replaces every
        eigenvalue by its absolute value.
    floor : float, optional, keyword-only
        Smallest eigenvalue kept by 'proj', 1e-6 by default. A floor of 0 would leave the flat
        cable's first Newton Hessian singular (its transverse stiffness is exactly zero).

    Returns
    -------
    P : float array of H's shape
        The projected blocks.
    """
    A = _validate.finite_array(H, "H")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"H: expected a batch of square blocks of shape (k, d, d) or (d, d), got {A.shape}")
    method = _validate.choice(method, "method", METHODS)
    floor = _validate.real_scalar(floor, "floor")
    lam, V = np.linalg.eigh(0.5 * (A + np.swapaxes(A, -1, -2)))
    lam = np.maximum(lam, floor) if method == "proj" else np.abs(lam)
    return (V * lam[..., None, :]) @ np.swapaxes(V, -1, -2)
