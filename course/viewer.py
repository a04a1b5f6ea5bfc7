"""The interactive 3D view of a precomputed mesh trajectory (plotly): orbit, zoom, a time slider and play.

``mesh_viewer_html`` returns a ``MeshView``, which displays in two places from one figure:

- in Jupyter Lab (``make lab``), as plotly's own mime type ``application/vnd.plotly.v1+json``,
  which the ``jupyterlab-plotly`` renderer in the plotly wheel draws with its bundled
  plotly.js (offline, no page script needed);
- on the course site, as HTML (``text/html``) that loads the site's vendored plotly.js from
  ``_static/vendor/`` (the build's render priority picks the HTML).
"""
import json
import re

import matplotlib.colors as mcolors
import numpy as np

from simkit import checks

from ._inputs import _indices, _states
from ._public import public
from .mesh3d import _rgb, _triangles, view_basis
from .style import CLOTH_FRONT, PIN_C

PLOTLY_MIME = "application/vnd.plotly.v1+json"
"""str : the mime type of plotly figures, drawn by plotly's Jupyter renderer."""


PLOTLY_STATIC = "vendor"
"""str : folder under the site's ``_static/`` that holds the vendored plotly.js (``scripts/vendor_plotly.py``)."""


def plotly_js_name():
    """File name of the vendored plotly.js 3D bundle, for the version the pinned plotly wheel writes figures for.

    ``scripts/vendor_plotly.py`` vendors that bundle (npm's ``plotly.js-gl3d-dist-min``) into
    ``book/_static/vendor/``, which the site serves as ``_static/vendor/``.

    Returns
    -------
    name : str
        ``"plotly-gl3d-<version>.min.js"``, e.g. ``"plotly-gl3d-4.1.1.min.js"``.
    """
    from plotly.offline import get_plotlyjs_version

    return f"plotly-gl3d-{get_plotlyjs_version()}.min.js"


