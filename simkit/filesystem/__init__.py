"""Writing figures and animations to disk: deterministic PNGs and H.264 MP4 videos.

matplotlib and ffmpeg are imported lazily (inside the functions, and ``BlitAnimation``
on first access), so ``import simkit`` needs only numpy and scipy.
"""
from .save_figure import save_figure
from .save_animation import save_animation

__all__ = ["save_figure", "save_animation", "BlitAnimation"]


def __getattr__(name):
    # BlitAnimation subclasses matplotlib's FuncAnimation: import it on first use only.
    if name == "BlitAnimation":
        from .blit_animation import BlitAnimation
        return BlitAnimation
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
