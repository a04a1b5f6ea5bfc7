"""The chapters, executed headless from scratch, print SPEC.md's acceptance values and publish their media.

Two kinds of number checks live here. *Regression snapshots* (``SNAPSHOT_011``, ``SNAPSHOT_014``)
are strings copied from an executed run, SPEC's acceptance table: they catch any change of a
printed number but do not show that it is right. Every other check recomputes its number (a
closed form, a root solve, a model rebuilt from simkit in ``reference_models``) and compares.
"""
import json
import re
import subprocess

import imageio_ffmpeg
import nbformat
import numpy as np
import pytest

from conftest import ROOT, toc_chapters
from reference_models import cantilever_014, elastic_catenary_sag

CHAPTERS = ["011_mass_springs", "014_bending_stiffness"]      # the chapters whose numbers are checked here
TOC_CHAPTERS = toc_chapters()                                  # every chapter the site shows (015 too, once listed)
PUBLISH = re.compile(r"\bch\.(figure|video)\(")
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


# regression snapshots: copied from an executed run (SPEC's acceptance values), not derived
SNAPSHOT_011 = {
    "oscillator": "omega = 1.000,  period = 6.283,  188 steps of dt = 0.1",
    "amplification": {"Forward Euler": "1.00499", "Backward Euler": "0.99504", "BDF2": "0.99998"},
    "operators": "J: (40, 42),  total mass = 4.000 (rho L = 4.000),  total weight = -39.200",
    "static": r"static: 7 Newton iterations,  \|grad\| = \S+,  max sag = 1\.258",
    "tension": "tension: 14.4 at the bottom  ->  23.5 next to the pins",
    "dynamic": ("dynamic: max sag during the run = 1.981,  final max sag = 1.268 (static 1.258),  "
                "final KE = 1.7e-04"),
    "settling": "total energy monotone (up to round-off): True,  final distance = 1.0e-02",
    "sweep": [(100, "2.374"), (400, "1.258"), (1600, "0.744")],
    "discrete cable sag": 1.2578,
}
SNAPSHOT_014 = {"tip": r"tip = \[\s*3\.83\s+-1\.064\]"}
# chapter 011's cable as its text states it: k = 400 N/m on 20 springs of a 4 m cable, rho = 1 kg/m, g = 9.8
CABLE_011 = {"k": 400.0, "L0": 4.0, "springs": 20, "w": 1.0 * 9.8}
FOLDED = {"hide-input", "hide-cell", "remove-input", "remove-cell"}
MAX_UNFOLDED_LINES = 40         # a code cell a reader sees unfolded fits on one screen


def number(pattern, text):
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not printed"
    return float(match.group(1))


@pytest.fixture(scope="module")
def printed(chapter_run):
    """All text each executed chapter printed, by chapter."""
    text = {}
    for chapter in TOC_CHAPTERS:
        nb = nbformat.read(ROOT / "_build" / "exec" / f"{chapter}.ipynb", as_version=4)
        text[chapter] = "".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                                for out in cell.outputs if out.output_type == "stream")
    return text


def test_011_hooke_energy_and_force_match_closed_forms(printed):
    out = printed["011_mass_springs"]
    assert number(r"max \|psi - k\(l-l0\)\^2/2\| = (\S+),", out) <= 1e-12
    assert number(r"max \|f \+ k\(l-l0\)\| = (\S+)", out) <= 1e-12


def amplification_factors(h_omega):
    """Per-step amplification |z| of the three schemes on the oscillator's eigenvalue i omega, in closed form."""
    bdf2 = np.roots([1.5 - 1j * h_omega, -2.0, 0.5])                    # (3/2 - i h w) z^2 - 2 z + 1/2 = 0
    return {"Forward Euler": abs(1 + 1j * h_omega), "Backward Euler": 1 / abs(1 - 1j * h_omega),
            "BDF2": np.abs(bdf2).max()}


def test_011_oscillator_and_amplification_snapshot(printed):
    out = printed["011_mass_springs"]
    assert SNAPSHOT_011["oscillator"] in out
    closed = amplification_factors(0.1)                                   # omega = 1, dt = 0.1
    for scheme, factor in SNAPSHOT_011["amplification"].items():
        line = re.search(rf"{scheme}\s+per-step amplification = (\S+),  max \|simkit - map\| = (\S+)", out)
        assert line, f"no amplification line for {scheme}"
        assert line.group(1) == factor == f"{closed[scheme]:.5f}"
        assert float(line.group(2)) <= 1e-12


