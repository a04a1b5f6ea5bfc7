"""Energy terms: objects with ``energy(x)``, ``gradient(x)`` and ``hessian(x)`` of stacked x."""
from .contact import HalfSpaceContact

__all__ = ["HalfSpaceContact"]
