"""Shared machinery of the hyperelastic energies: input checks, the material registry, assembly.

Every material module defines its element formulas once (psi, P = dpsi/dF, dP/dF and, for the
isotropic ones, the analytic eigensystem) and registers them as a ``Material``. The global
tier here turns them into energies of node positions through the deformation Jacobian J
(``F = (J x).reshape(t, d, d)``):

    E(x) = sum_e vol_e psi(F_e),   g = J^T vec(vol P),   H = J^T blockdiag(vol dP/dF) J

The Hessian is assembled per element: J's rows of element e touch only the d(d+1) dofs of its
nodes, so ``H = sum_e L_e^T (vol_e dP/dF_e) L_e`` with ``L_e`` those (d^2, d(d+1)) local rows,
summed into the cached CSC pattern of ``simkit._assembly``.
"""
import numpy as np
import scipy.sparse as sps

from .. import _assembly, _isotropic_eigensystem, _validate
from .._small_matrices import det


class Material:
    """One material's element kernels (unchecked; mu, lam are (t,) arrays, F is (t, d, d)).

    energy(F, mu, lam) -> (t,); gradient -> (t, d, d); hessian -> (t, d*d, d*d);
    eigensystem(F, mu, lam) -> (U, V, A, flip, twist) (see ``_isotropic_eigensystem``), or None
    when the exact Hessian is already PSD (linear elasticity); positive_det: the energy is only
    defined for det F > 0 (+inf energy, an error from gradient and Hessian elsewhere).
    """

    def __init__(self, name, energy, gradient, hessian, eigensystem=None, positive_det=False, uses_lam=True):
        self.name, self.energy, self.gradient, self.hessian = name, energy, gradient, hessian
        self.eigensystem, self.positive_det, self.uses_lam = eigensystem, positive_det, uses_lam

    def check_domain(self, F, name):
        """ValueError naming the elements with det F <= 0 where the energy is undefined there."""
        if not self.positive_det:
            return
        bad = ~(det(F) > 0)
        if bad.any():
            which = np.flatnonzero(bad)
            shown = ", ".join(str(i) for i in which[:10]) + (", ..." if which.size > 10 else "")
            raise ValueError(f"{name}: {self.name} is undefined for inverted or degenerate elements (det F <= 0; "
                             f"the energy is +inf there), found {which.size} of {F.shape[0]}: elements [{shown}]")

    def projected_hessian(self, F, mu, lam):
        """dP/dF with negative eigenvalues clamped to 0, from the analytic eigensystem."""
        if self.eigensystem is None:
            return self.hessian(F, mu, lam)
        return _isotropic_eigensystem.hessian(*self.eigensystem(F, mu, lam), project=True)


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

def _parameters(mu, lam, t, uses_lam):
    mu = _validate.element_param(mu, "mu", t)
    lam = _validate.element_values(lam, "lam", t) if uses_lam else np.zeros(t)
    return mu, lam


def element_inputs(F, mu, lam, uses_lam=True):
    """Checked element-tier inputs: F (t, d, d) with d in (2, 3), mu >= 0 and lam per element (t,)."""
    F = _validate.finite_array(F, "F")
    if F.ndim == 2 and F.shape[0] == F.shape[1]:
        F = F[None]
    if F.ndim != 3 or F.shape[1] != F.shape[2] or F.shape[1] not in (2, 3):
        raise ValueError(f"F: expected deformation gradients of shape (t, d, d) with d 2 or 3, got {np.shape(F)}")
    return (F, *_parameters(mu, lam, F.shape[0], uses_lam))


def x_inputs(X, J, mu, lam, vol, uses_lam=True):
    """Checked global-tier inputs; returns (J, F, mu, lam, vol) with F = (J x).reshape(t, d, d)."""
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
    mu, lam = _parameters(mu, lam, t, uses_lam)
    vol = _validate.element_param(vol, "vol", t)
    F = (J @ X.reshape(-1, 1)).reshape(t, d, d)
    if not np.isfinite(F).all():
        raise ValueError("J: expected finite entries, found NaN or inf (F = J x is not finite)")
    return J, F, mu, lam, vol


# ------------------------------------------------------------------ global tier kernels (checked inputs)

def energy(mat, F, mu, lam, vol):
    psi = mat.energy(F, mu, lam)
    if mat.positive_det and np.isinf(psi).any():
        return float(np.inf)
    return float(vol @ psi)


def gradient(mat, J, F, mu, lam, vol):
    mat.check_domain(F, "X")
    P = mat.gradient(F, mu, lam) * vol[:, None, None]
    return np.asarray(J.T @ P.reshape(-1, 1))


def hessian(mat, J, F, mu, lam, vol, psd):
    mat.check_domain(F, "X")
    HF = mat.projected_hessian(F, mu, lam) if psd else mat.hessian(F, mu, lam)
    HF = HF * vol[:, None, None]
    op = _assembly.operator_pattern(J, J.shape[1], dim=F.shape[1] ** 2)
    L = op.local
    return op.pattern.matrix(np.swapaxes(L, 1, 2) @ HF @ L)


# ------------------------------------------------------------------ public tiers, shared by every material

def energy_element(mat, F, mu, lam):
    F, mu, lam = element_inputs(F, mu, lam, mat.uses_lam)
    return mat.energy(F, mu, lam).reshape(-1, 1)


def gradient_element(mat, F, mu, lam):
    F, mu, lam = element_inputs(F, mu, lam, mat.uses_lam)
    mat.check_domain(F, "F")
    return mat.gradient(F, mu, lam)


def hessian_element(mat, F, mu, lam, psd=False):
    F, mu, lam = element_inputs(F, mu, lam, mat.uses_lam)
    mat.check_domain(F, "F")
    psd = _validate.boolean(psd, "psd")
    return mat.projected_hessian(F, mu, lam) if psd else mat.hessian(F, mu, lam)


def energy_x(mat, X, J, mu, lam, vol):
    _, F, mu, lam, vol = x_inputs(X, J, mu, lam, vol, mat.uses_lam)
    return energy(mat, F, mu, lam, vol)


def gradient_x(mat, X, J, mu, lam, vol):
    J, F, mu, lam, vol = x_inputs(X, J, mu, lam, vol, mat.uses_lam)
    return gradient(mat, J, F, mu, lam, vol)


def hessian_x(mat, X, J, mu, lam, vol, psd=True):
    psd = _validate.boolean(psd, "psd")
    J, F, mu, lam, vol = x_inputs(X, J, mu, lam, vol, mat.uses_lam)
    return hessian(mat, J, F, mu, lam, vol, psd)
