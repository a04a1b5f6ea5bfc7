r"""Skinning eigenmodes: Laplacian eigenfunctions used as linear-blend-skinning weights."""
import numpy as np
import scipy.sparse as sps

from . import _eigen, _validate
from .dirichlet_laplacian import dirichlet_laplacian
from .lbs_jacobian import lbs_jacobian
from .massmatrix import lumped_masses


def skinning_eigenmodes(X, T, k, mu=1, bI=None, Aeq=None):
    r"""The k lowest eigenfunctions of the Dirichlet Laplacian, as skinning weights, and their LBS Jacobian.

    :math:`L w = E\, M w` with L ``dirichlet_laplacian(X, T, mu)`` and M the lumped (scalar) mass
    (Benchekroun et al. 2023). Each weight field w carries one affine transform per mode:
    :math:`x_v = \sum_b w_b(v)\, A_b [X_v; 1]`, i.e. ``x = B z`` with ``B = lbs_jacobian(X, W)``.
    Unclamped, the first mode is constant, so the subspace holds every affine map of the rest shape.

    Parameters
    ----------
    X : (n, dim) float array
        Rest node positions, dim 2 or 3: the weights live on these vertices.
    T : (t, dim+1) int array
        Positively oriented triangles or tetrahedra over which the Laplacian and mass integrate.
    k : int
        Number of modes, 1 <= k <= number of free vertices (minus the constraints).
    mu : float or (t,) / (t, 1) float array, optional
        Stiffness per element of the Laplacian (default 1): stiffer regions get flatter weights.
    bI : (b,) int array, optional
        Pinned vertices: removed from the problem, their weights are zero.
    Aeq : (m, n) sparse or dense float array, optional
        Linear equality constraints every weight field satisfies, ``Aeq w = 0`` (a saddle-point
        eigenproblem, as upstream's).

    Returns
    -------
    W : (n, k) float array
        Weights, mass-orthonormal (:math:`W^\top M W = I`), in the canonical basis of
        ``linear_modal_analysis`` (the same on every machine to round-off: a fixed basis of each
        cluster of equal eigenvalues, each column's largest entry positive).
    E : (k,) float array
        Eigenvalues, ascending (the constant mode's is 0 to round-off).
    B : (n*dim, k*(dim+1)*dim) scipy.sparse.csc_matrix
        ``lbs_jacobian(X, W)`` (upstream returns it dense).
    """
    X = _validate.positions(X, "X", dims=(2, 3))
    n, dim = X.shape
    T = _validate.index_array(T, "T", dim + 1, n)
    free = _eigen.free_dofs(bI, n, 1)
    C = None
    if Aeq is not None:
        C = sps.csr_matrix(Aeq) if sps.issparse(Aeq) else sps.csr_matrix(_validate.real_array(Aeq, "Aeq"))
        if C.ndim != 2 or C.shape[1] != n:
            raise ValueError(f"Aeq: expected shape (m, {n}), one column per vertex, got {C.shape}")
        _validate.finite(C.data, "Aeq")
        C = C[:, free].tocsc()
    rank = 0 if C is None else C.shape[0]
    k = _eigen.mode_count(k, free.size - rank, "free vertices minus the constraints")
    L = dirichlet_laplacian(X, T, mu)[free][:, free]
    masses = lumped_masses(X, T)[free]
    if not masses.min() > 0:
        raise ValueError(f"T: free node {free[np.argmax(masses <= 0)]} belongs to no element and has no mass; "
                         "remove such nodes or pin them with bI")
    E, Wf = _eigen.lowest_eigenpairs(L, masses, k, _eigen.relative_shift(L, masses), C)
    W = np.zeros((n, k))
    W[free] = Wf
    return W, E, lbs_jacobian(X, W)
