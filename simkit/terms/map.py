r"""A term of other coordinates: ``x = B z + x0``, a linear map into the coordinates of a term.

Reduced models (``B`` a basis of modes or skinning weights), affine bodies (``B`` each body's
affine Jacobian) and held degrees of freedom (``B`` a selection of the free ones, ``Held``) are
all the same term, built from any term of the full coordinates::

    E(z) = Psi(B z + x0),   grad E = B^T grad Psi,   hess E = B^T (hess Psi) B

and a step dz of the new coordinates is the step ``B dz`` of the full ones, so the full term's
line-search filter (contact's continuous collision detection) filters it as it is.
"""
import numpy as np
import scipy.sparse as sps

from .. import _validate
from .base import Term, is_term, line_search_filter


def _basis(B):
    """B as a finite csc_matrix or float ndarray of shape (N, k), k >= 1."""
    if sps.issparse(B):
        if B.ndim != 2:
            raise ValueError(f"B: expected a 2D matrix of shape (N, k), got shape {B.shape}")
        B = sps.csc_matrix(B, dtype=float)
        _validate.finite(B.data, "B")
    else:
        B = _validate.finite_array(B, "B")
        if B.ndim != 2:
            raise ValueError(f"B: expected a 2D matrix of shape (N, k), got shape {B.shape}")
    if B.shape[1] == 0:
        raise ValueError(f"B: expected at least one column (k >= 1), got shape {B.shape}")
    return B


class Map(Term):
    r"""The term of coordinates z for a term of x, through ``x = B z + x0``.

    :math:`E(z) = \Psi(Bz + x_0)`, :math:`\nabla E = B^\top \nabla\Psi`, :math:`\nabla^2 E = B^\top \nabla^2\Psi\, B`

    Parameters
    ----------
    term : term
        A term of the full coordinates x (N of them), e.g. a ``Sum`` of elastic energy,
        gravity and contact.
    B : (N, k) scipy sparse matrix or float array
        The map's matrix.
    x0 : (N, 1) or (N,) float array, optional
        The map's offset (default zeros).

    Attributes
    ----------
    term : term
    B : (N, k) csc_matrix or float ndarray
    x0 : (N, 1) float array
        May be changed in place between calls (a moving offset).
    size : int
        k, the number of coordinates z.

    Notes
    -----
    ``hessian`` returns a csc_matrix when B is sparse, a dense ndarray when B is dense (a
    reduced basis: ``B^T H B`` is small and full). ``max_step(z, dz)`` is
    ``term.max_step(B z + x0, B dz)``, and ``update(z_n)`` calls ``term.update(B z_n + x0)``.
    ``full(z)`` gives the full coordinates and ``project(A)`` the matrix ``B^T A B`` (the
    reduced mass matrix of ``simkit.integrators.simulate``).
    """

    def __init__(self, term, B, x0=None):
        if not is_term(term):
            raise TypeError(f"term: expected an energy term with energy(x), gradient(x) and hessian(x), got "
                            f"{type(term).__name__}")
        B = _basis(B)
        N, k = B.shape
        term_size = getattr(term, "size", None)
        if term_size is not None and term_size != N:
            raise ValueError(f"B: expected {term_size} rows, one per coordinate of the term, got shape {B.shape}")
        self.term, self.B, self.size = term, B, k
        self.x0 = np.zeros((N, 1)) if x0 is None else _validate.stacked(x0, "x0", size=N).copy()
        self._BT = B.T.tocsr() if sps.issparse(B) else np.ascontiguousarray(B.T)
        self._filter = line_search_filter(term)
        self._update = getattr(term, "update", None) if callable(getattr(term, "update", None)) else None

    def full(self, z):
        """Full coordinates ``B z + x0`` of z (k, 1): (N, 1) float array."""
        return self.B @ self._x(z) + self.x0

    def energy(self, z):
        """``term.energy(B z + x0)``, float."""
        return self.term.energy(self.full(z))

    def gradient(self, z):
        """``B^T term.gradient(B z + x0)``, (k, 1) float array."""
        return self._BT @ self.term.gradient(self.full(z))

    def hessian(self, z):
        """``B^T term.hessian(B z + x0) B``: (k, k) csc_matrix for a sparse B, ndarray for a dense one."""
        return self.project(self.term.hessian(self.full(z)))

    def project(self, A):
        """``B^T A B`` of an (N, N) matrix A (sparse or dense): csc_matrix for a sparse B, ndarray for a dense one."""
        if sps.issparse(self.B):
            product = self._BT @ (A @ self.B)
            return sps.csc_matrix(product) if not sps.issparse(product) else product.tocsc()
        return np.asarray(self._BT @ (A @ self.B))

    @property
    def has_max_step(self):
        """Whether the full term filters the line search."""
        return self._filter is not None

    def max_step(self, z, dz):
        """``term.max_step(B z + x0, B dz)``: the full term's filter of the mapped step (1 without one)."""
        if self._filter is None:
            return 1.0
        return self._filter(self.full(z), self.B @ np.reshape(dz, (-1, 1)))

    def update(self, z_n):
        """``term.update(B z_n + x0)`` at the start of a time step. Returns self."""
        if self._update is not None:
            self._update(self.full(z_n))
        return self


