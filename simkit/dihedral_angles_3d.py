r"""Element tier of the 3D hinge angle: one quad's dihedral angle, gradient and Hessian, plainly.

A hinge of a triangle mesh is an interior edge with its two triangles, given as the quad
(e0, e1, o0, o1) of ``simkit.hinge_quads``: the edge (e0, e1), then the apex o0 of triangle
(e0, e1, o0) and the apex o1 of triangle (e1, e0, o1). Its angle is ``simkit.dihedral_angles``'s:

    theta = atan2(e_hat . (n0 x n1), n0 . n1),   n0 = e x (o0 - e0),   n1 = (o1 - e0) x e,

with ``e = e1 - e0``: 0 for a flat quad, > 0 where the surface bends away from its normals.

Derivatives follow Tamstorf and Grinspun 2013 ("Discrete bending forces and their
Jacobians"), in their names. For one triangle with apex ``p`` on the edge ``(x1, x2)``
(``x1 = e0``, ``x2 = e1``): the edge vectors ``E0 = x2 - x1``, ``E1 = p - x2``, ``E2 = p - x1``,
the unit normal ``n = E0 x E2 / |E0 x E2|``, the heights ``h_i = 2 A / |E_i|`` over each edge,
the cosines ``c1``, ``c2`` of the triangle's angles at x1 and x2, and the outward unit edge
normals in its plane ``m0 = E0_hat x n``, ``m1 = E1_hat x n``, ``m2 = -E2_hat x n``. The flap's
share of the angle gradient is

    g_p = -n / h0,   g_x1 = c2 n / h1,   g_x2 = c1 n / h2,

and, with ``M_i = n m_i^T``, ``S(A) = A + A^T``, its derivative (the flap's Hessian) is

    H_pp   = -S(M0) / h0^2
    H_x1p  = (c2 M0^T - M1) / (h0 h1)          H_x2p = (c1 M0^T - M2) / (h0 h2)
    H_x1x1 = S(c2 M1^T) / h1^2 - M0 / |E0|^2   H_x2x2 = S(c1 M2^T) / h2^2 - M0 / |E0|^2
    H_x1x2 = (c2 M2^T + c1 M1) / (h1 h2) + M0 / |E0|^2.

The hinge angle is the difference of its two flaps, as the 2D angle is the difference of two
polar angles: ``grad theta = g(o0) - g(o1)`` and ``hess theta = H(o0) - H(o1)``, where
``g(o1)``, ``H(o1)`` are the same formulas on triangle (e0, e1, o1) (the paper writes the
second flap with tilded names and flipped normal). The two apexes never couple.

These functions are the readable reference (the oracle of the tests): ``simkit.dihedral_angles``
and ``simkit.energies.bending_*_x`` compute the same quantities in a fused, faster form
(``simkit._hinge_angle``). Every formula is written for one hinge; the leading axis of the
corner arrays runs over the hinges by broadcasting. Derivatives are laid out per hinge in
simkit's corner order ``[e0 (xyz), e1 (xyz), o0 (xyz), o1 (xyz)]``.
"""
import numpy as np

from ._hinge_corners import hinge_corners


def _dot(a, b):
    return np.sum(a * b, axis=-1, keepdims=True)


def _unit(a):
    return a / np.linalg.norm(a, axis=-1, keepdims=True)


def _outer(a, b):
    return a[..., :, None] * b[..., None, :]


def _T(A):
    return np.swapaxes(A, -1, -2)


