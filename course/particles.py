"""Particles drawn as dots coloured by a quantity, with a colour bar: chapter 020's MPM videos."""
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import Normalize

from course.filesystem import BlitAnimation
from course.style import DENSITY, DPI, style


def animate_particles_2d(panels, lims, label, cmap="viridis", vmin=None, vmax=None, times=None, size=4.0,
                         figsize=(7.4, 3.6), nrows=1):
    """A video of particle sets side by side, each particle coloured by a named quantity.

    Parameters
    ----------
    panels : sequence of (title, x, values)
        ``x`` (frames, n, 2) positions and ``values`` (frames, n) the quantity the colour shows;
        every panel has the same number of frames.
    lims : ((x0, x1), (y0, y1))
        Axes limits shared by the panels (every particle of every frame must lie inside).
    label : str
        The colour bar's label: the quantity and its unit.
    cmap : str, optional
    vmin, vmax : float, optional
        Colour range (the values' range by default).
    times : (frames,) float array, optional
        Shown in each title as ``t = ... s``.
    size : float, optional
        Marker area in points^2.
    figsize : (2,) float, optional
    nrows : int, optional
        Panels are stacked in this many rows (one by default).

    Returns
    -------
    fig, anim : the figure (at ``DENSITY * DPI``) and a ``BlitAnimation``
    """
    frames = len(panels[0][1])
    if any(len(x) != frames or len(v) != frames for _, x, v in panels):
        raise ValueError("panels: expected the same number of frames of positions and values in every panel")
    values = np.concatenate([np.ravel(v) for _, _, v in panels])
    norm = Normalize(values.min() if vmin is None else vmin, values.max() if vmax is None else vmax)
    with style():
        ncols = -(-len(panels) // nrows)
        fig, axes = plt.subplots(nrows, ncols, figsize=figsize, dpi=DENSITY * DPI, squeeze=False)
        axes = axes.ravel()[:len(panels)]
        scatters, titles = [], []
        for ax, (title, x, v) in zip(axes, panels):
            ax.set_xlim(*lims[0])
            ax.set_ylim(*lims[1])
            ax.set_aspect("equal")
            ax.set_xlabel("x  (m)")
            ax.set_ylabel("y  (m)")
            scatters.append(ax.scatter(x[0, :, 0], x[0, :, 1], c=v[0], s=size, cmap=cmap, norm=norm,
                                       linewidths=0, zorder=3))
            ax.set_title(title)
            titles.append(ax.text(0.98, 0.95, "", transform=ax.transAxes, ha="right", va="top", fontsize=9, zorder=4))
        fig.tight_layout()
        fig.colorbar(scatters[0], ax=list(axes), label=label, shrink=0.85)

    def update(i):
        for sc, text, (_, x, v) in zip(scatters, titles, panels):
            sc.set_offsets(x[i])
            sc.set_array(v[i])
            text.set_text("" if times is None else f"t = {times[i]:.2f} s")

    update(0)
    return fig, BlitAnimation(fig, update, frames, scatters + titles)
