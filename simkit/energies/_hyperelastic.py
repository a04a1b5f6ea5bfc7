"""Shared machinery of the hyperelastic energies: input checks, the material registry, assembly.

Every material module writes its formulas once (psi, P = dpsi/dF, dP/dF and, for the isotropic
ones, the eigenvalues of the analytic eigensystem), over components with the element axis
last (``F[i, j]`` is a (t,) array, see ``simkit._small_matrices``), and registers them as a
``Material``. The global tier turns them into energies of node positions through the
deformation Jacobian J (``F = (J x).reshape(t, d, d)``)::

    E(x) = sum_e vol_e psi(F_e),   g = J^T vec(vol P),   H = J^T blockdiag(vol dP/dF) J

The Hessian is assembled per element, ``B_e = L_e^T (vol dP/dF)_e L_e`` with ``L_e`` J's rows
of element e on its own dofs. For a P1 Jacobian (``simkit.deformation_jacobian``: row (e, i, j)
holds ``dN_a/dX_j`` in the columns of component i of the element's d+1 nodes) ``L_e`` comes
from the shape-function gradients G. Neo-Hookean and ARAP write the 78 (3D) upper entries of
``B_e`` in closed form (``x_upper``): neo-Hookean's exact blocks, projected by adding the
clamped twist modes as rank-1 terms (``correct_twists``; whole projected blocks only for the
few elements with a negative flip eigenvalue or an indefinite scaling block), ARAP's as
``mu L^T L`` plus its twist modes. The other isotropic materials go from their eigensystem
straight to ``B_e`` (``isotropic_blocks``). The upper entries are summed by the pattern of
``simkit._assembly.symmetric_pattern``. Any other operator goes through
``_assembly.operator_pattern``. Kernels run in chunks of ``CHUNK`` elements.
"""
import functools

import numpy as np
import scipy.sparse as sps

from .. import _assembly, _isotropic_eigensystem, _validate
from .._cache import ArrayKeyedCache
from .._small_matrices import components, det, matmul, stacked


class Material:
    """One material's formulas (unchecked; F is (d, d, t), mu and lam are (t,) arrays).

    psi(F, mu, lam) -> (t,); P -> (d, d, t); dPdF -> (d*d, d*d, t), row-major F;
    eigenvalues(sigma, mu, lam) -> (A (d, d, t), flip (p, t), twist (p, t)) of the analytic
    eigensystem (``simkit._isotropic_eigensystem``), or None when the exact Hessian is already
    PSD (linear elasticity); dPdF None: built from the eigensystem. positive_det: only defined
    for det F > 0 (+inf energy; gradient and Hessian raise). nonzero_lam: lam = 0 is an error.
    Optional closed form of the x-space element blocks: x_upper(out, F, mu, lam, Gc, GG, svd, psd)
    writes into out (u, t) the upper entries (``_assembly.upper_layout``) of ``L^T dP/dF L``, Gc
    (d+1, d, t), GG (``Structure.gg``), svd ``svd_rv(F)`` or None, mu and lam already times vol;
    with x_upper_projects it projects them itself (and always gets svd), otherwise it writes the
    exact blocks and psd clamps them through ``correct_twists`` / ``project_elements``.
    """

    def __init__(self, name, psi, P, dPdF=None, eigenvalues=None, positive_det=False, uses_lam=True, x_upper=None,
                 nonzero_lam=False, x_upper_projects=False):
        self.name, self.psi, self.P, self._dPdF = name, psi, P, dPdF
        self.eigenvalues, self.positive_det, self.uses_lam = eigenvalues, positive_det, uses_lam
        self.x_upper, self.nonzero_lam, self.x_upper_projects = x_upper, nonzero_lam, x_upper_projects

    def check_domain(self, F, name):
        """ValueError naming the elements with det F <= 0 where the energy is undefined there."""
        if not self.positive_det:
            return
        bad = np.concatenate([~(det(F[..., s:s + CHUNK]) > 0) for s in range(0, F.shape[-1], CHUNK)])
        if bad.any():
            which = np.flatnonzero(bad)
            shown = ", ".join(str(i) for i in which[:10]) + (", ..." if which.size > 10 else "")
            raise ValueError(f"{name}: {self.name} is undefined for inverted or degenerate elements (det F <= 0; "
                             f"the energy is +inf there), found {which.size} of {F.shape[-1]}: elements [{shown}]")

    def dPdF(self, F, mu, lam, psd=False):
        """Exact dP/dF, or with psd its projection (analytic eigenvalues clamped at 0): (d*d, d*d, t)."""
        if self.eigenvalues is None or (not psd and self._dPdF is not None):
            return self._dPdF(F, mu, lam)
        U, sigma, V = _isotropic_eigensystem.svd_rv(F)
        return _isotropic_eigensystem.hessian(U, V, *self.eigenvalues(sigma, mu, lam), project=psd)

    def closed_form_blocks(self):
        """Whether ``x_upper`` (closed-form upper entries) replaces ``x_blocks``."""
        return self.x_upper is not None

    def x_blocks(self, F, mu, lam, vol, G, psd):
        """Every element's x-space block ``vol L^T dP/dF L``: (t, (d+1)d, (d+1)d), for P1 elements (G (t, d+1, d))."""
        if self.eigenvalues is not None and (psd or self._dPdF is None):
            U, sigma, V = _isotropic_eigensystem.svd_rv(F)
            A, flip, twist = self.eigenvalues(sigma, mu, lam)
            if psd:
                A, flip, twist = _isotropic_eigensystem.clamp(A, flip, twist)
            return isotropic_blocks(stacked(U), stacked(V), stacked(A * vol), (flip * vol).T, (twist * vol).T, G)
        L = p1_local_rows(G)
        return np.swapaxes(L, 1, 2) @ stacked(self._dPdF(F, mu, lam) * vol) @ L


