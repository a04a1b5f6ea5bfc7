"""The chapters, executed headless from scratch, print SPEC.md's acceptance values and publish their media."""
import json
import re
import subprocess

import imageio_ffmpeg
import nbformat
import pytest

from conftest import ROOT, toc_chapters

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


def test_011_static_cable_matches_the_elastic_catenary(printed):
    out = printed["011_mass_springs"]
    sag = number(r"elastic catenary \(EA = 80 N, H = \S+ N\): max sag = (\S+);", out)
    assert sag == pytest.approx(1.2563, abs=1e-4)          # Irvine's closed form, solved independently
    assert number(r"discrete cable: (\S+);", out) == pytest.approx(1.2578, abs=1e-4)
    assert number(r"relative difference = (\S+);", out) < 2e-3


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


def test_014_default_cantilever_tip(printed):
    assert re.search(r"tip = \[\s*3\.83\s+-1\.064\]", printed["014_bending_stiffness"])


def test_014_tip_error_falls_at_first_order(printed):
    out = printed["014_bending_stiffness"]
    errors = [float(e) for e in re.findall(r"tip error = (\S+)", out)]
    assert len(errors) == 5
    assert all(a > b for a, b in zip(errors, errors[1:]))
    assert 0.8 <= number(r"observed order of convergence \(N = 5 to 33\): (\S+)", out) <= 1.3


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
# the conventions of README "Adding a chapter", for every chapter in _toc.yml
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
