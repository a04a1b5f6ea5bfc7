"""Time integrators: explicit Euler, and Backward Euler / BDF2 as energy minimizations."""
from .backward_euler import backward_euler
from .bdf2 import bdf2
from .forward_euler import forward_euler

__all__ = ["forward_euler", "backward_euler", "bdf2"]
