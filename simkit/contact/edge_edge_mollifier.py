r"""The edge-edge mollifier of Li et al. 2020 (IPC), which switches an edge-edge barrier off as the edges turn parallel.

The distance between two edges is not smooth where they turn parallel (its region jumps from
both interiors to an end point), so IPC multiplies each edge-edge barrier by a mollifier of the
squared norm of the edges' cross product:

.. math::

    c = |e_a \times e_b|^2, \quad e_a = a_1 - a_0, \ e_b = b_1 - b_0, \qquad
    m(c) = \begin{cases} -\dfrac{c^2}{\epsilon_x^2} + \dfrac{2c}{\epsilon_x} & c < \epsilon_x \\ 1 & c \ge \epsilon_x \end{cases}

m is 0 for parallel edges, rises to 1 at :math:`c = \epsilon_x` with zero slope there (C1), and
:math:`\epsilon_x = 10^{-3} |e_a^0|^2 |e_b^0|^2` from the rest lengths
(``edge_edge_mollifier_threshold``): the mollifier acts below an angle of about 1.8 degrees.

Derivatives, with :math:`m'(c) = \frac{2}{\epsilon_x}\big(1 - \frac{c}{\epsilon_x}\big)` and
:math:`m''(c) = -\frac{2}{\epsilon_x^2}` below the threshold (0 above):

.. math::

    \nabla m = m'\, \nabla c, \qquad \nabla^2 m = m''\, \nabla c \nabla c^\top + m'\, \nabla^2 c, \qquad
    \frac{\partial c}{\partial e_a} = 2\, e_b \times (e_a \times e_b), \quad
    \frac{\partial c}{\partial e_b} = 2\, (e_a \times e_b) \times e_a,

.. math::

    \nabla^2_{e} c = \begin{pmatrix} 2 |e_b|^2 I - 2 e_b e_b^\top & 4 e_a e_b^\top - 2 e_b e_a^\top - 2 (e_a \cdot e_b) I \\
    \cdot^\top & 2 |e_a|^2 I - 2 e_a e_a^\top \end{pmatrix},

carried to the stencil (a0, a1, b0, b1) through :math:`e_a = a_1 - a_0`, :math:`e_b = b_1 - b_0`.
"""
import numpy as np

from .. import _validate
from ._closest import cross, dot
from ._stencil import nonzero_lengths, points

THRESHOLD = 1e-3
# stencil (a0, a1, b0, b1) coordinates -> (e_a, e_b) coordinates, and the sign of each (e_a = a1 - a0, ...)
_E = np.array([0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5])
_SIGN = np.repeat([-1.0, 1.0, -1.0, 1.0], 3)


def _edge_edge_mollifier(X, eps_x, order=2):
    """``(m, gradient, Hessian)`` of stencils X (k, 4, 3) and thresholds eps_x (k,), unchecked.

    ``order`` 0 returns gradient and Hessian as None, 1 the Hessian as None. Derivatives are
    computed for the pairs below their threshold only (zero elsewhere).
    """
    k = X.shape[0]
    ea, eb = X[:, 1] - X[:, 0], X[:, 3] - X[:, 2]
    n = cross(ea, eb)
    x = dot(n, n) / eps_x
    below = x < 1
    m = np.where(below, (2.0 - x) * x, 1.0)
    if order == 0:
        return m, None, None
    i = np.flatnonzero(below)
    ea, eb, n, x, eps = ea[i], eb[i], n[i], x[i], eps_x[i]
    dm = 2.0 / eps * (1.0 - x)
    gc = np.concatenate([cross(eb, n), cross(n, ea)], axis=1)[:, _E] * (2.0 * _SIGN)     # grad c (k', 12)
    g = np.zeros((k, 12))
    g[i] = dm[:, None] * gc
    if order == 1:
        return m, g, None
    I3 = np.eye(3)
    Haa = 2.0 * dot(eb, eb)[:, None, None] * I3 - 2.0 * eb[:, :, None] * eb[:, None, :]
    Hbb = 2.0 * dot(ea, ea)[:, None, None] * I3 - 2.0 * ea[:, :, None] * ea[:, None, :]
    Hab = 4.0 * ea[:, :, None] * eb[:, None, :] - 2.0 * eb[:, :, None] * ea[:, None, :] - 2.0 * dot(ea, eb)[:, None, None] * I3
    He = np.concatenate([np.concatenate([Haa, Hab], axis=2), np.concatenate([Hab.transpose(0, 2, 1), Hbb], axis=2)],
                        axis=1)                                                        # hess c in (e_a, e_b)
    Hc = He[:, _E[:, None], _E[None, :]] * np.outer(_SIGN, _SIGN)
    H = np.zeros((k, 12, 12))
    H[i] = (-2.0 / eps ** 2)[:, None, None] * gc[:, :, None] * gc[:, None, :] + dm[:, None, None] * Hc
    return m, g, H


def _checked(a0, a1, b0, b1, eps_x, order):
    X = points({"a0": a0, "a1": a1, "b0": b0, "b1": b1}, (3,))
    eps_x = _validate.element_param(eps_x, "eps_x", X.shape[0], positive=True, what="edge pair")
    return _edge_edge_mollifier(X, eps_x, order)


