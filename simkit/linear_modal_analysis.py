r"""Linear vibration modes of an elastic mesh: the lowest eigenpairs of ``K b = omega^2 M b``."""
import numpy as np
import scipy.sparse as sps

from . import _assembly, _eigen, _validate
from .deformation_jacobian import shape_gradients
from .energies import _hyperelastic as _he
from .energies import linear_elasticity
from .massmatrix import lumped_masses
from .volume import volume

# upstream simkit 0.1.8 adds this multiple of M to a clamped stiffness (its eigenvalues are omega^2 + 1e-6)
UPSTREAM_SHIFT = 1e-6


def _stiffness(X, T, mu, lam):
    r"""The linear-elasticity stiffness K of a validated P1 mesh and Lamé parameters (t,), from its element blocks.

    :math:`K = \sum_e \mathrm{vol}_e\, L_e^\top \tfrac{\partial P}{\partial F} L_e` (the material's own dP/dF,
    ``simkit.energies.linear_elasticity``), without forming the deformation Jacobian: (n*d, n*d) csc_matrix.
    """
    (n, d), t = X.shape, T.shape[0]
    material = linear_elasticity.MATERIAL
    vol, G = volume(X, T)[:, 0], shape_gradients(X, T)
    identity = np.broadcast_to(np.eye(d)[:, :, None], (d, d, min(t, _he.CHUNK)))
    blocks = np.empty((t, (d + 1) * d, (d + 1) * d))
    for s in range(0, t, _he.CHUNK):                      # in chunks: the temporaries stay in cache
        e = slice(s, s + _he.CHUNK)
        blocks[e] = material.x_blocks(identity[..., :G[e].shape[0]], mu[e], lam[e], vol[e], G[e], psd=False)
    return _assembly.element_pattern(T, d, n * d).matrix(blocks)


def linear_modal_analysis(X, T, k, bI=None, *, mu=None, lam=None, rho=1.0):
    r"""The k lowest linear vibration modes of a mesh, with clamped vertices eliminated.

    :math:`K b = E\, M b`, :math:`E = \omega^2`, with K the linear-elasticity stiffness
    (:math:`\psi = \mu \lVert \varepsilon \rVert_F^2 + \tfrac{\lambda}{2} \operatorname{tr}(\varepsilon)^2`)
    and M the lumped mass, both restricted to the free degrees of freedom.

    Parameters
    ----------
    X : (n, dim) float array
        Rest node positions, dim 2 (plane strain) or 3.
    T : (t, dim+1) int array
        Positively oriented triangles or tetrahedra.
    k : int
        Number of modes, 1 <= k <= number of free degrees of freedom.
    bI : (b,) int array, optional
        Clamped vertices: their degrees of freedom are removed from the problem and are zero in B.
    mu, lam : float or (t,) / (t, 1) float array, optional, keyword-only
        Lamé parameters in Pa (e.g. ``simkit.ympr_to_lame``). Both None (default) is upstream
        simkit's call: mu = lam = 1, and with bI the stiffness is upstream's shifted
        ``K + 1e-6 M`` (``UPSTREAM_SHIFT``), so E is upstream's ``omega^2 + 1e-6``. Given
        (both), E is exactly omega^2.
    rho : float or (t,) / (t, 1) float array, optional, keyword-only
        Density in kg/m^3 (kg/m^2 in 2D), > 0 (default 1).

    Returns
    -------
    E : (k,) float array
        Eigenvalues, ascending: omega^2 in rad^2/s^2 for physical mu, lam and rho (the rigid
        motions of an unclamped body give E = 0 to round-off).
    B : (n*dim, k) float array
        Mode shapes (stacked displacements), mass-orthonormal (:math:`B^\top M B = I`), zero on
        the clamped vertices, in a canonical basis that is the same on every machine to round-off
        (``simkit._eigen.canonical_basis``): within a cluster of eigenvalues equal to 1e-6 relative
        (a symmetric mesh's pairs, the rigid motions) the mass-orthonormalized projections of fixed
        seeded vectors onto its eigenspace, the first of them when k cuts the cluster; each
        column's largest entry positive (of entries tied to 1e-6, the first).

    Notes
    -----
    A symmetric shift-invert Lanczos solve (``scipy.sparse.linalg.eigsh``) about a small
    negative shift, with the stiffness factorized once by sparse Cholesky (see
    ``simkit._eigen``); dense LAPACK for small problems.
    """
    X = _validate.positions(X, "X", dims=(2, 3))
    n, dim = X.shape
    T = _validate.index_array(T, "T", dim + 1, n)
    free = _eigen.free_dofs(bI, n, dim)
    k = _eigen.mode_count(k, free.size, "free degrees of freedom")
    if (mu is None) != (lam is None):
        raise ValueError("mu, lam: expected both Lamé parameters (physical units) or neither (upstream's "
                         f"unit constants), got mu={'None' if mu is None else 'given'}, "
                         f"lam={'None' if lam is None else 'given'}")
    upstream = mu is None
    mu, lam = _he.parameters(linear_elasticity.MATERIAL, 1.0 if upstream else mu, 1.0 if upstream else lam,
                             T.shape[0])
    masses = np.repeat(lumped_masses(X, T, _validate.element_param(rho, "rho", T.shape[0], positive=True)), dim)
    if not masses[free].min() > 0:
        orphan = np.unique(free[masses[free] <= 0] // dim)
        raise ValueError(f"T: {orphan.size} free node(s) belong to no element and have no mass, e.g. node "
                         f"{orphan[0]}; remove them or clamp them with bI")
    K = _stiffness(X, T, mu, lam)
    K, m = K[free][:, free], masses[free]
    if upstream and bI is not None:
        K = K + UPSTREAM_SHIFT * sps.diags(m)
    E, Bf = _eigen.lowest_eigenpairs(K, m, k, _eigen.relative_shift(K, m))
    B = np.zeros((n * dim, k))
    B[free] = Bf
    return E, B
