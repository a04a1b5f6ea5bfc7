"""Input checks of arrays, indices and scalars: the project's one validation layer, public.

simkit validates every argument through these before doing any work, and the course's helpers
(``course/``, behind ``utils``) use the same ones, so a chapter gets the same message for the
same mistake wherever it makes it. Each check returns the argument converted to the canonical
form the numerical code expects (a float64 ndarray, an int64 index array, a float).

Exception policy (one for the whole project)
--------------------------------------------
- ``TypeError``: the argument is the wrong *kind* of thing: not numeric, a float or bool
  array where integer indices are needed, a sparse matrix where a dense array is needed,
  not callable, not a real scalar, not an integer, a flag that is not a bool.
- ``ValueError``: the right kind with the wrong *shape, size, range or value*: wrong
  number of rows or columns, an index out of range, a negative stiffness, NaN or inf.

Every message starts with the argument's name, a colon, and what was expected
(``"l0: expected strictly positive values, found min 0"``). The checks are written for tiny
systems too (the chapters call the library thousands of times): the common case, a float64
ndarray, passes without a copy or conversion.
"""
import math
import numbers

import numpy as np
import scipy.sparse as sps

_FLOAT = np.dtype(float)
_INTEGRAL = (numbers.Integral, np.integer)


def real_array(a, name):
    """A float64 ndarray view of a numeric argument, without a copy when it already is one.

    Parameters
    ----------
    a : array_like
        Any real numeric array or nested sequence (a numpy.matrix becomes a plain ndarray).
    name : str
        The argument's name, for the message.

    Returns
    -------
    arr : float64 ndarray, of a's shape

    Raises
    ------
    TypeError
        a is a scipy sparse matrix, a string, or not numeric.
    """
    if type(a) is np.ndarray and a.dtype is _FLOAT:
        return a
    if sps.issparse(a):
        raise TypeError(f"{name}: expected a dense numpy array, got a scipy sparse matrix")
    if isinstance(a, (str, bytes)):
        raise TypeError(f"{name}: expected a real numeric array, got {type(a).__name__}")
    try:
        arr = np.asarray(a, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name}: expected a real numeric array ({err})") from None
    if type(arr) is not np.ndarray:   # numpy.matrix and other subclasses: plain ndarray
        arr = np.asarray(arr).view(np.ndarray)
    return arr


def finite(arr, name):
    """Raise ValueError, naming the first bad entry, unless every entry of a float array is finite.

    Parameters
    ----------
    arr : float ndarray
    name : str

    Returns
    -------
    arr : the same array
    """
    if np.isfinite(arr).all():
        return arr
    bad = ~np.isfinite(arr)
    first = np.unravel_index(int(np.argmax(bad)), arr.shape)
    where = f" at index {tuple(int(i) for i in first)}" if arr.ndim else ""
    raise ValueError(f"{name}: expected finite values, found {float(arr[first])}{where} "
                     f"({int(bad.sum())} non-finite)")


def finite_array(a, name):
    """A finite float64 ndarray of any shape: ``real_array`` then ``finite``.

    Parameters
    ----------
    a : array_like
    name : str

    Returns
    -------
    arr : float64 ndarray, of a's shape
    """
    return finite(real_array(a, name), name)


def positions(X, name="X", dims=(2, 3)):
    """Node positions: a finite float array of shape (n, dim) with dim in `dims`.

    Parameters
    ----------
    X : (n, dim) array_like
    name : str, optional
    dims : sequence of int, optional
        The dimensions accepted (default 2 and 3).

    Returns
    -------
    X : (n, dim) float64 ndarray
    """
    arr = real_array(X, name)
    if arr.ndim != 2 or arr.shape[1] not in dims:
        raise ValueError(f"{name}: expected shape (n, dim) with dim in {tuple(dims)}, got {np.shape(X)}")
    return finite(arr, name)