def test_011_cable_operators_snapshot_and_gradient_check(printed):
    out = printed["011_mass_springs"]
    assert SNAPSHOT_011["operators"] in out
    assert number(r"relative gradient error vs central differences: (\S+)", out) <= 1e-6


def test_011_static_solve_tension_and_dynamics_snapshot(printed):
    out = printed["011_mass_springs"]
    assert re.search(SNAPSHOT_011["static"], out)
    for key in ("tension", "dynamic", "settling"):
        assert SNAPSHOT_011[key] in out, key


def test_011_stiffness_sweep_snapshot(printed):
    out = printed["011_mass_springs"]
    for k, sag in SNAPSHOT_011["sweep"]:
        assert re.search(rf"k =\s+{k}:  max sag = {sag}", out)


def check_catenary(EA, H, sag, cable=CABLE_011):
    """The printed elastic catenary is Irvine's, solved here for 011's cable (EA = k l0)."""
    assert EA == pytest.approx(cable["k"] * cable["L0"] / cable["springs"])
    sag_closed, H_closed = elastic_catenary_sag(EA, cable["w"], cable["L0"], cable["L0"])
    assert H == pytest.approx(H_closed, abs=5e-3)                        # printed with 2 decimals
    assert sag == pytest.approx(sag_closed, abs=5e-5)                    # printed with 4 decimals


def test_011_static_cable_matches_the_elastic_catenary(printed):
    out = printed["011_mass_springs"]
    line = re.search(r"elastic catenary \(EA = (\S+) N, H = (\S+) N\): max sag = (\S+);", out)
    assert line, "the catenary line is not printed"
    check_catenary(*map(float, line.groups()))
    assert number(r"discrete cable: (\S+);", out) == pytest.approx(SNAPSHOT_011["discrete cable sag"], abs=1e-4)
    assert number(r"relative difference = (\S+);", out) < 2e-3


def test_catenary_check_can_fail():
    sag, H = elastic_catenary_sag(80.0, 9.8, 4.0, 4.0)
    check_catenary(80.0, round(H, 2), round(sag, 4))
    with pytest.raises(AssertionError):
        check_catenary(80.0, round(H, 2), SNAPSHOT_011["discrete cable sag"])   # the discrete sag is not Irvine's
    with pytest.raises(AssertionError):
        check_catenary(80.0, H * 1.01, sag)
    with pytest.raises(AssertionError):
        check_catenary(400.0, H, sag)                                   # k itself is not EA


def test_011_exercise_1_largest_forward_euler_step(printed):
    out = printed["011_mass_springs"]
    line = re.search(r"exercise 1: gain at dt = 0.1: predicted (\S+), simkit (\S+);  largest step with < 10% gain "
                     r"over 3 periods: dt = (\S+), simkit gains (\S+)", out)
    assert line, "exercise 1 answer not printed"
    predicted, simulated, dt, gain = map(float, line.groups())
    assert predicted == pytest.approx(1.01 ** 188, rel=1e-3) and simulated == pytest.approx(predicted, rel=1e-4)
    assert dt == pytest.approx(0.00506, abs=1e-5)
    assert 1.09 < gain <= 1.1 + 1e-4


def test_011_exercise_2_orders_of_the_integrators(printed):
    out = printed["011_mass_springs"]
    assert 0.9 <= number(r"exercise 2: observed order Backward Euler (\S+),", out) <= 1.2
    assert 0.9 <= number(r"BDF2 at rest (\S+),", out) <= 1.3
    assert 1.8 <= number(r"BDF2 exact history (\S+)", out) <= 2.2


def test_011_exercise_3_cable_converges_to_the_catenary(printed):
    out = printed["011_mass_springs"]
    line = re.search(r"exercise 3: \|sag - catenary\| = (.*) for N = \[11, 21, 41, 81\]; observed order (\S+)", out)
    assert line, "exercise 3 answer not printed"
    gaps = [float(g) for g in line.group(1).split(", ")]
    assert all(a > b for a, b in zip(gaps, gaps[1:]))
    assert 1.8 <= float(line.group(2)) <= 2.2


def test_014_default_cantilever_tip_snapshot(printed):
    assert re.search(SNAPSHOT_014["tip"], printed["014_bending_stiffness"])


def test_014_tip_error_falls_at_first_order(printed):
    out = printed["014_bending_stiffness"]
    errors = [float(e) for e in re.findall(r"tip error = (\S+)", out)]
    assert len(errors) == 5
    assert all(a > b for a, b in zip(errors, errors[1:]))
    assert 0.8 <= number(r"observed order of convergence \(N = 5 to 33\): (\S+)", out) <= 1.3


