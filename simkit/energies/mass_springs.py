r"""Mass-spring elastic energy.

Density per edge, in the edge vector ``d`` (``l = |d|``)::

    psi(d) = 1/2 * ym * (l - l0)^2

``ym`` is the spring stiffness k itself (no rest-length normalization), as in upstream simkit.
The global tiers weight each edge by ``vol``: ``E = sum_e vol_e * psi(d_e)``.

Tiers (upstream simkit's layout and argument order)
----------------------------------------------------
- element tier ``*_element_d(d, ym, l0)``: per-edge values, the only copy of the formula;
- ``*_z(z, J, ym, vol, l0, Jx0=None)``: ``d = J z (+ Jx0)`` for any operator J, e.g.
  ``kron(edge_displacement_jacobian(X, E), eye(dim))`` or a reduced ``J B``;
- ``*_x(x, E, ym, vol, l0)``: ``d_e = x_i - x_j`` for each edge ``(i, j)`` of the edge list E
  (the sign of ``edge_displacement_jacobian``), x given as (n, dim) positions.

The number of edges m and the dimension come from the geometry, never from a parameter's
length: in ``_x`` from E and the (n, dim) positions (a stacked column needs ``dim=``), in
``_z`` from J's structure ``kron(B, I_dim)`` (or ``dim=`` for any other operator).
``ym``, ``vol`` and ``l0`` then hold one value per edge, or a single value for every edge.
Flags (``psd``) and ``dim`` are keyword-only.

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
from .._cache import RecentArguments
from ._spring_kernels import blocks, dpsi, psi, spring_eigensystem, weighted_blocks


def _edge_vectors(d, name="d"):
    d = _validate.finite_array(d, name)
    if d.ndim != 2:
        raise ValueError(f"{name}: expected edge vectors of shape (m, dim), got {d.shape}")
    return d


def _edge_params(ym, vol, l0, m):
    return (_validate.element_param(ym, "ym", m, what="edge"), _validate.element_param(vol, "vol", m, what="edge"),
            _validate.element_param(l0, "l0", m, positive=True, what="edge"))


def _element_args(d, ym, l0):
    d = _edge_vectors(d)
    m = d.shape[0]
    return d, _validate.element_param(ym, "ym", m, what="edge"), _validate.element_param(l0, "l0", m, True, "edge")


def mass_springs_energy_element_d(d, ym, l0):
    r"""Per-edge spring energy.

    :math:`\psi_e = \tfrac{1}{2} k_e (\lVert d_e \rVert - l_{0,e})^2`, with :math:`k_e` = ``ym``

    Parameters
    ----------
    d : (m, dim) float array
        Edge vectors.
    ym : (m, 1) or (m,) float array, or a scalar
        Spring stiffness k of each edge, >= 0.
    l0 : (m, 1) or (m,) float array, or a scalar
        Rest lengths, > 0.

    Returns
    -------
    psi : (m, 1) float array
        Unweighted energy of each edge.
    """
    return psi(*_element_args(d, ym, l0)).reshape(-1, 1)


def mass_springs_gradient_element_d(d, ym, l0):
    r"""Per-edge gradient of the spring energy with respect to d.

    :math:`\partial \psi_e / \partial d_e = k_e (\lVert d_e \rVert - l_{0,e}) \, d_e / \lVert d_e \rVert`

    Parameters
    ----------
    d : (m, dim) float array
        Edge vectors.
    ym : (m, 1) or (m,) float array, or a scalar
        Spring stiffness.
    l0 : (m, 1) or (m,) float array, or a scalar
        Rest lengths, > 0.

    Returns
    -------
    g : (m, dim) float array
        Zero for a degenerate edge (``|d| = 0``).
    """
    return dpsi(*_element_args(d, ym, l0))


def mass_springs_hessian_element_d(d, ym, l0):
    r"""Per-edge exact (not projected) Hessian of the spring energy with respect to d.

    :math:`H_e = k_e\, n n^\top + k_e (1 - l_{0,e} / \lVert d_e \rVert)(I - n n^\top)`, :math:`n = d_e / \lVert d_e \rVert`

    Parameters
    ----------
    d : (m, dim) float array
        Edge vectors.
    ym : (m, 1) or (m,) float array, or a scalar
        Spring stiffness.
    l0 : (m, 1) or (m,) float array, or a scalar
        Rest lengths, > 0.

    Returns
    -------
    H : (m, dim, dim) float array
        ``ym I`` for a degenerate edge.
    """
    d, ym, l0 = _element_args(d, ym, l0)
    _, n, along, across = spring_eigensystem(d, ym, l0)
    return blocks(n, along, across)


def _z_args(z, J, ym, vol, l0, Jx0, dim):
    """Validate the _z tier's inputs; return (operator, edge vectors d (m, dim), (ym, vol, l0))."""
    z = _validate.stacked(z, "z")
    operator, params, Jx0 = _recent_z_args.get((J, ym, vol, l0, Jx0, dim, z.shape[0]),
                                               lambda: _z_fixed_args(z.shape[0], J, ym, vol, l0, Jx0, dim))
    return operator, operator.edge_vectors(z, Jx0), params


