"""A FuncAnimation that knows which artists change, so frames can be rendered by blitting.

Protocol
--------
An animation splits its figure into static artists and a fixed list of *animated*
artists. ``draw_background`` renders the static part once; ``render_frame(i)`` restores
that background, moves the animated artists to frame ``i`` (``set_frame``) and draws only
them. The result equals a full redraw of frame ``i`` provided every animated artist lies
in an Axes and sits above the static artists of its Axes (higher zorder), which the
class enforces for the Axes-level check and documents for the zorder.
``course.filesystem.save_animation`` recognizes this class and uses exactly these public
methods; in interactive backends it animates through matplotlib's own blitting.
"""
import numpy as np
from matplotlib.animation import FuncAnimation
from matplotlib.artist import Artist

from simkit import checks


class BlitAnimation(FuncAnimation):
    """Animation over a fixed set of artists, updated in place by ``update(i)``.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        Figure holding every artist; it needs an Agg-based canvas to be rendered.
    update : callable
        ``update(i)`` moves the animated artists to frame ``i`` (0 <= i < n_frames)
        and returns nothing; it must be a pure function of ``i``.
    n_frames : int
        Number of frames, at least 1.
    artists : sequence of matplotlib.artist.Artist
        The artists ``update`` changes. Each must belong to an Axes; they are drawn
        sorted by zorder (stable, so ties keep the given order, as matplotlib does).
    interval : float, default 50
        Delay between frames in milliseconds when shown live.
    repeat : bool, default True
        Whether a live display loops.
    """

    def __init__(self, fig, update, n_frames, artists, interval=50, repeat=True):
        if not callable(update):
            raise TypeError(f"update: expected a callable, got {type(update).__name__}")
        n_frames = checks.integer(n_frames, "n_frames", low=1)
        artists = list(artists)
        if not artists:
            raise ValueError("artists: expected at least one animated artist")
        for a in artists:
            if not isinstance(a, Artist):
                raise TypeError(f"artists: expected matplotlib artists, got {type(a).__name__}")
            if a.axes is None:
                raise ValueError(
                    f"animated artist {a!r} is not in an Axes; matplotlib never draws animated "
                    "Figure-level artists in a full redraw, so put it in an Axes")
            if fig not in (a.figure, getattr(a.figure, "figure", None)):
                raise ValueError(f"animated artist {a!r} belongs to another figure")
        self._update = update
        self._n_frames = int(n_frames)
        self._artists = tuple(sorted(artists, key=lambda a: a.get_zorder()))
        self._background = None
        for a in self._artists:
            a.set_animated(True)
        super().__init__(fig, self._func, frames=self._n_frames, interval=interval,
                         repeat=repeat, blit=True, cache_frame_data=False)

    def _func(self, i):
        self._update(i)
        return self._artists

    @property
    def n_frames(self):
        """int : number of frames."""
        return self._n_frames

    @property
    def artists(self):
        """tuple of Artist : the animated artists, in drawing order."""
        return self._artists

    @property
    def figure(self):
        """matplotlib.figure.Figure : the animated figure."""
        return self._fig

    def set_frame(self, i):
        """Move the animated artists to frame ``i`` without drawing anything.

        Parameters
        ----------
        i : int
            Frame index, ``0 <= i < n_frames``.
        """
        if not 0 <= i < self._n_frames:
            raise IndexError(f"frame index {i} out of range [0, {self._n_frames})")
        self._update(i)

    def draw_background(self):
        """Render the static artists once (a full draw without the animated ones) and keep the pixels."""
        canvas = self._fig.canvas
        if not hasattr(canvas, "copy_from_bbox"):
            raise TypeError(f"{type(canvas).__name__} cannot blit; use an Agg-based backend")
        for a in self._artists:
            a.set_animated(True)      # matplotlib's own live loop may have reset the flag
        canvas.draw()
        self._background = canvas.copy_from_bbox(self._fig.bbox)

    def render_frame(self, i):
        """Render frame ``i`` on the canvas: restore the background, update and draw the animated artists.

        Parameters
        ----------
        i : int
            Frame index, ``0 <= i < n_frames``.

        Returns
        -------
        rgba : (h, w, 4) uint8 array
            View of the canvas pixels; valid until the canvas is drawn again.
        """
        if self._background is None:
            raise RuntimeError("call draw_background() before render_frame()")
        canvas = self._fig.canvas
        canvas.restore_region(self._background)
        self.set_frame(i)
        for a in self._artists:
            self._fig.draw_artist(a)
        return np.asarray(canvas.buffer_rgba())