def test_014_tip_errors_are_against_a_converged_reference(printed):
    """Every printed tip error equals |tip_y(N) - tip_y(129)| of beams solved to a 1e-9 step."""
    found = re.findall(r"N = +(\d+):  tip error = (\S+)", printed["014_bending_stiffness"])
    assert [int(N) for N, _ in found] == [5, 9, 17, 33, 65]
    reference = cantilever_014(129)[-1, 1]
    for N, error in found:
        assert error == f"{abs(cantilever_014(int(N))[-1, 1] - reference):.2e}", f"N = {N}"


def test_014_stiff_tip_against_euler_bernoulli(printed):
    out = printed["014_bending_stiffness"]
    tip = number(r"EI = 2000: discrete tip deflection = (\S+),", out)
    closed = number(r"Euler-Bernoulli w L\^4/\(8 EI\) = (\S+),", out)
    assert closed == pytest.approx(0.2 * 9.8 * 4.0 ** 4 / (8 * 2000))
    assert number(r"relative error = (\S+)%", out) == pytest.approx(100 * abs(tip / closed - 1), abs=0.06)
    assert abs(tip / closed - 1) < 0.15


def test_014_exercise_1_kappa_scaling(printed):
    line = re.search(r"exercise 1: .* with kappa = EI/l: .*\(spread (\S+)\);  with kappa = EI: .*\(spread (\S+)\)",
                     printed["014_bending_stiffness"])
    assert line, "exercise 1 answer not printed"
    right, wrong = map(float, line.groups())
    assert right < 0.2 * wrong


def test_014_exercise_2_euler_bernoulli_gap_is_discretization(printed):
    out = printed["014_bending_stiffness"]
    errors = [float(e) for e in re.findall(r"N = \d+: (\S+)%", out.split("exercise 2:")[1].splitlines()[0])]
    assert len(errors) == 4
    assert all(a > b for a, b in zip(errors, errors[1:]))
    assert errors[-1] < 3.0
    assert 1.8 < errors[-2] / errors[-1] < 2.2, "first order: halving l halves the error"


def test_014_exercise_3_arc_energy_closed_form(printed):
    line = re.search(r"exercise 3: E / Phi\^2 predicted (\S+), measured (\S+), continuum (\S+)",
                     printed["014_bending_stiffness"])
    assert line, "exercise 3 answer not printed"
    predicted, measured, continuum = map(float, line.groups())
    assert predicted == pytest.approx(50 * 19 / (2 * 4 * 20)) and measured == pytest.approx(predicted, rel=1e-6)
    assert continuum == pytest.approx(50 / 8)


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
    prefixes = {c[:3] for c in CHAPTERS}       # other chapters test their own media
    assert {p.name for p in (ROOT / "media").iterdir() if p.name[:3] in prefixes} == expected


def test_rerun_leaves_the_tracked_media_as_they_are(chapter_run):
    """chapter_run re-rendered every chapter; the media rule keeps the tracked bytes of every medium whose
    new rendering shows what the tracked one shows, so git status stays clean on any CPU (the rule's
    own tests, round-off against a 1 % change: tests/test_media_rule.py and tests/test_build.py)."""
    # never skipped: videos are encoded with the pinned imageio-ffmpeg binary even where a system ffmpeg exists
    tracked = subprocess.run(["git", "ls-files", "media"], cwd=ROOT, capture_output=True, text=True)
    assert tracked.returncode == 0 and tracked.stdout.strip(), \
        f"this test compares a fresh run with the media tracked in git; run it in a git checkout\n{tracked.stderr}"
    status = subprocess.run(["git", "status", "--porcelain", "media"], cwd=ROOT, capture_output=True, text=True)
    assert status.stdout == "", f"re-running the chapters changed tracked media:\n{status.stdout}"
    for chapter in TOC_CHAPTERS:
        assert re.search(rf"{chapter}: executed in .* media files \(0 new or visibly changed", chapter_run.stdout), \
            f"{chapter}: the rerun published a visibly different medium"


@pytest.mark.parametrize("chapter", TOC_CHAPTERS)
def test_committed_notebook_is_clean(chapter):
    nb = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    # code cells hold %magics: the page's code linker reads them as IPython, not plain Python
    assert nb["metadata"]["language_info"]["pygments_lexer"] == "ipython3"
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


