"""3D scenes in figures and videos, drawn depth-correct by ``course.render3d``.

A ``SceneArtist`` is a matplotlib artist that renders its scene at the exact pixel size of its
Axes whenever the figure is drawn (on screen, into a PNG at the published density, or frame by
frame into a video), so no picture is resampled. ``plot_scene_3d`` puts one scene into an Axes,
``plot_scenes_3d`` makes a figure of several side by side, and ``animate_scene_3d`` the
``(fig, anim)`` of a video for ``Chapter.video``, with an energy panel beside the scenes when
given one. Axes and time labels are ordinary matplotlib text above the picture.
"""
import numpy as np
from matplotlib.artist import Artist

from simkit import checks
from .filesystem import BlitAnimation

from ._inputs import _scene_limits, _series
from ._public import public
from .anim2d import _advance_traces, _trace_series
from .mesh3d import _scene_axes, _view, view_basis
from .render3d import _Compiled, _lighting, _panels, _render, _scene, scene_limits
from .style import ANIM_Z, DENSITY, DPI, ENERGY_COLORS, _colors, _finish_plot, _new_figure, _panel_grid, style


@public
class SceneArtist(Artist):
    """A 3D scene drawn in an Axes, rendered at the Axes' pixel size each time it is drawn.

    The Axes' limits are the screen-space window (``scene_limits``); its aspect must be equal
    (``plot_scene_3d`` sets both). The last picture is kept, so drawing the same frame at the
    same size again costs nothing.

    Parameters
    ----------
    scene : Surface or list of Surface
    view : View, optional
        Camera; ``VIEW_3D`` when None.
    frame : int, default 0
        Frame of the moving surfaces shown.
    supersample : int, default 3
        Samples per pixel along each axis where the picture jumps (silhouettes, overlaps, creases).
    lighting : Lighting, optional
    """

    def __init__(self, scene, view=None, frame=0, supersample=3, lighting=None):
        super().__init__()
        self._compiled = _Compiled(_scene(scene))
        self._basis = view_basis(view)
        self._supersample = checks.integer(supersample, "supersample", low=1)
        self._lighting = _lighting(lighting)
        self._picture = (None, None)
        self.set_frame(frame)

    @property
    def n_frames(self):
        """int : frames of the scene (1 when nothing moves)."""
        return self._compiled.n_frames

    def set_frame(self, frame):
        """Show ``frame`` of the moving surfaces (a fixed surface shows its only positions).

        Parameters
        ----------
        frame : int
            ``0 <= frame < n_frames``.
        """
        frame = checks.integer(frame, "frame", low=0)
        if frame >= self.n_frames:
            raise ValueError(f"frame: expected a frame in [0, {self.n_frames}), got {frame}")
        self._frame = frame
        self.stale = True

    def draw(self, renderer):
        if not self.get_visible() or self.axes is None:
            return
        ax = self.axes
        x0, y0, x1, y1 = np.rint(ax.bbox.extents)
        width, height = int(x1 - x0), int(y1 - y0)
        if width < 1 or height < 1:
            return
        (left, bottom), (right, top) = ax.transData.inverted().transform([[x0, y0], [x1, y1]])
        per_pt = renderer.points_to_pixels(1.0)
        key = (self._frame, width, height, left, right, bottom, top, per_pt)
        if self._picture[0] != key:
            rgba = _render(self._compiled, self._frame, (width, height), self._basis, ((left, right), (bottom, top)),
                           per_pt, self._supersample, self._lighting)
            self._picture = (key, rgba)
        gc = renderer.new_gc()
        self._set_gc_clip(gc)
        gc.set_alpha(self.get_alpha())
        renderer.draw_image(gc, x0, y0, self._picture[1][::-1])
        gc.restore()
        self.stale = False


def plot_scene_3d(ax, scene, view=None, lims=None, title=None, frame=0, supersample=3, lighting=None, *,
                  zorder=2.0):
    """Draw a 3D scene into an Axes, depth-correct: each pixel shows the surface nearest to the camera.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        A 2D Axes; its limits become the screen window, its frame and ticks are switched off.
    scene : Surface or list of Surface
    view : View, optional
        Camera; ``VIEW_3D`` when None.
    lims : ((xmin, xmax), (ymin, ymax)), optional
        Screen-space window (``scene_limits`` of several scenes); the scene's own when None.
    title : str, optional
    frame : int, default 0
    supersample : int, default 3
    lighting : Lighting, optional
    zorder : float, default 2

    Returns
    -------
    artist : SceneArtist
    """
    view = _view(view)
    artist = SceneArtist(scene, view=view, frame=frame, supersample=supersample, lighting=lighting)
    lims = _scene_limits(lims) or scene_limits(scene, view)
    artist.set_zorder(zorder)
    ax.add_artist(artist)
    with style():
        _scene_axes(ax, lims, title)
    return artist


def _titles(titles, count):
    if titles is None:
        return [None] * count
    if not isinstance(titles, (list, tuple)) or len(titles) != count or not all(
            t is None or isinstance(t, str) for t in titles):
        raise ValueError(f"titles: expected a list of {count} str (one per scene), got {titles!r}")
    return list(titles)


