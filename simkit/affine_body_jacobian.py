r"""The subspace of affine bodies (Lan et al. 2022, Affine Body Dynamics): one affine map per body."""
import numpy as np
import scipy.sparse as sps

from . import _validate


def _body_labels(bodies, n, name="bodies"):
    """Checked body label of each of n vertices, (n,) ints covering 0 .. nb-1 (None: one body); returns (labels, nb)."""
    if bodies is None:
        return np.zeros(n, dtype=np.int64), 1
    labels = _validate.index_vector(bodies, name, n if n else 1)
    if labels.size != n:
        raise ValueError(f"{name}: expected one body label per vertex ({n}), got {labels.size}")
    nb = int(labels.max(initial=-1)) + 1
    missing = np.flatnonzero(np.bincount(labels, minlength=nb) == 0)
    if missing.size:
        raise ValueError(f"{name}: expected labels 0 .. nb-1 with every body holding a vertex, body {missing[0]} "
                         "has none")
    return labels, nb


def affine_body_jacobian(X, bodies=None):
    r"""Basis of the affine bodies: ``x = X + B z``, each body moving by one affine map of its rest shape.

    :math:`x_v = c_b + p_b + A_b (X_v - c_b)`, :math:`A_b = I + D_b`, for vertex v of body b,
    with :math:`c_b` the mean of the body's rest vertices. Body b's coordinates are ABD's
    :math:`q_b = [p_b; a_1; \dots; a_{dim}]` with :math:`a_i` the rows of :math:`D_b`
    (dim + dim^2 = 12 in 3D, 6 in 2D): ``z = 0`` is the rest state, ``z[b*s:b*s+dim]`` the
    translation of the body's centre and ``z[b*s+dim:(b+1)*s].reshape(dim, dim)`` is ``A_b - I``.

    Parameters
    ----------
    X : (n, dim) float array
        Rest positions of every vertex, dim 2 or 3.
    bodies : (n,) int array, optional
        Body of each vertex, labels 0 .. nb-1 (each used); default one body.

    Returns
    -------
    B : (n*dim, nb*dim*(dim+1)) scipy.sparse.csc_matrix
        ``B[v*dim + i, b*s + i] = 1`` and ``B[v*dim + i, b*s + dim + i*dim + j] = X_vj - c_bj``
        (s = dim (dim + 1)); the subspace holds every affine map of each body exactly.
    """
    X = _validate.positions(X, "X", dims=(2, 3))
    n, dim = X.shape
    labels, nb = _body_labels(bodies, n)
    s = dim * (dim + 1)
    centers = np.zeros((nb, dim))
    np.add.at(centers, labels, X)
    centers /= np.bincount(labels, minlength=nb)[:, None]
    R = X - centers[labels]                                              # (n, dim)
    i = np.arange(dim)
    # row (v, i): the translation column, then the dim columns of row i of D
    cols = labels[:, None, None] * s + np.concatenate(
        [i[:, None], dim + i[:, None] * dim + i[None, :]], axis=1)[None]    # (n, dim, 1 + dim)
    vals = np.concatenate([np.ones((n, dim, 1)), np.broadcast_to(R[:, None, :], (n, dim, dim))], axis=2)
    indptr = np.arange(n * dim + 1) * (dim + 1)
    B = sps.csr_matrix((vals.reshape(-1), cols.reshape(-1), indptr), shape=(n * dim, nb * s))
    B.has_sorted_indices = True
    return B.tocsc()
