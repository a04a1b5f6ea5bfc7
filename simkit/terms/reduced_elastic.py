r"""The elastic energy of a mesh in reduced coordinates ``x = B z + x0``, by cubature.

Only the cubature elements are ever evaluated: their deformation-Jacobian rows times the basis,
``J_c B`` (``(c d^2, r)``), and ``J_c x0`` are formed once, so an energy, gradient or Hessian of
z costs O(c d^2 r) and O(c d^2 r^2), independent of the mesh's size.
"""
import numpy as np
import scipy.sparse as sps

from .. import _validate
from .._small_matrices import components, stacked
from ..deformation_jacobian import deformation_jacobian
from ..energies import _hyperelastic as _he
from ..energies import elastic as _elastic  # noqa: F401  (registers the materials)
from ..volume import volume
from .base import Term


class ReducedElasticEnergy(Term):
    r"""Hyperelastic energy of a mesh as a function of subspace coordinates, with cubature.

    :math:`E(z) = \sum_{c} w_c\, \psi(F_{e_c}(B z + x_0))`, :math:`\nabla E = (J_c B)^\top \operatorname{vec}(w P)`,
    :math:`\nabla^2 E = (J_c B)^\top \operatorname{blockdiag}(w\, \partial P/\partial F)\, (J_c B)`

    With every element and ``w = vol`` (the default) this is exactly the full energy
    ``ElasticEnergy(X, T, ...)`` at ``x = B z + x0``, with gradient ``B^T g`` and Hessian
    ``B^T H B``; with a cubature (``simkit.optimized_cubature``, fitted to reduced forces, or
    ``simkit.spectral_cubature``) it approximates it at the cost of the c cubature elements only.
    A basis of the form ``B_s kron I_d`` (linear blend skinning) takes a faster Hessian of the
    same value, with under a quarter of the flops in 3D.

    Parameters
    ----------
    X : (n, d) float array
        Rest node positions of the full mesh, d 2 (plane strain) or 3.
    T : (t, d+1) int array
        Its positively oriented triangles or tetrahedra (cI indexes them).
    B : (n*d, r) float array or scipy sparse matrix
        Subspace basis (``linear_modal_analysis``'s modes, ``lbs_jacobian``, ...).
    mu, lam : float or (t,) / (t, 1) float arrays
        Lamé parameters of every element (lam ignored by 'arap').
    material : str, optional
        One of ``simkit.energies.elastic.MATERIALS`` (default 'neo-hookean').
    x0 : (n*d, 1) float array, optional, keyword-only
        Offset of the map (default zero; the rest positions ``X.reshape(-1, 1)`` when z holds
        displacement coordinates such as modal amplitudes).
    cI : (c,) int array, optional, keyword-only
        Cubature elements (indices into T), e.g. ``cI`` of ``optimized_cubature``; default all.
    cW : (c,) float array, optional, keyword-only
        Their weights (> 0), e.g. ``cW`` of ``optimized_cubature``; default the elements' volumes.
        Given with cI (both or neither).
    psd : bool, optional, keyword-only
        Whether ``hessian`` projects each cubature element's dP/dF onto the PSD cone (default True).

    Attributes
    ----------
    JB : (c*d*d, r) float array
        ``J_c B``: row ``(q*d + i)*d + j`` is dF_ij/dz of cubature point q.
    Jx0 : (c*d*d, 1) float array
        ``J_c x0``.
    cI, cW : (c,) arrays
    size : int
        r.

    Methods take z of shape (r, 1) (or (r,)): ``energy(z)`` -> float (``+inf`` for an inverted
    neo-Hookean cubature element), ``gradient(z)`` -> (r, 1), ``hessian(z)`` -> dense (r, r) array.
    """

    def __init__(self, X, T, B, mu, lam, material="neo-hookean", *, x0=None, cI=None, cW=None, psd=True):
        self._material = _he.material(material)
        J = deformation_jacobian(X, T)
        n, d = np.shape(X)
        t = J.shape[0] // (d * d)
        mu, lam = _he.parameters(self._material, mu, lam, t)
        if not sps.issparse(B):
            B = _validate.finite_array(B, "B")
        if B.ndim != 2 or B.shape[0] != n * d:
            raise ValueError(f"B: expected a basis of shape ({n * d}, r), one row per stacked coordinate of X, "
                             f"got {B.shape}")
        if sps.issparse(B):
            _validate.finite(B.data, "B")
        x0 = np.zeros((n * d, 1)) if x0 is None else _validate.stacked(x0, "x0", n * d)
        if (cI is None) != (cW is None):
            raise ValueError("cI, cW: expected both the cubature elements and their weights, or neither "
                             "(every element, weighted by its volume)")
        if cI is None:
            cI, cW = np.arange(t), volume(X, T)[:, 0]
        else:
            cI = _validate.index_vector(cI, "cI", t)
            cW = _validate.element_param(cW, "cW", cI.size, positive=True, what="cubature element")
        self.material, self.dim, self.size = material, d, B.shape[1]
        self.psd = _validate.boolean(psd, "psd")
        self.cI, self.cW = cI, cW
        self.mu, self.lam = mu[cI], lam[cI]
        rows = (cI[:, None] * (d * d) + np.arange(d * d)).reshape(-1)
        Jc = J[rows]
        self.JB = np.asarray((Jc @ B).todense() if sps.issparse(B) else Jc @ B)
        self.Jx0 = np.asarray(Jc @ x0)
        self._blend = _blend_factors(self.JB, d, cW)
        if self._blend is not None:
            # F = Z^T C_e + F0 from C (a d-th of J_c B's size) as (d c, p), rows (j, e): F component-major at once
            Ct = self._blend[0]
            self._C_rows = np.ascontiguousarray(Ct.transpose(1, 0, 2).reshape(d * cI.size, -1))
            self._F0 = components(self.Jx0.reshape(-1, d, d))

    def _F(self, z):
        z = self._x(z)
        if self._blend is None:
            return components((self.JB @ z + self.Jx0).reshape(-1, self.dim, self.dim))
        d = self.dim
        G = (self._C_rows @ z.reshape(-1, d)).reshape(d, -1, d)               # (j, e, i)
        return np.add(G.transpose(2, 0, 1), self._F0, out=np.empty_like(self._F0))

    def energy(self, z):
        """Cubature energy at z, float (``+inf`` if a neo-Hookean cubature element is inverted)."""
        return _he.energy(self._material, self._F(z), self.mu, self.lam, self.cW)

    def gradient(self, z):
        """Gradient ``(J_c B)^T vec(w P)``, (r, 1) float array."""
        F = self._F(z)
        self._material.check_domain(F, "z")
        P = self._material.P(F, self.mu, self.lam) * self.cW                  # (d, d, c)
        if self._blend is not None:
            d = self.dim
            return (self._C_rows.T @ P.transpose(1, 2, 0).reshape(-1, d)).reshape(-1, 1)
        return self.JB.T @ stacked(P).reshape(-1, 1)

    def hessian(self, z):
        """Hessian ``(J_c B)^T blockdiag(w dP/dF) (J_c B)`` (dP/dF projected if ``psd``), dense (r, r)."""
        F = self._F(z)
        self._material.check_domain(F, "z")
        dd = self.dim * self.dim
        D = self._material.dPdF(F, self.mu, self.lam, self.psd)            # (d*d, d*d, c)
        if self._blend is not None:
            H = _blend_hessian(*self._blend, D)
        else:
            D = stacked(D) * self.cW[:, None, None]
            JBe = self.JB.reshape(-1, dd, self.size)
            H = self.JB.T @ (D @ JBe).reshape(-1, self.size)
        return 0.5 * (H + H.T)


