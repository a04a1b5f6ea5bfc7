"""Chapter 017 Contact and friction, executed headless from scratch: its printed numbers against closed
forms recomputed here, its media, its clean committed notebook."""
import json
import re

import numpy as np
import pytest
from scipy.optimize import brentq

import chapter_checks as checks
import simkit.terms
from conftest import ROOT

CHAPTER = "017_contact"
FIGURES = ["penalty", "barrier", "drop", "line_search", "slope", "stack_energy"]
VIDEOS = {"stack": 61}      # frames: 120 steps of 1/60 s shown at every second step, plus the first
# the chapter's parameters, restated: every closed form below is recomputed from them
G, DT, D_HAT, GAP_0 = 9.8, 1 / 60, 0.01, 1.0
TAN_THETA, MU_SLIDE, MU_STICK, EPS_V = 0.3, 0.1, 0.5, 1e-3
MONOTONE_TOL = 1e-9         # J: round-off allowance of the non-increasing total energy
NUM = r"([-+]?\d+(?:\.\d*)?(?:e[-+]?\d+)?)"


executed, printed = checks.fixtures(CHAPTER)


def line(pattern, text):
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not printed"
    return [float(g) if re.fullmatch(NUM, g) else g for g in match.groups()]


def theta():
    return np.arctan(TAN_THETA)


def test_penalty_springs_tunnel_and_jitter(printed):
    ends = re.findall(rf"fast drop, k = (\S+) N/m: ends at y = {NUM} m, (.*)", printed)
    assert len(ends) >= 2
    for _, y, verdict in ends:
        assert float(y) < -0.05 and "tunnelled" in verdict            # below the 5 cm floor
    sink, w_over_k = line(rf"converged Newton: sinks {NUM} mm \(W/k = {NUM} mm\)", printed)
    assert sink == pytest.approx(w_over_k, rel=1e-3)
    low, high = line(rf"one solve per step: still jumping between {NUM} and {NUM} mm deep", printed)
    assert high - low > 5 * w_over_k                                    # chatter, far beyond the rest depth
    k_soft, depth, moving, w_over_k_soft = line(rf"resting, k = (\S+) N/m, one solve per step: {NUM} mm deep after "
                                                rf"\d+ steps, moving {NUM} mm over the last 10 \(W/k = {NUM} mm\)",
                                                printed)
    assert w_over_k_soft == pytest.approx(G / float(k_soft) * 1e3, rel=1e-3)   # the 1 kg particle
    assert depth == pytest.approx(w_over_k_soft, rel=1e-3) and moving < 1e-6   # a softer spring settles at W/k


def test_barrier_is_c2_at_d_hat_and_its_derivatives_match_differences(printed):
    b, db, d2b = line(rf"just below d_hat: b = {NUM}, b' = {NUM}, b'' = {NUM}", printed)
    assert abs(b) < 1e-15 and abs(db) < 1e-10 and abs(d2b) < 1e-4      # O(eps^2), O(eps^2), O(eps) at 1 - 1e-6
    err1, err2 = line(rf"relative errors {NUM}, {NUM}", printed)
    assert err1 < 1e-6 and err2 < 1e-6
    near, scale = line(rf"b\(d\) at d = d_hat / 1000: {NUM} m\^2 \(d_hat\^2 = {NUM} m\^2\)", printed)
    assert near > 6 * scale                                             # ln(1000) (1 - 1e-3)^2 = 6.9: it grows


def test_drop_free_fall_is_the_discrete_parabola(printed):
    error, last = line(rf"free fall: max \|y_n - \(y_0 - g h\^2 n\(n\+1\)/2\)\| = {NUM} m over steps 0\.\.(\d+)",
                       printed)
    assert error <= 1e-12
    assert last >= 20                                                   # the fall lasts ~27 steps


def test_first_contact_step_is_near_the_continuous_time(printed):
    step, t, t_c, h = line(rf"first contact: step (\d+), t = {NUM} s \(continuous sqrt\(2 \(gap_0 - d_hat\)/g\) = "
                           rf"{NUM} s, step {NUM} s\)", printed)
    assert t_c == pytest.approx(np.sqrt(2 * (GAP_0 - D_HAT) / G), abs=1e-4)
    assert t == pytest.approx(step * DT, abs=1e-4)
    assert abs(t - t_c) <= DT
    # the discrete parabola first falls below d_hat at that step
    n = np.arange(200)
    y = GAP_0 - G * DT ** 2 * n * (n + 1) / 2
    assert int(np.argmax(y < D_HAT)) == int(step)


def barrier_rest_gap(kappa, load_per_weight):
    """The root in (0, d_hat) of kappa [2 (d - d_hat) ln(d/d_hat) + (d - d_hat)^2 / d] = W / w."""
    return brentq(lambda s: kappa * (2 * (s - D_HAT) * np.log(s / D_HAT) + (s - D_HAT) ** 2 / s) - load_per_weight,
                  1e-14, D_HAT, xtol=1e-16, rtol=1e-15)


