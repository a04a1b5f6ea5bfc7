"""Chapter 015 Cloth, executed headless from scratch: its printed numbers, its media, its reproducibility."""
import json
import re
import subprocess

import imageio_ffmpeg
import nbformat
import numpy as np
import pytest
from PIL import Image

from conftest import ROOT

CHAPTER = "015_cloth"
FIGURES = ["mesh_hinges", "cylinders", "strip", "strip_refinement", "cloth_energy", "stiffness_shapes"]
VIDEOS = {"hanging_cloth": 91, "stiff_to_limp": 46}       # frames: 90 steps of 1/30 s (every 2nd in the second)
TIP_014 = np.array([3.830, -1.064])
SPREAD_TOL = 1e-2           # "E R^2 constant in R": relative spread below 1 %
TIP_TOL = 0.03              # the strip lands within 3 % of 014's tip
MONOTONE_TOL = 1e-9         # J: round-off allowance of the non-increasing total energy


@pytest.fixture(scope="module")
def executed(chapter_run):
    return nbformat.read(ROOT / "_build" / "exec" / f"{CHAPTER}.ipynb", as_version=4)


@pytest.fixture(scope="module")
def printed(executed):
    return "".join(out.get("text", "") for cell in executed.cells if cell.cell_type == "code"
                   for out in cell.outputs if out.output_type == "stream")


def number(pattern, text):
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not printed"
    return float(match.group(1))


def test_cylinder_energy_times_r_squared_is_constant(printed):
    rows = re.findall(r"R = +(\S+) m:  E R\^2 / area = (\S+) prescribed,  (\S+) relaxed", printed)
    assert len(rows) >= 3
    radii, prescribed, relaxed = (np.array(col, dtype=float) for col in zip(*rows))
    assert radii.max() / radii.min() >= 10                       # over a decade of R
    assert np.ptp(prescribed) / prescribed.mean() < SPREAD_TOL
    assert np.ptp(relaxed) / relaxed.mean() < SPREAD_TOL
    spread = re.search(r"spread over R: (\S+) prescribed,  (\S+) relaxed", printed)
    assert spread and float(spread.group(1)) < SPREAD_TOL and float(spread.group(2)) < SPREAD_TOL
    assert (relaxed < prescribed).all()                          # a free sheet finds a cheaper cylinder


def test_strip_lands_on_014s_cantilever(printed):
    line = re.search(r"tip 3D: \[(\S+), (\S+)\]  014: \[3\.830, -1\.064\]  relative difference: (\S+)%", printed)
    assert line, "no 'tip 3D: [x, y]  014: [3.830, -1.064]  relative difference: d%' line"
    tip = np.array([float(line.group(1)), float(line.group(2))])
    difference = float(line.group(3)) / 100
    assert difference < TIP_TOL
    assert np.linalg.norm(tip - TIP_014) / np.linalg.norm(TIP_014) == pytest.approx(difference, abs=1e-3)
    assert re.search(r"014's beam rebuilt by Shell: tip = \[ ?3\.83 +-1\.064\]", printed)


def test_strip_difference_shrinks_under_refinement(printed):
    rows = re.findall(r"N = +(\d+):  strip tip .*relative difference (\S+)%", printed)
    assert len(rows) >= 3
    N = [int(n) for n, _ in rows]
    differences = [float(d) for _, d in rows]
    assert N == sorted(N)
    assert all(a > b for a, b in zip(differences, differences[1:])), differences


def test_hanging_cloth_total_energy_never_increases(printed):
    line = re.search(r"total energy non-increasing: (\w+)  \(largest step change (\S+) J", printed)
    assert line
    assert line.group(1) == "True"
    assert float(line.group(2)) <= MONOTONE_TOL
    lowest = re.search(r"final state: lowest point at \[(\S+), (\S+), (\S+)\] m", printed)
    assert lowest and float(lowest.group(2)) < -0.5              # the cloth hangs below its pins


def test_cloth_run_is_big_enough_for_folds(printed):
    nodes = re.search(r"(\d+) nodes, \d+ springs, \d+ hinges", printed)
    motion = re.search(r"(\d+) steps of 1/(\d+) s, (\S+) s of motion", printed)
    assert nodes and motion
    assert int(nodes.group(1)) >= 30 * 30
    assert int(motion.group(1)) / int(motion.group(2)) >= 3.0 and float(motion.group(3)) >= 3.0


def test_stiffer_cloth_sags_less(printed):
    rows = re.findall(r"D = +(\S+) N m:  sag = (\S+) m", printed)
    D, sag = (np.array(col, dtype=float) for col in zip(*rows))
    assert len(D) >= 3 and D.max() / D.min() >= 1e3 - 1e-9      # three decades
    order = np.argsort(D)
    assert sag[order[-1]] < 0.6 * sag[order[0]]


def test_exercise_answers(printed):
    ratio = number(r"exercise 1: .*\(ratio (\S+)\)", printed)
    assert ratio > 1.2                                           # the grid is not isotropic
    assert number(r"exercise 2: .*relative difference to 014: (\S+)%", printed) > 3.0
    assert "exercise 3: edges per bending length" in printed
    assert 0.5 < number(r"exercise 4: .*: (\d+)%", printed) / 100 < 1.0


def _announced(executed):
    """Media names the chapter's code publishes through ch.figure / ch.video."""
    source = "\n".join(cell.source for cell in executed.cells if cell.cell_type == "code")
    return re.findall(r'ch\.figure\(fig, "(\w+)"\)', source), re.findall(r'ch\.video\(fig, anim, "(\w+)"', source)


def test_announced_media_exist_and_decode(executed):
    figures, videos = _announced(executed)
    assert sorted(figures) == sorted(FIGURES)
    assert sorted(videos) == sorted(VIDEOS)
    for name in figures:
        for path in (ROOT / "results" / CHAPTER / f"{name}.png", ROOT / "media" / f"015_{name}.png"):
            with Image.open(path) as image:
                image.load()
                assert image.size[0] > 400 and image.size[1] > 200, path
    for name, frames in VIDEOS.items():
        for path in (ROOT / "results" / CHAPTER / f"{name}.mp4", ROOT / "media" / f"015_{name}.mp4"):
            assert imageio_ffmpeg.count_frames_and_secs(str(path))[0] == frames, path


def test_media_folder_holds_exactly_the_chapters_files(chapter_run):
    expected = {f"015_{name}.png" for name in FIGURES} | {f"015_{name}.mp4" for name in VIDEOS}
    assert {p.name for p in (ROOT / "media").glob("015_*")} == expected


def test_rerun_keeps_the_published_media_under_the_media_rule(chapter_run):
    """chapter_run re-executed the chapter: every 015 file a reader would see unchanged keeps its committed bytes."""
    tracked = subprocess.run(["git", "ls-files", "media/015_*"], cwd=ROOT, capture_output=True, text=True)
    assert tracked.returncode == 0, f"this test compares a fresh run with git's media\n{tracked.stderr}"
    committed = set(tracked.stdout.split())
    assert committed == {f"media/015_{name}.png" for name in FIGURES} | {f"media/015_{name}.mp4" for name in VIDEOS}
    for path in sorted(committed):
        head = subprocess.run(["git", "show", f"HEAD:{path}"], cwd=ROOT, capture_output=True).stdout
        assert (ROOT / path).read_bytes() == head, f"re-running the chapter changed {path}"


def test_committed_notebook_is_clean():
    nb = json.loads((ROOT / "book" / f"{CHAPTER}.ipynb").read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None
