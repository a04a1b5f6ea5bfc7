r"""Random training poses of a reduced model: its linear modes with normal amplitudes, the same force in each."""
import numpy as np
import scipy.sparse as sps

from . import _eigen, _validate

# modes whose stiffness is below this fraction of the largest are motions without strain (rigid,
# or the affine maps of an unclamped skinning subspace): they get no amplitude
RIGID = 1e-8


def modal_training_poses(B, K, M, s, displacement, *, z0=None, seed=0):
    r"""s random poses z0 + V c of a reduced model, each mode with the same expected force.

    :math:`z_p = z_0 + \sum_j c_{jp} v_j`, :math:`c_{jp} \sim \mathcal N(0, (a \lambda_1 / \lambda_j)^2)`,
    with :math:`K v_j = \lambda_j M v_j` (:math:`v_j^\top M v_j = 1`): the linear force of mode j,
    :math:`\lambda_j c_{jp} M v_j`, has the same spread :math:`a \lambda_1` in every mode, so a stiff
    mode moves little and no mode's force drowns the others' in a fit (An, Kim and James 2008
    scale their training poses' modal coordinates by :math:`\lambda_1 / \lambda_j`). :math:`a` makes one
    standard deviation of the lowest mode move the coordinate of ``B v_1`` that moves most by
    `displacement`.

    Parameters
    ----------
    B : (N, r) float array or scipy sparse matrix
        The basis of ``x = B z + x0`` (for the displacement scale only).
    K : (r, r) float array
        Reduced stiffness at z0, symmetric positive semi-definite (e.g. the exact
        ``ReducedElasticEnergy(...).hessian(z0)`` of every element).
    M : (r, r) float array or sparse matrix
        Reduced mass ``B^T M B``, symmetric positive definite.
    s : int
        Number of poses, >= 1.
    displacement : float
        Standard deviation of the lowest mode's largest coordinate displacement (length units), > 0.
    z0 : (r, 1) float array, optional, keyword-only
        The pose sampled about (default zeros: the rest pose of ``x = B z + X``).
    seed : int, optional, keyword-only
        Seed of ``numpy.random.default_rng`` (default 0).

    Returns
    -------
    Z : (r, s) float array
        One pose per column. Modes with :math:`\lambda_j \le 10^{-8} \lambda_{\max}` (rigid
        motions) get no amplitude. The modes :math:`v_j` are canonical (``simkit._eigen.canonical_basis``:
        a fixed basis of each cluster of equal eigenvalues, fixed signs), so the poses are the same on
        every machine to round-off.
    """
    B = B.tocsr() if sps.issparse(B) else _validate.finite_array(B, "B")
    if B.ndim != 2 or B.shape[1] < 1:
        raise ValueError(f"B: expected a basis of shape (N, r), got {B.shape}")
    r = B.shape[1]
    K = _square(K, "K", r)
    M = _square(M.toarray() if sps.issparse(M) else M, "M", r)
    s = _validate.integer(s, "s", low=1)
    displacement = _validate.positive_scalar(displacement, "displacement")
    z0 = np.zeros((r, 1)) if z0 is None else _validate.stacked(z0, "z0", r)
    try:
        lam, V = _eigen.dense_eigenpairs(0.5 * (K + K.T), 0.5 * (M + M.T))     # the same modes on every machine
    except np.linalg.LinAlgError:
        raise ValueError("M: expected a symmetric positive definite reduced mass (its Cholesky factorization "
                         "failed)") from None
    strained = lam > RIGID * lam.max()
    if not strained.any():
        raise ValueError("K: expected a stiffness with a strained mode, got none above 1e-8 of the largest eigenvalue")
    lam, V = lam[strained], V[:, strained]
    u1 = np.asarray(B @ V[:, :1])
    amplitude = displacement / np.abs(u1).max() * (lam[0] / lam)
    c = np.random.default_rng(seed).standard_normal((lam.size, s)) * amplitude[:, None]
    return z0 + V @ c


def _square(A, name, r):
    A = _validate.finite_array(A, name)
    if A.shape != (r, r):
        raise ValueError(f"{name}: expected a ({r}, {r}) matrix, one row per reduced coordinate, got {A.shape}")
    return A
