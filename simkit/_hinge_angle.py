r"""Hinge angles and their derivatives, 2D triples and 3D quads, one column per hinge.

Every per-hinge quantity is stored hinge-last ("structure of arrays": a 3-vector per hinge is a
(3, c) array), so each formula below is a handful of elementwise numpy operations over all
hinges, with no small matrix products.

2D triple (x0, x1, x2)
----------------------
``e1 = x1 - x0``, ``e2 = x2 - x1``, ``theta = atan2(e1 x e2, e1 . e2)`` (the turning angle at x1,
> 0 for a left turn). theta is the polar angle of e2 minus that of e1, so
``d theta / d e1 = -perp(e1) / |e1|^2``, ``d theta / d e2 = perp(e2) / |e2|^2`` with
``perp(a, b) = (-b, a)``, and the Hessian in (e1, e2) is ``blockdiag(-P(e1), P(e2))`` with
``P(e) = -(e perp(e)^T + perp(e) e^T) / |e|^4``.

3D quad (e0, e1, o0, o1)
------------------------
Hinge edge ``e = e1 - e0``, flap vectors ``a = o0 - e0``, ``b = o1 - e0``, triangle normals
``n0 = e x a``, ``n1 = b x e`` with ``A_i = |n_i|^2`` (four times the squared areas), and
``theta = atan2(|e| e.(b x a), n0 . n1)``: 0 for a flat quad, beta when triangle (e1, e0, o1) is
turned by beta about e (right-hand rule). With ``alpha_i`` the position of apex i's foot along
the edge (``alpha_0 = a.e / |e|^2``), ``q_i`` the flap's part orthogonal to e
(``q_0 = a - alpha_0 e``) and

    nu_i = |e| n_i / A_i,       rho_i = |e| q_i / A_i,

the gradient is, per node (e0, e1, o0, o1),
``((1-alpha_0) nu_0 + (1-alpha_1) nu_1, alpha_0 nu_0 + alpha_1 nu_1, -nu_0, -nu_1)``.
The Hessian has the closed form (node weights ``c_0 = (alpha_0 - 1, -alpha_0, 1, 0)``,
``c_1 = (alpha_1 - 1, -alpha_1, 0, 1)``, ``d = (1, -1, 0, 0)``, sym(M) = M + M^T)::

    hess theta = sum_i [ c_i c_i^T (x) W_i  -  sym(c_i d^T (x) R_i) ]  +  d d^T (x) W_d,
    W_i = |e| sym(rho_i nu_i^T),   R_i = e nu_i^T / |e|^2,   W_d = (A_0 W_0 + A_1 W_1) / (2 |e|^4),

which agrees with central differences of the gradient (tests) and with the chain rule
through ``atan2(Y, X)`` of the invariants (the previous implementation) to round-off. The
normals enter through the flap frames only: theta does not change when a node slides along
the hinge line, and the axial stretch ``(e_hat . x_k) e_hat`` of the four nodes is an exact
null vector of ``hess theta`` besides the translations.

A hinge whose edge or flap has collapsed is *degenerate*: its angle is atan2's value and its
derivatives are set to zero (a documented clamp, not an error: a mesh may pass through such a
state). The test is relative, so that a sliver counts as collapsed before its derivatives,
which grow like 1/height (gradient) and 1/height^2 (Hessian), lose every digit: in 3D a flap
whose altitude over the hinge edge is below ``SLIVER_TOLERANCE`` times the edge's length
(``A_i <= SLIVER_TOLERANCE^2 |e|^4``; a zero-length edge too), in 2D an edge shorter than
``SLIVER_TOLERANCE`` times the triple's size ``sqrt(|e1|^2 + |e2|^2)``.
"""
import numpy as np


def _dot(u, v):
    """Row-wise dot product of (d, c) arrays: (c,)."""
    out = u[0] * v[0]
    for i in range(1, u.shape[0]):
        out += u[i] * v[i]
    return out


def _cross(u, v):
    """Cross products of the columns of two (3, c) arrays."""
    out = np.empty(np.broadcast_shapes(u.shape, v.shape))
    np.subtract(u[1] * v[2], u[2] * v[1], out=out[0])
    np.subtract(u[2] * v[0], u[0] * v[2], out=out[1])
    np.subtract(u[0] * v[1], u[1] * v[0], out=out[2])
    return out