MATERIALS = {}
# upstream simkit's order, in which names are listed
ORDER = ("linear-elasticity", "arap", "fcr", "neo-hookean", "stable-neo-hookean")


def register(material):
    MATERIALS[material.name] = material
    for name in sorted(MATERIALS, key=ORDER.index):
        MATERIALS[name] = MATERIALS.pop(name)
    return material


def material(name):
    """The registered Material called `name`; ValueError listing the known ones."""
    if not isinstance(name, str) or name not in MATERIALS:
        known = ", ".join(repr(m) for m in MATERIALS)
        raise ValueError(f"material: expected one of {known}, got {name!r}")
    return MATERIALS[name]


# ------------------------------------------------------------------ input checks

def parameters(mat, mu, lam, t):
    """mu >= 0 and lam (finite) per element as (t,) arrays; lam is zeros for a material without it."""
    mu = _validate.element_param(mu, "mu", t)
    lam = _validate.element_values(lam, "lam", t) if mat.uses_lam else np.zeros(t)
    if mat.nonzero_lam and t and not np.all(lam != 0):
        raise ValueError(f"lam: {mat.name} divides by lam (alpha = 1 + d mu / ((d + 1) lam)); expected non-zero "
                         f"values, found {int(np.sum(lam == 0))} zero")
    return mu, lam


def element_inputs(mat, F, mu, lam):
    """Checked element-tier inputs: F (t, d, d) with d in (2, 3) as components (d, d, t), mu, lam (t,)."""
    F = _validate.finite_array(F, "F")
    if F.ndim == 2 and F.shape[0] == F.shape[1]:
        F = F[None]
    if F.ndim != 3 or F.shape[1] != F.shape[2] or F.shape[1] not in (2, 3):
        raise ValueError(f"F: expected deformation gradients of shape (t, d, d) with d 2 or 3, got {np.shape(F)}")
    return (components(F), *parameters(mat, mu, lam, F.shape[0]))


