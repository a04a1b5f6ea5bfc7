"""Checks every executed chapter shares: the media its code announces exist, decode and are exactly the
published ones, a re-run reproduces the committed files byte for byte, the committed notebook is clean.

A chapter's test calls these with its name, its media prefix ("017") and its expected figures and
video frame counts (chapter 015's test has its own copy of the same checks)."""
import json
import re
import subprocess

import imageio_ffmpeg
import nbformat
from PIL import Image

from conftest import ROOT


def read_executed(chapter):
    """The chapter as the build executed it (``_build/exec/<chapter>.ipynb``)."""
    return nbformat.read(ROOT / "_build" / "exec" / f"{chapter}.ipynb", as_version=4)


def printed_text(executed):
    """Everything the executed chapter's code cells printed, in order."""
    return "".join(out.get("text", "") for cell in executed.cells if cell.cell_type == "code"
                   for out in cell.outputs if out.output_type == "stream")


def announced(executed):
    """(figures, videos): the media names the chapter's code publishes through ch.figure / ch.video."""
    source = "\n".join(cell.source for cell in executed.cells if cell.cell_type == "code")
    return re.findall(r'ch\.figure\(fig, "(\w+)"\)', source), re.findall(r'ch\.video\(fig, anim, "(\w+)"', source)


def published_names(prefix, figures, videos):
    """{'<prefix>_<name>.png', ..., '<prefix>_<name>.mp4', ...}."""
    return {f"{prefix}_{name}.png" for name in figures} | {f"{prefix}_{name}.mp4" for name in videos}


def check_media_decode(chapter, prefix, figures, videos):
    """Every figure (results/ and media/) opens as a real image, every video has its frame count."""
    for name in figures:
        for path in (ROOT / "results" / chapter / f"{name}.png", ROOT / "media" / f"{prefix}_{name}.png"):
            with Image.open(path) as image:
                image.load()
                assert image.size[0] > 400 and image.size[1] > 200, path
    for name, frames in videos.items():
        for path in (ROOT / "results" / chapter / f"{name}.mp4", ROOT / "media" / f"{prefix}_{name}.mp4"):
            assert imageio_ffmpeg.count_frames_and_secs(str(path))[0] == frames, path


def check_rerun_identical(prefix, expected):
    """The media git tracks under the prefix are `expected` and equal, byte for byte, the files on disk."""
    tracked = subprocess.run(["git", "ls-files", f"media/{prefix}_*"], cwd=ROOT, capture_output=True, text=True)
    assert tracked.returncode == 0, f"this test compares a fresh run with git's media\n{tracked.stderr}"
    committed = set(tracked.stdout.split())
    assert committed == {f"media/{name}" for name in expected}
    for path in sorted(committed):
        head = subprocess.run(["git", "show", f"HEAD:{path}"], cwd=ROOT, capture_output=True).stdout
        assert (ROOT / path).read_bytes() == head, f"re-running the chapter changed {path}"


def check_clean_notebook(chapter):
    """The committed notebook has a python3 kernel and no outputs or execution counts."""
    nb = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None