def _z_fixed_args(N, J, ym, vol, l0, Jx0, dim):
    """Validate the _z tier's inputs other than z (N rows); return (operator, (ym, vol, l0), Jx0)."""
    operator = _assembly.operator_pattern(J, N, dim)
    params = _edge_params(ym, vol, l0, operator.m)
    if Jx0 is not None:
        if isinstance(Jx0, (bool, np.bool_)):
            raise TypeError("Jx0: expected an (m*dim, 1) float array or None, got a bool (pass psd= by keyword)")
        Jx0 = _validate.stacked(Jx0, "Jx0", size=operator.m * operator.dim)
    return operator, params, Jx0


# a chapter calls the _z tier thousands of times with the same small J and parameters
_recent_z_args = RecentArguments()


def mass_springs_energy_z(z, J, ym, vol, l0, Jx0=None, *, dim=None):
    r"""Total spring energy with edge vectors ``d = J z (+ Jx0)``.

    :math:`E = \sum_e v_e \tfrac{1}{2} k_e (\lVert d_e \rVert - l_{0,e})^2`, :math:`d = J z + J x_0` (:math:`k` = ``ym``, :math:`v` = ``vol``)

    Parameters
    ----------
    z : (N, 1) float array
        Stacked positions, or any coordinates J acts on (reduced coordinates).
    J : (m*dim, N) scipy sparse matrix (or dense array)
        Maps z to the stacked edge vectors, edge-major.
    ym, vol, l0 : (m, 1) or (m,) float arrays, or scalars
        Stiffness (>= 0), weight (>= 0) and rest length (> 0) of each edge.
    Jx0 : (m*dim, 1) float array, optional
        Constant offset added to ``J z`` (e.g. ``J x0`` when z is a displacement from x0).
    dim : int, optional, keyword-only
        Spatial dimension of the edge vectors. By default read from J's structure
        ``kron(B, I_dim)`` (dim 2 or 3); required for any other operator (reduced, 1D).

    Returns
    -------
    energy : float
    """
    operator, d, (ym, vol, l0) = _z_args(z, J, ym, vol, l0, Jx0, dim)
    return float(vol @ psi(d, ym, l0))


def mass_springs_gradient_z(z, J, ym, vol, l0, Jx0=None, *, dim=None):
    r"""Gradient of ``mass_springs_energy_z`` with respect to z.

    :math:`\nabla E = J^\top [\, v_e \, \partial \psi_e / \partial d_e \,]_e`

    Parameters
    ----------
    z : (N, 1) float array
        Stacked positions or reduced coordinates.
    J : (m*dim, N) scipy sparse matrix (or dense array)
        Maps z to the stacked edge vectors.
    ym, vol, l0 : (m, 1) or (m,) float arrays, or scalars
        Stiffness, weight and rest length of each edge.
    Jx0 : (m*dim, 1) float array, optional
        Constant offset of the edge vectors.
    dim : int, optional, keyword-only
        As for ``mass_springs_energy_z``.

    Returns
    -------
    g : (N, 1) float array
    """
    operator, d, (ym, vol, l0) = _z_args(z, J, ym, vol, l0, Jx0, dim)
    return operator.transpose_apply(vol[:, None] * dpsi(d, ym, l0))


def mass_springs_hessian_z(z, J, ym, vol, l0, Jx0=None, *, psd=True, dim=None):
    r"""Hessian of ``mass_springs_energy_z`` with respect to z.

    :math:`\nabla^2 E = J^\top \operatorname{blockdiag}(v_e H_e) J` (each :math:`v_e H_e` projected if ``psd``)

    Parameters
    ----------
    z : (N, 1) float array
        Stacked positions or reduced coordinates.
    J : (m*dim, N) scipy sparse matrix (or dense array)
        Maps z to the stacked edge vectors.
    ym, vol, l0 : (m, 1) or (m,) float arrays, or scalars
        Stiffness, weight and rest length of each edge.
    Jx0 : (m*dim, 1) float array, optional
        Constant offset of the edge vectors.
    psd : bool, optional, keyword-only
        Project each weighted element block (eigenvalue floor 1e-6); default True.
    dim : int, optional, keyword-only
        As for ``mass_springs_energy_z``.

    Returns
    -------
    H : (N, N) scipy.sparse.csc_matrix
        Assembled from the per-edge local rows of J.
    """
    psd = _validate.boolean(psd, "psd")
    operator, d, (ym, vol, l0) = _z_args(z, J, ym, vol, l0, Jx0, dim)
    B = weighted_blocks(d, ym, vol, l0, psd)
    Jl = operator.local
    return operator.pattern.matrix(np.swapaxes(Jl, 1, 2) @ B @ Jl)