def x_inputs(mat, X, J, mu, lam, vol):
    """Checked global-tier inputs; returns (J, F, mu, lam, vol) with F = J x as components (d, d, t)."""
    X = _validate.positions(X, "X", dims=(2, 3))
    n, d = X.shape
    if not sps.issparse(J):
        arr = _validate.real_array(J, "J")
        if arr.ndim != 2:
            raise ValueError(f"J: expected a 2D operator of shape (d*d*t, {n * d}), got {arr.shape}")
        J = sps.csr_matrix(arr)
    if J.ndim != 2 or J.shape[1] != n * d or J.shape[0] % (d * d):
        raise ValueError(f"J: expected shape (t*{d * d}, {n * d}) (a deformation Jacobian of the {n} nodes of X "
                         f"in {d}D), got {J.shape}")
    t = J.shape[0] // (d * d)
    mu, lam = parameters(mat, mu, lam, t)
    vol = _validate.element_param(vol, "vol", t)
    F = J @ X.reshape(-1, 1)
    if not np.isfinite(F).all():
        raise ValueError("J: expected finite entries, found NaN or inf (F = J x is not finite)")
    return J, components(F.reshape(t, d, d)), mu, lam, vol


# ------------------------------------------------------------------ the operator's element structure

class Structure:
    """How a deformation Jacobian's rows act per element, for the Hessian assembly.

    Either P1 (``G`` (t, d+1, d) shape-function gradients of the nodes ``T`` (t, d+1), and
    ``summation``: the element blocks (t, p, p), p = d(d+1), flattened, to the symmetric CSC
    pattern) or generic (``operator``: an ``_assembly.OperatorPattern``).
    """

    def __init__(self, T=None, G=None, operator=None, ndof=None):
        self.T, self.G, self.operator = T, G, operator
        if G is not None:
            self._summation(T, G.shape[2], ndof)

    def _summation(self, T, d, ndof):
        # the symmetric pattern sums upper entries laid out (entry r, element e) -> column r*t + e;
        # here the same sums read them straight from the full blocks: column e*p*p + row*p + col
        sp = _assembly.symmetric_pattern(T, d, ndof)
        t, p = T.shape[0], T.shape[1] * d
        rows, cols = _assembly.upper_layout(T.shape[1], d)
        S = sp.summation.tocoo()
        r, e = np.divmod(S.col, t)
        full = e * (p * p) + (rows * p + cols)[r]
        self.summation = sps.csr_matrix((S.data, (S.row, full)), shape=(S.shape[0], t * p * p))
        self.indptr, self.indices, self.expand, self.ndof = sp.indptr, sp.indices, sp.expand, ndof
        self.pattern = sp

    def components(self):
        """G component-major, (d+1, d, t) (cached)."""
        if getattr(self, "_Gc", None) is None:
            self._Gc = np.ascontiguousarray(np.moveaxis(self.G, 0, -1))
        return self._Gc

    def gg(self):
        """``(G G^T)_ab`` of every element for the node pairs a < b of ``block_layout``, then a = b: (rows, t) (cached)."""
        if getattr(self, "_gg", None) is None:
            Gc = self.components()
            A, B = np.triu_indices(Gc.shape[0], 1)
            pair = np.concatenate([A, np.arange(Gc.shape[0])]), np.concatenate([B, np.arange(Gc.shape[0])])
            self._gg = np.einsum("ajt,ajt->at", Gc[pair[0]], Gc[pair[1]])
        return self._gg

    def buffer(self):
        """A reused (t, p, p) array for the element blocks (a fresh 40 MB array costs its page faults each call)."""
        if getattr(self, "_buffer", None) is None:
            t, q, d = self.G.shape
            self._buffer = np.empty((t, q * d, q * d))
        return self._buffer

    def matrix(self, blocks):
        """Sum symmetric element blocks (t, p, p) (upper triangles read) into the CSC Hessian."""
        data = (self.summation @ blocks.reshape(-1))[self.expand]
        H = sps.csc_matrix((data, self.indices.copy(), self.indptr.copy()), shape=(self.ndof, self.ndof))
        H.has_sorted_indices = True
        H.has_canonical_format = True
        return H


