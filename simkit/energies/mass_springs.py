"""Mass-spring elastic energy.

Density per edge, in the edge vector ``d`` (``l = |d|``)::

    psi(d) = 1/2 * ym * (l - l0)^2

``ym`` is the spring stiffness k itself (no rest-length normalization). The global tiers
weight each edge by ``vol``: ``E(x) = sum_e vol_e * psi(d_e)``.

Tiers
-----
- element tier ``*_element_d(d, ym, l0)``: per-edge values, the only copy of the formula;
- ``*_z(x, J, ...)``: ``d = J x`` for any sparse operator J (e.g. ``kron(edge jacobian, I)``);
- ``*_x(x, E, ..., dim=2)``: ``d_e = x_j - x_i`` for each edge ``(i, j)`` of the edge list E.

Hessian
-------
The exact element Hessian has eigenvalue ``ym`` along ``n = d / l`` and ``ym (1 - l0 / l)``
across it (negative under compression)::

    H = ym n n^T + ym (1 - l0 / l) (I - n n^T)

With ``psd=True`` each weighted block ``vol * H`` is projected in closed form by raising both
eigenvalues to at least ``psd_project``'s floor (1e-6); this equals ``psd_project`` of the
block to round-off.

Degenerate spring (``l = 0``, or ``l0 / l`` overflowing)
--------------------------------------------------------
The direction n is undefined and ``psi`` has a cone point (a local maximum along every ray).
We return gradient 0 (the symmetric element of the generalized gradient) and the finite,
isotropic Hessian ``ym I`` (the along-edge stiffness in every direction), so Newton stays
finite and a projected Hessian stays positive definite. The energy is ``1/2 ym l0^2``.
"""
import numpy as np

from .. import _assembly, _validate
from ..psd_project import EIGENVALUE_FLOOR


def _edge_vectors(d, name="d"):
    d = _validate.finite(np.asarray(d, dtype=float), name)
    if d.ndim != 2:
        raise ValueError(f"{name}: expected edge vectors of shape (m, dim), got {d.shape}")
    return d


def _spring_eigensystem(d, ym, l0):
    """Length, unit direction and the two eigenvalues of the exact element Hessian."""
    l = np.sqrt(np.einsum("ij,ij->i", d, d))
    with np.errstate(divide="ignore", over="ignore"):
        ratio = l0 / l
    degenerate = ~np.isfinite(ratio)
    n = d / np.where(degenerate, 1.0, l)[:, None]
    n[degenerate] = 0.0
    across = np.where(degenerate, ym, ym * (1.0 - np.where(degenerate, 0.0, ratio)))
    return l, n, ym, across


def _psi(d, ym, l0):
    return 0.5 * ym * (np.sqrt(np.einsum("ij,ij->i", d, d)) - l0) ** 2


def _dpsi(d, ym, l0):
    l, n, _, _ = _spring_eigensystem(d, ym, l0)
    return (ym * (l - l0))[:, None] * n


def _blocks(n, along, across):
    """(m, dim, dim) blocks ``across I + (along - across) n n^T``."""
    dim = n.shape[1]
    B = (along - across)[:, None, None] * (n[:, :, None] * n[:, None, :])
    B[:, np.arange(dim), np.arange(dim)] += across[:, None]
    return B


def _element_args(d, ym, l0):
    d = _edge_vectors(d)
    m = d.shape[0]
    return d, _validate.element_param(ym, "ym", m), _validate.element_param(l0, "l0", m, positive=True)


def mass_springs_energy_element_d(d, ym, l0):
    """Per-edge spring energy.

    Parameters
    ----------
    d : (m, dim) float array
        Edge vectors.
    ym : (m, 1) or (m,) float array
        Spring stiffness k of each edge (a scalar is broadcast), >= 0.
    l0 : (m, 1) or (m,) float array
        Rest lengths, > 0.

    Returns
    -------
    psi : (m,) float array
        ``1/2 ym (|d| - l0)^2``.
    """
    return _psi(*_element_args(d, ym, l0))


def mass_springs_gradient_element_d(d, ym, l0):
    """Per-edge gradient of the spring energy with respect to d.

    Parameters
    ----------
    d : (m, dim) float array
        Edge vectors.
    ym : (m, 1) or (m,) float array
        Spring stiffness.
    l0 : (m, 1) or (m,) float array
        Rest lengths, > 0.

    Returns
    -------
    g : (m, dim) float array
        ``ym (|d| - l0) d / |d|`` (zero for a degenerate edge, ``|d| = 0``).
    """
    return _dpsi(*_element_args(d, ym, l0))


