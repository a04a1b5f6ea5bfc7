"""Assembly: the one module where per-element values become global sparse matrices and vectors.

Every global Hessian in simkit is ``H = sum_e P_e^T B_e P_e``, where ``B_e`` is a dense
``(p, p)`` element block and ``P_e`` selects the ``p`` global degrees of freedom listed in
row ``e`` of an integer array ``dofs`` (k, p); every gradient is the matching vector sum. The
sparsity pattern depends only on the connectivity, so it is built once (index arrays, one sort)
and cached; each later assembly only scatters values into it. There are two scatters of each
kind, chosen by measurement, and nothing outside this module builds a global matrix:

- matrices from full blocks, ``Pattern`` (``element_pattern(T, dim, ndof)`` for node-major
  dofs ``T * dim + a``, whose sort runs on node pairs, dim^2 fewer keys; ``dof_pattern`` and
  ``assemble_matrix`` for any dof lists, e.g. a contact set that changes every step): one
  ``np.unique`` of linearised (column, row) keys gives the CSC ``indptr``/``indices`` and every
  block entry's slot, and each assembly is one ``np.bincount`` into the slots;
- matrices from symmetric blocks given by their upper entries, ``SymmetricPattern``
  (``symmetric_pattern``; the hinges' 12x12 blocks have 78 independent entries of 144): one
  fixed 0/1 summation matrix-vector product, about twice as fast as ``bincount`` here;
- vectors of a fixed connectivity, ``VectorScatter`` (``vector_scatter``): a cached 0/1
  matrix-vector product;
- vectors of a connectivity seen once (an active contact set), ``assemble_vector``: one
  ``np.bincount``, no pattern to build.

``operator_pattern`` prepares a linear operator ``d = J z`` (springs, deformation gradients): its
per-element local rows and the ``Pattern`` of the blocks ``J_e^T B_e J_e``.

Patterns live in small LRU caches keyed on the connectivity's content (``_cache``), so
mutating or reusing a connectivity array can never return a stale pattern. Returned matrices
own copies of ``indices``/``indptr``, so editing them in place cannot corrupt the cache either.
"""
import numpy as np
import scipy.sparse as sps

from . import _validate
from ._cache import ArrayKeyedCache


class Pattern:
    """CSC pattern of ``sum_e P_e^T B_e P_e`` and the slot of every block entry.

    Attributes
    ----------
    dofs : (k, p) int array
        Global degrees of freedom of each element.
    ndof : int
        Size of the global matrix.
    indptr, indices : int arrays
        The canonical CSC structure.
    slot : (k*p*p,) int array
        Position in the CSC data array of block entry (e, i, j), C order.
    """

    def __init__(self, dofs, ndof, indptr, indices, slot):
        self.dofs, self.ndof = dofs, ndof
        self.indptr, self.indices, self.slot = indptr, indices, slot

    def matrix(self, blocks):
        """Sum blocks (k, p, p) into an (ndof, ndof) scipy.sparse.csc_matrix."""
        data = np.bincount(self.slot, weights=np.ascontiguousarray(blocks, dtype=float).reshape(-1),
                           minlength=self.indices.size)
        H = sps.csc_matrix((data, self.indices.copy(), self.indptr.copy()), shape=(self.ndof, self.ndof))
        H.has_sorted_indices = True
        H.has_canonical_format = True
        return H


def _index_dtype(*sizes):
    return np.int32 if max(sizes) < np.iinfo(np.int32).max else np.int64


def node_dofs(T, dim):
    """Degrees of freedom of each element's nodes, node-major: (k, q) -> (k, q*dim)."""
    return (T[:, :, None] * dim + np.arange(dim)).reshape(T.shape[0], T.shape[1] * dim)


