r"""Per-hinge Hessian blocks of the bending energy, exact or projected, as upper entries.

A hinge block ``B = kappa g g^T + kappa (theta - theta0) hess theta`` is symmetric, so only its
independent entries are formed, in ``simkit._assembly.upper_layout`` order (21 of 36 for a 2D
triple, 78 of 144 for a 3D quad), one column per hinge, and ``_assembly.symmetric_pattern``
sums them. The node blocks come in closed form from ``simkit._hinge_angle``; hinges are
processed in chunks so that the temporaries stay in cache.

Projection (``psd=True``) equals ``simkit.psd_project`` of each exact block to round-off. It is
computed as the exact block plus ``sum_{lambda < floor} (floor - lambda) v v^T`` over the
eigenpairs below the floor; the translations are an exact null space of every block and get
the floor directly:

- 2D, in closed form: theta is invariant under translations, rotations and scaling, so with
  the corners centred (c) and W the 90-degree rotation of every node,
  ``hess(theta) c = -g`` and ``hess(theta) W c = W g`` (g = grad theta). In the orthonormal
  basis (c, Wc, g, Wg)/norms of the translation-free space the block reads
  ``[[0, 0, -A, 0], [0, 0, 0, A], [-A, 0, P, Q], [0, A, Q, R]]``: diagonalising ``[[P, Q], [Q, R]]``
  (eigenpairs mu, w) leaves two 2x2 problems ``[[0, A], [A, mu]]``, so all eigenpairs come from
  2x2 rotations (``_projection_2d``).
- 3D, with the batched symmetric eigensolver on the 9x9 translation-free blocks
  (``_projection_3d``). No closed form exists: the characteristic polynomial of the
  translation-free block is, for generic hinges, an irreducible degree-8 polynomial whose
  Galois group is the full symmetric group S8 (checked by factoring it modulo primes for a
  rational hinge: Frobenius cycle types (5, 2, 1), (7, 1) and (6, 1, 1) occur, and a transitive
  group of degree 8 with an element of order 5 is A8 or S8), so its eigenvalues are not
  expressible in radicals; the same holds for ``hess theta`` alone. Of the nine eigenvalues,
  four are negative whenever theta != theta0 (the block has a 4-dimensional isotropic subspace)
  and one is zero (the axial stretch), so only those eigenvectors enter the correction.
"""
import numpy as np

from . import _assembly
from ._hinge_angle import _dot, angle_difference, chunks, hinges
from .psd_project import EIGENVALUE_FLOOR

CHUNK = 4096          # hinges per chunk: the 3D temporaries are (3, 3, chunk) arrays
PSD_CHUNK_3D = 1024   # the projection's (chunk, 9, 9) eigen-decompositions prefer smaller chunks
CHUNK_2D = 16384      # 2D temporaries are (2, 2, chunk) or (6, chunk)

# 3D: y = (e, a, b) = L3 x from the corners (e0, e1, o0, o1)
L3 = np.kron(np.array([[-1.0, 1, 0, 0], [-1, 0, 1, 0], [-1, 0, 0, 1]]), np.eye(3))


class _Frame:
    """Orthonormal translation-free frame of a quad: ``G = L L^T``, reduced = ``G^(1/2) y``-blocks.

    A node block is ``L^T By L`` for an edge-vector block ``By``; ``Bt = G^(1/2) By G^(1/2)`` is the
    same operator in orthonormal coordinates of the complement of the translations.
    """

    def __init__(self, L):
        lam, Q = np.linalg.eigh(L @ L.T)
        self.half = (Q * np.sqrt(lam)) @ Q.T
        self.inv_half = (Q / np.sqrt(lam)) @ Q.T


_FRAMES = {3: _Frame(L3)}


