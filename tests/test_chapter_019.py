"""Chapter 019 Reduced models, executed headless by the build: each printed check against its bound, from
values recomputed here (Euler-Bernoulli and the shear estimate from the printed beam parameters, the rotated
bar's projection from the chapter's parameters), and, through the library, the realistic bug that would make
each check fail."""
import json
import re

import numpy as np
import pytest
import scipy as sp

import chapter_checks as checks
import simkit
from conftest import ROOT
from simkit.contact import count_intersections
from simkit.integrators import simulate
from simkit.terms import (AffineOrthogonality, ElasticEnergy, Gravity, Held, Map, MeshContact, ReducedElasticEnergy,
                          Sum, Term)

CHAPTER = "019_reduced"
FIGURES = ["mode_shapes", "mode_convergence", "modal_dynamics", "rotation", "cubature", "bar"]
VIDEOS = {"spin": 61, "affine_blocks": 61}        # frames: 60 steps of 1/30 s each, plus the start
# the chapter's parameters, restated where a check recomputes from them
BETA_L = np.array([1.8751, 4.6941, 7.8548])
SHEAR_KAPPA = 5 / 6
SPIN_SIZE, SPIN_CELLS, SPIN_NU, SKIN_WEIGHTS = (1.0, 0.25, 0.25), (8, 2, 2), 0.3, 2
BLOCK_STEPS = 60
# the bounds
OMEGA_TOL = (0.01, 0.025)       # extrapolated omega_1, omega_2 against Euler-Bernoulli (issue 30)
ESTIMATE_TOL = 0.5              # percentage points: extrapolated gap against the first-order shear estimate
ROUND_OFF = 1e-10               # m: the 4 m beam's all-mode run against the full run
ROTATION_ROUND_OFF = 1e-8       # percent: volume change of the turned bar in the skinning subspace
DIFFERENCE_TOL = 0.10           # relative trajectory difference of the richest skinning subspace
CUBATURE_OWN_TOL = 0.02         # relative trajectory difference of the fitted cubature from the run without it
EXERCISE4_GROWTH = 3.0          # "several times over": half the cubature elements, the cubature's own error
STIFFNESS_TOL = 0.25            # the fitted cubature's rest stiffness within 25 % of the exact one
RIGIDITY_TOL = 1e-4             # max |A A^T - I| of the affine bodies
# every dynamic run: results/019_reduced/<scene>.npz, with its dimension and frame count
SCENES = {"beam_full": (2, 61), "beam_modal": (2, 61), "spin_linear_modes": (3, 61), "spin_skinning": (3, 61),
          "bar_full": (3, 16), "bar_reduced": (3, 16), "affine_blocks": (3, BLOCK_STEPS + 1)}
NUM = r"([-+]?\d+(?:\.\d*)?(?:e[-+]?\d+)?)"

executed, printed = checks.fixtures(CHAPTER)


def line(pattern, text):
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not printed"
    return [float(g) for g in match.groups()]


# ---------------------------------------------------------------------------------------------
# 1 · modes of the cantilever
# ---------------------------------------------------------------------------------------------

def beam(printed):
    """The beam's parameters as the chapter printed them: L, h, E, nu, rho."""
    return line(rf"beam: L = {NUM} m, h = {NUM} m, E = {NUM} Pa, nu = {NUM}, rho = {NUM} kg/m\^3", printed)


def euler_bernoulli(L, h, E, nu, rho, plane_strain=True):
    """omega_n of the clamped-free beam per metre of depth: (beta_n L)^2 sqrt(E' I / (rho A L^4))."""
    modulus = E / (1 - nu ** 2) if plane_strain else E
    return BETA_L ** 2 * np.sqrt(modulus * h ** 3 / 12 / (rho * h * L ** 4))


def shear_estimate(L, h, E, nu):
    """First-order shear and rotary-inertia change of omega_n / omega_n^EB, in percent."""
    E_plane, G = E / (1 - nu ** 2), E / (2 * (1 + nu))
    return -50 * (BETA_L / L * h / np.sqrt(12)) ** 2 * (1 + E_plane / (SHEAR_KAPPA * G))


