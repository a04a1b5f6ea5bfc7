r"""Cubature elements and weights from k-means clustering of a spectral basis (upstream simkit's scheme)."""
import warnings

import numpy as np
from scipy.cluster.vq import kmeans2
from scipy.spatial.distance import cdist

from . import _validate
from .volume import volume


# entries of the (centroids, elements, p) difference array formed at a time
CHUNK_ENTRIES = 1 << 21
# distances within this fraction of (the nearest one + the largest feature) tie, and the first row wins: elements
# with equal features but for round-off (a symmetric mesh has many) would otherwise go to whichever round-off
# (BLAS threads, the CPU's kernel) made a hair nearer
TIE_RTOL = 1e-9


def _nearest_rows(C, P):
    """Index of the row of P nearest to each row of C (Euclidean; ties to the first, as upstream's argmin).

    The distances are upstream's ``norm(C_i - P_j)`` entry for entry, over chunks of C. Distances
    within ``TIE_RTOL`` of the nearest (relative to it plus the largest feature) tie, so rows of P
    equal but for round-off (a symmetric mesh has many) go to the first of them on every machine.
    """
    step = max(1, CHUNK_ENTRIES // max(P.size, 1))
    scale = float(np.abs(P).max()) if P.size else 0.0
    nearest = []
    for s in range(0, C.shape[0], step):
        D = np.linalg.norm(C[s:s + step, None, :] - P[None, :, :], axis=2)
        nearest.append(np.argmax(D <= D.min(axis=1, keepdims=True) * (1 + TIE_RTOL) + TIE_RTOL * scale, axis=1))
    return np.concatenate(nearest)


def _kmeans_plus_plus(data, k, rng):
    """The k-means++ start of scipy's ``kmeans2(..., minit="++")``, drawn from the same random stream.

    scipy recomputes every centre's distances to every point for each new centre (O(k^2 n p): 1.8 s
    for 432 centres over 5,184 elements); here each point's squared distance to its nearest centre
    is updated with the newest centre only (O(k n p)). The running minimum of the same ``cdist``
    values is scipy's minimum exactly, so the same centres are drawn.
    """
    n = data.shape[0]
    init = np.empty((k, data.shape[1]))
    init[0] = data[rng.randint(0, n, dtype=np.int64)]
    nearest = np.full(n, np.inf)
    for i in range(1, k):
        nearest = np.minimum(nearest, cdist(init[i - 1:i], data, metric="sqeuclidean")[0])
        total = nearest.sum()
        r = rng.uniform()
        # every point on a centre already (more centres than distinct points): scipy's 0/0 picks point 0
        init[i] = data[int(np.searchsorted((nearest / total).cumsum(), r)) if total > 0 else 0]
    return init


def spectral_cubature(X, T, W, k, return_labels=False, return_centroids=False):
    r"""Pick k cubature elements by clustering the elements in the space of a basis W.

    Each element gets the mean of W over its vertices; k-means (scipy's ``kmeans2``, k-means++
    start, seed 0, as upstream) groups the elements into k clusters; each cluster is represented
    by the element nearest its centroid, weighted by the cluster's total volume. A cluster that
    k-means leaves empty represents no element and is dropped, so every weight is positive and
    fewer than k points may come back (upstream keeps such a cluster's element, weight 0):

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
        Number of clusters, 1 <= k <= t: at most k cubature points.
    return_labels : bool, optional
        Also return each element's cluster.
    return_centroids : bool, optional
        Also return the cluster centroids.

    Returns
    -------
    lI : (c,) int array
        The cubature element of each non-empty cluster (an index into T), c <= k.
    mc : (c,) float array
        Total volume of each cluster, > 0: the cubature weights (they sum to the mesh's volume).
    labels : (t,) int array, optional
        Cluster of every element, in 0 .. c-1.
    centroids : (c, p) float array, optional
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
    start = _kmeans_plus_plus(Wt, k, np.random.RandomState(0))     # kmeans2(seed=0)'s generator
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "One of the clusters is empty", UserWarning)
        centroids, labels = kmeans2(Wt, start, minit="matrix")
    members = np.bincount(labels, minlength=k) > 0
    centroids, labels = centroids[members], (np.cumsum(members) - 1)[labels]
    lI = _nearest_rows(centroids, Wt)
    mc = np.bincount(labels, weights=vol, minlength=centroids.shape[0])
    result = (lI, mc)
    if return_labels:
        result += (labels,)
    if return_centroids:
        result += (centroids,)
    return result