def index_array(E, name, ncols, n):
    """Integer connectivity of shape (k, ncols) with every entry in [0, n).

    Parameters
    ----------
    E : (k, ncols) array_like of int
        Edges, simplices, hinges... (an empty array may be float).
    name : str
    ncols : int or sequence of int
        The column counts accepted.
    n : int
        Number of nodes the indices point into.

    Returns
    -------
    E : (k, ncols) int64 ndarray
    """
    arr = np.asarray(E)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        if arr.size or not np.issubdtype(arr.dtype, np.number):
            raise TypeError(f"{name}: expected an integer index array, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[1] not in np.atleast_1d(ncols):
        raise ValueError(f"{name}: expected shape (k, {ncols}), got {arr.shape}")
    if arr.size:
        lo, hi = arr.min(), arr.max()
        if lo < 0 or hi >= n:
            raise ValueError(f"{name}: expected indices in [0, {n}), found range [{lo}, {hi}]")
    return arr.astype(np.int64, copy=False)


def index_vector(i, name, n):
    """Integer indices of shape (k,) (a (k, 1) column is accepted) with every entry in [0, n).

    Parameters
    ----------
    i : (k,) or (k, 1) array_like of int
    name : str
    n : int

    Returns
    -------
    i : (k,) int64 ndarray
    """
    arr = np.asarray(i)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1D index array of shape (k,), got {np.shape(i)}")
    return index_array(arr.reshape(-1, 1), name, 1, n)[:, 0]


def _per_element(p, name, m, what):
    """p as an (m,) float array: from (m,), (m, 1), or a scalar / length-1 array meaning every element."""
    arr = real_array(p, name)
    if arr.shape != (m,):
        if arr.shape == (m, 1):
            arr = arr.reshape(m)
        elif arr.size == 1 and arr.ndim <= 2:
            arr = np.full(m, arr.reshape(-1)[0])
        else:
            raise ValueError(f"{name}: expected a scalar or one value per {what} (shape ({m},) or ({m}, 1)) "
                             f"for the {m} {what}s, got shape {np.shape(p)}")
    return arr


def element_values(p, name, m, what="element"):
    """Per-element finite values: a scalar (every element), (m,) or (m, 1).

    Parameters
    ----------
    p : float, (m,) or (m, 1) array_like
    name : str
    m : int
        Number of elements.
    what : str, optional
        What an element is, for the message ("node", "spring", "hinge").

    Returns
    -------
    p : (m,) float64 ndarray
    """
    return finite(_per_element(p, name, m, what), name)


def element_param(p, name, m, positive=False, what="element"):
    """Per-element material parameter: ``element_values`` that are >= 0 (> 0 with `positive`).

    Parameters
    ----------
    p : float, (m,) or (m, 1) array_like
    name : str
    m : int
    positive : bool, optional
        Require > 0 instead of >= 0.
    what : str, optional

    Returns
    -------
    p : (m,) float64 ndarray
    """
    arr = _per_element(p, name, m, what)
    if m:
        lo = np.minimum.reduce(arr)
        if not (lo > 0 if positive else lo >= 0) or np.maximum.reduce(arr) == math.inf:
            finite(arr, name)
            kind = "strictly positive" if positive else "non-negative"
            raise ValueError(f"{name}: expected {kind} values, found min {lo:g}")
    return arr


def real_scalar(a, name):
    """A finite real number (a 0-d array too; not a bool), returned as float.

    Parameters
    ----------
    a : real scalar
    name : str

    Returns
    -------
    value : float
    """
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (numbers.Real, np.ndarray)) or np.ndim(a) != 0:
        raise TypeError(f"{name}: expected a real scalar, got {type(a).__name__}")
    try:
        value = float(a)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a real scalar, got an array of dtype {a.dtype}") from None
    if not math.isfinite(value):
        raise ValueError(f"{name}: expected a finite value, got {value}")
    return value


def positive_scalar(h, name):
    """A finite real number > 0, returned as float.

    Parameters
    ----------
    h : real scalar
    name : str

    Returns
    -------
    value : float
    """
    value = real_scalar(h, name)
    if value <= 0:
        raise ValueError(f"{name}: expected a finite value > 0, got {value}")
    return value


def integer(k, name, low=None):
    """A Python or numpy integer (not a bool), optionally >= `low`, returned as int.

    Parameters
    ----------
    k : int
    name : str
    low : int, optional

    Returns
    -------
    k : int
    """
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, _INTEGRAL):
        raise TypeError(f"{name}: expected an integer, got {type(k).__name__}")
    if low is not None and k < low:
        raise ValueError(f"{name}: expected an integer >= {low}, got {k}")
    return int(k)


def boolean(flag, name):
    """A bool (numpy bools too); TypeError for anything else, e.g. a positional 3 taken as a flag.

    Parameters
    ----------
    flag : bool
    name : str

    Returns
    -------
    flag : bool
    """
    if not isinstance(flag, (bool, np.bool_)):
        raise TypeError(f"{name}: expected True or False, got {type(flag).__name__} {flag!r}")
    return bool(flag)
