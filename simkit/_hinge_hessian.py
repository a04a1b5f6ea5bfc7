r"""Per-hinge Hessian blocks of the bending energy, exact or projected, as upper entries.

A hinge block ``B = kappa g g^T + kappa (theta - theta0) hess theta`` is symmetric, so only its
independent entries are formed, in ``simkit._assembly.upper_layout`` order (21 of 36 for a 2D
triple, 78 of 144 for a 3D quad), one column per hinge, and ``_assembly.symmetric_pattern``
sums them. The node blocks come in closed form from ``simkit._hinge_angle``; hinges are
processed in chunks so that the temporaries stay in cache.

Projection (``psd=True``) equals ``simkit.psd_project`` of each exact block to round-off. The
translations are an exact null space of every block, so the projection works in the
orthonormal translation-free frame (4x4 in 2D, 9x9 in 3D, ``_Frame``) and gives the
translations the floor:

- 2D, in closed form: theta is invariant under translations, rotations and scaling, so with
  the corners centred (c) and W the 90-degree rotation of every node,
  ``hess(theta) c = -g`` and ``hess(theta) W c = W g`` (g = grad theta). In the orthonormal
  basis (c, Wc, g, Wg)/norms the reduced block reads
  ``[[0, 0, -A, 0], [0, 0, 0, A], [-A, 0, P, Q], [0, A, Q, R]]``: diagonalising ``[[P, Q], [Q, R]]``
  (eigenpairs mu, w) leaves two 2x2 problems ``[[0, A], [A, mu]]``, so all eigenpairs come from
  2x2 rotations.
- 3D, with the batched symmetric eigensolver on the 9x9 reduced blocks. No closed form exists:
  the characteristic polynomial of the translation-free block is, for generic hinges, an
  irreducible degree-8 polynomial with Galois group S8 (checked by factoring it modulo primes
  for a rational hinge: Frobenius cycle types (5, 2, 1) and (7, 1) occur), so its eigenvalues
  are not expressible in radicals; the same holds for ``hess theta`` alone.
"""
import numpy as np

from . import _assembly
from ._hinge_angle import L2, angle_difference, chunks, hinges
from .psd_project import EIGENVALUE_FLOOR

CHUNK = 4096          # hinges per chunk: the 3D temporaries are (3, 3, chunk) arrays
PSD_CHUNK_3D = 1024   # the projection's (chunk, 9, 9) eigen-decompositions prefer smaller chunks

# 3D: y = (e, a, b) = L3 x from the corners (e0, e1, o0, o1)
L3 = np.kron(np.array([[-1.0, 1, 0, 0], [-1, 0, 1, 0], [-1, 0, 0, 1]]), np.eye(3))


class _Frame:
    """Orthonormal translation-free frame of a hinge: ``G = L L^T``, reduced = ``G^(1/2) y``-blocks.

    A node block is ``L^T By L`` for an edge-vector block ``By``; ``Bt = G^(1/2) By G^(1/2)`` is the
    same operator in orthonormal coordinates of the complement of the translations.
    """

    def __init__(self, L):
        lam, Q = np.linalg.eigh(L @ L.T)
        self.half = (Q * np.sqrt(lam)) @ Q.T
        self.inv_half = (Q / np.sqrt(lam)) @ Q.T


_FRAMES = {2: _Frame(L2), 3: _Frame(L3)}


def _write_upper(out, blocks, q, dim):
    """Store node blocks {(a, b): (dim, dim, m)} into out (u, m) in upper_layout order."""
    row = 0
    for a in range(q):
        for b in range(a + 1, q):
            out[row:row + dim * dim] = np.broadcast_to(blocks[(a, b)], (dim, dim, out.shape[1])
                                                       ).reshape(dim * dim, -1)
            row += dim * dim
    iu = np.triu_indices(dim)
    for a in range(q):
        out[row:row + iu[0].size] = blocks[(a, a)][iu]
        row += iu[0].size


