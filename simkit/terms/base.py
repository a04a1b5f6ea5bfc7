r"""The interface every energy term shares, and the sum of terms.

A term is any object with ``energy(x) -> float``, ``gradient(x) -> (N, 1)`` and
``hessian(x) -> scipy.sparse (N, N)`` of stacked positions ``x`` (``N = n * dim``,
node-major). Terms check their data once, in their constructor, keep what every call
reuses (an assembly pattern, a target) and then evaluate the unchecked kernels of
``simkit.energies``. ``Sum`` adds terms left to right, so
``Sum(a, b, c).energy(x) == a.energy(x) + b.energy(x) + c.energy(x)`` exactly.
"""
from .. import _validate


class Term:
    """Base class of the energy terms: stacked-x checks and ``a + b`` for their sum.

    Subclasses define ``energy``, ``gradient`` and ``hessian`` and set ``size`` (N, or
    None when the size is read from each ``x``). Any object with those three methods is a
    term for ``Sum``; deriving from ``Term`` only adds ``+``.

    Attributes
    ----------
    size : int or None
        Number N of stacked degrees of freedom the term acts on.
    """

    size = None

    def _x(self, x):
        """``x`` as a finite (N, 1) column (an (N,) vector is accepted)."""
        return _validate.stacked(x, "x", size=self.size)

    def __add__(self, other):
        return Sum(self, other) if _is_term(other) else NotImplemented

    def __radd__(self, other):
        return Sum(other, self) if _is_term(other) else NotImplemented


def _is_term(obj):
    return all(callable(getattr(obj, name, None)) for name in ("energy", "gradient", "hessian"))


class Sum(Term):
    r"""The sum of energy terms, itself a term.

    :math:`\Psi(x) = \sum_k \Psi_k(x)`, evaluated left to right (gradients and Hessians too).

    Parameters
    ----------
    *terms : term
        One or more objects with ``energy``, ``gradient`` and ``hessian`` of the same stacked
        ``x`` (a ``Sum`` among them is evaluated as one term, in its place).

    Attributes
    ----------
    terms : tuple of term
    size : int or None
        The terms' common N (None when no term states it).

    Notes
    -----
    ``potential = Sum(springs, bending, gravity, pins)`` minimizes to a static shape;
    ``Sum(inertia, potential)`` is the objective of one backward-Euler step. ``a + b`` of two
    ``Term`` objects is ``Sum(a, b)``. ``max_step`` combines the line-search filters of the terms
    that have one (contact terms), for ``newton_solver``/``backward_euler``'s ``max_step=``.
    """

    def __init__(self, *terms):
        if not terms:
            raise ValueError("terms: expected at least one energy term, got none")
        for k, term in enumerate(terms):
            if not _is_term(term):
                raise TypeError(f"terms[{k}]: expected an energy term with energy(x), gradient(x) and hessian(x), "
                                f"got {type(term).__name__}")
        sizes = {getattr(term, "size", None) for term in terms} - {None}
        if len(sizes) > 1:
            raise ValueError(f"terms: expected every term to act on the same stacked x, got sizes {sorted(sizes)}")
        self.terms = tuple(terms)
        self.size = sizes.pop() if sizes else None
        self._filters = tuple(term.max_step for term in terms if callable(getattr(term, "max_step", None)))

    def __repr__(self):
        return f"Sum({', '.join(type(term).__name__ for term in self.terms)})"

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
        """Sum of the Hessians, (N, N) sparse matrix."""
        return self._total("hessian", x)

    def max_step(self, x, dx):
        r"""Largest fraction in (0, 1] of the step dx from x that every term allows.

        Parameters
        ----------
        x, dx : (N, 1) float arrays
            The current iterate and the Newton step.

        Returns
        -------
        alpha : float
            :math:`\min(1, \min_k \alpha_k(x, dx))` over the terms with a ``max_step`` (1 when none has one).
        """
        return min([1.0] + [f(x, dx) for f in self._filters])
