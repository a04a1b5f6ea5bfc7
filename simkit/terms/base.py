r"""The protocol every energy term shares, and the sum of terms.

A term is an energy of stacked positions ``x`` (``N = n * dim``, node-major, or any other
coordinates: ``simkit.terms.Map``) with

- ``size``: N (None when the term reads it from each ``x``);
- ``energy(x) -> float``, ``gradient(x) -> (N, 1)``, ``hessian(x) -> (N, N)`` (scipy.sparse; a
  term of reduced coordinates may return a dense ndarray);
- ``max_step(x, dx) -> float`` in (0, 1]: the largest fraction of the Newton step dx from x the
  term allows (a contact term's continuous collision detection), 1 by default; Newton's line
  search starts from it (``newton_solver``'s ``max_step=``);
- ``update(x_n)``: called by the time loop at the start of each step with the step's start
  state (friction lags its normal forces there, a moving target moves); a no-op by default.

Terms check their data once, in their constructor, keep what every call reuses (an assembly
pattern, a target) and then evaluate the unchecked kernels of ``simkit.energies``.
``a + b`` and ``Sum(a, b, ...)`` add terms left to right, so
``Sum(a, b, c).energy(x) == a.energy(x) + b.energy(x) + c.energy(x)`` exactly; a ``Sum`` is a
term, whose ``max_step`` is the smallest of its terms' and whose ``update`` updates them all.
"""
import scipy.sparse as sps

from .. import _validate


class Term:
    r"""Base class of the energy terms: the protocol's defaults and ``a + b``.

    Subclasses define ``energy``, ``gradient`` and ``hessian`` and set ``size``; they override
    ``max_step`` when some steps must be cut short (contact) and ``update`` when the term
    changes from one time step to the next (lagged friction).

    Attributes
    ----------
    size : int or None
        Number N of stacked degrees of freedom the term acts on (None when read from each x).
    """

    size = None

    def energy(self, x):
        """Energy at x (N, 1): float."""
        raise NotImplementedError(f"{type(self).__name__}.energy")

    def gradient(self, x):
        """Gradient at x: (N, 1) float array."""
        raise NotImplementedError(f"{type(self).__name__}.gradient")

    def hessian(self, x):
        """Hessian at x: (N, N) sparse matrix (or dense array)."""
        raise NotImplementedError(f"{type(self).__name__}.hessian")

    def max_step(self, x, dx):
        r"""Largest fraction in (0, 1] of the step dx from x that the term allows: 1 here.

        Parameters
        ----------
        x, dx : (N, 1) float arrays
            The current iterate and the Newton step.

        Returns
        -------
        alpha : float
            1.0 (a term without a line-search filter never shortens a step).
        """
        return 1.0

    def update(self, x_n):
        """Start a time step at x_n (N, 1): a no-op here. Returns self."""
        return self

    @property
    def has_max_step(self):
        """Whether ``max_step`` can return less than 1 (the term overrides it): only then is it a filter."""
        return type(self).max_step is not Term.max_step

    def _x(self, x):
        """``x`` as a finite (N, 1) column (an (N,) vector is accepted)."""
        return _validate.stacked(x, "x", size=self.size)

    def __add__(self, other):
        return Sum(self, other) if is_term(other) else NotImplemented

    def __radd__(self, other):
        return Sum(other, self) if is_term(other) else NotImplemented


def _zero_sparse(H):
    return sps.issparse(H) and H.nnz == 0


def is_term(obj):
    """Whether obj has callable ``energy``, ``gradient`` and ``hessian`` (any such object can join a ``Sum``)."""
    return all(callable(getattr(obj, name, None)) for name in ("energy", "gradient", "hessian"))


def line_search_filter(term):
    """The bound ``max_step`` of a term that can shorten a step, else None (no filter to pass Newton)."""
    if isinstance(term, Term):
        return term.max_step if term.has_max_step else None
    return term.max_step if callable(getattr(term, "max_step", None)) else None


class Sum(Term):
    r"""The sum of energy terms, itself a term.

    :math:`\Psi(x) = \sum_k \Psi_k(x)`, evaluated left to right (gradients and Hessians too).

    Parameters
    ----------
    *terms : term
        One or more terms of the same stacked ``x``: ``Term`` objects, or any object with
        ``energy``, ``gradient`` and ``hessian`` (and optionally ``max_step``, ``update``).

    Attributes
    ----------
    terms : tuple of term
    size : int or None
        The terms' common N (None when no term states it).

    Notes
    -----
    ``potential = Sum(springs, bending, gravity, pins)`` minimizes to a static shape;
    ``simkit.integrators.backward_euler(x, x_prev, potential, M, h)`` adds the inertia of one
    time step. ``a + b`` of two terms is ``Sum(a, b)``.
    """

    def __init__(self, *terms):
        if not terms:
            raise ValueError("terms: expected at least one energy term, got none")
        for k, term in enumerate(terms):
            if not is_term(term):
                raise TypeError(f"terms[{k}]: expected an energy term with energy(x), gradient(x) and hessian(x), "
                                f"got {type(term).__name__}")
        sizes = {getattr(term, "size", None) for term in terms} - {None}
        if len(sizes) > 1:
            raise ValueError(f"terms: expected every term to act on the same stacked x, got sizes {sorted(sizes)}")
        self.terms = tuple(terms)
        self.size = sizes.pop() if sizes else None
        self._filters = tuple(f for f in map(line_search_filter, terms) if f is not None)
        self._updates = tuple(term.update for term in terms if callable(getattr(term, "update", None)))

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(type(term).__name__ for term in self.terms)})"

    def _total(self, method, x):
        first, *rest = self.terms
        total = getattr(first, method)(x)
        for term in rest:
            total = total + getattr(term, method)(x)
        return total

    def energy(self, x):
        """Total energy, float."""
        return self._total("energy", x)

    def gradient(self, x):
        """Sum of the gradients, (N, 1) float array."""
        return self._total("gradient", x)

    def hessian(self, x):
        """Sum of the Hessians, (N, N) sparse matrix (or dense: a reduced term's).

        A zero sparse Hessian (a constant force's) adds nothing to a dense one and is skipped:
        adding it would turn a reduced model's small dense Hessian into a ``numpy.matrix`` through
        a sparse sum, at a cost comparable to the rest of its Newton iteration.
        """
        first, *rest = self.terms
        total = first.hessian(x)
        for term in rest:
            H = term.hessian(x)
            if _zero_sparse(H) and not sps.issparse(total):
                continue
            total = H if _zero_sparse(total) and not sps.issparse(H) else total + H
        return total

    @property
    def has_max_step(self):
        """Whether some term of the sum filters the line search."""
        return bool(self._filters)

    def max_step(self, x, dx):
        r"""Largest fraction of the step dx from x that every term allows: :math:`\min(1, \min_k \alpha_k(x, dx))`.

        Over the terms that filter (1 when none does); arguments as ``Term.max_step``.
        """
        return min([1.0] + [f(x, dx) for f in self._filters])

    def update(self, x_n):
        """Start a time step at x_n: ``update(x_n)`` of every term that has one, in order. Returns self."""
        for update in self._updates:
            update(x_n)
        return self