def _sandwich_2d(M, By):
    """``M By M`` for a triple's edge block By (4, 4, m), M = kron([[p, q], [q, p]], I2) (as frame matrices).

    Works on the 2x2 edge blocks: ``(M By M)_kl = sum_ij G_ki By_ij G_jl`` with G = [[p, q], [q, p]].
    """
    p, q = M[0, 0], M[0, 2]
    B = By.reshape(2, 2, 2, 2, -1)
    B00, B01, B10, B11 = B[0, :, 0], B[0, :, 1], B[1, :, 0], B[1, :, 1]
    cross = p * q * (B01 + B10)
    out = np.empty_like(B)
    out[0, :, 0] = p * p * B00 + q * q * B11 + cross
    out[1, :, 1] = q * q * B00 + p * p * B11 + cross
    out[0, :, 1] = p * q * (B00 + B11) + p * p * B01 + q * q * B10
    out[1, :, 0] = out[0, :, 1].transpose(1, 0, 2)
    return out.reshape(4, 4, -1)


def _edge_block_3d(blocks):
    """The 9x9 edge-vector block By (9, 9, m) of a quad: node blocks (1..3, 1..3)."""
    m = blocks[(1, 1)].shape[-1]
    By = np.empty((3, 3, 3, 3, m))
    for k in range(3):
        for j in range(k, 3):
            B = np.broadcast_to(blocks[(k + 1, j + 1)], (3, 3, m))
            By[k, :, j] = B
            if j != k:
                By[j, :, k] = B.transpose(1, 0, 2)
    return By.reshape(9, 9, m)


def _node_blocks_2d(By, floor):
    """Node blocks ``L^T By L + floor * (translation projector)`` of a triple's edge block By (4, 4, m)."""
    Byb = By.reshape(2, 2, 2, 2, -1)
    B11, B12, B22 = Byb[0, :, 0], Byb[0, :, 1], Byb[1, :, 1]
    B21 = B12.transpose(1, 0, 2)
    extra = floor / 3.0 * np.eye(2)[:, :, None]
    return {(0, 0): B11 + extra, (0, 1): B12 - B11 + extra, (0, 2): extra - B12,
            (1, 1): B11 - B12 - B21 + B22 + extra, (1, 2): B12 - B22 + extra, (2, 2): B22 + extra}


def _projection_3d(blocks, out, floor):
    """Add ``psd_project(B) - B`` to the exact upper entries out[:, sl] of quads.

    With ``Bt = V diag(lambda) V^T`` the reduced block, ``psd(B) - B`` is
    ``sum_{lambda_k < floor} (floor - lambda_k) z_k z_k^T + floor * (translations)`` with
    ``z_k = L^T G^(-1/2) v_k``: eigh sorts the eigenvalues, so only the first K eigenvectors
    (K = the largest count below the floor in the chunk, typically 5 of 9) enter.
    """
    frame = _FRAMES[3]
    m = out.shape[1]
    By = np.ascontiguousarray(np.moveaxis(_edge_block_3d(blocks), -1, 0))
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


def _edge_block_2d(blocks):
    m = blocks[(0, 0)].shape[-1]
    By = np.empty((2, 2, 2, 2, m))
    By[0, :, 0] = blocks[(0, 0)]
    By[1, :, 1] = blocks[(2, 2)]
    B12 = -np.broadcast_to(blocks[(0, 2)], (2, 2, m))
    By[0, :, 1] = B12
    By[1, :, 0] = B12.transpose(1, 0, 2)
    return By.reshape(4, 4, m)


def _unit(v):
    """Normalize the columns of a (4, m) array (zero columns stay zero)."""
    norm = np.sqrt(np.einsum("ik,ik->k", v, v))
    return v / np.where(norm > 0, norm, 1.0)


def _rotate(v):
    """Rotate both 2D halves of each 4-vector column by +90 degrees: (x, y) -> (-y, x)."""
    return np.stack([-v[1], v[0], -v[3], v[2]])


def _apply(B, v):
    """(4, m) products ``B_k v_k`` of the (4, 4, m) matrices B with the (4, m) vectors v."""
    return B[:, 0] * v[0] + B[:, 1] * v[1] + B[:, 2] * v[2] + B[:, 3] * v[3]


def _eig2(p, q, r):
    """Eigen-decomposition of symmetric 2x2 [[p, q], [q, r]] without trigonometry.

    Returns (larger, smaller, cos t, sin t): (cos t, sin t) is the eigenvector of the larger
    eigenvalue and (-sin t, cos t) of the smaller, ``t = atan2(q, (p - r)/2) / 2``. The
    half-angle formulas take the square root only of the non-cancelling ``1 +- cos 2t``.
    """
    half = 0.5 * (p - r)
    radius = np.hypot(half, q)
    mid = 0.5 * (p + r)
    flat = radius == 0
    safe = np.where(flat, 1.0, radius)
    cos2 = np.where(flat, 1.0, half / safe)
    sin2 = np.where(flat, 0.0, q / safe)
    upper = cos2 >= 0
    cos_t = np.sqrt(0.5 * (1.0 + np.where(upper, cos2, -cos2)))
    cos_t, sin_t = (np.where(upper, cos_t, 0.5 * np.abs(sin2) / cos_t),
                    np.where(upper, 0.5 * sin2 / cos_t, np.copysign(cos_t, sin2)))
    return mid + radius, mid - radius, cos_t, sin_t