def mass_springs_hessian_element_d(d, ym, l0):
    """Per-edge exact (not projected) Hessian of the spring energy with respect to d.

    Parameters
    ----------
    d : (m, dim) float array
        Edge vectors.
    ym : (m, 1) or (m,) float array
        Spring stiffness.
    l0 : (m, 1) or (m,) float array
        Rest lengths, > 0.

    Returns
    -------
    H : (m, dim, dim) float array
        ``ym n n^T + ym (1 - l0/|d|) (I - n n^T)``, ``n = d/|d|``; ``ym I`` for a degenerate edge.
    """
    d, ym, l0 = _element_args(d, ym, l0)
    _, n, along, across = _spring_eigensystem(d, ym, l0)
    return _blocks(n, along, across)


def _weighted_blocks(d, ym, vol, l0, psd):
    _, n, along, across = _spring_eigensystem(d, ym, l0)
    along, across = vol * along, vol * across
    if psd:
        along = np.maximum(along, EIGENVALUE_FLOOR)
        across = np.maximum(across, EIGENVALUE_FLOOR)
    return _blocks(n, along, across)


def _edge_params(ym, vol, l0, m):
    return (_validate.element_param(ym, "ym", m), _validate.element_param(vol, "vol", m),
            _validate.element_param(l0, "l0", m, positive=True))


def _edge_count(ym, vol, l0):
    """Number of edges m of the _z tier, from the first per-edge parameter array."""
    sizes = [np.size(p) for p in (l0, ym, vol) if np.ndim(p) > 0]
    if not sizes:
        raise ValueError("l0: expected per-edge rest lengths of shape (m, 1) to fix the number of edges")
    return sizes[0]


def _z_args(x, J, ym, vol, l0):
    x = _validate.stacked(x, "x")
    operator = _assembly.operator_pattern(J, x.shape[0], _edge_count(ym, vol, l0))
    params = _edge_params(ym, vol, l0, operator.m)
    d = np.asarray(operator.J @ x).reshape(operator.m, operator.dim)
    return x, operator, d, params


def mass_springs_energy_z(x, J, ym, vol, l0):
    """Total spring energy with edge vectors ``d = J x``.

    Parameters
    ----------
    x : (N, 1) float array
        Stacked positions (or any coordinates J acts on).
    J : (m*dim, N) scipy sparse matrix (or dense array)
        Maps x to the stacked edge vectors, edge-major.
    ym, vol, l0 : (m, 1) or (m,) float arrays
        Stiffness (>= 0), weight (>= 0) and rest length (> 0) of each edge.

    Returns
    -------
    energy : float
        ``sum_e vol_e 1/2 ym_e (|d_e| - l0_e)^2``.
    """
    _, _, d, (ym, vol, l0) = _z_args(x, J, ym, vol, l0)
    return float(vol @ _psi(d, ym, l0))


def mass_springs_gradient_z(x, J, ym, vol, l0):
    """Gradient of ``mass_springs_energy_z`` with respect to x.

    Parameters
    ----------
    x : (N, 1) float array
        Stacked positions.
    J : (m*dim, N) scipy sparse matrix
        Maps x to the stacked edge vectors.
    ym, vol, l0 : (m, 1) or (m,) float arrays
        Stiffness, weight and rest length of each edge.

    Returns
    -------
    g : (N, 1) float array
        ``J^T [vol_e dpsi/dd_e]``.
    """
    _, operator, d, (ym, vol, l0) = _z_args(x, J, ym, vol, l0)
    ge = vol[:, None] * _dpsi(d, ym, l0)
    return np.asarray(operator.J.T @ ge.reshape(-1, 1))


