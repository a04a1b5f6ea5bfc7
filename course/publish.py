"""Publishing a chapter: where results and media go, ``Chapter`` (one call per figure or video) and video embedding.

``Chapter`` saves each figure and video of a notebook into ``results/<chapter>/``, publishes
its copy ``media/<prefix>_<name>.png|mp4`` (``media_dir()``, so the build can stage it) and
returns what the page shows. The copy obeys the media rule (``course.filesystem.media_rule``):
a rendering that only round-off changed (another CPU, another BLAS kernel) leaves the published
file's bytes as they are, so running a chapter from Jupyter Lab or nbclient leaves ``git status``
clean unless a reader could see the difference. ``check_frames_inside`` refuses a video whose nodes leave
their axes; ``embed_video`` inlines an MP4 in the page; ``show_video`` saves and embeds an
animation in one call, as chapter 014's seed does.
"""
import base64
import os
import re

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from simkit import checks
from .filesystem import BlitAnimation, media_rule, save_animation, save_figure

from ._public import public
from .style import DENSITY, DPI

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""str : the repository root (the folder holding ``utils.py`` and ``course/``).

:meta hide-value:
"""

#: str : environment variable naming the folder that receives published media instead of ``<ROOT>/media``.
MEDIA_ENV = "SIMKIT_MEDIA_DIR"
#: str : environment variable naming the folder that receives results instead of ``<ROOT>/results``.
RESULTS_ENV = "SIMKIT_RESULTS_DIR"


def notebook_results_path(name):
    """Create and return the results folder of a notebook, ``<ROOT>/results/<name>``, whatever the cwd.

    The site build sets ``SIMKIT_RESULTS_DIR`` to a staging folder used instead of
    ``<ROOT>/results``, so a failing chapter leaves no partial results behind.

    Parameters
    ----------
    name : str
        Notebook name, a single path component (``"011_mass_springs"``).

    Returns
    -------
    path : str
        Absolute path of the (existing) folder.
    """
    if not isinstance(name, str):
        raise TypeError(f"name: expected a str, got {type(name).__name__}")
    if name in ("", ".", "..") or os.sep in name or (os.altsep and os.altsep in name):
        raise ValueError(f"name: expected a non-empty folder name without path separators, got {name!r}")
    base = os.environ.get(RESULTS_ENV, "")
    path = os.path.join(os.path.abspath(os.path.expanduser(base)) if base else os.path.join(ROOT, "results"), name)
    os.makedirs(path, exist_ok=True)
    return path


def media_dir():
    """Create and return the folder of the website's media: ``$SIMKIT_MEDIA_DIR`` when set, else ``<ROOT>/media``.

    The site build sets ``SIMKIT_MEDIA_DIR`` to a staging folder, so a failing chapter
    never touches the tracked ``media/`` folder.

    Returns
    -------
    path : str
        Absolute path of the (existing) folder.
    """
    env = os.environ.get(MEDIA_ENV, "")
    path = os.path.abspath(os.path.expanduser(env)) if env else os.path.join(ROOT, "media")
    if os.path.exists(path) and not os.path.isdir(path):
        raise ValueError(f"media folder {path!r} (from ${MEDIA_ENV} or <ROOT>/media) is a file, not a folder")
    os.makedirs(path, exist_ok=True)
    return path


_CHAPTER_NAME = re.compile(r"(\d{3})_[a-z0-9_]+")
_MEDIA_NAME = re.compile(r"[a-z0-9][a-z0-9_]*")


@public
class Chapter:
    """The publisher of one chapter: every figure and video in one short call.

    ``ch.figure(fig, "hooke")`` writes ``results/<chapter>/hooke.png``, publishes the
    identical copy ``media/<prefix>_hooke.png`` (``media_dir()``, so the build can stage
    it) and returns the image for the page; ``ch.video(fig, anim, "oscillators", fps=20,
    alt=...)`` does the same for an MP4 and returns the embedded video. Both close the
    figure, so a notebook shows each figure once. Files are written by
    ``course.filesystem.save_figure`` / ``save_animation`` (atomic, byte-reproducible) at
    ``DENSITY`` device pixels per CSS pixel and shown at ``DPI`` CSS pixels per inch.

    The page gives the figure its number, caption and alt text from the cell's metadata
    (``mystnb.figure.caption``, ``mystnb.figure.name``, ``mystnb.image.alt``); a video's
    alt text is the ``alt`` argument. See CONTRIBUTING.md, "Adding a chapter".

    A published file that already shows what the new rendering shows keeps its bytes (the media
    rule, ``course.filesystem.media_rule``): re-running a chapter on another machine changes
    ``media/`` only where a reader could see it.

    Parameters
    ----------
    name : str
        The notebook's name ``"NNN_topic"`` (``"011_mass_springs"``); media files are
        named ``"NNN_<name>"``.

    Attributes
    ----------
    name : str
    prefix : str
        The chapter number ``"NNN"``.
    results_dir : str
        ``<ROOT>/results/<name>``, created.
    """

    def __init__(self, name):
        if not isinstance(name, str):
            raise TypeError(f"name: expected a str, got {type(name).__name__}")
        match = _CHAPTER_NAME.fullmatch(name)
        if match is None:
            raise ValueError(f"name: expected a notebook name 'NNN_topic' (three digits, then lower-case "
                             f"words joined by '_'), got {name!r}")
        self.name = name
        self.prefix = match.group(1)
        self.results_dir = notebook_results_path(name)

    def __repr__(self):
        return f"Chapter({self.name!r})"

    def paths(self, name, suffix):
        """Where a figure or video called ``name`` goes.

        Parameters
        ----------
        name : str
            Lower-case media name (``"hooke"``).
        suffix : str
            ``".png"`` or ``".mp4"``.

        Returns
        -------
        result : str
            ``results/<chapter>/<name><suffix>``.
        published : str
            ``<media_dir()>/<prefix>_<name><suffix>``.
        """
        if not isinstance(name, str):
            raise TypeError(f"name: expected a str, got {type(name).__name__}")
        if not _MEDIA_NAME.fullmatch(name):
            raise ValueError(f"name: expected a lower-case media name like 'cable_static' ([a-z0-9_]), got {name!r}")
        return (os.path.join(self.results_dir, name + suffix),
                os.path.join(media_dir(), f"{self.prefix}_{name}{suffix}"))

    def figure(self, fig, name):
        r"""Save and publish a figure, close it, and return it for the page.

        Parameters
        ----------
        fig : matplotlib.figure.Figure
        name : str
            Media name: the files are ``results/<chapter>/<name>.png`` and
            ``media/<prefix>_<name>.png``.

        Returns
        -------
        image : IPython.display.Image
            The published PNG, shown at its CSS size: a figure ``w`` inches wide is
            :math:`w \cdot \mathrm{DPI}` CSS pixels and :math:`w \cdot \mathrm{DENSITY} \cdot \mathrm{DPI}`
            image pixels wide.
        """
        from IPython.display import Image

        if not isinstance(fig, Figure):
            raise TypeError(f"fig: expected a matplotlib Figure, got {type(fig).__name__}")
        result, published = self.paths(name, ".png")
        try:
            path = save_figure(fig, result, dpi=DENSITY * fig.dpi)
        finally:
            plt.close(fig)
        media_rule.publish(path, published)
        with open(path, "rb") as fh:
            data = fh.read()
        width = int.from_bytes(data[16:20], "big")        # PNG IHDR: width, then height
        return Image(data=data, format="png", width=round(width / DENSITY))

    def video(self, fig, anim, name, fps, alt):
        """Save and publish an animation as MP4, close its figure, and return the embedded video.

        Frames are checked first (``check_frames_inside``): a video whose nodes leave their
        axes is refused before anything is written.

        Parameters
        ----------
        fig : matplotlib.figure.Figure
            Figure of the animation (create it at ``DENSITY * DPI``, as the ``animate_*``
            helpers do).
        anim : course.filesystem.BlitAnimation
        name : str
            Media name: ``results/<chapter>/<name>.mp4`` and ``media/<prefix>_<name>.mp4``.
        fps : float
            Frames per second.
        alt : str
            What the video shows, for readers who cannot see it (a sentence).

        Returns
        -------
        html : IPython.display.HTML
            See ``embed_video``; shown at the figure's size in CSS pixels.
        """
        if not isinstance(fig, Figure):
            raise TypeError(f"fig: expected a matplotlib Figure, got {type(fig).__name__}")
        if not isinstance(alt, str) or len(alt.split()) < 3:
            plt.close(fig)
            error = ValueError if isinstance(alt, str) else TypeError
            raise error(f"alt: expected a few words (a sentence) describing the video, got {alt!r}")
        result, published = self.paths(name, ".mp4")
        try:
            check_frames_inside(anim, name)
            path = save_animation(anim, result, fps)
        finally:
            plt.close(fig)
        media_rule.publish(path, published)
        width = round(fig.get_size_inches()[0] * DPI)
        return embed_video(path, alt=alt, width=width)


def show_video(fig, anim, path, fps=20, copy_to=None):
    r"""Save an animation as MP4, close its figure and return the embedded video: :math:`n` frames last :math:`n / \mathrm{fps}` s.

    Chapter 014's seed calls it (``utils.show_video(fig, anim, "media/14_springs_only.mp4", fps=20)``);
    a chapter publishes with ``Chapter.video``, which also names, checks and publishes the file.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        Figure of the animation; closed afterwards (also on failure), so the notebook does not
        show it again as a still image.
    anim : matplotlib.animation.Animation
    path : str or os.PathLike
        Target ``.mp4`` (relative paths from the working directory); missing folders are created.
    fps : float, default 20
    copy_to : str or os.PathLike, optional
        Second target receiving an identical copy.

    Returns
    -------
    html : IPython.display.HTML
        See ``embed_video``.
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig: expected a matplotlib Figure, got {type(fig).__name__}")
    try:
        written = save_animation(anim, path, fps, copy_to=copy_to)
    finally:
        plt.close(fig)
    return embed_video(written)


