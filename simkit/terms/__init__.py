"""Energy terms: objects with ``energy(x)``, ``gradient(x)`` and ``hessian(x)`` of stacked positions."""
from .elastic import ElasticEnergy

__all__ = ["ElasticEnergy"]
