"""The chapters, executed headless from scratch, print SPEC.md's acceptance values and publish their media."""
import json
import re
import subprocess

import imageio_ffmpeg
import nbformat
import pytest

from conftest import ROOT

CHAPTERS = ["011_mass_springs", "014_bending_stiffness"]
FIGURES = {
    "011_mass_springs": ["meshes", "hooke", "phase_portrait", "energy_drift", "newton_convergence",
                         "cable_fields", "cable_settling", "cable_stiffness"],
    "014_bending_stiffness": ["bending_energy", "static_sag", "refinement", "convergence"],
}
# video name -> frames, in the order the chapter shows them
VIDEOS = {
    "011_mass_springs": {"spring_collapse": 90, "oscillators": 95, "cable_static": 8,
                         "cable_dynamic": 251, "cable_compare": 80},
    "014_bending_stiffness": {"springs_only": 60, "flop_to_rigid": 60},
}


def number(pattern, text):
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not printed"
    return float(match.group(1))


@pytest.fixture(scope="module")
def printed(chapter_run):
    """All text each executed chapter printed, by chapter."""
    text = {}
    for chapter in CHAPTERS:
        nb = nbformat.read(ROOT / "_build" / "exec" / f"{chapter}.ipynb", as_version=4)
        text[chapter] = "".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                                for out in cell.outputs if out.output_type == "stream")
    return text


def test_011_hooke_energy_and_force_match_closed_forms(printed):
    out = printed["011_mass_springs"]
    assert number(r"max \|psi - k\(l-l0\)\^2/2\| = (\S+),", out) <= 1e-12
    assert number(r"max \|f \+ k\(l-l0\)\| = (\S+)", out) <= 1e-12


def test_011_oscillator_and_amplification_factors(printed):
    out = printed["011_mass_springs"]
    assert "omega = 1.000,  period = 6.283,  188 steps of dt = 0.1" in out
    for scheme, factor in [("Forward Euler", "1.00499"), ("Backward Euler", "0.99504"), ("BDF2", "0.99998")]:
        line = re.search(rf"{scheme}\s+per-step amplification = (\S+),  max \|simkit - map\| = (\S+)", out)
        assert line, f"no amplification line for {scheme}"
        assert line.group(1) == factor
        assert float(line.group(2)) <= 1e-12


def test_011_cable_operators_and_gradient_check(printed):
    out = printed["011_mass_springs"]
    assert "J: (40, 42),  total mass = 4.000 (rho L = 4.000),  total weight = -39.200" in out
    assert number(r"relative gradient error vs central differences: (\S+)", out) <= 1e-6


def test_011_static_solve_tension_and_dynamics(printed):
    out = printed["011_mass_springs"]
    assert re.search(r"static: 7 Newton iterations,  \|grad\| = \S+,  max sag = 1\.258", out)
    assert "tension: 14.4 at the bottom  ->  23.5 next to the pins" in out
    assert ("dynamic: max sag during the run = 1.981,  final max sag = 1.268 (static 1.258),  "
            "final KE = 1.7e-04") in out
    assert "total energy monotone (up to round-off): True,  final distance = 1.0e-02" in out


def test_011_stiffness_sweep(printed):
    out = printed["011_mass_springs"]
    for k, sag in [(100, "2.374"), (400, "1.258"), (1600, "0.744")]:
        assert re.search(rf"k =\s+{k}:  max sag = {sag}", out)


def test_014_default_cantilever_tip(printed):
    assert re.search(r"tip = \[\s*3\.83\s+-1\.064\]", printed["014_bending_stiffness"])


def test_014_tip_error_falls_at_first_order(printed):
    out = printed["014_bending_stiffness"]
    errors = [float(e) for e in re.findall(r"tip error = (\S+)", out)]
    assert len(errors) == 5
    assert all(a > b for a, b in zip(errors, errors[1:]))
    assert 0.8 <= number(r"observed order of convergence \(N = 5 to 33\): (\S+)", out) <= 1.3


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_publishes_its_figures(chapter_run, chapter):
    prefix = chapter[:3]
    for name in FIGURES[chapter]:
        for path in (ROOT / "results" / chapter / f"{name}.png", ROOT / "media" / f"{prefix}_{name}.png"):
            assert path.read_bytes().startswith(b"\x89PNG"), path


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_publishes_and_embeds_its_videos(chapter_run, chapter):
    prefix = chapter[:3]
    for name, frames in VIDEOS[chapter].items():
        for path in (ROOT / "results" / chapter / f"{name}.mp4", ROOT / "media" / f"{prefix}_{name}.mp4"):
            assert imageio_ffmpeg.count_frames_and_secs(str(path))[0] == frames, path
    nb = nbformat.read(ROOT / "_build" / "exec" / f"{chapter}.ipynb", as_version=4)
    embedded = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs
                if "<video" in out.get("data", {}).get("text/html", "")]
    assert len(embedded) == len(VIDEOS[chapter])


def test_media_holds_exactly_what_the_chapters_write(chapter_run):
    expected = {f"{c[:3]}_{name}.png" for c in CHAPTERS for name in FIGURES[c]}
    expected |= {f"{c[:3]}_{name}.mp4" for c in CHAPTERS for name in VIDEOS[c]}
    assert {p.name for p in (ROOT / "media").iterdir()} == expected


def test_rerun_reproduces_the_tracked_media(chapter_run):
    # never skipped: videos are encoded with the pinned imageio-ffmpeg binary even where a system ffmpeg exists
    tracked = subprocess.run(["git", "ls-files", "media"], cwd=ROOT, capture_output=True, text=True)
    assert tracked.returncode == 0 and tracked.stdout.strip(), \
        f"this test compares a fresh run with the media tracked in git; run it in a git checkout\n{tracked.stderr}"
    status = subprocess.run(["git", "status", "--porcelain", "media"], cwd=ROOT, capture_output=True, text=True)
    assert status.stdout == "", f"re-running the chapters changed tracked media:\n{status.stdout}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_committed_notebook_is_clean(chapter):
    nb = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None