def _data_points(artist):
    """(k, 2) data coordinates an animated artist draws, or None when it is not drawn in data space."""
    ax = artist.axes
    if isinstance(artist, LineCollection):
        segments = artist.get_segments()
        return np.concatenate(segments) if len(segments) else np.zeros((0, 2))
    if hasattr(artist, "get_offsets") and artist.get_offset_transform() == ax.transData:
        return np.asarray(artist.get_offsets(), dtype=float).reshape(-1, 2)
    if hasattr(artist, "get_xydata") and artist.get_transform() == ax.transData:
        return np.asarray(artist.get_xydata(), dtype=float).reshape(-1, 2)
    return None


def check_frames_inside(anim, name="anim"):
    r"""Raise ValueError when an animated artist of any frame draws data outside its Axes.

    Every drawn point must satisfy :math:`x_0 \le x \le x_1,\ y_0 \le y \le y_1` for the
    Axes' limits. Checks the data coordinates of every animated line, line collection and scatter of
    a ``BlitAnimation`` on flat (2D) Axes against the Axes' limits, frame by frame, so a
    video never shows nodes leaving the picture. Other animations pass unchecked.

    Parameters
    ----------
    anim : course.filesystem.BlitAnimation
    name : str, default "anim"
        Name used in the error message.
    """
    if not isinstance(anim, BlitAnimation):
        return
    checked = []
    for artist in anim.artists:
        ax = artist.axes
        if ax.name != "rectilinear" or _data_points(artist) is None:
            continue
        ax.apply_aspect()
        (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
        tol = 1e-9 * max(x1 - x0, y1 - y0)
        checked.append((artist, x0 - tol, x1 + tol, y0 - tol, y1 + tol))
    for i in range(anim.n_frames):
        anim.set_frame(i)
        for artist, x0, x1, y0, y1 in checked:
            P = _data_points(artist)
            P = P[np.all(np.isfinite(P), axis=1)]
            out = (P[:, 0] < x0) | (P[:, 0] > x1) | (P[:, 1] < y0) | (P[:, 1] > y1)
            if np.any(out):
                x, y = P[np.argmax(out)]
                title = artist.axes.get_title() or "an Axes"
                raise ValueError(f"{name}: frame {i} of {anim.n_frames} draws a point at ({x:.3g}, {y:.3g}) in "
                                 f"'{title}', outside its limits x in [{x0:.3g}, {x1:.3g}], y in "
                                 f"[{y0:.3g}, {y1:.3g}]; widen lims (or pass lims=None to fit every frame)")
    anim.set_frame(0)


def embed_video(path, alt=None, width=None):
    r"""An HTML5 video (controls, loop, muted, playsinline) with the MP4 inlined as a base64 data URI.

    An MP4 of :math:`b` bytes adds :math:`4 \lceil b / 3 \rceil` characters to the page. The video plays in Jupyter and on the static website (offline too) with no file to copy.

    Parameters
    ----------
    path : str or os.PathLike
        Existing ``.mp4`` file.
    alt : str, optional
        What the video shows: its ``aria-label`` and the text shown where video cannot play.
    width : int, optional
        Display width in CSS pixels (the video scales down to narrower columns).

    Returns
    -------
    html : IPython.display.HTML
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a str or os.PathLike, got {type(path).__name__}")
    path = os.fspath(path)
    if not path.lower().endswith(".mp4"):
        raise ValueError(f"path: expected an .mp4 file, got {path!r}")
    if not os.path.isfile(path):
        raise ValueError(f"path: expected an existing file, {path!r} does not exist; write it first with save_animation or Chapter.video")
    if alt is not None and not isinstance(alt, str):
        raise TypeError(f"alt: expected a str, got {type(alt).__name__}")
    if width is not None:
        width = checks.integer(width, "width", low=1)
    from html import escape

    from IPython.display import HTML

    with open(path, "rb") as fh:
        data = base64.b64encode(fh.read()).decode("ascii")
    label = f' aria-label="{escape(alt)}"' if alt else ""
    size = f' width="{width}"' if width else ""
    fallback = escape(alt) if alt else "Your browser does not support HTML5 video."
    return HTML(f'<video controls loop muted playsinline preload="auto"{label}{size} '
                'style="max-width: 100%; height: auto;">'
                f'<source src="data:video/mp4;base64,{data}" type="video/mp4">{fallback}</video>')

