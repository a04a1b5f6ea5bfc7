"""Quadratic penalty pinning selected nodes to target positions."""
import numpy as np
import scipy.sparse as sps

from . import _validate


def dirichlet_penalty(bI, y, nv, gamma, *, only_b=False, SGamma=None, return_SGamma=False):
    r"""Quadratic form of soft pins: ``1/2 x^T Q x + b^T x`` equals the pin energy up to a constant.

    :math:`\tfrac{1}{2} x^\top Q x + b^\top x = \sum_k \tfrac{\gamma_k}{2} \lVert x_{b_k} - y_k \rVert^2 - \sum_k \tfrac{\gamma_k}{2} \lVert y_k \rVert^2`

    Parameters
    ----------
    bI : (k,) or (k, 1) int array
        Pinned node indices, in [0, nv).
    y : (k, dim) float array
        Target position of each pinned node; dim is taken from here.
    nv : int
        Number of nodes (x has nv * dim rows, node-major).
    gamma : float or (k,) float array
        Penalty stiffness, > 0: one for all pins, or one per pin.
    only_b : bool, optional, keyword-only
        Return only ``(b,)`` (a 1-tuple, as upstream simkit).
    SGamma : (nv*dim, k*dim) scipy sparse matrix, optional, keyword-only
        A precomputed selection-times-stiffness operator ``S Gamma`` (from an earlier call with
        ``return_SGamma=True``); ``gamma`` is then not used for b and Q.
    return_SGamma : bool, optional, keyword-only
        Append ``S Gamma`` to the returned tuple.

    Returns
    -------
    Q : (nv*dim, nv*dim) scipy.sparse.csc_matrix
        ``S Gamma S^T``, S selecting the pinned degrees of freedom (omitted with ``only_b``).
    b : (nv*dim, 1) float array
        ``-S Gamma y`` (y flattened node-major).
    SGamma : (nv*dim, k*dim) scipy.sparse.csc_matrix
        Only with ``return_SGamma``.
    """
    nv = _validate.iteration_count(nv, "nv")
    bI = _validate.index_vector(bI, "bI", nv)
    y = _validate.positions(y, "y", dims=range(1, 4))
    k, dim = bI.shape[0], y.shape[1]
    if y.shape[0] != k:
        raise ValueError(f"y: expected one row per pinned node ({k}), got {y.shape[0]}")
    only_b = _validate.boolean(only_b, "only_b")
    return_SGamma = _validate.boolean(return_SGamma, "return_SGamma")
    ndof = nv * dim
    dofs = (bI[:, None] * dim + np.arange(dim)).reshape(-1)
    if SGamma is None:
        gamma = _validate.element_param(gamma, "gamma", k, positive=True, what="pin")
        SGamma = sps.csc_matrix((np.repeat(gamma, dim), (dofs, np.arange(k * dim))), shape=(ndof, k * dim))
    elif not sps.issparse(SGamma) or SGamma.shape != (ndof, k * dim):
        raise ValueError(f"SGamma: expected a sparse ({ndof}, {k * dim}) matrix S Gamma, "
                         f"got {type(SGamma).__name__} of shape {np.shape(SGamma)}")
    else:
        _validate.finite(SGamma.data, "SGamma")
    b = -np.asarray(SGamma @ y.reshape(-1, 1))
    if only_b:
        out = (b,)
    else:
        S = sps.csc_matrix((np.ones(k * dim), (dofs, np.arange(k * dim))), shape=(ndof, k * dim))
        out = (sps.csc_matrix(SGamma @ S.T), b)
    return out + (sps.csc_matrix(SGamma),) if return_SGamma else out