def check_rest_gaps(printed, kappa, mass):
    """Both rest gaps equal their closed forms, computed here: weight w = mass (W / w = g), and w = 1
    (W / w = mass g). The mass is not 1, so a barrier that ignores w or applies it twice rests elsewhere."""
    d, closed = line(rf"rest gap: {NUM} \(closed form {NUM}\)", printed)
    assert closed == pytest.approx(barrier_rest_gap(kappa, G), rel=1e-8)
    assert d == pytest.approx(closed, rel=1e-6) and 0 < d < D_HAT
    printed_mass, d1, closed1 = line(rf"rest gap with weight w = 1 \(mass {NUM} kg\): {NUM} \(closed form {NUM}\)",
                                     printed)
    assert printed_mass == mass != 1.0
    assert closed1 == pytest.approx(barrier_rest_gap(kappa, mass * G), rel=1e-8)
    assert d1 == pytest.approx(closed1, rel=1e-6) and 0 < d1 < d     # a heavier load on the same barrier


def test_rest_gap_matches_the_barriers_closed_form(printed):
    check_rest_gaps(printed, source_constant("KAPPA"), source_constant("DROP_MASS"))


@pytest.mark.parametrize("bug", [lambda w: w, lambda w: 1.0, lambda w: w * w, lambda w: 2 * w,
                                 lambda w: source_constant("DROP_MASS")],
                         ids=["control: the weight as given", "weight ignored", "weight applied twice",
                              "weight doubled", "mass for weight"])
def test_rest_gap_check_fails_for_a_barrier_that_mishandles_the_weight(bug, monkeypatch, tmp_path, request):
    """Section 3 run with a barrier whose vertex weight is wrong: its printed gaps miss their closed forms
    (the control, the barrier as it is, passes the same check)."""
    class Mishandled(simkit.terms.HalfSpaceContact):
        def __init__(self, *args, weight=1.0, **kwargs):
            super().__init__(*args, weight=bug(weight), **kwargs)

    monkeypatch.setattr(simkit.terms, "HalfSpaceContact", Mishandled)
    text = checks.run_cells(CHAPTER, ["c017-01", "c017-05", "c017-05b", "c017-12"], monkeypatch, tmp_path)
    check = lambda: check_rest_gaps(text, source_constant("KAPPA"), source_constant("DROP_MASS"))  # noqa: E731
    if "control" in request.node.callspec.id:
        check()
    else:
        with pytest.raises(AssertionError, match="comparison failed"):    # a number, not a missing line
            check()


def source_constant(name):
    return float(re.search(rf"^{name} = (\S+)", printed_source(), re.M).group(1))


def printed_source():
    nb = json.loads((ROOT / "book" / f"{CHAPTER}.ipynb").read_text())
    return "".join(cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
                   for cell in nb["cells"] if cell["cell_type"] == "code")


def test_drop_energy_never_increases_and_distances_stay_positive(printed):
    flag, rise = line(rf"total energy non-increasing: (\w+)  \(largest step change {NUM} J\)", printed)
    assert flag == "True" and rise <= MONOTONE_TOL
    distance, = line(rf"min distance over the run: {NUM}", printed)   # the drop: a half-space's signed distance
    assert distance > 0
    counts = [int(c) for c in re.findall(r"unconverged steps: (\d+)", printed)]
    assert counts and all(c == 0 for c in counts)


def test_stacked_blocks_never_interpenetrate(printed):
    count, states = line(r"intersections: (\d+) in (\d+) states", printed)
    assert int(count) == 0 and int(states) == VIDEOS["stack"] * 2 - 1      # every state of the 120 steps


def test_intersection_check_fails_without_the_segment_filter(monkeypatch, tmp_path):
    """Section 6 run with MeshContact's CCD filter off: vertices tunnel through the other blocks'
    boundaries, and the printed count says so (the barrier's smallest distance stays positive)."""
    monkeypatch.setattr(simkit.terms.MeshContact, "max_step", lambda self, x, dx: 1.0)
    checks.without_start_guard(monkeypatch)
    text = checks.run_cells(CHAPTER, ["c017-01", "c017-05b", "c017-26"], monkeypatch, tmp_path)
    count, states = line(r"intersections: (\d+) in (\d+) states", text)
    assert int(states) == 121 and int(count) > 100


def check_filtered_step(text):
    y_plain, = line(rf"without the filter: the step ends at y = {NUM} m, below the platform", text)
    assert y_plain < 0
    alpha, t_impact, d_min = line(rf"with the filter: first step fraction {NUM} = 0\.9 x time of impact {NUM}, "
                                  rf"smallest distance of all iterates {NUM} m", text)
    assert alpha == pytest.approx(0.9 * t_impact, rel=1e-3)            # the exact time of impact, not the CCD's
    assert 0 < alpha < 1 and d_min > 0


def test_filtered_line_search_stops_what_plain_newton_tunnels(printed):
    check_filtered_step(printed)