def _blend_factors(JB, d, w):
    r"""The factors of a basis that moves each component alike (``B = B_s \otimes I_d``: linear blend skinning), or None.

    Then z holds p = r / d rows of d components, ``Z = z.reshape(p, d)``, and each cubature
    element's F is :math:`F_e = Z^\top C_e`: row ``(e, i, j)`` of ``J_c B`` is ``C[e, :, j]`` on the
    columns ``m d + i``. Returns ``C^T`` (c, d, p) and the weighted ``(w C^T)`` as (p, c d), or None
    when ``J_c B`` is not of that form exactly.
    """
    c, r = JB.shape[0] // (d * d), JB.shape[1]
    if r % d:
        return None
    rows = JB.reshape(c, d, d, r // d, d)                               # (e, i, j, m, i')
    Ct = np.ascontiguousarray(rows[:, 0, :, :, 0])                      # (e, j, m)
    expected = np.zeros_like(rows)
    for i in range(d):
        expected[:, i, :, :, i] = Ct
    if not np.array_equal(rows, expected):
        return None
    return Ct, np.ascontiguousarray((w[:, None, None] * Ct).reshape(c * d, r // d).T)


def _blend_hessian(Ct, wC, D):
    r""":math:`H_{(m i)(n k)} = \sum_e w_e \sum_{jl} C_{emj}\, D_{e,ij,kl}\, C_{enl}`: the Hessian for a blend basis, (p d, p d).

    Per element it is :math:`C_e D_{e,ik} C_e^\top` for each block (i, k) of output components, d^2
    blocks of p x p, of which the d(d+1)/2 with i <= k are formed (:math:`H_{ki} = H_{ik}^\top`): one
    product ``(p, c d) @ (c d, d(d+1)/2 p)``, 2/9 (3D; 3/8 in 2D) of the flops of
    ``(J_c B)^T D (J_c B)`` (r = p d). Ct, wC from ``_blend_factors``; D (d*d, d*d, c) is dP/dF,
    component-major.
    """
    c, d, p = Ct.shape
    i, k = np.triu_indices(d)
    Dt = D.reshape(d, d, d, d, c)[i, :, k].transpose(3, 1, 0, 2)                    # (e, j, block, l)
    Y = np.matmul(Dt, Ct[:, None])                                                 # (e, j, block, n)
    blocks = (wC @ Y.reshape(c * d, i.size * p)).reshape(p, i.size, p)             # (m, block, n)
    H = np.empty((p, d, p, d))
    H[:, i, :, k] = blocks.transpose(1, 0, 2)
    H[:, k, :, i] = blocks.transpose(1, 2, 0)
    return H.reshape(p * d, p * d)