# ---------------------------------------------------------------------------------------
# the conventions of CONTRIBUTING.md "Adding a chapter", for every chapter in _toc.yml
# ---------------------------------------------------------------------------------------

def _cells(chapter):
    return nbformat.read(ROOT / "book" / f"{chapter}.ipynb", as_version=4).cells


@pytest.mark.parametrize("chapter", TOC_CHAPTERS)
def test_every_published_figure_and_video_has_number_caption_and_alt(chapter):
    published = [c for c in _cells(chapter) if c.cell_type == "code" and PUBLISH.search(c.source)]
    assert published, f"{chapter} publishes nothing through utils.Chapter"
    names = []
    for cell in published:
        kind = PUBLISH.search(cell.source).group(1)
        first = cell.source.strip().splitlines()[0]
        figure = cell.metadata.get("mystnb", {}).get("figure", {})
        caption = figure.get("caption", "")
        assert figure.get("name", "").startswith(f"fig-{chapter[:3]}-"), f"{chapter}: no figure name in cell {first!r}"
        assert caption.endswith(".") and len(caption.split()) >= 6, f"{chapter}: caption of {figure.get('name')}"
        assert len(PUBLISH.findall(cell.source)) == 1, f"{chapter}: one figure or video per cell ({first!r})"
        if kind == "figure":
            alt = cell.metadata["mystnb"].get("image", {}).get("alt", "")
            assert len(alt.split()) >= 8, f"{chapter}: alt text of {figure['name']}"
        else:
            assert re.search(r"alt=\s*\(?\s*\"", cell.source), f"{chapter}: ch.video without alt text"
        names.append(figure["name"])
    assert len(set(names)) == len(names), f"{chapter}: figure names must be unique"


@pytest.mark.parametrize("chapter", TOC_CHAPTERS)
def test_chapter_ends_with_exercises_solutions_and_references(chapter, printed):
    cells = _cells(chapter)
    headings = [line for c in cells if c.cell_type == "markdown" for line in c.source.splitlines()
                if line.startswith("## ")]
    assert headings[-2:] == ["## Exercises", "## References"], f"{chapter}: ends with {headings[-2:]}"
    exercises = [i for i, c in enumerate(cells) if c.cell_type == "markdown"
                 and re.search(r"\*\*Exercise \d+", c.source)]
    numbers = [int(n) for i in exercises for n in re.findall(r"\*\*Exercise (\d+)", cells[i].source)]
    assert 3 <= len(numbers) <= 5 and numbers == list(range(1, len(numbers) + 1)), f"{chapter}: exercises {numbers}"
    for number in numbers:
        i = next(i for i in exercises if f"**Exercise {number}" in cells[i].source)
        solution = cells[i + 1]
        assert solution.cell_type == "code" and "hide-cell" in solution.metadata.get("tags", []), \
            f"{chapter}: exercise {number} needs a folded (hide-cell) solution cell right after it"
        assert f'print(f"exercise {number}:' in solution.source or f'print("exercise {number}:' in solution.source
        assert f"exercise {number}:" in printed[chapter], f"{chapter}: exercise {number} printed no answer"
    assert "{footbibliography}" in cells[-1].source and "{footcite}" in "".join(c.source for c in cells)


def long_unfolded_cells(cells, limit=MAX_UNFOLDED_LINES):
    """(index, lines) of every code cell shown unfolded (no hide/remove tag) with more than `limit` lines."""
    found = []
    for i, cell in enumerate(cells):
        lines = len(cell.source.splitlines())
        if cell.cell_type == "code" and not FOLDED & set(cell.metadata.get("tags", [])) and lines > limit:
            found.append((i, lines))
    return found


@pytest.mark.parametrize("chapter", TOC_CHAPTERS)
def test_no_unfolded_code_cell_is_longer_than_a_screen(chapter):
    assert long_unfolded_cells(_cells(chapter)) == [], f"{chapter}: fold (hide-input) or split these cells"


def test_unfolded_cell_check_can_fail():
    long = "x = 1\n" * (MAX_UNFOLDED_LINES + 1)
    cells = [nbformat.v4.new_code_cell(long), nbformat.v4.new_code_cell(long, metadata={"tags": ["hide-input"]}),
             nbformat.v4.new_code_cell("y = 2\n" * MAX_UNFOLDED_LINES), nbformat.v4.new_markdown_cell(long)]
    assert long_unfolded_cells(cells) == [(0, MAX_UNFOLDED_LINES + 1)]