def test_filtered_step_check_fails_for_a_loose_time_of_impact(monkeypatch, tmp_path):
    """Section 4 with a CCD whose lower bound is 1% early (a loose additive CCD): the first step fraction is no
    longer 0.9 times the exact time of impact the cell computes, and the check says so."""
    real = simkit.terms.MeshContact.max_step
    monkeypatch.setattr(simkit.terms.MeshContact, "max_step", lambda self, x, dx: 0.99 * real(self, x, dx))
    text = checks.run_cells(CHAPTER, ["c017-01", "c017-05b", "c017-17"], monkeypatch, tmp_path)
    with pytest.raises(AssertionError, match="comparison failed"):     # a number, not a missing line
        check_filtered_step(text)


def test_sliding_block_accelerates_at_the_coulomb_rate(printed):
    a, closed = line(rf"slope mu=0\.1: a = {NUM} m/s\^2 \(closed form {NUM}\)", printed)
    expected = G * (np.sin(theta()) - MU_SLIDE * np.cos(theta()))
    assert closed == pytest.approx(expected, rel=1e-4)
    assert a == pytest.approx(expected, rel=1e-3)


def test_sticking_block_creeps_at_the_smoothed_rate(printed):
    v, closed = line(rf"slope mu=0\.5: creep v = {NUM} m/s \(closed form {NUM}\)", printed)
    expected = EPS_V * (1 - np.sqrt(1 - TAN_THETA / MU_STICK))
    assert closed == pytest.approx(expected, rel=1e-4)
    assert v == pytest.approx(expected, rel=1e-2)


def test_resting_stack_contact_forces_carry_the_weight(printed):
    force, weight, rel = line(rf"resting contact forces: {NUM} N on the ground, total weight {NUM} N "
                              rf"\(relative difference {NUM}\)", printed)
    assert rel <= 1e-6
    assert force == pytest.approx(weight, rel=1e-6)
    between = re.findall(rf"contact forces on the blocks above block (\d): {NUM} N, their weight {NUM} N", printed)
    assert len(between) >= 2                                            # three blocks: two interfaces
    for _, f, w in between:
        assert float(f) == pytest.approx(float(w), rel=1e-6)
        assert 0 < float(w) < weight


def test_meshed_bodies_rest_closer_than_a_lone_particle(printed):
    """A ground node carries its neighbours' weight too: the stack's rest gaps are below the lone particle's."""
    nodes, low, high, lone = line(rf"ground nodes at rest: (\d+), {NUM} to {NUM} mm above the ground "
                                  rf"\(a lone particle: {NUM} mm\)", printed)
    d, _ = line(rf"rest gap: {NUM} \(closed form {NUM}\)", printed)
    assert lone == pytest.approx(1e3 * d, abs=0.01)
    assert int(nodes) >= 2 and 0 < low <= high < lone


def test_exercise_answers(printed):
    gaps = re.search(rf"exercise 1: rest gaps {NUM}, {NUM}, {NUM} m; light-load estimates {NUM}, {NUM}, {NUM} m",
                     printed)
    assert gaps
    values = np.array(gaps.groups(), dtype=float)
    gap, estimate = values[:3], values[3:]
    assert np.all(np.diff(gap) > 0)                                    # stiffer barrier: the gap nears d_hat
    assert np.all(np.diff(np.abs(gap - estimate) / (D_HAT - gap)) < 0)   # the estimate improves as loads lighten
    ratio, = line(rf"exercise 2: creep at eps_v / 2 over creep at eps_v = {NUM}", printed)
    assert ratio == pytest.approx(0.5, rel=0.02)
    tunnelled, total, lowest, vh = line(rf"exercise 3: (\d+) of (\d+) drops tunnel \([^)]*\); the lowest, from {NUM} m, "
                                        rf"covers v h = {NUM} cm in a step, against the 5 cm floor", printed)
    assert 0 < tunnelled < total                                       # some do, some do not: a lottery
    assert vh == pytest.approx(100 * np.sqrt(2 * G * lowest) * DT, abs=0.01)
    assert vh > 5 / 2                                                  # a step must reach past the middle
    runs = re.findall(rf"s = {NUM}: (\d+) iterations, closest {NUM} mm, ends {NUM} mm", printed)
    assert [float(s) for s, *_ in runs] == [0.5, 0.9, 0.99]
    iterations, closest, ends = (np.array(col, dtype=float) for col in list(zip(*runs))[1:])
    assert np.all(closest > 0) and np.all(closest <= ends + 1e-3)
    assert np.ptp(ends) < 1e-3                                          # the same solution, whatever s
    assert iterations[0] > iterations[-1]                              # halving the way costs iterations
    assert "all converged: True" in printed


def test_chapter_is_listed_and_cites_its_references():
    toc = (ROOT / "_toc.yml").read_text()
    assert "book/017_contact" in toc
    nb = json.loads((ROOT / "book" / f"{CHAPTER}.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    bib = (ROOT / "book" / "references.bib").read_text()
    for key in set(re.findall(r"\{footcite\}`([^`]+)`", text)):
        assert f"{{{key}," in bib, key
    assert "{footcite}`li2020ipc`" in text and "{footcite}`physsimbook`" in text
    assert len(re.findall(r"\*\*Exercise \d", text)) in range(3, 6)
