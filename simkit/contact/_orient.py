r"""Exact orientation predicates, batched: the sign of a determinant of float coordinates, never wrong.

``orient3d(a, b, c, d)`` is the sign of :math:`\det[a - d, b - d, c - d]` (positive when d lies
below the plane of a, b, c seen so that a, b, c turn counter-clockwise, Shewchuk's convention),
and ``orient2d(a, b, c)`` the sign of :math:`\det[a - c, b - c]` (positive when a, b, c turn
counter-clockwise). Both are decided in two stages:

1. **A floating-point filter.** The determinant is evaluated in doubles together with the bound
   on its round-off error from Shewchuk's "Adaptive precision floating-point arithmetic and
   fast robust geometric predicates" (1997): :math:`(3 + 16\epsilon)\epsilon` (2D) and
   :math:`(7 + 56\epsilon)\epsilon` (3D) times the permanent, the same sum of products with
   absolute values, :math:`\epsilon = 2^{-53}`. Where the determinant exceeds its bound its sign
   is the exact one. Where the permanent is exactly zero so is the determinant (every product
   has a factor that is an exact zero difference), provided no product underflows: stencils with
   differences below 2^-300, or products that overflow, go to the second stage.
2. **Exact arithmetic** for the rest (ties and near-ties: a vertex on a face's plane, a flat
   sheet): every double is an integer times a power of two, so the coordinates are scaled to
   Python integers by one common power of two and the determinant is evaluated exactly in
   integers, elementwise on object arrays. This path is slow (microseconds per determinant) and
   taken only by the stencils the filter cannot decide.

Exact degeneracy is reported as it is: sign 0. Coordinates must be finite (checked by callers).
"""
import numpy as np

_EPS = 2.0 ** -53
_ERR2 = (3.0 + 16.0 * _EPS) * _EPS
_ERR3 = (7.0 + 56.0 * _EPS) * _EPS
_NO_UNDERFLOW = 2.0 ** -300       # triple products of differences at least this large do not underflow


def _integers(*arrays):
    """The arrays' values as exact Python integers (object arrays), all scaled by one power of two."""
    stacked = np.stack(arrays)
    mantissa, exponent = np.frexp(stacked)
    m = (mantissa * 2.0 ** 53).astype(np.int64)                  # exact: |m| < 2^53
    e = exponent.astype(np.int64) - 53
    lowest = e[m != 0].min() if (m != 0).any() else 0
    shift = np.where(m != 0, e - lowest, 0)
    exact = np.frompyfunc(lambda mi, si: int(mi) << int(si), 2, 1)(m, shift)
    return list(exact)


_SIGN = np.frompyfunc(lambda v: (v > 0) - (v < 0), 1, 1)


def _decided(det, permanent, bound, differences):
    """Signs (k,) int8 where the filter decides them, and the mask of those it cannot."""
    magnitude = np.abs(differences)
    tiny = np.where(magnitude > 0, magnitude, np.inf).min(axis=0) < _NO_UNDERFLOW     # products may underflow
    undecided = tiny | ~np.isfinite(permanent) | ((np.abs(det) <= bound * permanent) & (permanent > 0))
    sign = np.where(undecided, 0, np.sign(np.where(np.isfinite(det), det, 0.0))).astype(np.int8)
    return sign, undecided


def orient2d(a, b, c):
    """Exact sign (k,) int8 of det[a - c, b - c] for points (k, 2)."""
    acx, acy = a[:, 0] - c[:, 0], a[:, 1] - c[:, 1]
    bcx, bcy = b[:, 0] - c[:, 0], b[:, 1] - c[:, 1]
    left, right = acx * bcy, acy * bcx
    sign, undecided = _decided(left - right, np.abs(left) + np.abs(right), _ERR2, np.stack([acx, acy, bcx, bcy]))
    if undecided.any():
        i = np.flatnonzero(undecided)
        ax, ay, bx, by, cx, cy = _integers(a[i, 0], a[i, 1], b[i, 0], b[i, 1], c[i, 0], c[i, 1])
        sign[i] = _SIGN((ax - cx) * (by - cy) - (ay - cy) * (bx - cx)).astype(np.int8)
    return sign


def orient3d(a, b, c, d):
    """Exact sign (k,) int8 of det[a - d, b - d, c - d] for points (k, 3)."""
    ad, bd, cd = a - d, b - d, c - d
    adx, ady, adz = ad[:, 0], ad[:, 1], ad[:, 2]
    bdx, bdy, bdz = bd[:, 0], bd[:, 1], bd[:, 2]
    cdx, cdy, cdz = cd[:, 0], cd[:, 1], cd[:, 2]
    bdxcdy, cdxbdy = bdx * cdy, cdx * bdy
    cdxady, adxcdy = cdx * ady, adx * cdy
    adxbdy, bdxady = adx * bdy, bdx * ady
    det = adz * (bdxcdy - cdxbdy) + bdz * (cdxady - adxcdy) + cdz * (adxbdy - bdxady)
    permanent = ((np.abs(bdxcdy) + np.abs(cdxbdy)) * np.abs(adz) + (np.abs(cdxady) + np.abs(adxcdy)) * np.abs(bdz)
                 + (np.abs(adxbdy) + np.abs(bdxady)) * np.abs(cdz))
    sign, undecided = _decided(det, permanent, _ERR3, np.concatenate([ad.T, bd.T, cd.T]))
    if undecided.any():
        i = np.flatnonzero(undecided)
        A = _integers(*a[i].T, *b[i].T, *c[i].T, *d[i].T)
        (ax, ay, az), (bx, by, bz), (cx, cy, cz), (dx, dy, dz) = A[0:3], A[3:6], A[6:9], A[9:12]
        adx, ady, adz = ax - dx, ay - dy, az - dz
        bdx, bdy, bdz = bx - dx, by - dy, bz - dz
        cdx, cdy, cdz = cx - dx, cy - dy, cz - dz
        exact = adz * (bdx * cdy - cdx * bdy) + bdz * (cdx * ady - adx * cdy) + cdz * (adx * bdy - bdx * ady)
        sign[i] = _SIGN(exact).astype(np.int8)
    return sign