def _edge_rows_3d():
    """Rows of the upper layout (78 rows) holding the 81 entries of the edge-vector block By.

    By's 3x3 blocks (k, j) are the node blocks (k + 1, j + 1) of (e0, e1, o0, o1); the lower
    ones and the lower halves of the diagonal ones come from symmetry.
    """
    rows, cols = _assembly.upper_layout(4, 3)
    where = {(r, c): i for i, (r, c) in enumerate(zip(rows, cols))}
    return np.array([where[(min(i, j), max(i, j))] for i in range(3, 12) for j in range(3, 12)])


_EDGE_ROWS_3D = _edge_rows_3d()


def _projection_3d(out, floor):
    """Add ``psd_project(B) - B`` to the exact upper entries out (78, m) of quads.

    With ``Bt = V diag(lambda) V^T`` the reduced block, ``psd(B) - B`` is
    ``sum_{lambda_k < floor} (floor - lambda_k) z_k z_k^T + floor * (translations)`` with
    ``z_k = L^T G^(-1/2) v_k``: eigh sorts the eigenvalues, so only the first K eigenvectors
    (K = the largest count below the floor in the chunk, typically 5 of 9) enter.
    """
    frame = _FRAMES[3]
    m = out.shape[1]
    By = np.ascontiguousarray(out[_EDGE_ROWS_3D].T).reshape(m, 9, 9)
    lam, V = np.linalg.eigh(frame.half @ By @ frame.half)
    K = int((lam < floor).sum(axis=1).max(initial=0))
    if K:
        w = np.sqrt(np.maximum(floor - lam[:, :K], 0.0))
        u = frame.inv_half @ (V[:, :, :K] * w[:, None, :])            # (m, 9, K)
        z = np.empty((m, 12, K))
        z[:, 3:] = u
        np.negative(u[:, 0:3] + u[:, 3:6] + u[:, 6:9], out=z[:, 0:3])
        full = (z @ np.swapaxes(z, 1, 2)).reshape(m, 144)
        out += full[:, _UPPER_3D].T
    out += _TRANSLATION_FLOOR_3D[:, None] * floor


_ROWS_3D, _COLS_3D = _assembly.upper_layout(4, 3)
_UPPER_3D = _ROWS_3D * 12 + _COLS_3D
_TRANSLATION_FLOOR_3D = (_ROWS_3D % 3 == _COLS_3D % 3) / 4.0


def _eig2(p, q, r):
    """Eigen-decomposition of symmetric 2x2 [[p, q], [q, r]] without trigonometry.

    Returns (larger, smaller, cos t, sin t): (cos t, sin t) is the eigenvector of the larger
    eigenvalue and (-sin t, cos t) of the smaller. The eigenvector is ``(half + radius, q)`` or
    ``(q, radius - half)`` (``half = (p - r)/2``, ``radius = hypot(half, q)``), whichever adds
    terms of the same sign; a multiple of the identity gets (1, 0).
    """
    half = 0.5 * (p - r)
    radius = np.hypot(half, q)
    mid = 0.5 * (p + r)
    right = half >= 0
    x = np.where(right, half + radius, q)
    y = np.where(right, q, radius - half)
    norm = np.hypot(x, y)
    flat = norm == 0
    norm[flat] = 1.0
    x /= norm
    y /= norm
    x[flat] = 1.0
    return mid + radius, mid - radius, x, y


def _rot(v):
    """Rotate every node of node vectors v (3, 2, m) by +90 degrees: (x, y) -> (-y, x)."""
    return np.stack([-v[:, 1], v[:, 0]], axis=1)


def _form(e, inv_sq, u, v):
    """``u^T M v`` for the triple Hessian's edge block ``M = inv_sq [[-2ab, a^2-b^2], [a^2-b^2, 2ab]]``, e = (a, b)."""
    a, b = e
    return inv_sq * ((a * a - b * b) * (u[0] * v[1] + u[1] * v[0]) + 2.0 * a * b * (u[1] * v[1] - u[0] * v[0]))