def _project_2d(blocks, triples, floor):
    """Projected node blocks of triples, in closed form (module docstring).

    ``psd(Bt) = Bt + sum_a (max(lambda_a, floor) - lambda_a) v_a v_a^T``. Of each pair
    ``[[0, A], [A, mu]]`` the smaller eigenvalue is <= 0 (the product is -A^2) and always
    corrected; the larger one only where it is below the floor.
    """
    frame = _FRAMES[2]
    Bt = _sandwich_2d(frame.half, _edge_block_2d(blocks))
    m = Bt.shape[-1]
    flat = Bt.reshape(16, m)
    g1, g2 = triples.edge_gradients()
    u1 = _unit(frame.inv_half @ np.concatenate([triples.e1, triples.e2]))
    u3 = _unit(frame.half @ np.concatenate([g1, g2]))
    u2, u4 = _rotate(u1), _rotate(u3)
    Bu4 = _apply(Bt, u4)
    A = np.einsum("ik,ik->k", u2, Bu4)
    mu_big, mu_small, cw, sw = _eig2(np.einsum("ik,ik->k", u3, _apply(Bt, u3)),
                                     np.einsum("ik,ik->k", u3, Bu4), np.einsum("ik,ik->k", u4, Bu4))
    for mu, w0, w1 in ((mu_big, cw, sw), (mu_small, -sw, cw)):
        lam_big, lam_small, cs, ss = _eig2(np.zeros_like(mu), A, mu)
        a = w1 * u2 - w0 * u1
        b = w0 * u3 + w1 * u4
        v = (cs * b - ss * a) * np.sqrt(floor - lam_small)
        flat += (v[:, None] * v[None, :]).reshape(16, m)
        low = np.flatnonzero(lam_big < floor)
        if low.size:
            v = (cs[low] * a[:, low] + ss[low] * b[:, low]) * np.sqrt(floor - lam_big[low])
            flat[:, low] += (v[:, None] * v[None, :]).reshape(16, low.size)
    return _node_blocks_2d(_sandwich_2d(frame.inv_half, Bt), floor)


def upper_blocks(Xt, C, theta0, kappa, psd, chunk=None):
    """Upper entries (u, c) of every hinge block ``kappa (g g^T + (theta - theta0) hess theta)``, or of its projection.

    Parameters
    ----------
    Xt : (dim, n) float array
        Positions, transposed and contiguous.
    C : (c, dim + 1) int array
        Hinges.
    theta0, kappa : (c,) float arrays
        Rest angles and stiffness.
    psd : bool
        Project every block onto eigenvalues >= ``EIGENVALUE_FLOOR`` (as ``psd_project``).
    chunk : int, optional
        Hinges per chunk (default: measured best, ``CHUNK`` or ``PSD_CHUNK_3D``).
    """
    dim = Xt.shape[0]
    q = dim + 1
    rows, cols = _assembly.upper_layout(q, dim)
    out = np.empty((rows.size, C.shape[0]))
    floor_block = (EIGENVALUE_FLOOR * (rows == cols))[:, None]
    chunk = chunk or (PSD_CHUNK_3D if psd and q == 4 else CHUNK)
    for sl in chunks(C.shape[0], chunk):
        h = hinges(Xt, C[sl])
        k = kappa[sl]
        blocks = h.node_blocks(k, k * angle_difference(h.theta, theta0[sl]))
        if psd and q == 3:
            blocks = _project_2d(blocks, h, EIGENVALUE_FLOOR)
        part = out[:, sl]
        _write_upper(part, blocks, q, dim)
        if psd and q == 4:
            _projection_3d(blocks, part, EIGENVALUE_FLOOR)
        if psd and h.degenerate.any():
            # psd_project of a zero block; the 2D closed form needs a non-degenerate hinge frame
            part[:, h.degenerate] = floor_block
    return out
