"""Lumped (diagonal) mass matrix of edges, triangles or tetrahedra."""
import numpy as np
import scipy.sparse as sps

from . import _validate


def simplex_measures(X, T):
    r"""Measure of each simplex: edge length, triangle area or tetrahedron volume (unsigned).

    :math:`|t| = \lVert e_1 \rVert,\ \tfrac{1}{2}\lVert e_1 \times e_2 \rVert,\ \tfrac{1}{6}|\det[e_1, e_2, e_3]|`

    Parameters
    ----------
    X : (n, dim) float array
        Node positions, dim in 1..3 (tetrahedra need dim 3; triangles dim 2 or 3).
    T : (k, s) int array
        Simplices, s = 2 (edges), 3 (triangles) or 4 (tetrahedra).

    Returns
    -------
    vol : (k,) float array
        ``|e|``, ``|e1 x e2| / 2`` or ``|det[e1, e2, e3]| / 6`` with ``e_i = X[T_i] - X[T_0]``.
    """
    X = _validate.positions(X, "X", dims=range(1, 4))
    T = _validate.index_array(T, "T", (2, 3, 4), X.shape[0])
    s, dim = T.shape[1], X.shape[1]
    if s - 1 > dim:
        raise ValueError(f"T: simplices with {s} vertices need dim >= {s - 1}, got X of dim {dim}")
    e = X[T[:, 1:]] - X[T[:, :1]]
    if s == 2:
        return np.sqrt(np.einsum("ij,ij->i", e[:, 0], e[:, 0]))
    if s == 3:
        if dim == 2:
            return 0.5 * np.abs(e[:, 0, 0] * e[:, 1, 1] - e[:, 0, 1] * e[:, 1, 0])
        return 0.5 * np.linalg.norm(np.cross(e[:, 0], e[:, 1]), axis=1)
    return np.abs(np.einsum("ij,ij->i", e[:, 0], np.cross(e[:, 1], e[:, 2]))) / 6.0


def lumped_masses(X, T, rho=1):
    r"""Lumped mass of every node: each simplex's measure times rho, split equally.

    :math:`m_i = \sum_{t \ni i} \rho_t |t| / s`

    Parameters
    ----------
    X : (n, dim) float array
        Node positions.
    T : (k, s) int array
        Simplices (edges, triangles or tetrahedra).
    rho : float or (k,) / (k, 1) float array, optional
        Density per unit measure (scalar or per simplex), non-negative.

    Returns
    -------
    m : (n,) float array
        ``m_i = sum_{t containing i} rho_t |t| / s``; nodes in no simplex get 0.
    """
    vol = simplex_measures(X, T)
    T = np.asarray(T)
    rho = _validate.element_param(rho, "rho", T.shape[0], what="simplex")
    share = np.repeat(rho * vol / T.shape[1], T.shape[1])
    return np.bincount(T.reshape(-1), weights=share, minlength=np.shape(X)[0]).astype(float)


def massmatrix(X, T, rho=1):
    r"""Lumped diagonal mass matrix (a ``dia_matrix``, as upstream simkit returns).

    :math:`M_{ii} = \sum_{t \ni i} \rho_t |t| / s`, with :math:`s` vertices per simplex

    Parameters
    ----------
    X : (n, dim) float array
        Node positions.
    T : (k, s) int array
        Simplices: s = 2 edges (length, any dim), 3 triangles (area, 2D or 3D),
        4 tetrahedra (unsigned volume, 3D).
    rho : float or (k,) / (k, 1) float array, optional
        Density per unit length / area / volume, >= 0.

    Returns
    -------
    M : (n, n) scipy.sparse.dia_matrix
        Diagonal; nodes in no simplex get 0. Tetrahedra count with their unsigned volume.
    """
    return sps.dia_matrix(sps.diags(lumped_masses(X, T, rho)))