def _flap(p, x1, x2):
    """One triangle (apex p on the edge x1 -> x2): (g, H), its share of grad theta (..., 9) and of
    hess theta (..., 9, 9), both in the order (x1, x2, p)."""
    E0, E1, E2 = x2 - x1, p - x2, p - x1
    n = _unit(np.cross(E0, E2))
    double_area = np.linalg.norm(np.cross(E0, E2), axis=-1, keepdims=True)
    l0, l1, l2 = (np.linalg.norm(E, axis=-1, keepdims=True) for E in (E0, E1, E2))
    h0, h1, h2 = double_area / l0, double_area / l1, double_area / l2
    c1 = _dot(E0, E2) / (l0 * l2)                   # cosine of the angle at x1
    c2 = -_dot(E0, E1) / (l0 * l1)                  # cosine of the angle at x2
    g = np.concatenate([c2 * n / h1, c1 * n / h2, -n / h0], axis=-1)

    m0, m1, m2 = np.cross(E0 / l0, n), np.cross(E1 / l1, n), -np.cross(E2 / l2, n)
    M0, M1, M2 = _outer(n, m0), _outer(n, m1), _outer(n, m2)
    N0 = M0 / (l0 * l0)[..., None]
    c1, c2 = c1[..., None], c2[..., None]
    h0, h1, h2 = h0[..., None], h1[..., None], h2[..., None]
    H_pp = -(M0 + _T(M0)) / (h0 * h0)
    H_1p = (c2 * _T(M0) - M1) / (h0 * h1)
    H_2p = (c1 * _T(M0) - M2) / (h0 * h2)
    H_11 = (c2 * (_T(M1) + M1)) / (h1 * h1) - N0
    H_22 = (c1 * (_T(M2) + M2)) / (h2 * h2) - N0
    H_12 = (c2 * _T(M2) + c1 * M1) / (h1 * h2) + N0
    H = np.block([[H_11, H_12, H_1p],
                  [_T(H_12), H_22, H_2p],
                  [_T(H_1p), _T(H_2p), H_pp]])
    return g, H


def _angle(e0, e1, o0, o1):
    e = e1 - e0
    n0, n1 = np.cross(e, o0 - e0), np.cross(o1 - e0, e)
    return np.arctan2(_dot(_unit(e), np.cross(n0, n1))[..., 0], _dot(n0, n1)[..., 0])


def _spread(g0, g1, H0, H1):
    """The two flaps' (x1, x2, apex) blocks placed into the hinge's (e0, e1, o0, o1) layout."""
    first = np.arange(9)                             # flap o0: e0, e1, o0
    second = np.r_[0:6, 9:12]                        # flap o1: e0, e1, o1
    g = np.zeros(g0.shape[:-1] + (12,))
    H = np.zeros(H0.shape[:-2] + (12, 12))
    g[..., first] += g0
    g[..., second] -= g1
    H[..., first[:, None], first] += H0
    H[..., second[:, None], second] -= H1
    return g, H


def _derivatives(e0, e1, o0, o1):
    g0, H0 = _flap(o0, e0, e1)
    g1, H1 = _flap(o1, e0, e1)
    return _spread(g0, g1, H0, H1)


def dihedral_angles_3d(X, C):
    r"""Signed dihedral angle of every hinge quad, computed plainly (the reference).

    Parameters
    ----------
    X : (n, 3) float array
        Node positions.
    C : (c, 4) int array
        Quads (e0, e1, o0, o1), as ``simkit.hinge_quads`` builds them.

    Returns
    -------
    theta : (c, 1) float array
        :math:`\theta = \operatorname{atan2}(\hat e \cdot (n_0 \times n_1),\ n_0 \cdot n_1)`;
        equal to ``simkit.dihedral_angles(X, C)``.
    """
    return _angle(*hinge_corners(X, C, 3)).reshape(-1, 1)


def dihedral_angles_3d_gradient_element(X, C):
    r"""Gradient of each hinge's dihedral angle with respect to its four nodes.

    Parameters
    ----------
    X, C : (n, 3) float array, (c, 4) int array
        Positions and quads as for ``dihedral_angles_3d``, no quad with a collapsed flap
        (ValueError otherwise).

    Returns
    -------
    g : (c, 12) float array
        :math:`\nabla\theta = g(o_0) - g(o_1)`, the flap terms of Tamstorf and Grinspun
        (module docstring), e.g. :math:`\partial\theta/\partial o_0 = -n_0 / h_0`.
    """
    return _derivatives(*hinge_corners(X, C, 3))[0]


def dihedral_angles_3d_hessian_element(X, C):
    r"""Hessian of each hinge's dihedral angle with respect to its four nodes (exact, unprojected).

    Parameters
    ----------
    X, C : (n, 3) float array, (c, 4) int array
        Positions and quads as for ``dihedral_angles_3d``, no quad with a collapsed flap
        (ValueError otherwise).

    Returns
    -------
    H : (c, 12, 12) float array
        :math:`\nabla^2\theta = H(o_0) - H(o_1)`, the flap Hessians of Tamstorf and Grinspun
        (module docstring); symmetric, and zero between o0 and o1.
    """
    return _derivatives(*hinge_corners(X, C, 3))[1]