def printed_modes(printed):
    finest = np.array(re.findall(rf"mode (\d): omega = {NUM} rad/s \(Euler-Bernoulli {NUM} rad/s\)", printed),
                      dtype=float)
    extrapolated = np.array(re.findall(rf"mode (\d): extrapolated omega = {NUM} rad/s, {NUM} % from "
                                       rf"Euler-Bernoulli; shear and rotary inertia estimate {NUM} %", printed),
                            dtype=float)
    assert finest.shape == (3, 3) and extrapolated.shape == (3, 4)
    assert list(finest[:, 0]) == [1, 2, 3] == list(extrapolated[:, 0])
    return finest[:, 1], finest[:, 2], extrapolated[:, 1], extrapolated[:, 2], extrapolated[:, 3]


def test_euler_bernoulli_reference_is_recomputed_and_met(printed):
    finest, eb, extrapolated, gap, _ = printed_modes(printed)
    reference = euler_bernoulli(*beam(printed))
    np.testing.assert_allclose(eb, reference, rtol=1e-4)
    ratio = extrapolated / reference - 1
    assert abs(ratio[0]) < OMEGA_TOL[0] and abs(ratio[1]) < OMEGA_TOL[1]
    np.testing.assert_allclose(gap, 100 * ratio, atol=0.01)
    assert np.all(np.abs(finest / reference - 1) < 0.03)             # the finest mesh, unextrapolated


def test_euler_bernoulli_check_fails_without_the_plane_strain_modulus(printed):
    """E instead of E / (1 - nu^2): the reference drops by sqrt(1 - nu^2) and the 1 % bound fails."""
    _, _, extrapolated, _, _ = printed_modes(printed)
    wrong = euler_bernoulli(*beam(printed), plane_strain=False)
    assert abs(extrapolated[0] / wrong[0] - 1) > OMEGA_TOL[0]


def test_extrapolation_and_order_follow_from_the_printed_meshes(printed):
    rows = np.array(re.findall(rf"ny = +(\d+) \( *\d+ triangles\): omega = +{NUM}, +{NUM}, +{NUM} rad/s", printed),
                    dtype=float)
    assert list(rows[:, 0]) == [2, 4, 8, 16]
    W = rows[:, 1:]
    assert np.all(np.diff(W, axis=0) < 0)                           # too stiff, converging from above
    _, _, extrapolated, _, _ = printed_modes(printed)
    np.testing.assert_allclose(extrapolated, W[-1] + (W[-1] - W[-2]) / 3, rtol=1e-4)
    orders = line(rf"observed order of convergence \(ny = 4, 8, 16\): {NUM}, {NUM}, {NUM}", printed)
    np.testing.assert_allclose(orders, np.log2((W[-3] - W[-2]) / (W[-2] - W[-1])), atol=0.02)
    assert all(1.8 < p < 2.2 for p in orders)                      # linear elements: second order


def test_remaining_gap_is_the_shear_and_rotary_inertia_correction(printed):
    _, _, _, gap, estimate = printed_modes(printed)
    L, h, E, nu, _ = beam(printed)
    np.testing.assert_allclose(estimate, shear_estimate(L, h, E, nu), atol=0.01)
    assert np.all(np.abs(gap - estimate) < ESTIMATE_TOL)
    assert gap[1] < 0 and gap[2] < gap[1]                            # below Euler-Bernoulli, more per mode


# ---------------------------------------------------------------------------------------------
# 2 · modal dynamics
# ---------------------------------------------------------------------------------------------

def test_all_modes_reproduce_the_full_run_and_fewer_modes_approach_it(printed):
    counts = [int(k) for k in re.search(r"modes k: +([\d ]+)\n", printed).group(1).split()]
    errors = [float(e) for e in re.search(r"max \|error\| \(m\): *([-+.e\d ]+)\n", printed).group(1).split()]
    assert len(counts) == len(errors) and counts[-1] == max(counts)
    e_all, = line(rf"all modes: max \|x_modal - x_full\| = {NUM}", printed)
    assert e_all == errors[-1] and e_all < ROUND_OFF
    assert errors[0] > 1e3 * ROUND_OFF and min(errors[:-1]) > 1e2 * e_all   # truncation is visible
    assert errors[-2] < errors[0] / 100                               # and falls with the modes