CHUNK = 16384
# relative size below which a flap (3D) or an edge (2D) counts as collapsed: about sqrt(machine
# epsilon), where the Hessian's 1/height^2 terms have lost half the digits of double precision
SLIVER_TOLERANCE = 1e-8


def chunks(c, size=CHUNK):
    """Consecutive slices of at most `size` hinges covering range(c): hinges are processed in
    chunks so that every temporary array stays in cache (measured 1.5x faster on 1e5 hinges)."""
    return [slice(start, min(start + size, c)) for start in range(0, c, size)]


def angle_difference(theta, theta0):
    """``theta - theta0`` wrapped into [-pi, pi) (only computed where some hinge needs it)."""
    d = theta - theta0
    if (np.abs(d) >= np.pi).any():
        d = np.remainder(d + np.pi, 2.0 * np.pi) - np.pi
    return d


def hinges(Xt, C):
    """The hinge geometry of positions Xt (dim, n) (transposed, contiguous) and hinges C (c, dim + 1)."""
    corners = [np.take(Xt, C[:, k], axis=1) for k in range(C.shape[1])]
    return (Triples if Xt.shape[0] == 2 else Quads)(*corners)


class Triples:
    """2D hinge triples: edge vectors and turning angles; inverse squared lengths on demand.

    Attributes (c hinges): ``e1, e2`` (2, c); ``theta`` (c,); after ``derived()``: ``inv1, inv2``
    (c,) = 1/|e|^2 (0 on degenerate hinges) and ``degenerate`` (c,) bool.
    """

    def __init__(self, x0, x1, x2):
        self.e1 = e1 = x1 - x0
        self.e2 = e2 = x2 - x1
        self.theta = np.arctan2(e1[0] * e2[1] - e1[1] * e2[0], _dot(e1, e2))
        self._derived = False

    def derived(self):
        if not self._derived:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                l1, l2 = _dot(self.e1, self.e1), _dot(self.e2, self.e2)
                self.inv1 = 1.0 / l1
                self.inv2 = 1.0 / l2
                small = SLIVER_TOLERANCE ** 2 * (l1 + l2)
                self.degenerate = ~((l1 > small) & (l2 > small)
                                    & np.isfinite(self.inv1 * self.inv1) & np.isfinite(self.inv2 * self.inv2))
            if self.degenerate.any():
                self.inv1[self.degenerate] = 0.0
                self.inv2[self.degenerate] = 0.0
            self._derived = True
        return self

    def edge_gradients(self):
        """``d theta / d e1`` and ``d theta / d e2``, (2, c) each (zero for degenerate hinges); cached."""
        if not hasattr(self, "_edge_gradients"):
            self.derived()
            e1, e2 = self.e1, self.e2
            self._edge_gradients = (np.stack([e1[1] * self.inv1, -e1[0] * self.inv1]),
                                    np.stack([-e2[1] * self.inv2, e2[0] * self.inv2]))
        return self._edge_gradients

    def gradient(self, scale):
        """``scale * grad theta`` per node, (6, c), rows (x0, x1, x2) x (x, y)."""
        self.derived()
        s1 = scale * self.inv1
        s2 = scale * self.inv2
        (ax, ay), (bx, by) = self.e1, self.e2
        g = np.empty((6,) + scale.shape)
        np.multiply(ay, s1, out=g[0])                  # d/d e1 = (e1y, -e1x) s1, x0 gets minus it
        np.multiply(ax, s1, out=g[1])
        np.multiply(by, s2, out=g[4])                  # d/d e2 = (-e2y, e2x) s2
        np.multiply(bx, s2, out=g[5])
        np.add(g[0], g[4], out=g[2])                   # x1: d/d e1 - d/d e2
        np.add(g[1], g[5], out=g[3])
        np.negative(g[3], out=g[3])
        np.negative(g[0], out=g[0])
        np.negative(g[4], out=g[4])
        return g

    def upper_blocks(self, kappa, weight, out):
        """Upper entries of every 6x6 block ``kappa g g^T + weight hess theta``, into out (21, c).

        Rows in ``simkit._assembly.upper_layout(3, 2)`` order, every entry a product of node
        gradient components plus, on the blocks of the edges' nodes, ``T_i = +-weight M(e_i) /
        |e_i|^4`` with ``M(a, b) = [[-2ab, a^2 - b^2], [a^2 - b^2, 2ab]]``.
        """
        g1, g2 = self.edge_gradients()
        root_k = np.sqrt(kappa)
        (p0, p1), (r0, r1) = g1 * root_k, g2 * root_k
        g = ((-p0, -p1), (p0 - r0, p1 - r1), (r0, r1))      # node gradients scaled by sqrt(kappa)
        T = []
        for (a, b), f in ((self.e1, weight * self.inv1 * self.inv1), (self.e2, -weight * self.inv2 * self.inv2)):
            T.append((-2.0 * a * b * f, (a * a - b * b) * f))   # (T[0,0] = -T[1,1], T[0,1])
        (D1, O1), (D2, O2) = T
        theta_part = {(0, 1): ((-D1, -O1), (-O1, D1)), (1, 2): ((-D2, -O2), (-O2, D2))}
        row = 0
        for a, b in ((0, 1), (0, 2), (1, 2)):
            for i in range(2):
                for j in range(2):
                    np.multiply(g[a][i], g[b][j], out=out[row])
                    if (a, b) in theta_part:
                        out[row] += theta_part[(a, b)][i][j]
                    row += 1
        diagonal = {0: (D1, O1, -D1), 1: (D1 + D2, O1 + O2, -(D1 + D2)), 2: (D2, O2, -D2)}
        for a in range(3):
            for (i, j), t in zip(((0, 0), (0, 1), (1, 1)), diagonal[a]):
                np.multiply(g[a][i], g[a][j], out=out[row])
                out[row] += t
                row += 1
        return out