class Held(Map):
    r"""Held (Dirichlet) coordinates: the term as a function of the free coordinates q only.

    :math:`x = B q + x_0`, B the selection of the free coordinates (one 1 per column), x0 the held
    values at the fixed coordinates and zero elsewhere; the gradient is ``g[free]`` and the Hessian
    the free-free block ``H[free][:, free]`` (the same numbers as ``B^T H B``, without products).

    Parameters
    ----------
    term : term
        A term of the full stacked coordinates x (N of them).
    x_held : (N, 1), (N,) or (n, dim) float array
        Positions whose entries at the `fixed` coordinates are held (the others are not used).
    fixed : (p,) int array
        Held coordinates: indices into stacked x (node i's coordinate a is ``i * dim + a``), in
        [0, N); repeats are allowed.

    Attributes
    ----------
    free, fixed : int arrays
        Sorted free and held coordinates.
    x0 : (N, 1) float array
        The held values at ``fixed``, zero at ``free``; change ``x0[fixed]`` in place to move them.

    Notes
    -----
    Build the mass matrix of the free coordinates with ``project(M)`` (``M[free][:, free]``).
    """

    def __init__(self, term, x_held, fixed):
        x = _validate.finite_array(x_held, "x_held").reshape(-1, 1)
        N = x.shape[0]
        fixed = _validate.index_vector(np.reshape(fixed, -1), "fixed", N)
        self.free = np.setdiff1d(np.arange(N), fixed)
        self.fixed = np.setdiff1d(np.arange(N), self.free)
        if self.free.size == 0:
            raise ValueError(f"fixed: every one of the {N} coordinates is held; expected at least one free one")
        B = sps.csc_matrix((np.ones(self.free.size), (self.free, np.arange(self.free.size))),
                           shape=(N, self.free.size))
        x0 = x.copy()
        x0[self.free] = 0.0
        super().__init__(term, B, x0)

    def full(self, q):
        """Full coordinates: x0 with q in the free places, (N, 1) float array."""
        x = self.x0.copy()
        x[self.free] = self._x(q)
        return x

    def gradient(self, q):
        """The free rows of ``term.gradient``, (k, 1) float array."""
        return self.term.gradient(self.full(q))[self.free]

    def project(self, A):
        """The free-free block ``A[free][:, free]`` of an (N, N) matrix (sparse or dense)."""
        if sps.issparse(A):
            return sps.csc_matrix(A)[self.free][:, self.free]
        return np.asarray(A)[np.ix_(self.free, self.free)]

    def max_step(self, q, dq):
        """The full term's filter of the step that moves only the free coordinates."""
        if self._filter is None:
            return 1.0
        dx = np.zeros_like(self.x0)
        dx[self.free] = np.reshape(dq, (-1, 1))
        return self._filter(self.full(q), dx)
