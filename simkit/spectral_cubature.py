r"""Cubature elements and weights from k-means clustering of a spectral basis (upstream simkit's scheme)."""
import numpy as np
from scipy.cluster.vq import kmeans2

from . import _validate
from .volume import volume


# entries of the (centroids, elements, p) difference array formed at a time
CHUNK_ENTRIES = 1 << 21


def _nearest_rows(C, P):
    """Index of the row of P nearest to each row of C (Euclidean; ties to the first, as upstream's argmin).

    The distances are upstream's ``norm(C_i - P_j)`` entry for entry, over chunks of C, so equal
    rows of P (a symmetric mesh has many) break their ties as upstream does.
    """
    step = max(1, CHUNK_ENTRIES // max(P.size, 1))
    return np.concatenate([np.argmin(np.linalg.norm(C[s:s + step, None, :] - P[None, :, :], axis=2), axis=1)
                           for s in range(0, C.shape[0], step)])


def spectral_cubature(X, T, W, k, return_labels=False, return_centroids=False):
    r"""Pick k cubature elements by clustering the elements in the space of a basis W.

    Each element gets the mean of W over its vertices; k-means (scipy's ``kmeans2``, k-means++
    start, seed 0, as upstream) groups the elements into k clusters; each cluster is represented
    by the element nearest its centroid, weighted by the cluster's total volume:

    :math:`\sum_e \mathrm{vol}_e\, \psi_e \approx \sum_c m_c\, \psi_{l_c}`, with
    :math:`m_c = \sum_{e \in c} \mathrm{vol}_e`

    Parameters
    ----------
    X : (n, dim) float array
        Rest node positions, dim 2 or 3 (for the element volumes).
    T : (t, dim+1) int array
        Positively oriented triangles or tetrahedra: the candidates for cubature points.
    W : (n, p) float array
        Per-vertex basis, e.g. the weights of ``skinning_eigenmodes``.
    k : int
        Number of cubature points (clusters), 1 <= k <= t.
    return_labels : bool, optional
        Also return each element's cluster.
    return_centroids : bool, optional
        Also return the cluster centroids.

    Returns
    -------
    lI : (k,) int array
        The cubature element of each cluster (an index into T).
    mc : (k,) float array
        Total volume of each cluster: the cubature weights (they sum to the mesh's volume).
    labels : (t,) int array, optional
        Cluster of every element.
    centroids : (k, p) float array, optional
        Cluster centroids in the element-averaged basis space.
    """
    X = _validate.positions(X, "X", dims=(2, 3))
    n, dim = X.shape
    T = _validate.index_array(T, "T", dim + 1, n)
    W = _validate.finite_array(W, "W")
    if W.ndim == 1:
        W = W[:, None]
    if W.ndim != 2 or W.shape[0] != n:
        raise ValueError(f"W: expected shape ({n}, p), one row per vertex of X, got {np.shape(W)}")
    k = _validate.integer(k, "k")
    if not 1 <= k <= T.shape[0]:
        raise ValueError(f"k: expected between 1 and the {T.shape[0]} elements, got {k}")
    return_labels = _validate.boolean(return_labels, "return_labels")
    return_centroids = _validate.boolean(return_centroids, "return_centroids")
    vol = volume(X, T)[:, 0]
    Wt = W[T].mean(axis=1)                                         # (t, p)
    centroids, labels = kmeans2(Wt, k, seed=0, minit="++")
    lI = _nearest_rows(centroids, Wt)
    mc = np.bincount(labels, weights=vol, minlength=k)
    result = (lI, mc)
    if return_labels:
        result += (labels,)
    if return_centroids:
        result += (centroids,)
    return result