def mesh_viewer_html(states, F, t, pins=None, view=None, div_id="mesh-view", script_src=None, height=480,
                     fps=15, color=CLOTH_FRONT, title=None, face_colors=None):
    """An interactive 3D view of a precomputed mesh trajectory: orbit, zoom, a time slider and play.

    Built with plotly (a ``Mesh3d`` flat-shaded by face normal, one animation frame per
    state, a slider and play/pause buttons); positions travel as float32. The site's page
    loads plotly.js from ``script_src``, so it works offline once the site serves that file;
    Jupyter Lab draws the same figure with the plotly.js of its plotly renderer.

    Parameters
    ----------
    states : (T, n, 3) float array
        Node positions per frame (subsample long runs first; each frame costs ``12 n`` bytes).
    F : (f, 3) int array
        Triangles.
    t : (T,) float array
        Time of each frame (slider labels).
    pins : (p,) int array, optional
        Pinned nodes, drawn as ``PIN_C`` squares (at their first-frame positions).
    view : View, optional
        Initial camera direction (the videos' ``VIEW_3D`` when None); the reader orbits from there.
    div_id : str, default "mesh-view"
        HTML id of the plot (unique on its page; fixed, so the output is reproducible).
    script_src : str, optional
        URL of plotly.js; ``"../_static/vendor/" + plotly_js_name()`` (a chapter page of the
        course site) when None.
    height : int, default 480
        Height in CSS pixels; the width follows the page column.
    fps : float, default 15
        Playback rate of the play button.
    color : colour, default CLOTH_FRONT
    title : str, optional
    face_colors : (f,) sequence of colours, optional
        One colour per triangle, in place of ``color``: to tell apart the bodies of one mesh.

    Returns
    -------
    view : MeshView
        Shown by Jupyter (plotly's renderer) and by the site (its HTML).
    """
    import plotly.graph_objects as go
    import plotly.io as pio

    P = _states(states, dim=3).astype(np.float32)
    T, n = P.shape[:2]
    F = _triangles(F, n).astype(np.int32)
    t = checks.finite_array(t, "t").reshape(-1)
    if t.shape[0] != T:
        raise ValueError(f"t: expected {T} values (one per state), got {t.shape[0]}")
    pins = _indices(pins if pins is not None else [], n, "pins")
    if not isinstance(div_id, str) or not re.fullmatch(r"[A-Za-z][\w-]*", div_id):
        raise ValueError(f"div_id: expected an HTML id (a letter, then letters, digits, - or _), got {div_id!r}")
    fps = checks.positive_scalar(fps, "fps")
    script_src = f"../_static/{PLOTLY_STATIC}/{plotly_js_name()}" if script_src is None else str(script_src)
    rgb = _rgb(color, "color")
    if face_colors is not None:
        if len(face_colors) != len(F):
            raise ValueError(f"face_colors: expected one colour per triangle ({len(F)}), got {len(face_colors)}")
        face_hex = [mcolors.to_hex(_rgb(c, "face_colors")) for c in face_colors]
    lo, hi = P.reshape(-1, 3).min(axis=0), P.reshape(-1, 3).max(axis=0)
    margin = 0.04 * float((hi - lo).max())
    lo, hi = lo - margin, hi + margin
    eye = 1.6 * view_basis(view)[2]

    def surface(X):
        return go.Mesh3d(x=X[:, 0], y=X[:, 1], z=X[:, 2])

    mesh = go.Mesh3d(x=P[0, :, 0], y=P[0, :, 1], z=P[0, :, 2], i=F[:, 0], j=F[:, 1], k=F[:, 2],
                     **(dict(facecolor=face_hex) if face_colors is not None else dict(color=mcolors.to_hex(rgb))),
                     flatshading=True, hoverinfo="skip",
                     lighting=dict(ambient=0.6, diffuse=0.5, specular=0.05, roughness=0.9, fresnel=0.0),
                     lightposition=dict(x=0, y=1e5, z=0))
    data = [mesh]
    if pins.size:
        data.append(go.Scatter3d(x=P[0, pins, 0], y=P[0, pins, 1], z=P[0, pins, 2], mode="markers",
                                 marker=dict(symbol="square", size=6, color=PIN_C), hoverinfo="skip",
                                 showlegend=False))
    frames = [go.Frame(data=[surface(P[i])], traces=[0], name=str(i)) for i in range(T)]
    step = lambda i: dict(method="animate", label=f"{t[i]:.2f}",  # noqa: E731
                          args=[[str(i)], dict(mode="immediate", frame=dict(duration=0, redraw=True),
                                              transition=dict(duration=0))])
    axis = lambda k, name: dict(range=[float(lo[k]), float(hi[k])], title=dict(text=name),  # noqa: E731
                                backgroundcolor="white", gridcolor="#dddddd", zeroline=False)
    layout = go.Layout(
        title=dict(text=title) if title else None, height=int(height), margin=dict(l=0, r=0, t=30 if title else 0, b=0),
        paper_bgcolor="white", uirevision="keep", showlegend=False,
        scene=dict(domain=dict(x=[0, 1], y=[0.1, 1]),
                   xaxis=axis(0, "x (m)"), yaxis=axis(1, "y (m)"), zaxis=axis(2, "z (m)"),
                   aspectmode="manual", aspectratio=dict(zip("xyz", (hi - lo) / float((hi - lo).max()))),
                   camera=dict(up=dict(x=0, y=1, z=0), eye=dict(zip("xyz", eye.tolist())))),
        sliders=[dict(active=0, steps=[step(i) for i in range(T)], x=0.17, len=0.83, y=0.0, yanchor="top",
                      pad=dict(t=0, b=0), font=dict(color="rgba(0,0,0,0)"),      # no tick labels: too many
                      currentvalue=dict(prefix="t = ", suffix=" s", xanchor="right", font=dict(color="#444")))],
        updatemenus=[dict(type="buttons", direction="left", x=0.0, y=0.0, xanchor="left", yanchor="top",
                          pad=dict(t=0, r=4), showactive=False, buttons=[
                              dict(label="Play", method="animate",
                                   args=[None, dict(frame=dict(duration=1000.0 / fps, redraw=True),
                                                    transition=dict(duration=0), fromcurrent=True)]),
                              dict(label="Pause", method="animate",
                                   args=[[None], dict(mode="immediate", frame=dict(duration=0, redraw=False),
                                                      transition=dict(duration=0))])])])
    fig = go.Figure(data=data, layout=layout, frames=frames)
    config = dict(displaylogo=False, responsive=True, modeBarButtonsToRemove=["toImage"])
    html = pio.to_html(fig, include_plotlyjs=script_src, full_html=False, div_id=div_id, auto_play=False,
                       config=config)
    figure = json.loads(pio.to_json(fig, validate=False)) | {"config": config}
    return MeshView(figure, html, T, n)


@public
class MeshView:
    """An interactive figure with two renderings: plotly's figure JSON for Jupyter, HTML for the site.

    Jupyter shows the richest type its front end renders (``_repr_mimebundle_``): Jupyter
    Lab's plotly renderer draws ``figure``; a static page uses ``html``.

    Parameters
    ----------
    figure : dict
        The plotly figure as JSON (``data``, ``layout``, ``frames``, ``config``), the
        ``PLOTLY_MIME`` payload.
    html : str
        The same figure as an HTML fragment loading plotly.js from the site.
    n_frames, n_nodes : int
        Frames and nodes per frame (for the text form).
    """

    def __init__(self, figure, html, n_frames, n_nodes):
        self.figure = figure
        self.html = html
        self.n_frames = n_frames
        self.n_nodes = n_nodes

    def __repr__(self):
        # the text/plain form of the output: no object address, so executed notebooks are reproducible
        return f"MeshView({self.n_frames} frames of {self.n_nodes} nodes)"

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {PLOTLY_MIME: self.figure, "text/html": self.html, "text/plain": repr(self)}
