"""Figures and videos on disk: deterministic PNGs and H.264 MP4s, written atomically.

The writers of the course's media, beside their users: the chapters' publisher
(``course.publish``), the drawing helpers (their animations are ``BlitAnimation`` objects) and the
site build (``scripts/``), which also asks which ffmpeg encodes (``find_encoder``) and whether the
process owning a leftover is alive (``process_alive``). Upstream simkit's names
``simkit.filesystem.save_figure`` and ``save_animation`` call these. ``media_rule`` decides
whether a new rendering replaces a published file (the publisher and the build apply it).

matplotlib, ffmpeg and simkit are imported lazily (inside the functions, and ``BlitAnimation`` on first
access), so importing this package needs none of them (the build script, which imports it, starts
about 0.7 s sooner).
"""
from ._atomic import atomic_copy
from ._encoder import find_encoder
from .process_alive import process_alive
from .save_animation import save_animation
from .save_figure import save_figure

__all__ = ["save_figure", "save_animation", "BlitAnimation", "atomic_copy", "find_encoder", "process_alive"]


def __getattr__(name):
    # BlitAnimation subclasses matplotlib's FuncAnimation: import it on first use only.
    if name == "BlitAnimation":
        from .blit_animation import BlitAnimation
        return BlitAnimation
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
