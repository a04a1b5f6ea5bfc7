r"""Energy terms: prepared objects with ``energy``, ``gradient`` and ``hessian`` of stacked x, and their sum.

A term is checked once, when it is built (its operator, stiffnesses, hinges), keeps what every
call reuses (assembly patterns, targets) and then evaluates simkit's energy kernels unchecked,
so a chapter can call it thousands of times on a tiny system. Every term returns a float
energy, an ``(N, 1)`` gradient and a sparse ``(N, N)`` Hessian of stacked node-major positions
``x`` (``N = n * dim``); ``Sum(*terms)`` (or ``a + b``) is one more term.
"""
from .affine_orthogonality import AffineOrthogonality
from .base import Sum, Term
from .bending import Bending
from .contact import Friction, HalfSpaceContact, SegmentContact, min_step
from .elastic import ElasticEnergy
from .gravity import Gravity
from .inertia import Inertia
from .pins import PenaltySpring
from .reduced_elastic import ReducedElasticEnergy
from .springs import SpringEnergy

__all__ = ["Term", "Sum", "SpringEnergy", "Bending", "PenaltySpring", "Gravity", "Inertia",
           "HalfSpaceContact", "SegmentContact", "Friction", "min_step", "ElasticEnergy",
           "ReducedElasticEnergy", "AffineOrthogonality"]
