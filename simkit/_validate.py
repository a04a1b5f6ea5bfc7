"""Shared input checks: every public function validates through these before doing any work.

Each check raises ``ValueError`` (wrong shape, range or value) or ``TypeError`` (wrong kind
or dtype) with a message that starts with the argument's name, and returns the argument
converted to the canonical form the numerical code expects.
"""
import numbers

import numpy as np
import scipy.sparse as sps


def _float_array(a, name):
    if sps.issparse(a):
        raise TypeError(f"{name}: expected a dense numpy array, got a scipy sparse matrix")
    try:
        arr = np.asarray(a, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name}: expected a real numeric array ({err})") from None
    return arr


def finite(arr, name):
    """Raise ValueError unless every entry of `arr` is finite."""
    if not np.isfinite(arr).all():
        raise ValueError(f"{name}: expected finite values, found NaN or inf")
    return arr


def positions(X, name="X", dims=(2, 3)):
    """Node positions: a finite float array of shape (n, dim) with dim in `dims`."""
    arr = _float_array(X, name)
    if arr.ndim != 2 or arr.shape[1] not in dims:
        raise ValueError(f"{name}: expected shape (n, dim) with dim in {tuple(dims)}, got {arr.shape}")
    return finite(arr, name)


def stacked(x, name="x", size=None):
    """Stacked positions or any column vector: finite float, (N, 1) or (N,), returned as (N, 1)."""
    arr = _float_array(x, name)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2 or arr.shape[1] != 1:
        raise ValueError(f"{name}: expected a column vector of shape (N, 1), got {np.shape(x)}")
    if size is not None and arr.shape[0] != size:
        raise ValueError(f"{name}: expected {size} rows, got {arr.shape[0]}")
    return finite(arr, name)


def index_array(E, name, ncols, n):
    """Integer connectivity of shape (k, ncols) with every entry in [0, n)."""
    arr = np.asarray(E)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name}: expected an integer index array, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[1] not in np.atleast_1d(ncols):
        raise ValueError(f"{name}: expected shape (k, {ncols}), got {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        raise ValueError(f"{name}: indices must lie in [0, {n}), found range "
                         f"[{arr.min()}, {arr.max()}]")
    return arr.astype(np.int64, copy=False)


def index_vector(i, name, n):
    """Integer indices of shape (k,) (a (k, 1) column is accepted) with every entry in [0, n)."""
    arr = np.asarray(i)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1D index array of shape (k,), got {np.shape(i)}")
    return index_array(arr.reshape(-1, 1), name, 1, n)[:, 0]


def element_param(p, name, m, positive=False):
    """Per-element parameter: ``element_values`` that are non-negative (strictly with `positive`)."""
    arr = element_values(p, name, m)
    if positive and not (arr > 0).all():
        raise ValueError(f"{name}: expected strictly positive values, found min {arr.min():g}")
    if not (arr >= 0).all():
        raise ValueError(f"{name}: expected non-negative values, found min {arr.min():g}")
    return arr


def element_values(p, name, m):
    """Per-element signed values (e.g. rest angles): scalar, (m,) or (m, 1), finite -> (m,)."""
    arr = _float_array(p, name)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim == 0:
        arr = np.full(m, float(arr))
    if arr.shape != (m,):
        raise ValueError(f"{name}: expected a scalar or shape ({m}, 1) / ({m},) to match the "
                         f"{m} elements, got shape {np.shape(p)}")
    return finite(arr, name)


def positive_scalar(h, name):
    """A finite real number > 0, returned as float."""
    if isinstance(h, bool) or not isinstance(h, (numbers.Real, np.ndarray)) or np.ndim(h) != 0:
        raise TypeError(f"{name}: expected a real scalar, got {type(h).__name__}")
    value = float(h)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name}: expected a finite value > 0, got {value}")
    return value


def real_scalar(a, name):
    """A finite real number, returned as float."""
    if isinstance(a, bool) or not isinstance(a, (numbers.Real, np.ndarray)) or np.ndim(a) != 0:
        raise TypeError(f"{name}: expected a real scalar, got {type(a).__name__}")
    value = float(a)
    if not np.isfinite(value):
        raise ValueError(f"{name}: expected a finite value, got {value}")
    return value


def iteration_count(k, name):
    """An integer >= 1."""
    if isinstance(k, bool) or not isinstance(k, (numbers.Integral, np.integer)):
        raise TypeError(f"{name}: expected an integer, got {type(k).__name__}")
    if k < 1:
        raise ValueError(f"{name}: expected an integer >= 1, got {k}")
    return int(k)


def callables(**named):
    """Raise TypeError naming the first argument that is not callable."""
    for name, f in named.items():
        if not callable(f):
            raise TypeError(f"{name}: expected a callable, got {type(f).__name__}")


def square_matrix(M, name, size):
    """A (size, size) matrix, sparse or dense (ndarray or numpy.matrix), with finite entries."""
    if sps.issparse(M):
        if M.shape != (size, size):
            raise ValueError(f"{name}: expected shape ({size}, {size}), got {M.shape}")
        finite(M.data, name)
        return M
    arr = _float_array(M, name)
    if arr.shape != (size, size):
        raise ValueError(f"{name}: expected shape ({size}, {size}), got {arr.shape}")
    return finite(arr, name)


def node_count(x, dim, name="x"):
    """Number of nodes n of stacked positions x with N = n * dim rows."""
    N = x.shape[0]
    if N % dim:
        raise ValueError(f"{name}: {N} rows is not a multiple of dim = {dim}")
    return N // dim
