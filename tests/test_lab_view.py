"""The interactive view in Jupyter Lab (issue 20, "Running notebooks locally"): a notebook whose cell shows
``utils.mesh_viewer_html`` draws the 3D figure with the plotly renderer the plotly wheel installs, offline.

Starts a Jupyter Lab server on a free local port (its state in a temporary folder) and opens the
notebook in headless Chromium; the HTML rendering would need the site's plotly.js, which Lab does not serve.
"""
import io
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import nbclient
import nbformat
import numpy as np
import pytest
from PIL import Image

from conftest import open_page       # the browser fixture is conftest's, shared with the site tests

START_SECONDS = 90           # a cold Jupyter Lab start on a loaded machine
VIEW_CELL = """import numpy as np, simkit, utils
V, F = simkit.grid_sheet(12, 12, 1.0, 1.0)
states = np.stack([V + [0.0, -0.05 * k, 0.0] for k in range(10)])
utils.mesh_viewer_html(states, F, np.arange(10) * 0.1, pins=[0, 11], div_id="lab-view")
"""


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """URL of a Jupyter Lab serving a folder that holds view.ipynb, executed (its output saved)."""
    root = tmp_path_factory.mktemp("lab")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(VIEW_CELL)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbclient.NotebookClient(nb, timeout=300, resources={"metadata": {"path": str(root)}}).execute()
    nbformat.write(nb, root / "view.ipynb")
    port = _free_port()
    state = root / ".jupyter"
    env = os.environ | {"JUPYTER_CONFIG_DIR": str(state / "config"), "JUPYTER_RUNTIME_DIR": str(state / "runtime"),
                        "JUPYTERLAB_SETTINGS_DIR": str(state / "settings"),
                        "JUPYTERLAB_WORKSPACES_DIR": str(state / "workspaces")}
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1", "--allow-root",
         "--ServerApp.token=", "--ServerApp.password=", f"--ServerApp.root_dir={root}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                urllib.request.urlopen(url + "api/status", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"Jupyter Lab did not start (exit code {server.poll()})")
                time.sleep(0.5)
        yield url
    finally:
        server.send_signal(signal.SIGTERM)          # the server shuts its kernels down, then exits
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def test_jupyter_lab_draws_the_view_offline(browser, lab):
    page, problems = open_page(browser, lab + "lab/tree/view.ipynb")
    plot = page.locator(".jp-RenderedPlotly")
    page.wait_for_selector(".jp-RenderedPlotly .gl-container canvas", state="attached", timeout=60000)
    page.wait_for_timeout(1500)
    png = plot.locator(".gl-container canvas").first.screenshot()
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    drawn = np.abs(pixels - 255).max(axis=2) > 40
    blue = (pixels[..., 2] > pixels[..., 0] + 30) & drawn          # the sheet in CLOTH_FRONT's blue
    assert blue.mean() > 0.01, "the 3D view is blank"
    assert plot.locator(".slider-container").count() == 1
    assert plot.locator(".updatemenu-button", has_text="Play").count() == 1
    assert [p for p in problems if p.startswith(("off-host", "failed"))] == []    # nothing fetched off the machine
    page.close()