def plot_scenes_3d(scenes, titles=None, view=None, lims=None, figsize=None, suptitle=None, ncols=None, **scene_kw):
    """A figure of several 3D scenes side by side, by one camera at one scale (or a single scene).

    Parameters
    ----------
    scenes : Surface, list of Surface, or list of such lists
        One scene, or one per panel.
    titles : list of str, optional
        One per scene.
    view : View, optional
    lims : ((xmin, xmax), (ymin, ymax)), optional
        Window shared by every panel; enclosing every scene when None.
    figsize : (2,) float, optional
        ``(7.4, 7.4 / ncols * nrows * 0.85)`` when None: the course's width.
    suptitle : str, optional
    ncols : int, optional
        Panels per row; all in one row when None.
    **scene_kw
        Passed to ``plot_scene_3d`` (``frame``, ``supersample``, ``lighting``).

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : (len(scenes),) array of matplotlib.axes.Axes
    """
    panels = _panels(scenes)
    titles = _titles(titles, len(panels))
    ncols = len(panels) if ncols is None else min(checks.integer(ncols, "ncols", low=1), len(panels))
    nrows = -(-len(panels) // ncols)
    view = _view(view)
    lims = _scene_limits(lims) or scene_limits(panels, view)
    with style():
        fig, axes = _panel_grid(figsize or (7.4, 7.4 / ncols * nrows * 0.85), len(panels), ncols)
        for ax, scene, title in zip(axes, panels, titles):
            plot_scene_3d(ax, scene, view=view, lims=lims, title=title, **scene_kw)
        if suptitle is not None:
            fig.suptitle(suptitle)
        fig.tight_layout()
    return fig, axes


def animate_scene_3d(scenes, t, series=None, titles=None, view=None, lims=None, figsize=None, suptitle=None,
                     time_format="t = {:.2f} s", xlabel="time  (s)", ylabel="energy  (J)", energy_title=None,
                     colors=None, supersample=3, lighting=None, fps=30):
    """Animate one or several 3D scenes on a shared time line, depth-correct, with an optional energy panel.

    The camera and the window are fixed over the whole clip and shared by every panel, so motion
    reads as motion and sizes compare. A counter in the first panel gives the time; with
    ``series``, the curves are traced beside the scenes in lock-step, as in
    ``animate_springs_energy``.

    Parameters
    ----------
    scenes : Surface, list of Surface, or list of such lists
        One scene, or one per panel. Moving surfaces have one position set per frame
        ((T, n, 3)); fixed ones ((n, 3)) stay in place.
    t : (T,) float array
        Time of each frame.
    series : dict of str -> (T,) float array, optional
        Curves to trace beside the scenes (energies by name; ``ENERGY_COLORS`` for known names).
    titles : list of str, optional
        One per scene.
    view : View, optional
    lims : ((xmin, xmax), (ymin, ymax)), optional
        Window shared by every panel; enclosing every frame of every scene when None.
    figsize : (2,) float, optional
        ``(7.4, 3.7)`` when None, the course's width (``(7.4, 7.4 / len(scenes))`` without series).
    suptitle : str, optional
    time_format : str, default "t = {:.2f} s"
    xlabel, ylabel, energy_title : str
        Labels and title of the energy panel.
    colors : dict of str -> colour, optional
        Colour per series.
    supersample : int, default 3
        Samples per pixel along each axis where the picture jumps (silhouettes, overlaps, creases).
    lighting : Lighting, optional
    fps : float, default 30
        Live playback rate (the video rate is ``Chapter.video``'s fps).

    Returns
    -------
    fig : matplotlib.figure.Figure
        At ``DENSITY * DPI`` dots per inch.
    anim : course.filesystem.BlitAnimation
    """
    panels = _panels(scenes)
    titles = _titles(titles, len(panels))
    t = checks.finite_array(t, "t").reshape(-1)
    T = t.shape[0]
    if T == 0:
        raise ValueError("t: expected at least one frame time, got none")
    artists = [SceneArtist(scene, view=view, supersample=supersample, lighting=lighting) for scene in panels]
    for k, artist in enumerate(artists):
        if artist.n_frames not in (1, T):
            raise ValueError(f"t: expected {artist.n_frames} values (one per frame of scenes[{k}]), got {T}")
    if series is not None:
        series = _series(series, T, "series", "frames")
        if colors is not None and not isinstance(colors, dict):
            raise TypeError(f"colors: expected a dict {{series name: colour}}, got {type(colors).__name__}")
    fps = checks.positive_scalar(fps, "fps")
    view = _view(view)
    lims = _scene_limits(lims) or scene_limits(panels, view)
    ncols = len(panels) + (series is not None)
    with style():
        size = figsize or ((7.4, 3.7) if series is not None else (7.4, 7.4 / len(panels)))
        ratios = [1.0] * len(panels) + ([0.9] if series is not None else [])
        fig, axes = _new_figure(size, dpi=DENSITY * DPI, ncols=ncols, squeeze=False,
                                gridspec_kw={"width_ratios": ratios})
        axes = axes.ravel()
        for ax, artist, title in zip(axes, artists, titles):
            artist.set_zorder(ANIM_Z)
            ax.add_artist(artist)
            _scene_axes(ax, lims, title)
        stamp = axes[0].text(0.02, 0.98, time_format.format(t[0]), transform=axes[0].transAxes, ha="left",
                             va="top", fontsize=10, color="0.25", zorder=ANIM_Z + 3)
        traces = []
        if series is not None:
            ax_e = axes[-1]
            traces = _trace_series(ax_e, t, series, _colors({**ENERGY_COLORS, **(colors or {})}, series))
            _finish_plot(fig, ax_e, False, xlabel, ylabel, energy_title, legend=len(series) > 1)
        if suptitle is not None:
            fig.suptitle(suptitle)
        fig.tight_layout()

    def update(i):
        for artist in artists:
            artist.set_frame(min(i, artist.n_frames - 1))
        _advance_traces(traces, t, i)
        stamp.set_text(time_format.format(t[i]))

    moving = [*artists, stamp, *(a for line, dot, _ in traces for a in (line, dot))]
    return fig, BlitAnimation(fig, update, T, moving, interval=1000.0 / fps)
