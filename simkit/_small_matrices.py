"""Closed-form determinant, cofactor and determinant Hessian of batches of 2x2 / 3x3 matrices.

numpy's batched ``det`` / ``inv`` go through LAPACK one tiny matrix at a time; these write the
formulas once over the whole batch (a few elementwise operations on (k,) arrays).
"""
import numpy as np

_EPS3 = np.zeros((3, 3, 3))
_EPS3[0, 1, 2] = _EPS3[1, 2, 0] = _EPS3[2, 0, 1] = 1.0
_EPS3[0, 2, 1] = _EPS3[2, 1, 0] = _EPS3[1, 0, 2] = -1.0
_EPS2 = np.array([[0.0, 1.0], [-1.0, 0.0]])


def det(F):
    """det of (k, d, d) matrices, d in (2, 3): (k,)."""
    if F.shape[-1] == 2:
        return F[:, 0, 0] * F[:, 1, 1] - F[:, 0, 1] * F[:, 1, 0]
    return np.einsum("ki,ki->k", F[:, 0], np.cross(F[:, 1], F[:, 2]))


def cofactor(F):
    r"""Cofactor matrices :math:`\operatorname{cof} F = \partial \det F / \partial F = \det(F) F^{-T}`: (k, d, d)."""
    if F.shape[-1] == 2:
        return np.stack([np.stack([F[:, 1, 1], -F[:, 1, 0]], -1), np.stack([-F[:, 0, 1], F[:, 0, 0]], -1)], 1)
    r0, r1, r2 = F[:, 0], F[:, 1], F[:, 2]
    return np.stack([np.cross(r1, r2), np.cross(r2, r0), np.cross(r0, r1)], axis=1)


def det_hessian(F):
    r""":math:`\partial^2 \det F / \partial F_{ij} \partial F_{kl}` as (k, d*d, d*d), row-major F.

    2D: :math:`\epsilon_{ik}\epsilon_{jl}` (constant); 3D: :math:`\sum_{nq} \epsilon_{ikn}\epsilon_{jlq} F_{nq}`.
    """
    k, d = F.shape[0], F.shape[-1]
    if d == 2:
        H = np.einsum("ik,jl->ijkl", _EPS2, _EPS2).reshape(1, 4, 4)
        return np.broadcast_to(H, (k, 4, 4)).copy()
    return np.einsum("ikn,jlq,enq->eijkl", _EPS3, _EPS3, F).reshape(k, 9, 9)
