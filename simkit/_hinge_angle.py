"""Hinge angles and their first and second derivatives, 2D triples and 3D quads alike.

Both angles are ``theta = atan2(Y, X)`` of two polynomial invariants of the hinge's edge
vectors ``y`` (a fixed linear map ``y = L p`` of the stacked corner positions ``p``):

- 2D triple (x0, x1, x2): ``y = (e1, e2)``, ``e1 = x1 - x0``, ``e2 = x2 - x1``,
  ``X = e1 . e2``, ``Y = e1 x e2`` (the signed turning angle at x1, > 0 for a left turn).
  Here ``theta = phi(e2) - phi(e1)`` with ``phi`` the polar angle, so the derivatives are the
  closed forms ``grad theta = (-e1_perp / |e1|^2, e2_perp / |e2|^2)`` (``perp(a, b) = (-b, a)``)
  and ``hess theta = blockdiag(-hess phi(e1), hess phi(e2))``,
  ``hess phi(e) = -(e e_perp^T + e_perp e^T) / |e|^4``.
- 3D quad (e0, e1, o0, o1): hinge edge (e0, e1), apexes o0 of triangle (e0, e1, o0) and o1 of
  triangle (e1, e0, o1): ``y = (e, a, b)``, ``e = e1 - e0``, ``a = o0 - e0``, ``b = o1 - e0``,
  ``X = (e.a)(e.b) - |e|^2 (a.b) = n1 . n2`` and ``Y = |e| e.(b x a) = e_hat . (n1 x n2)`` with
  the triangle normals ``n1 = e x a``, ``n2 = b x e``. theta is 0 when the quad is flat (apexes on
  opposite sides of the hinge) and equals beta when triangle 2 is turned by beta about the axis
  ``e1 - e0`` (right-hand rule) out of that flat configuration.

In 3D, with ``D = X^2 + Y^2 = |n1|^2 |n2|^2``, the chain rule gives
``grad theta = (X grad Y - Y grad X) / D`` and
``hess theta = (X hess Y - Y hess X) / D - (g grad D^T + grad D g^T) / (2 D)``,
mapped to the corners by ``L``. A hinge whose edge or flap has collapsed (zero length or area,
or derivatives that are not finite) is *degenerate*: its angle is atan2's value and its
derivatives are set to zero.
"""
import numpy as np

_I2 = np.eye(2)
_I3 = np.eye(3)
_Z2 = np.zeros((2, 2))
_Z3 = np.zeros((3, 3))

# y = L p: 2D (e1, e2) from (x0, x1, x2); 3D (e, a, b) from (e0, e1, o0, o1).
L2 = np.block([[-_I2, _I2, _Z2], [_Z2, -_I2, _I2]])
L3 = np.block([[-_I3, _I3, _Z3, _Z3], [-_I3, _Z3, _I3, _Z3], [-_I3, _Z3, _Z3, _I3]])
LL2 = np.kron(L2, L2)
LL3 = np.kron(L3, L3)


def _dot(u, v):
    return np.einsum("...i,...i->...", u, v)


def _outer(u, v):
    return u[..., :, None] * v[..., None, :]


def _transpose(M):
    return np.swapaxes(M, -1, -2)


def _skew(v):
    S = np.zeros(v.shape[:-1] + (3, 3))
    S[..., 0, 1], S[..., 0, 2] = -v[..., 2], v[..., 1]
    S[..., 1, 0], S[..., 1, 2] = v[..., 2], -v[..., 0]
    S[..., 2, 0], S[..., 2, 1] = -v[..., 1], v[..., 0]
    return S


def _angle_2d(P):
    e1 = P[:, 1] - P[:, 0]
    e2 = P[:, 2] - P[:, 1]
    return np.arctan2(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0], _dot(e1, e2)), e1, e2


def _derivatives_2d(P, order):
    theta, e1, e2 = _angle_2d(P)
    H = None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        inv1 = 1.0 / _dot(e1, e1)
        inv2 = 1.0 / _dot(e2, e2)
        degenerate = ~(np.isfinite(inv1 * inv1) & np.isfinite(inv2 * inv2))
        g = np.stack([e1[:, 1] * inv1, -e1[:, 0] * inv1, -e2[:, 1] * inv2, e2[:, 0] * inv2], axis=1)
        if order == 2:
            H = np.zeros((P.shape[0], 4, 4))
            for block, e, w in ((slice(0, 2), e1, inv1 * inv1), (slice(2, 4), e2, -inv2 * inv2)):
                a, b = e[:, 0], e[:, 1]
                off = (a * a - b * b) * w
                diag = 2 * a * b * w
                H[:, block, block] = np.stack([np.stack([-diag, off], 1), np.stack([off, diag], 1)], 1)
    return theta, g, H, degenerate