class Quads:
    """3D hinge quads (e0, e1, o0, o1): the invariants of the module docstring, hinge-last.

    Attributes (c hinges): ``e, a, b, n0, n1`` (3, c); ``ee = |e|^2``, ``l = |e|``, ``theta``
    (c,); after ``derived()``: ``A0, A1`` (squared doubled areas) and ``degenerate`` (c,).
    """

    def __init__(self, x0, x1, x2, x3):
        self.e = x1 - x0
        self.a = x2 - x0
        self.b = x3 - x0
        self.n0 = _cross(self.e, self.a)
        self.n1 = _cross(self.b, self.e)
        self.ee = _dot(self.e, self.e)
        self.l = np.sqrt(self.ee)
        self.theta = np.arctan2(-self.l * _dot(self.n0, self.b), _dot(self.n0, self.n1))
        self._derived = None

    def derived(self):
        """(alpha_0, alpha_1, nu_0, nu_1): feet of the apexes along e and the scaled normals.

        Degenerate hinges get zeros, so every derivative built from them vanishes there.
        """
        if self._derived is None:
            self.A0 = _dot(self.n0, self.n0)
            self.A1 = _dot(self.n1, self.n1)
            area = self.A0 * self.A1
            small = SLIVER_TOLERANCE ** 2 * self.ee * self.ee
            self.degenerate = ~((self.A0 > small) & (self.A1 > small) & np.isfinite(area))
            ok = ~self.degenerate
            safe = ok.all()
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                inv_ee = 1.0 / self.ee
                alpha0 = _dot(self.a, self.e) * inv_ee
                alpha1 = _dot(self.b, self.e) * inv_ee
                nu0 = self.n0 * (self.l / self.A0)
                nu1 = self.n1 * (self.l / self.A1)
            if not safe:
                for v in (alpha0, alpha1):
                    v[~ok] = 0.0
                for v in (nu0, nu1):
                    v[:, ~ok] = 0.0
            self._derived = alpha0, alpha1, nu0, nu1
        return self._derived

    def gradient(self, scale):
        """``scale * grad theta`` per node, (12, c), rows (e0, e1, o0, o1) x (x, y, z)."""
        alpha0, alpha1, nu0, nu1 = self.derived()
        g = np.empty((12,) + scale.shape)
        s0, s1 = g[6:9], g[9:12]
        np.multiply(nu0, -scale, out=s0)              # o0 and o1: -nu_i
        np.multiply(nu1, -scale, out=s1)
        np.add(s0 * alpha0, s1 * alpha1, out=g[3:6])
        np.negative(g[3:6], out=g[3:6])               # e1: alpha_0 nu_0 + alpha_1 nu_1
        np.add(s0, s1, out=g[0:3])                    # e0: minus the others (translation invariance)
        np.add(g[0:3], g[3:6], out=g[0:3])
        np.negative(g[0:3], out=g[0:3])
        return g

    def upper_blocks(self, kappa, weight, out):
        """Upper entries of every 12x12 block ``kappa g g^T + weight hess theta`` (g = grad theta).

        Writes into out (78, c), rows in ``simkit._assembly.upper_layout(4, 3)`` order (the
        off-diagonal 3x3 node blocks of (e0, e1, o0, o1) in full, then the diagonal ones' upper
        triangles); kappa and weight are (c,) (weight = kappa (theta - theta0) for the energy).
        Each node block is ``g_a g_b^T`` plus the module docstring's closed form of hess theta.
        """
        alpha0, alpha1, nu0, nu1 = self.derived()
        a0, a1 = alpha0, alpha1
        b0, b1 = 1.0 - a0, 1.0 - a1
        root_k = np.sqrt(kappa)
        # Gauss-Newton part: outer products of the node gradients scaled by sqrt(kappa)
        gv0, gv1 = nu0 * root_k, nu1 * root_k
        g = (gv0 * b0 + gv1 * b1, gv0 * a0 + gv1 * a1, -gv0, -gv1)
        # curvature part, every term scaled by weight
        w, ee, e = weight, self.ee, self.e
        bad = self.degenerate
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            inv_ee = 1.0 / ee
            f0 = w * ee / self.A0
            f1 = w * ee / self.A1
            h0 = self.A0 * 0.5 * inv_ee * inv_ee              # W_d = h0 W_0 + h1 W_1
            h1 = self.A1 * 0.5 * inv_ee * inv_ee
        if bad.any():
            for v in (inv_ee, f0, f1, h0, h1):
                v[bad] = 0.0
        # weight * W_i = sym(r_i nu_i^T) with r_i = weight |e|^2 q_i / A_i; weight * R_i = e (weight nu_i / |e|^2)^T
        W0 = ((self.a - a0 * e) * f0)[:, None] * nu0[None, :]
        W0 += W0.transpose(1, 0, 2)
        W1 = ((self.b - a1 * e) * f1)[:, None] * nu1[None, :]
        W1 += W1.transpose(1, 0, 2)
        R0 = e[:, None] * (nu0 * (w * inv_ee))[None, :]
        R1 = e[:, None] * (nu1 * (w * inv_ee))[None, :]
        R0t, R1t = R0.transpose(1, 0, 2), R1.transpose(1, 0, 2)
        # node block (a, b) = sum of coefficient * basis matrix, + g_a g_b^T
        terms = {
            (0, 1): ((a0 * b0 - h0, W0), (a1 * b1 - h1, W1), (a0, R0t), (a1, R1t), (-b0, R0), (-b1, R1)),
            (0, 2): ((-b0, W0), (-1.0, R0t)),
            (0, 3): ((-b1, W1), (-1.0, R1t)),
            (1, 2): ((-a0, W0), (1.0, R0t)),
            (1, 3): ((-a1, W1), (1.0, R1t)),
            (2, 3): (),
            (0, 0): ((b0 * b0 + h0, W0), (b1 * b1 + h1, W1), (b0, R0), (b0, R0t), (b1, R1), (b1, R1t)),
            (1, 1): ((a0 * a0 + h0, W0), (a1 * a1 + h1, W1), (-a0, R0), (-a0, R0t), (-a1, R1), (-a1, R1t)),
            (2, 2): ((1.0, W0),),
            (3, 3): ((1.0, W1),),
        }
        m = w.shape[0]
        block = np.empty((3, 3, m))
        for row, (p, q) in zip(range(0, 54, 9), ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))):
            view = out[row:row + 9].reshape(3, 3, m)
            np.multiply(g[p][:, None], g[q][None, :], out=view)
            for coefficient, basis in terms[(p, q)]:
                view += basis * coefficient
        for row, p in zip(range(54, 78, 6), range(4)):
            np.multiply(g[p][:, None], g[p][None, :], out=block)
            for coefficient, basis in terms[(p, p)]:
                block += basis * coefficient
            out[row:row + 6] = block.reshape(9, m)[_UPPER_3X3]
        return out


_UPPER_3X3 = np.array([0, 1, 2, 4, 5, 8])          # (0,0), (0,1), (0,2), (1,1), (1,2), (2,2) of a 3x3