def _recognize(J, d):
    """Structure of J: P1 if every element's rows are ``dN_a/dX_j`` on component i of d+1 nodes."""
    C = J.tocsr()
    C.sum_duplicates()
    m, N = C.shape
    t, q = m // (d * d), d + 1
    if not (np.diff(C.indptr) == q).all():
        return Structure(operator=_assembly.operator_pattern(J, N, dim=d * d))
    cols = C.indices.reshape(t, d, d, q).astype(np.int64)
    vals = C.data.reshape(t, d, d, q)
    nodes, comp = np.divmod(cols, d)
    if not ((nodes == nodes[:, :1, :1]).all() and (comp == np.arange(d)[None, :, None, None]).all()
            and (vals == vals[:, :1]).all()):
        return Structure(operator=_assembly.operator_pattern(J, N, dim=d * d))
    return Structure(nodes[:, 0, 0], np.ascontiguousarray(np.swapaxes(vals[:, 0], 1, 2)), ndof=N)


_structures = ArrayKeyedCache()


def structure(J, d):
    """Cached Structure of a validated Jacobian J (content-keyed)."""
    if J.format not in ("csr", "csc"):
        J = J.tocsr()
    return _structures.get((J.format, J.shape, d), (J.indptr, J.indices, J.data), lambda: _recognize(J, d))


def p1_local_rows(G):
    """Rows of J of every element on its own dofs: ``L[e, (i, j), (a, c)] = delta_ic G[e, a, j]``, (t, d*d, (d+1)d)."""
    t, q, d = G.shape
    L = np.zeros((t, d, d, q, d))
    for i in range(d):
        L[:, i, :, :, i] = np.swapaxes(G, 1, 2)
    return L.reshape(t, d * d, q * d)


def isotropic_blocks(U, V, A, flip, twist, G):
    """Element blocks ``L^T H L`` (t, p, p) for H given by its analytic eigensystem.

    Element-major arrays: U, V, A (t, d, d), flip, twist (t, npairs), G (t, d+1, d). The
    direction ``u_p v_r^T`` of F maps to the x-space vector ``z_pr = vec((G V)[:, r] u_p^T)``
    (over (a, i)). With M the scaling modes z_pp and, per pair (i, j), ``f, w = z_ij +- z_ji``,
    ``B = M Lambda M^T``, Lambda = A on the scaling modes and flip / 2, twist / 2 on f and w:
    no d^2 x d^2 Hessian is formed.
    """
    t, q, d = G.shape
    GV = G @ V
    z = lambda p, r: GV[:, :, r, None] * U[:, None, :, p]          # noqa: E731  (t, q, d)
    pairs = _isotropic_eigensystem.pairs(d)
    M = np.empty((t, q, d, d + 2 * len(pairs)))
    for p in range(d):
        M[..., p] = z(p, p)
    for n, (i, j) in enumerate(pairs):
        zij, zji = z(i, j), z(j, i)
        np.add(zij, zji, out=M[..., d + 2 * n])
        np.subtract(zij, zji, out=M[..., d + 2 * n + 1])
    N = np.empty_like(M)
    N[..., :d] = (M[..., :d].reshape(t, q * d, d) @ A).reshape(t, q, d, d)
    for n in range(len(pairs)):
        np.multiply(M[..., d + 2 * n], (0.5 * flip[:, n])[:, None, None], out=N[..., d + 2 * n])
        np.multiply(M[..., d + 2 * n + 1], (0.5 * twist[:, n])[:, None, None], out=N[..., d + 2 * n + 1])
    return N.reshape(t, q * d, -1) @ np.swapaxes(M.reshape(t, q * d, -1), 1, 2)


@functools.lru_cache(maxsize=None)
def block_layout(q, d):
    """The node blocks of ``_assembly.upper_layout`` as row indices (numpy gathers fast along the first axis only).

    Returns A, B (node pairs a < b of the off-diagonal blocks, each a full row-major d x d
    block), I, K (rows ``a*d + i``, ``a*d + k`` of node-major x-space vectors (q*d, t) for the
    upper triangle i <= k of each diagonal block, in order), and ``eye``, ``src``: the upper
    entries with i = c (the identity pattern of ``L^T L``) and the row of ``Structure.gg`` each reads.
    """
    A, B = np.triu_indices(q, 1)
    i, k = np.triu_indices(d)
    I, K = (np.arange(q)[:, None] * d + i).ravel(), (np.arange(q)[:, None] * d + k).ravel()
    n = A.size * d * d
    r = np.arange(d)
    eye = np.concatenate([(np.arange(A.size)[:, None] * d * d + r * d + r).ravel(),
                          n + (np.arange(q)[:, None] * i.size + np.flatnonzero(i == k)).ravel()])
    src = np.concatenate([np.repeat(np.arange(A.size), d), A.size + np.repeat(np.arange(q), d)])
    return A, B, I, K, eye, src


