"""The Dirichlet-energy Laplacian of a triangle or tetrahedron mesh (the cotangent Laplacian, positive)."""
import numpy as np
import scipy.sparse as sps

from . import _assembly, _validate
from .deformation_jacobian import shape_gradients
from .volume import volume


def dirichlet_laplacian(X, T, mu=1, vector=False):
    r"""Hessian of the Dirichlet energy :math:`\tfrac12 \sum_e \mu_e \mathrm{vol}_e \lVert \nabla u \rVert^2`.

    :math:`L = G^\top \operatorname{diag}(\mu\,\mathrm{vol})\, G` for a scalar field, i.e. the
    positive semi-definite cotangent Laplacian (its rows sum to zero, constants are its null space).

    Parameters
    ----------
    X : (n, dim) float array
        Rest node positions, dim 2 or 3.
    T : (t, dim+1) int array
        Positively oriented triangles (2D) or tetrahedra (3D).
    mu : float or (t,) / (t, 1) float array, optional
        Stiffness per element, >= 0 (default 1).
    vector : bool, optional
        False (default): the scalar Laplacian (n, n). True: the Laplacian of a vector field,
        ``J^T diag(mu vol) J`` with J the deformation Jacobian, which is ``kron(L, I_dim)``.

    Returns
    -------
    L : (n, n) or (n*dim, n*dim) scipy.sparse.csc_matrix
        As upstream simkit: upstream forms ``J^T diag(mu vol) J`` and averages its dim
        component blocks, which is the scalar L exactly.
    """
    X = _validate.positions(X, "X", dims=(2, 3))
    n, dim = X.shape
    T = _validate.index_array(T, "T", dim + 1, n)
    vector = _validate.boolean(vector, "vector")
    weight = volume(X, T)[:, 0] * _validate.element_param(mu, "mu", T.shape[0])
    G = shape_gradients(X, T)                                   # (t, dim+1, dim): grad N_a
    blocks = weight[:, None, None] * (G @ np.swapaxes(G, 1, 2))
    L = _assembly.element_pattern(T, 1, n).matrix(blocks)
    if vector:
        return sps.kron(L, sps.identity(dim), format="csc")
    return L
