"""Energy terms: objects with ``energy(x)``, ``gradient(x)`` and ``hessian(x)`` of stacked x."""
from .contact import Friction, HalfSpaceContact, SegmentContact, min_step

__all__ = ["HalfSpaceContact", "SegmentContact", "Friction", "min_step"]