def split_upper(upper, q, d):
    """Views of upper entries (u, t): the off-diagonal blocks (pairs, d, d, t) and the diagonal blocks' rows."""
    n = q * (q - 1) // 2 * d * d
    return np.reshape(upper[:n], (-1, d, d, upper.shape[-1]), copy=False), upper[n:]


def add_outer_upper(upper, w, coef, first=False):
    """``upper += upper entries of coef w w^T`` for x-space vectors w (d+1, d, t) (node-major), coef (t,);
    ``upper =`` with `first`."""
    q, d, t = w.shape
    A, B, I, K = block_layout(q, d)[:4]
    off, diag = split_upper(upper, q, d)
    cw = coef * w
    if first:
        np.multiply(cw[A][:, :, None], w[B][:, None, :], out=off)
        np.multiply(cw.reshape(q * d, t)[I], w.reshape(q * d, t)[K], out=diag)
    else:
        off += cw[A][:, :, None] * w[B][:, None, :]
        diag += cw.reshape(q * d, t)[I] * w.reshape(q * d, t)[K]


def add_identity_upper(upper, coef, GG, q, d):
    """``upper += upper entries of coef (G G^T) (x) I`` (``L^T L`` scaled by coef (t,)); GG from ``Structure.gg``."""
    eye, src = block_layout(q, d)[4:]
    upper[eye] += coef * GG[src]


def pair_modes(U, V, Gc):
    """x-space vectors of the twist directions ``u_i v_j^T - u_j v_i^T`` of every pair: (p, d+1, d, t).

    The F-space direction ``u_p v_r^T`` maps to ``(G V)_ar U_cp`` at node a, component c."""
    GV = matmul(Gc, V)
    return [GV[:, j, None] * U[None, :, i] - GV[:, i, None] * U[None, :, j]
            for i, j in _isotropic_eigensystem.pairs(U.shape[0])]