def small_beam():
    X, T = simkit.grid_rectangle(11, 3, 1.0, 0.1)
    clamp = np.flatnonzero(X[:, 0] == 0.0)
    mu, lam = simkit.ympr_to_lame(1e7, 0.3)
    M = sp.sparse.kron(simkit.massmatrix(X, T, 1000.0), sp.sparse.eye(2), format="csc")
    elastic = ElasticEnergy(X, T, mu, lam, "linear-elasticity")
    held = Held(elastic, X, (clamp[:, None] * 2 + np.arange(2)).ravel())
    x0 = X.copy()
    x0[:, 1] += 0.01 * X[:, 0] ** 2
    full = simulate(held, held.project(M), x0.reshape(-1, 1)[held.free], 0.01, 10, tolerance=1e-12, max_iter=5)
    _, B = simkit.linear_modal_analysis(X, T, held.free.size, clamp, mu=mu, lam=lam, rho=1000.0)

    def modal_error(B, reduced_mass):
        modal = Map(elastic, B, X.reshape(-1, 1))
        z0 = simkit.project_into_subspace((x0 - X).reshape(-1, 1), B, M)
        run = simulate(modal, reduced_mass(modal), z0, 0.01, 10, tolerance=1e-12, max_iter=5)
        return np.abs(run.states - full.states).max()
    return B, M, modal_error


def test_all_modes_check_fails_with_modes_not_mass_orthonormal():
    """Modes normalized to unit length with B^T M B taken as the identity: the all-mode run leaves the full one."""
    B, M, modal_error = small_beam()
    assert modal_error(B, lambda modal: modal.project(M)) < ROUND_OFF
    unit = B / np.linalg.norm(B, axis=0)
    assert modal_error(unit, lambda modal: np.eye(B.shape[1])) > 1e4 * ROUND_OFF


# ---------------------------------------------------------------------------------------------
# 3 · rotation
# ---------------------------------------------------------------------------------------------

def spin_bar():
    X, T = simkit.grid_box(SPIN_CELLS[0] + 1, SPIN_CELLS[1] + 1, SPIN_CELLS[2] + 1, *SPIN_SIZE)
    X = X - X.mean(axis=0)
    M = sp.sparse.kron(simkit.massmatrix(X, T, 1000.0), sp.sparse.eye(3), format="csc")
    return X, T, M


def turned_volume_change(X, T, M, B, degrees=90.0):
    """Percent volume change of X turned about y and projected into X + span(B) in the M-norm."""
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    R = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    z = simkit.project_into_subspace((X @ R.T - X).reshape(-1, 1), B, M)
    Y = X + (B @ z).reshape(-1, 3)

    def volume(x):
        a, b, c_, d = (x[T[:, i]] for i in range(4))
        return np.einsum("ij,ij->i", b - a, np.cross(c_ - a, d - a)).sum() / 6
    return 100 * (volume(Y) / volume(X) - 1)


def test_rotation_line_against_the_projection_recomputed(printed):
    linear, skinning = line(rf"rotation: linear modes volume change {NUM} %, skinning eigenmodes {NUM} %", printed)
    assert abs(skinning) < ROTATION_ROUND_OFF and linear > 10.0
    X, T, M = spin_bar()
    mu, lam = simkit.ympr_to_lame(1.0, SPIN_NU)          # the modes' shapes depend on nu only
    _, B = simkit.linear_modal_analysis(X, T, 12 * SKIN_WEIGHTS, mu=mu, lam=lam, rho=1.0)
    assert linear == pytest.approx(turned_volume_change(X, T, M, B), abs=0.06)


def test_rotation_check_fails_for_a_subspace_without_the_constant_weight():
    """Skinning eigenmodes clamped at one end (no constant weight): the turned bar is no longer in the subspace."""
    X, T, M = spin_bar()
    free = simkit.skinning_eigenmodes(X, T, SKIN_WEIGHTS)[2]
    clamped = simkit.skinning_eigenmodes(X, T, SKIN_WEIGHTS, bI=np.flatnonzero(X[:, 0] == X[:, 0].min()))[2]
    assert abs(turned_volume_change(X, T, M, free)) < ROTATION_ROUND_OFF
    assert abs(turned_volume_change(X, T, M, clamped)) > 1.0


def test_spin_turns_only_in_the_skinning_subspace(printed):
    linear, = line(rf"linear modes: turns at most {NUM} degrees", printed)
    skinning, = line(rf"skinning eigenmodes: turns at most {NUM} degrees", printed)
    assert linear < 45 and skinning > 180


