"""Chapter 017 Contact and friction, executed headless from scratch: its printed numbers against closed
forms recomputed here, its media, its clean committed notebook."""
import json
import re

import numpy as np
import pytest
from scipy.optimize import brentq

import chapter_checks as checks
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


def test_rest_gap_matches_the_barriers_closed_form(printed):
    d, closed = line(rf"rest gap: {NUM} \(closed form {NUM}\)", printed)
    assert d == pytest.approx(closed, rel=1e-6)
    kappa = float(re.search(r"KAPPA = (\S+)", printed_source()).group(1))
    # weights are masses: W / w = g
    root = brentq(lambda s: kappa * (2 * (s - D_HAT) * np.log(s / D_HAT) + (s - D_HAT) ** 2 / s) - G,
                  1e-14, D_HAT, xtol=1e-16, rtol=1e-15)
    assert closed == pytest.approx(root, rel=1e-8)
    assert 0 < d < D_HAT


def printed_source():
    nb = json.loads((ROOT / "book" / f"{CHAPTER}.ipynb").read_text())
    return "".join(cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
                   for cell in nb["cells"] if cell["cell_type"] == "code")


def test_drop_energy_never_increases_and_distances_stay_positive(printed):
    flag, rise = line(rf"total energy non-increasing: (\w+)  \(largest step change {NUM} J\)", printed)
    assert flag == "True" and rise <= MONOTONE_TOL
    distances = [float(d) for d in re.findall(rf"min distance over the run: {NUM}", printed)]
    assert len(distances) >= 2                                         # the drop and the stack
    assert all(d > 0 for d in distances)
    counts = [int(c) for c in re.findall(r"unconverged steps: (\d+)", printed)]
    assert counts and all(c == 0 for c in counts)


def test_filtered_line_search_stops_what_plain_newton_tunnels(printed):
    y_plain, = line(rf"without the filter: the step ends at y = {NUM} m, below the platform", printed)
    assert y_plain < 0
    alpha, t_impact, d_min = line(rf"with the filter: first step fraction {NUM} = 0\.9 x time of impact {NUM}, "
                                  rf"smallest distance of all iterates {NUM} m", printed)
    assert alpha == pytest.approx(0.9 * t_impact, rel=1e-3)
    assert 0 < alpha < 1 and d_min > 0


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