def new_upper(q, d, t):
    """An uninitialised array for the upper entries (u, t) of t element blocks."""
    return np.empty((q * (q - 1) // 2 * d * d + q * d * (d + 1) // 2, t))


def correct_twists(upper, mat, U, sigma, V, mu, lam, Gc):
    """Clamp the negative twist eigenvalues of exact blocks given by their upper entries (u, t), in place:
    ``B - sum_pairs min(twist, 0) / 2 w w^T`` (``pair_modes``). That is the whole projection where
    the flip eigenvalues are >= 0 and A is positive definite (mild compression, the common case);
    returns the indices of the other elements, for ``project_elements``. mu and lam: times vol."""
    A, flip, twist = mat.eigenvalues(sigma, mu, lam)
    for w, tw in zip(pair_modes(U, V, Gc), twist):
        if (tw < 0).any():
            add_outer_upper(upper, w, -0.5 * np.minimum(tw, 0.0))
    return np.flatnonzero((flip < 0).any(axis=0) | ~_isotropic_eigensystem.positive_definite(A))


def project_elements(upper, which, mat, U, sigma, V, mu, lam, Gc):
    """Overwrite the upper entries (u, t) of elements `which` with their projected blocks (``isotropic_blocks``);
    U, sigma, V: their SVD."""
    q, d, _ = Gc.shape
    A, flip, twist = _isotropic_eigensystem.clamp(*mat.eigenvalues(sigma, mu[which], lam[which]))
    blocks = isotropic_blocks(stacked(U), stacked(V), stacked(A), flip.T, twist.T, stacked(Gc[..., which]))
    rows, cols = _assembly.upper_layout(q, d)
    upper[:, which] = blocks[:, rows, cols].T


# elements per block of the kernels: their many temporaries then stay in cache and are reused by
# malloc (fresh arrays of a whole mesh cost their page faults, which dominate elementwise numpy here)
CHUNK = 4096


# ------------------------------------------------------------------ global tier kernels (checked inputs)

def energy(mat, F, mu, lam, vol):
    psi = mat.psi(F, mu, lam)
    if mat.positive_det and np.isinf(psi).any():
        return float(np.inf)
    return float(vol @ psi)


def gradient(mat, J, F, mu, lam, vol):
    mat.check_domain(F, "X")
    d, t = F.shape[0], F.shape[-1]
    P = np.empty((t, d, d))                                 # J's row order (e, i, j)
    for s in range(0, t, CHUNK):
        e = slice(s, s + CHUNK)
        P[e] = np.moveaxis(mat.P(F[..., e], mu[e], lam[e]) * vol[e], -1, 0)
    return np.asarray(J.T @ P.reshape(-1, 1))


def hessian(mat, struct, F, mu, lam, vol, psd):
    mat.check_domain(F, "X")
    t = F.shape[-1]
    if struct.G is None:
        L = struct.operator.local
        return struct.operator.pattern.matrix(np.swapaxes(L, 1, 2) @ stacked(mat.dPdF(F, mu, lam, psd) * vol) @ L)
    if mat.closed_form_blocks():
        q, d = struct.G.shape[1:]
        Gc, GG = struct.components(), struct.gg()
        correct = psd and not mat.x_upper_projects
        mu, lam = mu * vol, lam * vol
        upper, rest = new_upper(q, d, t), []
        for s in range(0, t, CHUNK):
            e = slice(s, s + CHUNK)
            svd = _isotropic_eigensystem.svd_rv(F[..., e]) if correct or mat.x_upper_projects else None
            block = upper[:, e]
            mat.x_upper(block, F[..., e], mu[e], lam[e], Gc[..., e], GG[:, e], svd, psd)
            if correct:
                which = correct_twists(block, mat, *svd, mu[e], lam[e], Gc[..., e])
                if which.size:
                    rest.append((s + which, *(a[..., which] for a in svd)))
        if rest:
            which, U, sigma, V = (np.concatenate(a, axis=-1) for a in zip(*rest))
            project_elements(upper, which, mat, U, sigma, V, mu, lam, Gc)
        return struct.pattern.matrix(upper)
    blocks = struct.buffer()
    for s in range(0, t, CHUNK):
        e = slice(s, s + CHUNK)
        blocks[e] = mat.x_blocks(F[..., e], mu[e], lam[e], vol[e], struct.G[e], psd)
    return struct.matrix(blocks)


# ------------------------------------------------------------------ the public tiers of every material module
# (each module writes out its six functions as defs that call these with its MATERIAL)

def energy_element(mat, F, mu, lam):
    F, mu, lam = element_inputs(mat, F, mu, lam)
    return mat.psi(F, mu, lam).reshape(-1, 1)


def gradient_element(mat, F, mu, lam):
    F, mu, lam = element_inputs(mat, F, mu, lam)
    mat.check_domain(F, "F")
    return stacked(mat.P(F, mu, lam))


def hessian_element(mat, F, mu, lam, psd=False):
    psd = _validate.boolean(psd, "psd")
    F, mu, lam = element_inputs(mat, F, mu, lam)
    mat.check_domain(F, "F")
    H = mat.dPdF(F, mu, lam, psd)
    return stacked(0.5 * (H + np.swapaxes(H, 0, 1)))


def energy_x(mat, X, J, mu, lam, vol):
    _, F, mu, lam, vol = x_inputs(mat, X, J, mu, lam, vol)
    return energy(mat, F, mu, lam, vol)


def gradient_x(mat, X, J, mu, lam, vol):
    J, F, mu, lam, vol = x_inputs(mat, X, J, mu, lam, vol)
    return gradient(mat, J, F, mu, lam, vol)


def hessian_x(mat, X, J, mu, lam, vol, psd=True):
    psd = _validate.boolean(psd, "psd")
    J, F, mu, lam, vol = x_inputs(mat, X, J, mu, lam, vol)
    return hessian(mat, structure(J, F.shape[0]), F, mu, lam, vol, psd)
