"""Shared machinery of the hyperelastic energies: input checks, the material registry, assembly.

Every material module writes its formulas once (psi, P = dpsi/dF, dP/dF and, for the isotropic
ones, the eigenvalues of the analytic eigensystem), over components with the element axis
last (``F[i, j]`` is a (t,) array, see ``simkit._small_matrices``), and registers them as a
``Material``. The global tier turns them into energies of node positions through the
deformation Jacobian J (``F = (J x).reshape(t, d, d)``)::

    E(x) = sum_e vol_e psi(F_e),   g = J^T vec(vol P),   H = J^T blockdiag(vol dP/dF) J

The Hessian is assembled per element. For a P1 Jacobian (``simkit.deformation_jacobian``:
row (e, i, j) holds ``dN_a/dX_j`` in the columns of component i of the element's d+1 nodes)
the chain rule ``B[(a, i), (b, c)] = sum_jl G[a, j] dP/dF[(i, j), (c, l)] G[b, l]`` gives the
upper entries of each symmetric block, summed by ``simkit._assembly.symmetric_pattern``. Any
other operator goes through its local rows, ``B_e = L_e^T (vol dP/dF)_e L_e``.
"""
import functools

import numpy as np
import scipy.sparse as sps

from .. import _assembly, _isotropic_eigensystem, _validate
from .._cache import ArrayKeyedCache
from .._small_matrices import components, det, stacked


class Material:
    """One material's formulas (unchecked; F is (d, d, t), mu and lam are (t,) arrays).

    psi(F, mu, lam) -> (t,); P -> (d, d, t); dPdF -> (d*d, d*d, t), row-major F;
    eigenvalues(sigma, mu, lam) -> (A (d, d, t), flip (p, t), twist (p, t)) of the analytic
    eigensystem (``simkit._isotropic_eigensystem``), or None when the exact Hessian is already
    PSD (linear elasticity); dPdF None: built from the eigensystem. positive_det: only defined
    for det F > 0 (+inf energy; gradient and Hessian raise).
    """

    def __init__(self, name, psi, P, dPdF=None, eigenvalues=None, positive_det=False, uses_lam=True):
        self.name, self.psi, self.P, self._dPdF = name, psi, P, dPdF
        self.eigenvalues, self.positive_det, self.uses_lam = eigenvalues, positive_det, uses_lam

    def check_domain(self, F, name):
        """ValueError naming the elements with det F <= 0 where the energy is undefined there."""
        if not self.positive_det:
            return
        bad = ~(det(F) > 0)
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

    Either P1 (``T`` (t, d+1) nodes, ``G`` (d+1, d, t) shape-function gradients, ``pattern`` a
    SymmetricPattern) or generic (``operator``: an ``_assembly.OperatorPattern``).
    """

    def __init__(self, T=None, G=None, pattern=None, operator=None):
        self.T, self.G, self.pattern, self.operator = T, G, pattern, operator


def p1_structure(T, G, ndof):
    d = G.shape[1]
    return Structure(T, G, _assembly.symmetric_pattern(T, d, ndof))


def _recognize(J, d):
    """Structure of J: P1 if every element's rows are ``dN_a/dX_j`` on component i of d+1 nodes."""
    C = J.tocsr()
    C.sum_duplicates()
    m, N = C.shape
    t, q = m // (d * d), d + 1
    counts = np.diff(C.indptr)
    if not (counts == q).all():
        return Structure(operator=_assembly.operator_pattern(J, N, dim=d * d))
    cols = C.indices.reshape(t, d, d, q).astype(np.int64)
    vals = C.data.reshape(t, d, d, q)
    nodes, comp = np.divmod(cols, d)
    same = ((nodes == nodes[:, :1, :1]).all()
            and (comp == np.arange(d)[None, :, None, None]).all()
            and (vals == vals[:, :1]).all())
    if not same:
        return Structure(operator=_assembly.operator_pattern(J, N, dim=d * d))
    return p1_structure(nodes[:, 0, 0], np.moveaxis(vals[:, 0], 0, -1).transpose(1, 0, 2).copy(), N)


_structures = ArrayKeyedCache()


def structure(J, d):
    """Cached Structure of a validated Jacobian J (content-keyed)."""
    if J.format not in ("csr", "csc"):
        J = J.tocsr()
    return _structures.get((J.format, J.shape, d), (J.indptr, J.indices, J.data), lambda: _recognize(J, d))


def p1_upper(H, G):
    """Upper entries (u, t) of each element's block ``L^T H L`` (``_assembly.upper_layout`` order).

    H (d*d, d*d, t) weighted F-space Hessian, G (d+1, d, t) shape-function gradients:
    ``B[(a, i), (b, c)] = sum_jl G[a, j] H[(i, j), (c, l)] G[b, l]``.
    """
    q, d, t = G.shape
    H4 = H.reshape(d, d, d, d, t)
    # M[i, j, b, c] = sum_l H[(i, j), (c, l)] G[b, l]
    M = sum(H4[:, :, None, :, l] * G[None, None, :, l, None] for l in range(d))
    a, i, b, c = _upper_indices(q, d)
    return (G[a] * M[i, :, b, c]).sum(axis=1)


@functools.lru_cache(maxsize=None)
def _upper_indices(q, d):
    rows, cols = _assembly.upper_layout(q, d)
    return rows // d, rows % d, cols // d, cols % d


# elements per block of the Hessian kernels: their many small temporaries then stay in cache
CHUNK = 2048


# ------------------------------------------------------------------ global tier kernels (checked inputs)

def energy(mat, F, mu, lam, vol):
    psi = mat.psi(F, mu, lam)
    if mat.positive_det and np.isinf(psi).any():
        return float(np.inf)
    return float(vol @ psi)


def gradient(mat, J, F, mu, lam, vol):
    mat.check_domain(F, "X")
    P = mat.P(F, mu, lam) * vol
    return np.asarray(J.T @ stacked(P).reshape(-1, 1))


def hessian(mat, struct, F, mu, lam, vol, psd):
    mat.check_domain(F, "X")
    t = F.shape[-1]
    if struct.G is None:
        L = struct.operator.local
        return struct.operator.pattern.matrix(np.swapaxes(L, 1, 2) @ stacked(mat.dPdF(F, mu, lam, psd) * vol) @ L)
    q, d = struct.G.shape[:2]
    upper = np.empty((len(_upper_indices(q, d)[0]), t))
    for s in range(0, t, CHUNK):
        e = slice(s, s + CHUNK)
        upper[:, e] = p1_upper(mat.dPdF(F[..., e], mu[e], lam[e], psd) * vol[e], struct.G[..., e])
    return struct.pattern.matrix(upper)


# ------------------------------------------------------------------ public tiers, shared by every material

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