def edge_edge_mollifier(a0, a1, b0, b1, eps_x):
    r"""IPC's edge-edge mollifier, pair by pair: 0 for parallel edges, 1 beyond the threshold.

    :math:`m = -c^2 / \epsilon_x^2 + 2 c / \epsilon_x` for :math:`c = |(a_1 - a_0) \times (b_1 - b_0)|^2 < \epsilon_x`, 1 beyond

    Parameters
    ----------
    a0, a1, b0, b1 : (k, 3) float arrays
        The edges' end points.
    eps_x : float or (k,) float array
        Threshold(s) > 0, from the rest positions by ``edge_edge_mollifier_threshold``.

    Returns
    -------
    m : (k,) float array
        In [0, 1].
    """
    return _checked(a0, a1, b0, b1, eps_x, 0)[0]


def edge_edge_mollifier_gradient(a0, a1, b0, b1, eps_x):
    r"""Gradient of ``edge_edge_mollifier`` with respect to the stencil (a0, a1, b0, b1).

    :math:`\nabla m = m'(c)\, \nabla c`, :math:`m'(c) = \frac{2}{\epsilon_x}(1 - c / \epsilon_x)` below the threshold, 0 beyond

    Parameters
    ----------
    a0, a1, b0, b1 : (k, 3) float arrays
    eps_x : float or (k,) float array

    Returns
    -------
    g : (k, 12) float array
    """
    return _checked(a0, a1, b0, b1, eps_x, 1)[1]


def edge_edge_mollifier_hessian(a0, a1, b0, b1, eps_x):
    r"""Hessian of ``edge_edge_mollifier`` with respect to the stencil (a0, a1, b0, b1).

    :math:`\nabla^2 m = m''(c)\, \nabla c \nabla c^\top + m'(c)\, \nabla^2 c`, :math:`m'' = -2 / \epsilon_x^2` below the threshold

    Parameters
    ----------
    a0, a1, b0, b1 : (k, 3) float arrays
    eps_x : float or (k,) float array

    Returns
    -------
    H : (k, 12, 12) float array
        Not positive semi-definite in general.
    """
    return _checked(a0, a1, b0, b1, eps_x, 2)[2]


def edge_edge_mollifier_threshold(a0, a1, b0, b1):
    r"""The mollifier's threshold from the edges' rest positions (Li et al. 2020).

    :math:`\epsilon_x = 10^{-3}\, |a_1 - a_0|^2\, |b_1 - b_0|^2`

    Parameters
    ----------
    a0, a1, b0, b1 : (k, 3) float arrays
        The edges' end points at rest, of non-zero length.

    Returns
    -------
    eps_x : (k,) float array
    """
    X = points({"a0": a0, "a1": a1, "b0": b0, "b1": b1}, (3,))
    nonzero_lengths(X[:, 0], X[:, 1], "a0, a1")
    nonzero_lengths(X[:, 2], X[:, 3], "b0, b1")
    ea, eb = X[:, 1] - X[:, 0], X[:, 3] - X[:, 2]
    return THRESHOLD * dot(ea, ea) * dot(eb, eb)


def edge_edge_mollifier_element(a0, a1, b0, b1, eps_x):
    r"""Element tier: the mollifier, its gradient (12,) and Hessian (12, 12) of one edge pair, written plainly.

    Parameters
    ----------
    a0, a1, b0, b1 : (3,) float arrays
    eps_x : float

    Returns
    -------
    m : float
    g : (12,) float array
    H : (12, 12) float array
    """
    a0, a1, b0, b1 = (_validate.finite_array(v, name) for v, name in ((a0, "a0"), (a1, "a1"), (b0, "b0"), (b1, "b1")))
    eps_x = _validate.positive_scalar(eps_x, "eps_x")
    ea, eb = a1 - a0, b1 - b0
    c = np.dot(np.cross(ea, eb), np.cross(ea, eb))
    if c >= eps_x:
        return 1.0, np.zeros(12), np.zeros((12, 12))
    m = -c ** 2 / eps_x ** 2 + 2 * c / eps_x
    dm = -2 * c / eps_x ** 2 + 2 / eps_x
    d2m = -2 / eps_x ** 2
    # c = |ea|^2 |eb|^2 - (ea . eb)^2, differentiated in ea and eb, then ea = a1 - a0, eb = b1 - b0
    dc_dea = 2 * np.dot(eb, eb) * ea - 2 * np.dot(ea, eb) * eb
    dc_deb = 2 * np.dot(ea, ea) * eb - 2 * np.dot(ea, eb) * ea
    grad_c = np.concatenate([-dc_dea, dc_dea, -dc_deb, dc_deb])
    I = np.eye(3)
    H_aa = 2 * np.dot(eb, eb) * I - 2 * np.outer(eb, eb)
    H_bb = 2 * np.dot(ea, ea) * I - 2 * np.outer(ea, ea)
    H_ab = 4 * np.outer(ea, eb) - 2 * np.outer(eb, ea) - 2 * np.dot(ea, eb) * I
    signs = np.array([-1.0, 1.0])
    hess_c = np.block([[np.kron(np.outer(signs, signs), H_aa), np.kron(np.outer(signs, signs), H_ab)],
                       [np.kron(np.outer(signs, signs), H_ab.T), np.kron(np.outer(signs, signs), H_bb)]])
    return m, dm * grad_c, d2m * np.outer(grad_c, grad_c) + dm * hess_c
