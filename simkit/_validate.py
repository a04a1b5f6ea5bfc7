"""The library's private input checks; the policy and the checks the course uses too are public in ``simkit.checks``.

These are the checks only simkit needs (stacked columns, time steps, mass matrices, the values
a user's callables return, flags); the array, index and scalar checks are imported from
``simkit.checks``, so ``_validate`` names every check the library uses, under one policy.
"""
import math

import numpy as np
import scipy.sparse as sps

from ._cache import ArrayKeyedCache
from .checks import (boolean, element_param, element_values, finite, finite_array, index_array, index_vector,  # noqa: F401
                     integer, positions, positive_scalar, real_array, real_scalar)


def stacked(x, name="x", size=None):
    """Stacked positions or any column vector: finite float, (N, 1) or (N,), returned as (N, 1)."""
    arr = real_array(x, name)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    elif arr.ndim != 2 or arr.shape[1] != 1:
        raise ValueError(f"{name}: expected a column vector of shape (N, 1), got {np.shape(x)}")
    if size is not None and arr.shape[0] != size:
        raise ValueError(f"{name}: expected {size} rows, got {arr.shape[0]}")
    return finite(arr, name)


def node_positions(x, dim=None, name="x", dims=(1, 2, 3)):
    """Positions given as an (n, dim) array or as a stacked (n*dim, 1) column; returns (n, dim).

    The dimension is never guessed: (n, dim) positions with dim >= 2 carry it, a stacked
    column (or (n, 1) 1D positions) needs `dim`. A `dim` that disagrees with (n, dim)
    positions is an error.
    """
    arr = real_array(x, name)
    if dim is not None:
        dim = integer(dim, "dim", low=1)
        if dim not in dims:
            raise ValueError(f"dim: expected one of {tuple(dims)}, got {dim}")
    if arr.ndim == 2 and arr.shape[1] >= 2:
        if arr.shape[1] not in dims:
            raise ValueError(f"{name}: expected (n, dim) positions with dim in {tuple(dims)} or a stacked "
                             f"(n*dim, 1) column, got shape {arr.shape}")
        if dim is not None and dim != arr.shape[1]:
            raise ValueError(f"dim: x holds {arr.shape[1]}D positions (shape {arr.shape}), but dim = {dim}")
        return finite(arr, name)
    if arr.ndim not in (1, 2):
        raise ValueError(f"{name}: expected (n, dim) positions or a stacked (n*dim, 1) column, got {arr.shape}")
    if dim is None:
        raise ValueError(f"{name}: a stacked column of shape {arr.shape} does not say its dimension; pass "
                         f"(n, dim) positions (x.reshape(-1, dim)) or state it with dim=")
    N = arr.shape[0]
    if N % dim:
        raise ValueError(f"{name}: {N} rows is not a multiple of dim = {dim}")
    return finite(arr.reshape(N // dim, dim), name)


def body_labels(bodies, n, name="bodies"):
    """One integer body label per node: shape (n,) (an (n, 1) column is accepted), returned as (n,)."""
    labels = np.asarray(bodies)
    if labels.shape not in ((n,), (n, 1)) or not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(f"{name}: expected one integer label per node, shape ({n},), got {labels.shape} "
                         f"of dtype {labels.dtype}")
    return labels.reshape(n)


def time_step(h, name="h"):
    """A time step: > 0 and finite, with ``h**2`` a normal positive float (``1/h**2`` finite too)."""
    value = positive_scalar(h, name)
    if not (_H_MIN <= value <= _H_MAX):
        raise ValueError(f"{name}: expected a time step with h**2 a normal positive float "
                         f"({_H_MIN:.3g} <= h <= {_H_MAX:.3g}), got {value:g}")
    return value


# h**2 must neither underflow below the smallest normal float nor overflow, and 1/h**2 must stay finite
_H_MIN = math.sqrt(np.finfo(float).tiny) * (1.0 + 1e-15)
_H_MAX = math.sqrt(np.finfo(float).max) * (1.0 - 1e-15)


def iteration_count(k, name):
    """An integer >= 1."""
    return integer(k, name, low=1)


def choice(value, name, options):
    """One of `options` (strings)."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name}: expected one of {', '.join(repr(o) for o in options)}, got {value!r}")
    return value


def callables(**named):
    """Raise TypeError naming the first argument that is not callable."""
    for name, f in named.items():
        if not callable(f):
            raise TypeError(f"{name}: expected a callable, got {type(f).__name__}")


def square_matrix(M, name, size=None):
    """A (size, size) matrix, sparse or dense (ndarray or numpy.matrix), with finite entries.

    Sparse matrices are returned as given, dense ones as float ndarrays.
    """
    if sps.issparse(M):
        shape = M.shape
        data = M.data
    else:
        M = real_array(M, name)
        shape = M.shape
        data = M
    if len(shape) != 2 or shape[0] != shape[1] or (size is not None and shape[0] != size):
        n = "N" if size is None else size
        raise ValueError(f"{name}: expected a square matrix of shape ({n}, {n}), got {shape}")
    finite(data, name)
    return M


def _mass_properties(M, name):
    """Check symmetry and the positive diagonal of a square finite M; return its row sums."""
    if sps.issparse(M):
        C = M.tocsr()
        diag, rows = C.diagonal(), np.asarray(C.sum(axis=1)).reshape(-1)
        asym = abs(C - C.T).max() if C.nnz else 0.0
        scale = abs(C).max() if C.nnz else 0.0
    else:
        diag, rows = np.diagonal(M), M.sum(axis=1)
        asym = np.abs(M - M.T).max(initial=0.0)
        scale = np.abs(M).max(initial=0.0)
    if asym > 1e-12 * scale:
        raise ValueError(f"{name}: expected a symmetric mass matrix, found |M - M^T| up to {asym:g}")
    if diag.size and not np.minimum.reduce(diag) > 0:
        raise ValueError(f"{name}: expected a positive diagonal (every degree of freedom has mass), "
                         f"found min {diag.min():g}")
    return rows


_masses = ArrayKeyedCache()


def _matrix_arrays(M):
    """The arrays that determine a matrix (for the content-keyed cache)."""
    if not sps.issparse(M):
        return (M,)
    if M.format in ("csr", "csc", "bsr"):
        return (M.indptr, M.indices, M.data)
    if M.format == "dia":
        return (M.offsets, M.data)
    C = M.tocsr()
    return (C.indptr, C.indices, C.data)


def mass_matrix(M, name, size=None):
    """A mass matrix: square, finite, symmetric (to 1e-12 relative), positive diagonal.

    Sparse or dense. Returns ``(M, row_sums)``; the row sums are the lumped masses. The
    result of the checks is cached on M's content, so an unchanged M is checked once.
    """
    M = square_matrix(M, name, size)
    fmt = M.format if sps.issparse(M) else "dense"
    rows = _masses.get((fmt, M.shape, name), _matrix_arrays(M), lambda: _mass_properties(M, name))
    return M, rows


def returned_scalar(value, name, where, finite=True):
    """The real scalar (size-1 arrays accepted) a callable returned; NaN and -inf are errors, +inf is not.

    ``finite=False`` checks the kind only (the caller checks the value later, e.g. of a sum).
    """
    arr = np.asarray(value)
    if arr.size != 1 or arr.dtype == bool or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise TypeError(f"{name}: expected the callable to return a real scalar at {where}, "
                        f"got {type(value).__name__} of shape {arr.shape}")
    scalar = float(arr.reshape(-1)[0])
    if finite and (math.isnan(scalar) or scalar == -math.inf):
        raise ValueError(f"{name}: returned {scalar} at {where}; expected a finite energy")
    return scalar


def step_fraction(value, where, name="max_step"):
    """The step fraction a line-search filter returned: a real scalar in (0, 1], as float."""
    alpha = returned_scalar(value, name, where)
    if not 0.0 < alpha <= 1.0:
        raise ValueError(f"{name}: expected the callable to return a step fraction in (0, 1] at {where}, "
                         f"got {alpha}")
    return alpha


def returned_column(value, name, where, size, finite=True):
    """The finite (size, 1) column (or (size,) vector) a callable returned, as (size, 1) (``finite=False``: any values)."""
    try:
        arr = real_array(value, name)
    except TypeError as err:
        raise TypeError(f"{err} at {where}") from None
    if arr.shape not in ((size, 1), (size,)):
        raise ValueError(f"{name}: expected the callable to return a ({size}, 1) array at {where}, "
                         f"got shape {arr.shape}")
    if finite and not np.isfinite(arr).all():
        raise ValueError(f"{name}: returned non-finite values (NaN or inf) at {where}")
    return arr.reshape(size, 1)


def returned_matrix(value, name, where, size, finite=True):
    """The finite (size, size) matrix (sparse, ndarray or numpy.matrix) a callable returned (``finite=False``: any)."""
    if sps.issparse(value):
        data = value.data
    else:
        try:
            data = value = real_array(value, name)
        except TypeError as err:
            raise TypeError(f"{err} at {where}") from None
    if value.shape != (size, size):
        raise ValueError(f"{name}: expected the callable to return a ({size}, {size}) matrix at {where}, "
                         f"got shape {value.shape}")
    if finite and not np.isfinite(data).all():
        raise ValueError(f"{name}: returned a matrix with non-finite entries (NaN or inf) at {where}")
    return value