def _unique_pairs(idx, size):
    """Sorted unique (column, row) pairs of every element's index pairs, and each pair's rank."""
    k, p = idx.shape
    rows = np.broadcast_to(idx[:, :, None], (k, p, p)).reshape(-1)
    cols = np.broadcast_to(idx[:, None, :], (k, p, p)).reshape(-1)
    keys, rank = np.unique(cols * size + rows, return_inverse=True)
    counts = np.bincount(keys // size, minlength=size)
    return keys % size, counts, rank.reshape(k, p, p)


def _build_dof_pattern(dofs, ndof):
    rows, counts, rank = _unique_pairs(dofs, ndof)
    dtype = _index_dtype(rows.size, ndof)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(dtype)
    return Pattern(dofs, ndof, indptr, rows.astype(dtype), rank.reshape(-1).astype(np.intp))


def _build_element_pattern(T, dim, ndof):
    n = ndof // dim
    node_rows, node_counts, rank = _unique_pairs(T, n)
    node_start = np.concatenate([[0], np.cumsum(node_counts)[:-1]])
    node_cols = np.repeat(np.arange(n), node_counts)
    a = np.arange(dim)
    # dof column (J, b) holds rows (I, a) for every node I of node column J: dim * count(J) entries
    col_start = dim * dim * node_start[:, None] + a[None, :] * dim * node_counts[:, None]
    within = (np.arange(node_rows.size) - node_start[node_cols]) * dim
    position = col_start[node_cols][:, :, None] + within[:, None, None] + a[None, None, :]
    dtype = _index_dtype(dim * dim * node_rows.size, ndof)
    indices = np.empty(dim * dim * node_rows.size, dtype=dtype)
    indices[position] = (node_rows * dim)[:, None, None] + a[None, None, :]
    indptr = np.concatenate([col_start.reshape(-1), [indices.size]]).astype(dtype)
    slot = position[rank[:, :, None, :, None], a[None, None, None, None, :], a[None, None, :, None, None]]
    return Pattern(node_dofs(T, dim), ndof, indptr, indices, slot.reshape(-1).astype(np.intp))


_dof_patterns = ArrayKeyedCache()
_element_patterns = ArrayKeyedCache()


def dof_pattern(dofs, ndof):
    """Cached ``Pattern`` of elements with arbitrary dof lists dofs (k, p) in [0, ndof)."""
    dofs = np.ascontiguousarray(dofs, dtype=np.int64)
    return _dof_patterns.get((ndof,), (dofs,), lambda: _build_dof_pattern(dofs, ndof))


def element_pattern(T, dim, ndof):
    """Cached ``Pattern`` of elements with node indices T (k, q) and node-major dofs ``T*dim + a``."""
    T = np.ascontiguousarray(T, dtype=np.int64)
    return _element_patterns.get((dim, ndof), (T,), lambda: _build_element_pattern(T, dim, ndof))


def assemble_matrix(blocks, dofs, ndof):
    """Sum element blocks into a global CSC matrix.

    Parameters
    ----------
    blocks : (k, p, p) float array
        Dense element blocks ``B_e``.
    dofs : (k, p) int array
        Global degree of freedom of each block row/column, in [0, ndof).
    ndof : int
        Size of the global matrix.

    Returns
    -------
    H : (ndof, ndof) scipy.sparse.csc_matrix
        ``H[dofs[e, i], dofs[e, j]] += blocks[e, i, j]`` over all e, i, j.
    """
    return dof_pattern(dofs, ndof).matrix(blocks)


def assemble_vector(values, dofs, ndof):
    """Sum element vectors into a global column.

    Parameters
    ----------
    values : (k, p) float array
        Element vectors.
    dofs : (k, p) int array
        Global degree of freedom of each entry, in [0, ndof).
    ndof : int
        Length of the global vector.

    Returns
    -------
    g : (ndof, 1) float array
        ``g[dofs[e, i]] += values[e, i]`` over all e, i.
    """
    g = np.bincount(np.asarray(dofs).reshape(-1), weights=np.asarray(values, dtype=float).reshape(-1),
                    minlength=ndof)
    return g.reshape(-1, 1).astype(float, copy=False)      # bincount of no elements is int64


class OperatorPattern:
    """Per-element local rows of a linear operator ``d = J z`` with ``dim`` rows per element.

    Attributes
    ----------
    J : (m*dim, N) scipy sparse matrix (CSR or CSC, canonical)
    JT : (N, m*dim) scipy sparse matrix
        A private copy of ``J^T`` (for gradients ``J^T g``).
    m, dim : int
    local : (m, dim, p) float array
        Element e's rows of J restricted to the p columns they touch:
        ``d_e = local[e] @ z[pattern.dofs[e]]``.
    pattern : Pattern
        Assembly pattern of the (p, p) blocks ``local[e]^T B_e local[e]``; its ``dofs`` are the
        columns touched (padded with the element's first column).
    """

    def __init__(self, J, m, dim, cached):
        self.J, self.m, self.dim = J, m, dim
        self.JT, self.local, self.pattern = cached
        # a tiny operator (a 21-node cable's J is 40 x 42) is applied as a dense array: a sparse
        # product costs a few microseconds of dispatch, more than the arithmetic
        small = J.shape[0] * J.shape[1] <= DENSE_ENTRIES
        self._apply = J.toarray() if small else J
        self._apply_T = self._apply.T.copy() if small else self.JT

    def edge_vectors(self, z, offset=None):
        """``d = J z (+ offset)`` as an (m, dim) array."""
        d = self._apply @ z
        if offset is not None:
            d = d + offset
        return d.reshape(self.m, self.dim)

    def transpose_apply(self, g):
        """``J^T g`` for per-element vectors g (m, dim), as an (N, 1) column."""
        return self._apply_T @ g.reshape(-1, 1)


_operators = ArrayKeyedCache()
DENSE_ENTRIES = 4096       # operators with at most this many entries (stored or not) are applied dense


def _rows_cols(J):
    """Row and column index of every stored entry of a CSR or CSC matrix."""
    major = np.repeat(np.arange(J.indptr.size - 1), np.diff(J.indptr))
    return (major, J.indices) if J.format == "csr" else (J.indices, major)


def _build_operator_locals(J, m, dim):
    rows, cols = _rows_cols(J)
    elem, comp = np.divmod(rows.astype(np.int64), dim)
    N = J.shape[1]
    keys, inverse = np.unique(elem * N + cols, return_inverse=True)
    key_elem = keys // N
    counts = np.bincount(key_elem, minlength=m)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    position = np.arange(keys.size) - start[key_elem]
    first = np.zeros(m, dtype=np.int64)
    has = counts > 0
    first[has] = keys[start[has]] % N
    dofs = np.repeat(first[:, None], max(int(counts.max(initial=0)), 1), axis=1)
    dofs[key_elem, position] = keys % N
    local = np.zeros((m, dim, dofs.shape[1]))
    local[elem, comp, position[inverse.reshape(-1)]] = J.data
    return local, _build_dof_pattern(dofs, N)


def is_kron_identity(J, dim):
    """Whether the sparse J equals ``kron(B, eye(dim))`` for some B (every dim x dim block a multiple of I)."""
    R, N = J.shape
    if R % dim or N % dim:
        return False
    rows, cols = _rows_cols(J)
    keep = J.data != 0
    rows, cols, vals = rows[keep].astype(np.int64), cols[keep].astype(np.int64), J.data[keep]
    if not np.array_equal(rows % dim, cols % dim):
        return False
    key = (rows // dim) * (N // dim) + cols // dim
    order = np.argsort(key, kind="stable")
    key, vals = key[order], vals[order]
    starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
    counts = np.diff(np.append(starts, key.size))
    return bool((counts == dim).all() and (vals == np.repeat(vals[starts], dim)).all())


def _operator_dim(J, name):
    """The dim of ``J = kron(B, I_dim)``: the one of 2 and 3 that fits; ValueError if none or both do."""
    fits = [d for d in (2, 3) if is_kron_identity(J, d)]
    if len(fits) == 1:
        return fits[0]
    if fits:
        raise ValueError(f"{name}: shape {J.shape} fits both kron(B, I_2) and kron(B, I_3), so the dimension "
                         "is ambiguous; state it with dim=")
    raise ValueError(f"{name}: cannot tell the dimension: J is not kron(B, I_2) or kron(B, I_3) (e.g. a reduced "
                     "operator, or a 1D network); state it with dim=")


def _build_operator(J, dim, name):
    if not np.isfinite(J.data).all():
        raise ValueError(f"{name}: expected finite values, found NaN or inf")
    if dim is None:
        dim = _operator_dim(J, name)
    m = J.shape[0] // dim
    return dim, (J.T.copy(), *_build_operator_locals(J, m, dim))


def operator_pattern(J, N, dim=None, name="J"):
    """Validate a sparse (or dense) per-element operator J of shape (m*dim, N); return its OperatorPattern.

    The number of elements m and their dimension come from J alone: ``dim`` when given, else
    the structure ``J = kron(B, I_dim)`` with dim 2 or 3 (an operator that fits neither, or
    both, needs an explicit ``dim``). The transpose, local rows and assembly pattern are
    cached on J's content.
    """
    if not sps.issparse(J):
        arr = _validate.real_array(J, name)
        if arr.ndim != 2:
            raise ValueError(f"{name}: expected a 2D operator of shape (m*dim, {N}), got {arr.shape}")
        J = sps.csr_matrix(arr)
    if J.ndim != 2 or J.shape[1] != N:
        raise ValueError(f"{name}: expected shape (m*dim, {N}) to act on the {N} rows of z, got {J.shape}")
    if dim is not None and J.shape[0] % _validate.integer(dim, "dim", low=1):
        raise ValueError(f"dim: J has {J.shape[0]} rows, expected a multiple of dim = {dim}")
    if J.format not in ("csr", "csc"):
        J = J.tocsr()
    if not J.has_canonical_format:
        J = J.copy()
        J.sum_duplicates()
    dim, cached = _operators.get((J.format, J.shape, dim), (J.indptr, J.indices, J.data),
                                 lambda: _build_operator(J, dim, name))
    return OperatorPattern(J, J.shape[0] // dim, dim, cached)


# --- symmetric element blocks: only the upper entries are computed and summed -----------------
#
# Appended for the hinge energies (a 3D bending block is 12x12): a symmetric block has
# q(q-1)/2 * dim^2 + q * dim(dim+1)/2 independent entries (78 of 144 for 4 nodes in 3D), so the
# element code writes only those, one row per entry and one column per element (``upper_layout``).
# ``SymmetricPattern.data`` sums them per unordered dof pair with one sparse matrix-vector product
# (a fixed 0/1 summation operator; measured about twice as fast as ``np.bincount`` here, since its
# writes are sequential) and expands the sums to both triangles of the CSC data with one gather.


def upper_layout(q, dim):
    """Local (row, column) of the independent entries of a symmetric (q*dim, q*dim) element block.

    Order: the off-diagonal node blocks (a, b), a < b, lexicographically, each full and
    row-major; then the diagonal node blocks a = 0 .. q-1, upper triangle (i <= j) row-major.

    Returns
    -------
    rows, cols : (q(q-1)/2 * dim^2 + q * dim(dim+1)/2,) int arrays
    """
    rows, cols = [], []
    for a in range(q):
        for b in range(a + 1, q):
            i, j = np.meshgrid(np.arange(dim), np.arange(dim), indexing="ij")
            rows.append(a * dim + i.ravel())
            cols.append(b * dim + j.ravel())
    for a in range(q):
        i, j = np.triu_indices(dim)
        rows.append(a * dim + i)
        cols.append(a * dim + j)
    return np.concatenate(rows), np.concatenate(cols)


class SymmetricPattern:
    """CSC pattern of ``sum_e P_e^T B_e P_e`` for symmetric blocks given by their upper entries.

    Attributes
    ----------
    ndof : int
    indptr, indices : int arrays
        The canonical CSC structure (both triangles).
    summation : (npairs, u*k) scipy.sparse.csr_matrix
        Sums upper entry r of element e (position ``r*k + e``, entry-major) into its unordered
        dof pair; weight 2 where the two dofs coincide off the block diagonal (an element that
        repeats a node), 1 elsewhere.
    expand : (nnz,) int array
        Unordered pair of every CSC position.
    """

    def __init__(self, ndof, indptr, indices, summation, expand):
        self.ndof, self.indptr, self.indices = ndof, indptr, indices
        self.summation, self.expand = summation, expand

    def data(self, upper):
        """CSC data array from upper entries (u, k) (see ``upper_layout``)."""
        return (self.summation @ np.ascontiguousarray(upper, dtype=float).reshape(-1))[self.expand]

    def matrix(self, upper):
        """Sum the symmetric element blocks given by upper entries (u, k) into a CSC matrix."""
        H = sps.csc_matrix((self.data(upper), self.indices.copy(), self.indptr.copy()),
                           shape=(self.ndof, self.ndof))
        H.has_sorted_indices = True
        H.has_canonical_format = True
        return H


def _build_symmetric_pattern(T, dim, ndof):
    k, q = T.shape
    rows, cols = upper_layout(q, dim)
    I = (T[:, rows // dim] * dim + rows % dim).T          # (u, k), entry-major
    J = (T[:, cols // dim] * dim + cols % dim).T
    lo, hi = np.minimum(I, J).reshape(-1), np.maximum(I, J).reshape(-1)
    pairs, slot = np.unique(lo * ndof + hi, return_inverse=True)
    weight = np.where((lo == hi) & np.repeat(rows != cols, k), 2.0, 1.0)
    summation = sps.csr_matrix((weight, (slot.reshape(-1), np.arange(lo.size))), shape=(pairs.size, lo.size))
    plo, phi = pairs // ndof, pairs % ndof
    off = plo != phi
    # full CSC entries: every pair as (row lo, col hi), off-diagonal pairs also as (row hi, col lo)
    r = np.concatenate([plo, phi[off]])
    c = np.concatenate([phi, plo[off]])
    which = np.concatenate([np.arange(pairs.size), np.flatnonzero(off)])
    order = np.lexsort((r, c))
    dtype = _index_dtype(r.size, ndof)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(c, minlength=ndof))]).astype(dtype)
    return SymmetricPattern(ndof, indptr, r[order].astype(dtype), summation, which[order])


_symmetric_patterns = ArrayKeyedCache()


def symmetric_pattern(T, dim, ndof):
    """Cached ``SymmetricPattern`` of elements with node indices T (k, q) and dofs ``T*dim + a``."""
    T = np.ascontiguousarray(T, dtype=np.int64)
    return _symmetric_patterns.get((dim, ndof), (T,), lambda: _build_symmetric_pattern(T, dim, ndof))


class VectorScatter:
    """Sum per-element node vectors into a global column with one sparse matrix-vector product.

    ``operator`` is the (ndof, q*dim*k) 0/1 matrix taking values laid out (q*dim, k) (node-major
    rows ``a*dim + i``, one column per element) to ``g[T[e, a]*dim + i] += values[a*dim + i, e]``.
    """

    def __init__(self, operator):
        self.operator = operator

    def vector(self, values):
        """(ndof, 1) sums of the element vectors values (q*dim, k)."""
        return (self.operator @ np.ascontiguousarray(values, dtype=float).reshape(-1)).reshape(-1, 1)


def _build_vector_scatter(T, dim, ndof):
    k, q = T.shape
    dofs = (T.T[:, None, :] * dim + np.arange(dim)[None, :, None]).reshape(-1)
    op = sps.csr_matrix((np.ones(dofs.size), (dofs, np.arange(dofs.size))), shape=(ndof, dofs.size))
    return VectorScatter(op)


_vector_scatters = ArrayKeyedCache()


def vector_scatter(T, dim, ndof):
    """Cached ``VectorScatter`` of elements with node indices T (k, q) and dofs ``T*dim + a``."""
    T = np.ascontiguousarray(T, dtype=np.int64)
    return _vector_scatters.get((dim, ndof), (T,), lambda: _build_vector_scatter(T, dim, ndof))