def mass_springs_hessian_z(x, J, ym, vol, l0, psd=True):
    """Hessian of ``mass_springs_energy_z`` with respect to x.

    Parameters
    ----------
    x : (N, 1) float array
        Stacked positions.
    J : (m*dim, N) scipy sparse matrix
        Maps x to the stacked edge vectors.
    ym, vol, l0 : (m, 1) or (m,) float arrays
        Stiffness, weight and rest length of each edge.
    psd : bool, optional
        Project each weighted element block ``vol_e H_e`` (eigenvalue floor 1e-6); default True.

    Returns
    -------
    H : (N, N) scipy.sparse.csc_matrix
        ``J^T blockdiag(vol_e H_e) J``, assembled from the per-edge local rows of J.
    """
    _, operator, d, (ym, vol, l0) = _z_args(x, J, ym, vol, l0)
    B = _weighted_blocks(d, ym, vol, l0, psd)
    Jl = operator.local
    return operator.pattern.matrix(np.einsum("mai,mab,mbj->mij", Jl, B, Jl, optimize=True))


def _x_args(x, E, ym, vol, l0, dim):
    """Validate the _x tier's inputs; return (E, edge vectors d (m, dim), ym, vol, l0, dim, N)."""
    dim = _validate.iteration_count(dim, "dim")
    x = _validate.stacked(x, "x")
    n = _validate.node_count(x, dim)
    E = _validate.index_array(E, "E", 2, n)
    ym, vol, l0 = _edge_params(ym, vol, l0, E.shape[0])
    X = x.reshape(n, dim)
    return E, X[E[:, 1]] - X[E[:, 0]], ym, vol, l0, dim, x.shape[0]


def mass_springs_energy_x(x, E, ym, vol, l0, dim=2):
    """Total spring energy of the edge list E.

    Parameters
    ----------
    x : (n*dim, 1) float array
        Stacked positions, node-major.
    E : (m, 2) int array
        Edges (i, j); ``d_e = x_j - x_i``.
    ym, vol, l0 : (m, 1) or (m,) float arrays
        Stiffness (>= 0), weight (>= 0) and rest length (> 0) of each edge.
    dim : int, optional
        Spatial dimension of x (default 2).

    Returns
    -------
    energy : float
        ``sum_e vol_e 1/2 ym_e (|d_e| - l0_e)^2``.
    """
    _, d, ym, vol, l0, _, _ = _x_args(x, E, ym, vol, l0, dim)
    return float(vol @ _psi(d, ym, l0))


def mass_springs_gradient_x(x, E, ym, vol, l0, dim=2):
    """Gradient of ``mass_springs_energy_x`` with respect to x.

    Parameters
    ----------
    x : (n*dim, 1) float array
        Stacked positions.
    E : (m, 2) int array
        Edges (i, j).
    ym, vol, l0 : (m, 1) or (m,) float arrays
        Stiffness, weight and rest length of each edge.
    dim : int, optional
        Spatial dimension (default 2).

    Returns
    -------
    g : (n*dim, 1) float array
        ``-vol_e dpsi/dd_e`` scattered to node i and ``+vol_e dpsi/dd_e`` to node j of each edge.
    """
    E, d, ym, vol, l0, dim, N = _x_args(x, E, ym, vol, l0, dim)
    ge = vol[:, None] * _dpsi(d, ym, l0)
    return _assembly.assemble_vector(np.concatenate([-ge, ge], axis=1), _assembly.node_dofs(E, dim), N)


def mass_springs_hessian_x(x, E, ym, vol, l0, psd=True, dim=2):
    """Hessian of ``mass_springs_energy_x`` with respect to x.

    Parameters
    ----------
    x : (n*dim, 1) float array
        Stacked positions.
    E : (m, 2) int array
        Edges (i, j).
    ym, vol, l0 : (m, 1) or (m,) float arrays
        Stiffness, weight and rest length of each edge.
    psd : bool, optional
        Project each weighted block ``vol_e H_e`` (eigenvalue floor 1e-6); default True.
    dim : int, optional
        Spatial dimension (default 2).

    Returns
    -------
    H : (n*dim, n*dim) scipy.sparse.csc_matrix
        ``sum_e [[B, -B], [-B, B]]`` on the dofs of (i, j), ``B = vol_e H_e`` (projected if psd).
    """
    E, d, ym, vol, l0, dim, N = _x_args(x, E, ym, vol, l0, dim)
    B = _weighted_blocks(d, ym, vol, l0, psd)
    m = B.shape[0]
    blocks = np.empty((m, 2, dim, 2, dim))
    blocks[:, 0, :, 0] = B
    blocks[:, 1, :, 1] = B
    blocks[:, 0, :, 1] = -B
    blocks[:, 1, :, 0] = -B
    return _assembly.element_pattern(E, dim, N).matrix(blocks.reshape(m, 2 * dim, 2 * dim))
