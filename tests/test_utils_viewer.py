"""utils, the interactive view (course.viewer): one plotly figure, for Jupyter Lab and for the site."""
import base64
import json
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

import simkit
import utils
from conftest import ROOT

SEED = 0


@pytest.fixture
def sheet():
    V, F = simkit.grid_sheet(4, 3, 1.0, 0.6)
    return V, F


def _moving(V, T):
    """T states of the sheet V, falling by 0.1 per frame and twisting a little (random, seeded)."""
    rng = np.random.default_rng(SEED)
    return np.stack([V + [0.0, -0.1 * k, 0.0] + 0.01 * rng.standard_normal(V.shape) for k in range(T)])


def _decoded(array):
    """A plotly JSON array: a list, or a typed array {"dtype", "bdata"} (base64)."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
    return np.asarray(array)


def test_mesh_viewer_html_holds_every_frame_as_float32(sheet):
    V, F = sheet
    T = 5
    states = np.stack([V + [0.0, -0.1 * k, 0.0] for k in range(T)])
    html = utils.mesh_viewer_html(states, F, np.arange(T) * 0.5, pins=[0], div_id="cloth",
                                  script_src="plotly.min.js").html
    assert '<div id="cloth"' in html
    assert '<script charset="utf-8" src="plotly.min.js"></script>' in html
    assert "cdn" not in html.lower()
    frames = re.findall(r'"name":"(\d+)","traces":\[0\]', html)
    assert frames == [str(k) for k in range(T)]
    assert html.count('"dtype":"f4"') >= 3 * T                      # x, y, z of every frame travel as float32
    assert re.search(r'"label":"2\.00"', html)                       # slider steps are labelled with t
    again = utils.mesh_viewer_html(states, F, np.arange(T) * 0.5, pins=[0], div_id="cloth",
                                   script_src="plotly.min.js").html
    assert again == html                                            # reproducible output


def test_mesh_viewer_html_colours_each_triangle_when_asked(sheet):
    V, F = sheet
    colours = ["#ff0000"] * 6 + ["0.5"] * (len(F) - 6)
    figure = utils.mesh_viewer_html(V[None], F, [0.0], face_colors=colours).figure
    mesh = figure["data"][0]
    assert mesh["facecolor"] == ["#ff0000"] * 6 + ["#808080"] * (len(F) - 6) and "color" not in mesh
    plain = utils.mesh_viewer_html(V[None], F, [0.0]).figure["data"][0]
    assert "facecolor" not in plain and plain["color"].startswith("#")


def test_mesh_viewer_html_default_src_is_the_vendored_bundle(sheet):
    V, F = sheet
    html = utils.mesh_viewer_html(V[None], F, [0.0]).html
    assert f'src="../_static/vendor/{utils.plotly_js_name()}"' in html
    assert re.fullmatch(r"plotly-gl3d-\d+\.\d+\.\d+\.min\.js", utils.plotly_js_name())


def test_the_vendored_bundle_is_the_plotly_js_the_wheel_writes_figures_for():
    from plotly.offline import get_plotlyjs_version

    bundle = Path(utils.ROOT) / "book" / "_static" / utils.PLOTLY_STATIC / utils.plotly_js_name()
    head = bundle.read_bytes()[:200].decode()
    assert f"plotly.js (gl3d - minified) v{get_plotlyjs_version()}" in head
    assert bundle.with_name(bundle.name.replace(".min.js", ".LICENSE.txt")).read_text().startswith("MIT License")


@pytest.mark.parametrize("bad, match", [
    (dict(t=[0.0, 1.0]), "^t: expected 1 values"),
    (dict(div_id="1 bad"), "^div_id: expected an HTML id"),
    (dict(pins=[100]), r"^pins: expected indices in \[0, 12\)"),
    (dict(fps=0), "^fps: expected a finite value > 0"),
    (dict(face_colors=["red"] * 5), r"^face_colors: expected one colour per triangle \(12\), got 5"),
    (dict(face_colors=["red"] * 11 + ["not a colour"]), "^face_colors: expected a matplotlib colour"),
])
def test_mesh_viewer_html_rejects_bad_input(sheet, bad, match):
    V, F = sheet
    args = dict(t=[0.0]) | bad
    with pytest.raises(ValueError, match=match):
        utils.mesh_viewer_html(V[None], F, **args)


# ---------------------------------------------------------------------------------------
# Jupyter Lab: the view's output carries plotly's own figure, which the plotly renderer draws
# ---------------------------------------------------------------------------------------

def test_view_output_carries_the_plotly_figure_and_the_site_html(sheet):
    from IPython.core.formatters import DisplayFormatter

    V, F = sheet
    T = 4
    states = _moving(V, T)
    view = utils.mesh_viewer_html(states, F, np.arange(T) * 0.5, pins=[0, 3], div_id="cloth")
    data, _ = DisplayFormatter().format(view)                 # what the kernel sends for the cell's output
    assert {utils.PLOTLY_MIME, "text/html", "text/plain"} <= set(data)
    assert data["text/html"] == view.html and '<div id="cloth"' in view.html
    assert data["text/plain"] == "MeshView(4 frames of 12 nodes)"      # no object address: reproducible
    figure = json.loads(json.dumps(data[utils.PLOTLY_MIME]))   # a notebook stores it as JSON
    mesh, pins = figure["data"]
    assert mesh["type"] == "mesh3d" and pins["type"] == "scatter3d"
    np.testing.assert_array_equal(np.column_stack([_decoded(mesh[k]) for k in "ijk"]), F)
    assert [frame["name"] for frame in figure["frames"]] == [str(k) for k in range(T)]
    for frame, X in zip(figure["frames"], states):
        positions = np.column_stack([_decoded(frame["data"][0][k]) for k in "xyz"])
        np.testing.assert_array_equal(positions, X.astype(np.float32))
    assert [step["label"] for step in figure["layout"]["sliders"][0]["steps"]] == ["0.00", "0.50", "1.00", "1.50"]
    assert figure["config"]["displaylogo"] is False


def test_jupyter_lab_has_the_plotly_renderer_for_the_wheels_figures():
    from jupyter_core.paths import jupyter_path
    from plotly.offline import get_plotlyjs_version

    found = [Path(p) / "jupyterlab-plotly" for p in jupyter_path("labextensions")
             if (Path(p) / "jupyterlab-plotly" / "package.json").is_file()]
    assert found, "the plotly wheel's JupyterLab extension (jupyterlab-plotly) is not installed"
    package = json.loads((found[0] / "package.json").read_text())
    assert package["jupyterlab"]["mimeExtension"] is True
    assert package["dependencies"]["plotly.js"] == get_plotlyjs_version()    # it draws what the wheel writes
    bundles = "".join(p.read_text(errors="ignore") for p in (found[0] / "static").glob("*.js"))
    assert utils.PLOTLY_MIME in bundles and "addFrames" in bundles            # the mime type, with its frames


def test_chapter_015_view_output_carries_what_jupyter_and_the_site_need(chapter_run):
    executed = nbformat.read(ROOT / "_build" / "exec" / "015_cloth.ipynb", as_version=4)
    views = [out for cell in executed.cells if cell.cell_type == "code" for out in cell.outputs
             if utils.PLOTLY_MIME in out.get("data", {})]
    assert len(views) == 1
    data = views[0]["data"]
    assert 'id="cloth-view"' in data["text/html"]
    figure = data[utils.PLOTLY_MIME]
    frames = figure["frames"]
    assert figure["data"][0]["type"] == "mesh3d" and len(frames) > 10
    first, last = (np.column_stack([_decoded(f["data"][0][k]) for k in "xyz"]) for f in (frames[0], frames[-1]))
    assert first.shape == (900, 3) and np.ptp(first[:, 1]) == 0.0    # the flat 30 x 30 cloth at rest
    assert last[:, 1].min() < -0.3                                    # ... which has fallen by the last frame
    assert not re.search(r"object at 0x", data["text/plain"])
