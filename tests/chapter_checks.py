"""Checks every executed chapter shares: its printed text, the media its code announces (they exist,
decode, are exactly the published ones, a re-run keeps their committed bytes), a clean committed notebook.

A chapter's test reads the notebook the build executed (``_build/exec/<chapter>.ipynb``, made by the
session fixture ``chapter_run``) through these helpers and asserts its own numbers. `chapter` is the
notebook's name (``"016_elasticity"``); its media prefix is its number (``"016"``).
"""
import contextlib
import io
import json
import os
import re
import subprocess

import imageio_ffmpeg
import nbformat
import pytest
from PIL import Image

from conftest import ROOT


# inserted after a chapter's first code cell: every Newton step perturbed at 1e-12 relative, the
# round-off another CPU would make (used with another OpenBLAS kernel, `other_blas_kernel`)
ROUND_OFF_CELL = """import sys
import numpy as np
import simkit.solvers.newton_solver
newton = sys.modules["simkit.solvers.newton_solver"]      # the package attribute is the function
rng, solve = np.random.default_rng(0), newton._solve
newton._solve = lambda H, rhs: (lambda u: u * (1 + 1e-12 * rng.standard_normal(u.shape)))(solve(H, rhs))
"""


def other_blas_kernel():
    """An OpenBLAS kernel other than the one this session runs (Haswell or newer by default)."""
    return "SandyBridge" if os.environ.get("OPENBLAS_CORETYPE", "").lower() != "sandybridge" else "Haswell"


def executed(chapter):
    """The chapter as the build executed it."""
    return nbformat.read(ROOT / "_build" / "exec" / f"{chapter}.ipynb", as_version=4)


def fixtures(chapter):
    """(executed, printed): module-scoped fixtures of the chapter's executed notebook and of its printed
    text, for a chapter's test module to bind as ``executed, printed = checks.fixtures(CHAPTER)``."""
    read = executed

    def executed_notebook(chapter_run):
        return read(chapter)

    def printed_text(executed):
        return stream_text(executed)

    return (pytest.fixture(scope="module", name="executed")(executed_notebook),
            pytest.fixture(scope="module", name="printed")(printed_text))


def stream_text(nb):
    """Everything the notebook's code cells printed, in order."""
    return "".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                   for out in cell.outputs if out.output_type == "stream")


def announced(nb):
    """(figures, videos): the media names the code publishes through ``ch.figure(fig, "name")`` and
    ``ch.video(fig, anim, "name"``."""
    source = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    return re.findall(r'ch\.figure\(fig, "(\w+)"\)', source), re.findall(r'ch\.video\(fig, anim, "(\w+)"', source)


def media_names(chapter, figures, videos):
    """{'<prefix>_<name>.png', ..., '<prefix>_<name>.mp4', ...}: the files media/ should hold."""
    prefix = chapter[:3]
    return {f"{prefix}_{name}.png" for name in figures} | {f"{prefix}_{name}.mp4" for name in videos}


def published(chapter, figures, videos):
    """(the files media/ holds for the chapter, the files it should hold)."""
    return {p.name for p in (ROOT / "media").glob(f"{chapter[:3]}_*")}, media_names(chapter, figures, videos)


def assert_media_decode(chapter, figures, videos):
    """Every figure (in results/ and media/) opens as an image of a useful size; every video decodes
    to its expected number of frames (`videos`: name -> frames)."""
    prefix = chapter[:3]
    for name in figures:
        for path in (ROOT / "results" / chapter / f"{name}.png", ROOT / "media" / f"{prefix}_{name}.png"):
            with Image.open(path) as image:
                image.load()
                assert image.size[0] > 400 and image.size[1] > 200, path
    for name, frames in videos.items():
        for path in (ROOT / "results" / chapter / f"{name}.mp4", ROOT / "media" / f"{prefix}_{name}.mp4"):
            assert imageio_ffmpeg.count_frames_and_secs(str(path))[0] == frames, path


def assert_rerun_identical(chapter, figures, videos):
    """The media git tracks for the chapter are exactly its figures and videos, and the files on disk
    (re-written by the run) equal them byte for byte."""
    prefix = chapter[:3]
    tracked = subprocess.run(["git", "ls-files", f"media/{prefix}_*"], cwd=ROOT, capture_output=True, text=True)
    assert tracked.returncode == 0, f"this test compares a fresh run with git's media\n{tracked.stderr}"
    committed = set(tracked.stdout.split())
    assert committed == {f"media/{name}" for name in media_names(chapter, figures, videos)}
    for path in sorted(committed):
        head = subprocess.run(["git", "show", f"HEAD:{path}"], cwd=ROOT, capture_output=True).stdout
        assert (ROOT / path).read_bytes() == head, f"re-running the chapter changed {path}"


def assert_committed_notebook_clean(chapter):
    """The committed notebook has the python3 kernel and no outputs or execution counts."""
    nb = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


def without_start_guard(monkeypatch):
    """MeshContact without its check that a state it starts from is free of intersections.

    A run whose CCD filter is switched off tunnels, and the guard then stops it with a ValueError
    (tests/test_mesh_contact_start.py); the chapters' own intersection counts are tested against
    such runs, so those tests switch both off: a library that forgot the CCD and the guard.
    """
    import simkit
    monkeypatch.setattr(simkit.terms.MeshContact, "_require_apart", lambda self, X, name: None)


def run_cells(chapter, cell_ids, monkeypatch, tmp_path):
    """Execute some code cells of the committed chapter in this process and return what they printed.

    For the tests that show a printed check failing under a realistic bug: patch the library with
    `monkeypatch` first, then run the cells that compute and print the check (``%`` lines are
    skipped). The cells run in ``book/`` like the notebook, with results and media staged in
    `tmp_path` (``SIMKIT_RESULTS_DIR``, ``SIMKIT_MEDIA_DIR``), so nothing tracked is written."""
    nb = nbformat.read(ROOT / "book" / f"{chapter}.ipynb", as_version=4)
    cells = {cell.get("id"): cell for cell in nb.cells if cell.cell_type == "code"}
    monkeypatch.setenv("SIMKIT_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.setenv("SIMKIT_MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.chdir(ROOT / "book")
    namespace, out = {"display": lambda *args, **kwargs: None}, io.StringIO()
    with contextlib.redirect_stdout(out):
        for cell_id in cell_ids:
            source = "\n".join(line for line in cells[cell_id].source.splitlines() if not line.startswith("%"))
            exec(compile(source, f"{chapter}:{cell_id}", "exec"), namespace)
    return out.getvalue()