def _projection_2d(h, kappa, weight, out, floor):
    """Add ``psd_project(B) - B`` to the exact upper entries out (21, m) of triples, in closed form.

    Node-space version of the module docstring's construction: with ``s = theta - theta0``,
    ``H c = -kappa s g`` and ``H W c = kappa s W g``, so in the orthonormal basis
    (c, Wc, g, Wg)/norms ``A = kappa s |g| / |c|``, and the (g, Wg) block needs only the quadratic
    forms of hess theta, which act on the edge differences ``L g`` through the two 2x2 edge
    blocks (``(W u)^T M (W u) = -u^T M u`` for these reflection-like blocks).
    """
    e1, e2 = h.e1, h.e2
    inv1, inv2 = h.inv1, h.inv2
    g1, g2 = h.edge_gradients()
    g = np.stack([-g1, g1 - g2, g2])                          # (3, 2, m) node gradient of theta
    c = np.stack([-(2.0 * e1 + e2), e1 - e2, e1 + 2.0 * e2]) / 3.0   # centred corners
    gg = np.einsum("kim,kim->m", g, g)
    cc = np.einsum("kim,kim->m", c, c)
    d1, d2 = g[1] - g[0], g[2] - g[1]                         # L g: edge differences of g
    S1 = _form(e1, inv1 * inv1, d1, d1) - _form(e2, inv2 * inv2, d2, d2)
    S2 = _form(e1, inv1 * inv1, d1, _rot(d1[None])[0]) - _form(e2, inv2 * inv2, d2, _rot(d2[None])[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        norm_g, norm_c = np.sqrt(gg), np.sqrt(cc)
        A = weight * norm_g / norm_c
        P = kappa * gg + weight * S1 / gg
        Q = weight * S2 / gg
        R = -weight * S1 / gg
        uc, ug = c / norm_c, g / norm_g
    mu_big, mu_small, cw, sw = _eig2(P, Q, R)
    basis = (uc, _rot(uc), ug, _rot(ug))
    for mu, w0, w1 in ((mu_big, cw, sw), (mu_small, -sw, cw)):
        # [[0, A], [A, mu]] on (a, b) = (w1 Wc - w0 c, w0 g + w1 Wg): its smaller eigenvalue is <= 0
        # (product -A^2) and always corrected, v = cs b - ss a; the larger (v = cs a + ss b) where
        # it is below the floor
        lam_big, lam_small, cs, ss = _eig2(np.zeros_like(mu), A, mu)
        k = np.sqrt(floor - lam_small)
        _add_outer_2d(out, _combine(basis, (ss * w0 * k, -ss * w1 * k, cs * w0 * k, cs * w1 * k)))
        low = np.flatnonzero(lam_big < floor)
        if low.size:
            k = np.sqrt(floor - lam_big[low])
            c_, s_, w0_, w1_ = cs[low], ss[low], w0[low], w1[low]
            extra = np.zeros((out.shape[0], low.size))
            _add_outer_2d(extra, _combine([u[..., low] for u in basis],
                                          (-c_ * w0_ * k, c_ * w1_ * k, s_ * w0_ * k, s_ * w1_ * k)))
            out[:, low] += extra
    out += _TRANSLATION_FLOOR_2D[:, None] * floor


def _combine(basis, coefficients):
    """Node vectors (3, 2, m): sum of the basis vectors (3, 2, m) times per-hinge coefficients (m,)."""
    v = basis[0] * coefficients[0]
    for u, c in zip(basis[1:], coefficients[1:]):
        v += u * c
    return v


def _add_outer_2d(out, v):
    """Add the upper entries (21, m) of the 6x6 outer products of node vectors v (3, 2, m)."""
    row = 0
    for a, b in ((0, 1), (0, 2), (1, 2)):
        out[row:row + 4] += (v[a][:, None] * v[b][None, :]).reshape(4, -1)
        row += 4
    for a in range(3):
        x, y = v[a]
        out[row] += x * x
        out[row + 1] += x * y
        out[row + 2] += y * y
        row += 3


_UPPER_2D = _assembly.upper_layout(3, 2)
_TRANSLATION_FLOOR_2D = (_UPPER_2D[0] % 2 == _UPPER_2D[1] % 2) / 3.0


def _gauss_newton(h, kappa, out, floor):
    """Upper entries (u, m) of ``psd_project(kappa g g^T)``, g = grad theta: ``floor I + max(kappa |g|^2 - floor, 0) g g^T / |g|^2``."""
    g = h.gradient(np.ones_like(kappa))
    gg = _dot(g, g)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.sqrt(np.maximum(kappa * gg - floor, 0.0) / gg)
    scale[~(gg > 0)] = 0.0
    g *= scale
    q, dim = (3, 2) if g.shape[0] == 6 else (4, 3)
    m = g.shape[1]
    nodes = [g[a * dim:(a + 1) * dim] for a in range(q)]
    row = 0
    for a in range(q):                      # off-diagonal node blocks, full (upper_layout order)
        for b in range(a + 1, q):
            np.multiply(nodes[a][:, None], nodes[b][None, :], out=out[row:row + dim * dim].reshape(dim, dim, m))
            row += dim * dim
    upper_i, upper_j = np.triu_indices(dim)
    for a in range(q):                      # diagonal node blocks, upper triangles
        np.multiply(nodes[a][upper_i], nodes[a][upper_j], out=out[row:row + upper_i.size])
        out[row + _DIAGONAL[dim]] += floor
        row += upper_i.size


_DIAGONAL = {d: np.flatnonzero(np.equal(*np.triu_indices(d))) for d in (2, 3)}


# the projections of a hinge block, ``psd`` of ``upper_blocks``
PROJECTIONS = ("exact", "gauss-newton")


def upper_blocks(Xt, C, theta0, kappa, psd, chunk=None):
    """Upper entries (u, c) of every hinge block ``kappa (g g^T + (theta - theta0) hess theta)``, or of a projection.

    Parameters
    ----------
    Xt : (dim, n) float array
        Positions, transposed and contiguous.
    C : (c, dim + 1) int array
        Hinges.
    theta0, kappa : (c,) float arrays
        Rest angles and stiffness.
    psd : False, "exact" or "gauss-newton"
        False: the exact block. "exact": ``psd_project`` of it (eigenvalues raised to
        ``EIGENVALUE_FLOOR``). "gauss-newton": ``psd_project`` of the Gauss-Newton term
        ``kappa g g^T`` alone (the curvature term dropped), in closed form.
    chunk : int, optional
        Hinges per chunk (default: the measured best of ``CHUNK``, ``PSD_CHUNK_3D``, ``CHUNK_2D``).
    """
    dim = Xt.shape[0]
    q = dim + 1
    rows, cols = _assembly.upper_layout(q, dim)
    out = np.empty((rows.size, C.shape[0]))
    floor_block = (EIGENVALUE_FLOOR * (rows == cols))[:, None]
    chunk = chunk or (CHUNK_2D if q == 3 else PSD_CHUNK_3D if psd == "exact" else CHUNK)
    for sl in chunks(C.shape[0], chunk):
        h = hinges(Xt, C[sl])
        k = kappa[sl]
        part = out[:, sl]
        if psd == "gauss-newton":
            _gauss_newton(h, k, part, EIGENVALUE_FLOOR)
            continue
        weight = k * angle_difference(h.theta, theta0[sl])
        h.upper_blocks(k, weight, part)
        if psd and q == 3:
            _projection_2d(h, k, weight, part, EIGENVALUE_FLOOR)
        elif psd:
            _projection_3d(part, EIGENVALUE_FLOOR)
        if psd and h.degenerate.any():
            # psd_project of a zero block; the 2D closed form needs a non-degenerate hinge frame
            part[:, h.degenerate] = floor_block
    return out