# ---------------------------------------------------------------------------------------------
# 4 · skinning eigenmodes with cubature
# ---------------------------------------------------------------------------------------------

def test_the_bar_is_big_and_bends_far(printed):
    tets, unknowns, drop = line(rf"full: (\d+) tetrahedra, (\d+) unknowns; \d+ steps in \S+ s; the tip falls {NUM} m",
                                printed)
    assert tets >= 5000 and unknowns > 3000 and drop > 0.2


def test_reduced_runs_approach_the_full_run_and_print_their_step_ratio(printed):
    """The step times are this build's, on a shared machine: the ratio is checked as printed, never against a
    speed (the developers' guide: no timed assertions; benchmarks/bench_reduced.py measures the speed-up)."""
    rows = np.array(re.findall(rf"k = (\d): +(\d+) coordinates: trajectory difference +{NUM} %, step +{NUM} ms "
                               r"\((\d+) cubature elements\)", printed), dtype=float)
    assert len(rows) >= 4 and np.all(rows[:, 1] == 12 * rows[:, 0])
    assert np.all(rows[:, 4] <= 2 * rows[:, 1])                       # two elements per coordinate at most
    difference = rows[:, 2] / 100
    assert np.all(np.diff(difference) < 0) and difference[-1] < DIFFERENCE_TOL
    reduced, full, ratio = line(rf"reduced step: {NUM} ms, full step: {NUM} ms \({NUM}x\)", printed)
    assert ratio == pytest.approx(full / reduced, rel=0.01, abs=0.05)     # printed to one decimal
    assert reduced in rows[:, 3]                                       # one of the timed subspaces


def test_the_cubature_error_is_small_and_the_rest_is_the_subspaces(printed):
    """Without cubature the featured subspace is as far from the full run; the cubature moves it by a little."""
    k, exact, own = line(rf"k = (\d) without cubature \(\d+ elements\): trajectory difference {NUM} %; "
                         rf"with cubature, from it: {NUM} %", printed)
    with_cubature = dict((int(row[0]), float(row[1])) for row in re.findall(
        rf"k = (\d): +\d+ coordinates: trajectory difference +{NUM} %", printed))[int(k)]
    assert own / 100 < CUBATURE_OWN_TOL
    assert abs(with_cubature - exact) <= own + 0.05                    # the triangle inequality, rounding


def test_fitted_cubature_integrates_the_stiffness_and_clusters_do_not(printed):
    ranges = dict((name, (float(lo), float(hi))) for count, name, lo, hi in re.findall(
        rf"cubature of (\d+) elements (clustered by the skinning weights|clustered by position|fitted to the forces): "
        rf"rest stiffness {NUM} to {NUM} times the exact one", printed))
    lo, hi = ranges["fitted to the forces"]
    assert 1 - STIFFNESS_TOL < lo < 1 < hi < 1 + STIFFNESS_TOL
    for name in ("clustered by the skinning weights", "clustered by position"):
        lo_c, hi_c = ranges[name]
        assert hi_c / lo_c > 1.5 * hi / lo, name                      # a wider spread than the fitted one's


def small_bar():
    """A 0.6 m bar of 648 tets in 3 clamped skinning weights: the reduced run of an elastic term, and the difference
    of two runs."""
    X, T = simkit.grid_box(13, 4, 4, 0.6, 0.15, 0.15)
    clamp = np.flatnonzero(X[:, 0] == 0.0)
    mu, lam = simkit.ympr_to_lame(1e5, 0.3)
    M = sp.sparse.kron(simkit.massmatrix(X, T, 1000.0), sp.sparse.eye(3), format="csc")
    f = simkit.gravity_force(X, T, rho=1000.0).reshape(-1, 1)
    _, _, B = simkit.skinning_eigenmodes(X, T, 3, bI=clamp)
    M_r = (B.T @ M @ B).toarray()
    mass = M.diagonal()

    def run(elastic):
        run = simulate(elastic + Gravity(B.T @ f), M_r, np.zeros((B.shape[1], 1)), 1 / 30, 10, tolerance=1e-6,
                       max_iter=50)
        return (run.states @ B.T.toarray()).reshape(11, -1)

    def difference(states, reference):
        norm = lambda U: np.sqrt((U ** 2 * mass).sum(axis=1))          # noqa: E731
        return norm(states - reference).max() / norm(reference).max()
    return X, T, B, M_r, mu, lam, run, difference


