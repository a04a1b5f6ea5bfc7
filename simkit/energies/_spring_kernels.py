"""The unchecked mass-spring kernels: the one copy of the spring formula, on validated edge vectors.

``psi(d) = 1/2 ym (|d| - l0)^2`` per edge, its gradient, and the exact Hessian blocks
``ym n n^T + ym (1 - l0/|d|) (I - n n^T)`` (weighted and floored with ``psd``). The public tiers
(``simkit.energies.mass_springs``) validate and call these; ``simkit.terms.SpringEnergy`` calls
them on the operator and parameters it validated once. See ``mass_springs``'s docstring for the
degenerate spring (``|d| = 0``).
"""
import numpy as np

from ..psd_project import EIGENVALUE_FLOOR


def spring_eigensystem(d, ym, l0):
    """Length, unit direction and the two eigenvalues of the exact element Hessian."""
    l = np.sqrt(np.einsum("ij,ij->i", d, d))
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        ratio = l0 / l
        n = d / l[:, None]
    regular = np.isfinite(ratio)
    if regular.all():
        return l, n, ym, ym * (1.0 - ratio)
    degenerate = ~regular
    n[degenerate] = 0.0
    return l, n, ym, np.where(degenerate, ym, ym * (1.0 - np.where(degenerate, 0.0, ratio)))


def psi(d, ym, l0):
    return 0.5 * ym * (np.sqrt(np.einsum("ij,ij->i", d, d)) - l0) ** 2


def dpsi(d, ym, l0):
    l, n, _, _ = spring_eigensystem(d, ym, l0)
    return (ym * (l - l0))[:, None] * n


def blocks(n, along, across):
    """(m, dim, dim) blocks ``across I + (along - across) n n^T``."""
    dim = n.shape[1]
    B = (along - across)[:, None, None] * (n[:, :, None] * n[:, None, :])
    B[:, np.arange(dim), np.arange(dim)] += across[:, None]
    return B


def weighted_blocks(d, ym, vol, l0, psd):
    _, n, along, across = spring_eigensystem(d, ym, l0)
    along, across = vol * along, vol * across
    if psd:
        along = np.maximum(along, EIGENVALUE_FLOOR)
        across = np.maximum(across, EIGENVALUE_FLOOR)
    return blocks(n, along, across)