def _invariants_3d(P, order):
    e = P[:, 1] - P[:, 0]
    a = P[:, 2] - P[:, 0]
    b = P[:, 3] - P[:, 0]
    ea, eb, ab, ee = _dot(e, a), _dot(e, b), _dot(a, b), _dot(e, e)
    le = np.sqrt(ee)
    t = np.cross(b, a)
    T = _dot(e, t)
    X = ea * eb - ee * ab
    Y = le * T
    if order == 0:
        return X, Y, None, None, None, None
    with np.errstate(divide="ignore", invalid="ignore"):
        eh = e / le[:, None]
    exb = np.cross(e, b)
    axe = np.cross(a, e)
    gX = np.concatenate([a * eb[:, None] + b * ea[:, None] - 2 * e * ab[:, None],
                         e * eb[:, None] - b * ee[:, None],
                         e * ea[:, None] - a * ee[:, None]], axis=1)
    gY = np.concatenate([eh * T[:, None] + t * le[:, None], exb * le[:, None], axe * le[:, None]], axis=1)
    if order == 1:
        return X, Y, gX, gY, None, None
    k = P.shape[0]
    eye = _I3[None]
    zero = np.zeros((k, 3, 3))
    HX_ee = _outer(a, b) + _outer(b, a) - 2 * ab[:, None, None] * eye
    HX_ea = eb[:, None, None] * eye + _outer(b, e) - 2 * _outer(e, b)
    HX_eb = ea[:, None, None] * eye + _outer(a, e) - 2 * _outer(e, a)
    HX_ab = _outer(e, e) - ee[:, None, None] * eye
    with np.errstate(divide="ignore", invalid="ignore"):
        HY_ee = (T / le)[:, None, None] * (eye - _outer(eh, eh)) + _outer(eh, t) + _outer(t, eh)
    HY_ea = _outer(eh, exb) + le[:, None, None] * _skew(b)
    HY_eb = _outer(eh, axe) - le[:, None, None] * _skew(a)
    HY_ab = le[:, None, None] * _skew(e)

    def assemble(ee_, ea_, eb_, ab_):
        return np.concatenate([np.concatenate([ee_, ea_, eb_], 2),
                               np.concatenate([_transpose(ea_), zero, ab_], 2),
                               np.concatenate([_transpose(eb_), _transpose(ab_), zero], 2)], 1)

    return X, Y, gX, gY, assemble(HX_ee, HX_ea, HX_eb, HX_ab), assemble(HY_ee, HY_ea, HY_eb, HY_ab)


def hinge_frame(dim):
    """The constant maps of a hinge of dimension `dim`: (L, kron(L, L)), y = L p."""
    return (L2, LL2) if dim == 2 else (L3, LL3)


def hinge_angles(P):
    """Signed hinge angle of each hinge.

    Parameters
    ----------
    P : (c, 3, 2) or (c, 4, 3) float array
        Corner positions of each 2D triple or 3D quad.

    Returns
    -------
    theta : (c,) float array
        ``atan2(Y, X)``, in (-pi, pi].
    """
    if P.shape[2] == 2:
        return _angle_2d(P)[0]
    X, Y = _invariants_3d(P, 0)[:2]
    return np.arctan2(Y, X)


def _derivatives_3d(P, order):
    X, Y, gX, gY, HX, HY = _invariants_3d(P, order)
    theta = np.arctan2(Y, X)
    D = X * X + Y * Y
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        p, q = X / D, Y / D
        g = p[:, None] * gY - q[:, None] * gX
        degenerate = ~(D > 0) | ~np.isfinite(g).all(axis=1)
        H = None
        if order == 2:
            gD = 2 * (X[:, None] * gX + Y[:, None] * gY)
            sym = _outer(g, gD / (2 * D)[:, None])
            H = p[:, None, None] * HY - q[:, None, None] * HX - sym - _transpose(sym)
    return theta, g, H, degenerate


def hinge_angle_derivatives(P, order=2):
    """Hinge angle and its derivatives in edge-vector coordinates y = L p.

    Parameters
    ----------
    P : (c, 3, 2) or (c, 4, 3) float array
        Corner positions of each 2D triple or 3D quad.
    order : {1, 2}
        Highest derivative returned.

    Returns
    -------
    theta : (c,) float array
        Hinge angles.
    g : (c, ny) float array
        ``d theta / d y`` (ny = 4 in 2D, 9 in 3D); zero rows for degenerate hinges.
    H : (c, ny, ny) float array or None
        ``d^2 theta / d y^2`` when order == 2, zero blocks for degenerate hinges.
    degenerate : (c,) bool array
        Hinges with a collapsed edge or flap.
    """
    theta, g, H, degenerate = (_derivatives_2d if P.shape[2] == 2 else _derivatives_3d)(P, order)
    if H is not None:
        degenerate |= ~np.isfinite(H.sum(axis=(1, 2)))
    if degenerate.any():
        g[degenerate] = 0.0
        if H is not None:
            H[degenerate] = 0.0
    return theta, g, H, degenerate