def _x_args(x, E, ym, vol, l0, dim):
    """Validate the _x tier's inputs; return (E, edge vectors d (m, dim), ym, vol, l0, dim, N)."""
    X = _validate.node_positions(x, dim, "x")
    n, dim = X.shape
    E = _validate.index_array(E, "E", 2, n)
    ym, vol, l0 = _edge_params(ym, vol, l0, E.shape[0])
    return E, X[E[:, 0]] - X[E[:, 1]], ym, vol, l0, dim, n * dim


def mass_springs_energy_x(x, E, ym, vol, l0, *, dim=None):
    r"""Total spring energy of the edge list E.

    :math:`E = \sum_{e=(i,j)} v_e \tfrac{1}{2} k_e (\lVert x_i - x_j \rVert - l_{0,e})^2` (:math:`k` = ``ym``, :math:`v` = ``vol``)

    Parameters
    ----------
    x : (n, dim) float array
        Node positions (upstream's layout). A stacked (n*dim, 1) column is accepted when its
        dimension is stated with `dim`.
    E : (m, 2) int array
        Edges (i, j); ``d_e = x_i - x_j``.
    ym, vol, l0 : (m, 1) or (m,) float arrays, or scalars
        Stiffness (>= 0), weight (>= 0) and rest length (> 0) of each edge.
    dim : int, optional, keyword-only
        Spatial dimension; required for a stacked x, must agree with (n, dim) positions.

    Returns
    -------
    energy : float
    """
    _, d, ym, vol, l0, _, _ = _x_args(x, E, ym, vol, l0, dim)
    return float(vol @ psi(d, ym, l0))


def mass_springs_gradient_x(x, E, ym, vol, l0, *, dim=None):
    r"""Gradient of ``mass_springs_energy_x`` with respect to the stacked positions.

    :math:`\nabla_{x_i} E = \sum_{e \ni i} \pm v_e \, \partial \psi_e / \partial d_e` (+ at i, - at j for :math:`e = (i, j)`)

    Parameters
    ----------
    x : (n, dim) float array
        Node positions (or a stacked column with `dim`).
    E : (m, 2) int array
        Edges (i, j).
    ym, vol, l0 : (m, 1) or (m,) float arrays, or scalars
        Stiffness, weight and rest length of each edge.
    dim : int, optional, keyword-only
        As for ``mass_springs_energy_x``.

    Returns
    -------
    g : (n*dim, 1) float array
        Node-major, matching ``x.reshape(-1, 1)``.
    """
    E, d, ym, vol, l0, dim, N = _x_args(x, E, ym, vol, l0, dim)
    ge = vol[:, None] * dpsi(d, ym, l0)
    return _assembly.assemble_vector(np.concatenate([ge, -ge], axis=1), _assembly.node_dofs(E, dim), N)


def mass_springs_hessian_x(x, E, ym, vol, l0, *, psd=True, dim=None):
    r"""Hessian of ``mass_springs_energy_x`` with respect to the stacked positions.

    :math:`\nabla^2 E = \sum_{e=(i,j)} \begin{bmatrix} B_e & -B_e \\ -B_e & B_e \end{bmatrix}` on the dofs of (i, j), :math:`B_e = v_e H_e` (projected if ``psd``)

    Parameters
    ----------
    x : (n, dim) float array
        Node positions (or a stacked column with `dim`).
    E : (m, 2) int array
        Edges (i, j).
    ym, vol, l0 : (m, 1) or (m,) float arrays, or scalars
        Stiffness, weight and rest length of each edge.
    psd : bool, optional, keyword-only
        Project each weighted block (eigenvalue floor 1e-6); default True.
    dim : int, optional, keyword-only
        As for ``mass_springs_energy_x``.

    Returns
    -------
    H : (n*dim, n*dim) scipy.sparse.csc_matrix
    """
    psd = _validate.boolean(psd, "psd")
    E, d, ym, vol, l0, dim, N = _x_args(x, E, ym, vol, l0, dim)
    B = weighted_blocks(d, ym, vol, l0, psd)
    m = B.shape[0]
    blocks = np.empty((m, 2, dim, 2, dim))
    blocks[:, 0, :, 0] = B
    blocks[:, 1, :, 1] = B
    blocks[:, 0, :, 1] = -B
    blocks[:, 1, :, 0] = -B
    return _assembly.element_pattern(E, dim, N).matrix(blocks.reshape(m, 2 * dim, 2 * dim))
