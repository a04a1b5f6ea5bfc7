"""Energy terms: objects with ``energy(x)``, ``gradient(x)`` and ``hessian(x)`` of stacked x."""
from .contact import Friction, HalfSpaceContact

__all__ = ["HalfSpaceContact", "Friction"]
