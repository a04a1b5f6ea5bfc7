"""Figures and videos on disk under upstream simkit's names: ``save_figure`` and ``save_animation``.

Upstream simkit 0.1.8 has ``simkit.filesystem.save_figure`` and ``save_animation``, and chapter
011's seed calls them, so the two names stay here. The writers themselves (byte-reproducible PNGs
and H.264 MP4s, atomic writes, the blitting protocol ``BlitAnimation``) are the course's: nothing
in the simulation library uses them, so they live in ``course.filesystem``, beside the chapters'
publisher and the site build that do, and these two functions call them. ``import simkit`` stays
numpy and scipy: neither the course, matplotlib nor ffmpeg is imported before a call.
"""

__all__ = ["save_figure", "save_animation"]


def save_figure(fig, path, copy_to=None, *, dpi=None):
    """Upstream's name for ``course.filesystem.save_figure``: a figure as a PNG, byte-identical across runs.

    Same parameters and return: `fig` (a matplotlib Figure), `path` (ending in ``.png``), `copy_to`
    (an optional second ``.png``), `dpi` (the figure's own when None); returns the written file's
    absolute path.
    """
    from course.filesystem import save_figure as write
    return write(fig, path, copy_to, dpi=dpi)


def save_animation(anim, path, fps, copy_to=None):
    """Upstream's name for ``course.filesystem.save_animation``: an animation as a bit-exact H.264 MP4.

    Same parameters and return: `anim` (a matplotlib Animation), `path` (ending in ``.mp4``), `fps`
    (frames per second: ``n`` frames last ``n / fps`` s), `copy_to` (an optional second ``.mp4``);
    returns the written file's absolute path.
    """
    from course.filesystem import save_animation as write
    return write(anim, path, fps, copy_to)


def __getattr__(name):
    # the animation class chapters written against this module's earlier home may import from here
    if name == "BlitAnimation":
        from course.filesystem import BlitAnimation
        return BlitAnimation
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
