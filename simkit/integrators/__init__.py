"""Time integrators: explicit Euler, Backward Euler / BDF2 as energy minimizations, and the time loop."""
from .backward_euler import backward_euler
from .bdf2 import bdf2
from .forward_euler import forward_euler
from .simulate import Trajectory, simulate

__all__ = ["forward_euler", "backward_euler", "bdf2", "simulate", "Trajectory"]
