"""Determinant, cofactor and determinant Hessian of many 2x2 / 3x3 matrices at once.

Layout: component-major with the element axis last, ``F[i, j]`` a (t,) array (``components``
converts from the usual (t, d, d)). Each formula is a few elementwise numpy operations on t
contiguous values; numpy's batched ``det`` / ``inv`` would call LAPACK once per tiny matrix.
"""
import numpy as np

_EPS3 = np.zeros((3, 3, 3))
_EPS3[0, 1, 2] = _EPS3[1, 2, 0] = _EPS3[2, 0, 1] = 1.0
_EPS3[0, 2, 1] = _EPS3[2, 1, 0] = _EPS3[1, 0, 2] = -1.0
_EPS2 = np.array([[0.0, 1.0], [-1.0, 0.0]])


def components(F):
    """(t, d, d) -> (d, d, t), contiguous."""
    return np.ascontiguousarray(np.moveaxis(F, 0, -1))


def stacked(C):
    """(d, d, t) (or (a, b, t)) -> (t, d, d), contiguous."""
    return np.ascontiguousarray(np.moveaxis(C, -1, 0))


def det(F):
    """det F of (d, d, t) matrices: (t,)."""
    if F.shape[0] == 2:
        return F[0, 0] * F[1, 1] - F[0, 1] * F[1, 0]
    return (F[0, 0] * (F[1, 1] * F[2, 2] - F[1, 2] * F[2, 1]) - F[0, 1] * (F[1, 0] * F[2, 2] - F[1, 2] * F[2, 0])
            + F[0, 2] * (F[1, 0] * F[2, 1] - F[1, 1] * F[2, 0]))


def cofactor(F):
    r""":math:`\operatorname{cof} F = \partial \det F / \partial F = \det(F)\, F^{-T}`: (d, d, t)."""
    C = np.empty_like(F)
    if F.shape[0] == 2:
        C[0, 0], C[0, 1], C[1, 0], C[1, 1] = F[1, 1], -F[1, 0], -F[0, 1], F[0, 0]
        return C
    for i in range(3):
        for j in range(3):
            i1, i2, j1, j2 = (i + 1) % 3, (i + 2) % 3, (j + 1) % 3, (j + 2) % 3
            C[i, j] = F[i1, j1] * F[i2, j2] - F[i1, j2] * F[i2, j1]
    return C


def det_hessian(F):
    r""":math:`\partial^2 \det F / \partial F_{ij} \partial F_{kl}`: (d*d, d*d, t), row-major F.

    2D: :math:`\epsilon_{ik}\epsilon_{jl}` (constant); 3D: :math:`\sum_{nq} \epsilon_{ikn}\epsilon_{jlq} F_{nq}`.
    """
    d, t = F.shape[0], F.shape[-1]
    if d == 2:
        H = np.einsum("ik,jl->ijkl", _EPS2, _EPS2).reshape(4, 4, 1)
        return np.broadcast_to(H, (4, 4, t))
    H = np.zeros((3, 3, 3, 3, t))
    for i, k in ((0, 1), (1, 2), (2, 0), (1, 0), (2, 1), (0, 2)):
        n = 3 - i - k
        for j, l in ((0, 1), (1, 2), (2, 0), (1, 0), (2, 1), (0, 2)):
            H[i, j, k, l] = (_EPS3[i, k, n] * _EPS3[j, l, 3 - j - l]) * F[n, 3 - j - l]
    return H.reshape(9, 9, t)


def outer(a, b):
    """Per-element outer products of (m, t) and (n, t) vectors: (m, n, t)."""
    return a[:, None] * b[None, :]


def matmul(A, B):
    """Per-element products of (m, n, t) and (n, p, t) matrices: (m, p, t) (no einsum: it is slow here)."""
    return (A[:, :, None] * B[None, :, :]).sum(axis=1)