def test_cubature_checks_fail_with_unfitted_weights_or_clusters():
    """The fitted cubature stays within CUBATURE_OWN_TOL of the run without cubature; its elements with their volumes
    as weights (the fit skipped), the weights left at 1, or clusters of as many elements do not."""
    X, T, B, M_r, mu, lam, run, difference = small_bar()
    x0 = X.reshape(-1, 1)
    exact = ReducedElasticEnergy(X, T, B, mu, lam, x0=x0)
    reference = run(exact)
    Z = simkit.modal_training_poses(B, exact.hessian(np.zeros((B.shape[1], 1))), M_r, 20, 0.05)
    cI, cW = simkit.optimized_cubature(X, T, B, Z, 2 * B.shape[1], mu, lam, x0=x0, tolerance=1e-4)

    def own(cI, cW):
        return difference(run(ReducedElasticEnergy(X, T, B, mu, lam, x0=x0, cI=cI, cW=cW)), reference)
    assert own(cI, cW) < CUBATURE_OWN_TOL
    assert own(cI, simkit.volume(X, T)[cI, 0]) > 5 * CUBATURE_OWN_TOL
    assert own(cI, np.ones_like(cW)) > 5 * CUBATURE_OWN_TOL
    assert own(*simkit.spectral_cubature(X, T, X, cI.size)) > 2 * CUBATURE_OWN_TOL


# ---------------------------------------------------------------------------------------------
# 5 · affine bodies
# ---------------------------------------------------------------------------------------------

def test_affine_blocks_settle_rigid_and_never_interpenetrate(printed):
    count, states = line(r"intersections: (\d+) in (\d+) states", printed)
    assert count == 0 and states == BLOCK_STEPS + 1
    rigidity, kinetic = line(rf"largest \|A A\^T - I\| over the run: {NUM}; final kinetic energy {NUM} J", printed)
    assert rigidity < RIGIDITY_TOL and kinetic < 1e-3


def test_affine_blocks_intersection_check_fails_without_ccd(monkeypatch, tmp_path):
    """Section 5 run with MeshContact's CCD filter off (and its start guard with it): the falling blocks' steps of
    up to 13 cm carry them into each other and through the slab, and the printed exact count says so."""
    monkeypatch.setattr(simkit.terms.MeshContact, "max_step", lambda self, x, dx: 1.0)
    checks.without_start_guard(monkeypatch)
    text = checks.run_cells(CHAPTER, ["cell-01", "cell-27"], monkeypatch, tmp_path)
    count, states = line(r"intersections: (\d+) in (\d+) states", text)
    assert states == BLOCK_STEPS + 1 and count > 10


class WithoutCCD(Term):
    """A contact term whose line-search filter is switched off (continuous collision detection forgotten)."""

    def __init__(self, contact):
        self.contact, self.size = contact, contact.size

    def energy(self, x):
        return self.contact.energy(x)

    def gradient(self, x):
        return self.contact.gradient(x)

    def hessian(self, x):
        return self.contact.hessian(x)


