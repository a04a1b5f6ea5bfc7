r"""Energy terms: prepared objects with ``energy``, ``gradient`` and ``hessian`` of stacked x, and their sum.

Every term follows one protocol (``Term``): ``size``, ``energy(x) -> float``,
``gradient(x) -> (N, 1)``, ``hessian(x) -> (N, N)`` (sparse), ``max_step(x, dx)`` in (0, 1]
(the line-search filter of contact, 1 by default) and ``update(x_n)`` (called at the start of
each time step: friction lags there; a no-op by default). A term is checked once, when it is
built (its operator, stiffnesses, hinges), keeps what every call reuses (assembly patterns,
targets) and then evaluates simkit's energy kernels unchecked, so a chapter can call it
thousands of times on a tiny system. ``Sum(*terms)`` (or ``a + b``) is one more term;
``Map(term, B, x0)`` is a term of other coordinates ``x = B z + x0`` (reduced models), and
``Held(term, x_held, fixed)`` the one of the free coordinates when some are held.
``SpringBody(X, T, ...)`` is a mesh's mass-spring potential (springs and gravity) with its
lumped mass matrix. ``ReducedElasticEnergy`` is an elastic energy of reduced coordinates by
cubature, and ``AffineOrthogonality`` the rigidity potential of affine bodies.
"""
from .affine_orthogonality import AffineOrthogonality
from .base import Sum, Term
from .bending import Bending
from .contact import Friction, HalfSpaceContact
from .elastic import ElasticEnergy
from .gravity import Gravity
from .inertia import Inertia
from .map import Held, Map
from .mesh_contact import MeshContact
from .pins import PenaltySpring
from .reduced_elastic import ReducedElasticEnergy
from .spring_body import SpringBody
from .springs import SpringEnergy

__all__ = ["Term", "Sum", "Map", "Held", "SpringEnergy", "SpringBody", "Bending", "PenaltySpring", "Gravity", "Inertia",
           "HalfSpaceContact", "MeshContact", "Friction", "ElasticEnergy", "ReducedElasticEnergy",
           "AffineOrthogonality"]
