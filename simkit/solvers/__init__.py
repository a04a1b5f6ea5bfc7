"""Solvers: Newton's method with backtracking line search."""
from .newton_solver import newton_solver

__all__ = ["newton_solver"]