def thrown_cube(ccd):
    """A cube (turned 20 degrees) thrown at 8 m/s onto a held slab 20 cm thick, as affine bodies: the states
    (frames, n, 3), faces and bodies. A step covers 27 cm."""
    Xa, Ta = simkit.grid_box(3, 2, 3, 1.0, 0.2, 1.0)
    Xb, Tb = simkit.grid_box(2, 2, 2, 0.3, 0.3, 0.3)
    c, s = np.cos(0.35), np.sin(0.35)
    Xb = (Xb - 0.15) @ np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]).T + [0.5, 0.42, 0.5]   # 5 cm above
    X, T = np.vstack([Xa, Xb]), np.vstack([Ta, Tb + len(Xa)])
    bodies = np.repeat([0, 1], [len(Xa), len(Xb)])
    faces = simkit.boundary_faces(T)
    masses = simkit.massmatrix(X, T, 1000.0)
    M = sp.sparse.kron(masses, sp.sparse.eye(3), format="csc")
    contact = MeshContact(X, 0.01, 1000.0, edges=simkit.edges(faces), faces=faces, weight=masses.diagonal(),
                          bodies=bodies, fixed=bodies == 0)
    B = simkit.affine_body_jacobian(X, bodies)
    world = Map(Sum(Gravity(simkit.gravity_force(X, T, rho=1000.0).reshape(-1, 1)),
                    contact if ccd else WithoutCCD(contact)), B, X.reshape(-1, 1))
    volumes = np.bincount(bodies[T[:, 0]], weights=simkit.volume(X, T)[:, 0])
    affine = Held(world + AffineOrthogonality(volumes, 1e8), np.zeros((24, 1)), np.arange(12))
    v0 = np.zeros((12, 1))
    v0[1] = -8.0
    run = simulate(affine, affine.project(world.project(M)), np.zeros((12, 1)), 1 / 30, 4, v0=v0, max_iter=50)
    return X + (run.states @ B.T.toarray()).reshape(len(run.states), -1, 3), faces, bodies


def test_intersection_check_sees_the_tunnelling_of_a_step_without_ccd(monkeypatch):
    for ccd, crossing in ((True, False), (False, True)):
        if not ccd:
            checks.without_start_guard(monkeypatch)
        states, faces, bodies = thrown_cube(ccd)
        assert (count_intersections(states, faces, bodies=bodies).sum() > 0) == crossing


# ---------------------------------------------------------------------------------------------
# every run, the exercises, the page
# ---------------------------------------------------------------------------------------------

def test_every_dynamic_run_converged_at_every_step(printed):
    for scene in SCENES:
        assert re.search(rf"^{scene}: unconverged steps: 0$", printed, re.M), scene


def test_every_dynamic_run_saved_its_states_and_elements(chapter_run):
    for scene, (dim, frames) in SCENES.items():
        with np.load(ROOT / "results" / CHAPTER / f"{scene}.npz") as data:
            x, T = data["x"], data["T"]
            assert x.shape[0] == frames and x.shape[2] == dim and np.isfinite(x).all(), scene
            assert T.shape[1] == dim + 1 and T.max() < x.shape[1], scene


def test_exercise_answers(printed):
    values = line(rf"exercise 1: L/h = 10: gaps {NUM}, {NUM}, {NUM} %; estimates {NUM}, {NUM}, {NUM} %", printed)
    gaps, estimates = np.array(values[:3]), np.array(values[3:])
    _, _, _, gaps20, _ = printed_modes(printed)
    assert np.all(gaps < gaps20) and np.all(np.abs(gaps - estimates) < 1.5)      # thicker: larger, still estimated
    mass, stiffness = line(rf"exercise 2: max \|B\^T M B - I\| = {NUM}, max \|B\^T K B - diag\| / max omega\^2 = {NUM}",
                           printed)
    assert mass < 1e-12 and stiffness < 1e-12
    angle, = line(rf"exercise 3: 1 % volume change at {NUM} degrees", printed)
    assert 1.0 < angle < 20.0
    half, whole, _, _ = line(rf"exercise 4: \d+ cubature elements: trajectory difference {NUM} % "
                                        rf"\(with \d+: {NUM} %\), step {NUM} ms \(with \d+: {NUM} ms\)", printed)
    subspace, own = line(rf"k = \d without cubature \(\d+ elements\): trajectory difference {NUM} %; "
                         rf"with cubature, from it: {NUM} %", printed)
    assert whole == own                                               # the section's cubature, the same run
    # the discussion: the own error grows several times over, from a fraction of a percent to a few percent,
    # and stays below the subspace's error
    assert whole < 1.0 < half < subspace and half > EXERCISE4_GROWTH * whole


def test_chapter_is_listed_and_cites_its_references():
    assert "book/019_reduced" in (ROOT / "_toc.yml").read_text()
    nb = json.loads((ROOT / "book" / f"{CHAPTER}.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    bib = (ROOT / "book" / "references.bib").read_text()
    for key in set(re.findall(r"\{footcite\}`([^`]+)`", text)):
        assert f"{{{key}," in bib, key
    for key in ("pentland1989good", "barbic2005realtime", "benchekroun2023fast", "lan2022affine"):
        assert f"{{footcite}}`{key}`" in text, key
