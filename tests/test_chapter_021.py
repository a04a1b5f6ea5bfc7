"""Chapter 021 Water, executed headless from scratch: its printed checks against their bounds (recomputed from
the printed numbers and from Martin & Moyce's table), its media, and each check failing under a realistic bug
(the chapter's cells re-run with the library patched)."""
import re

import numpy as np
import pytest

import chapter_checks as checks
import simkit.mpm.mac_volume
from simkit.mpm import mac

CHAPTER = "021_water"
FIGURES = ["projection", "rest", "dam_break", "vortex"]
VIDEOS = {"dam_break": 35, "slosh": 37}     # dam break: frames every 0.1 in T up to 3.4; slosh: 3 s at 12 fps, plus t = 0
NUM = r"([-+]?\d+(?:\.\d*)?(?:e[-+]?\d+)?)"
G = 9.81
# Martin, J. C. & Moyce, W. J. 1952, Phil. Trans. R. Soc. A 244, 312-324: surge front Z at T (n^2 = 2)
MM_T = [0.41, 0.84, 1.19, 1.43, 1.63, 1.83, 1.98, 2.20, 2.32, 2.51, 2.65, 2.83, 2.98, 3.11, 3.33]
MM_Z = [1.11, 1.22, 1.44, 1.67, 1.89, 2.11, 2.33, 2.56, 2.78, 3.00, 3.22, 3.44, 3.67, 3.89, 4.11]
SETUP = ["c021-01", "c021-02"]

executed, printed = checks.fixtures(CHAPTER)


def line(pattern, text):
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not printed"
    return [float(g) for g in match.groups()]


def check_projection(text):
    e, e0 = line(rf"projection: max \|div u\| {NUM} \(before {NUM}\)", text)
    assert e0 > 1.0 and e <= 1e-8 * e0, (e, e0)


def check_rest(text):
    v, e, c = line(rf"rest: max speed {NUM} m/s, pressure error {NUM} % of rho g h, volume change {NUM} %", text)
    assert v <= 1e-3 and e <= 1.0 and abs(c) <= 1.0, (v, e, c)
    return e


def check_dam_break(text):
    fronts = re.findall(rf"dam break T={NUM}: front Z={NUM} \(Martin & Moyce {NUM}\)", text)
    T, z, z0 = np.array(fronts, dtype=float).T
    np.testing.assert_array_equal(T, MM_T)
    np.testing.assert_array_equal(z0, MM_Z)
    p, shift = line(rf"dam break: front within {NUM} % of Martin & Moyce for 1 <= T <= 3 \(time shift {NUM}\)", text)
    window = (T >= 1) & (T <= 3)
    assert p == pytest.approx(100 * np.abs(z / z0 - 1)[window].max(), abs=0.6)     # z printed to 0.01
    assert p <= 10.0 and 0.0 <= shift <= 0.5, (p, shift)


def check_dam_volume(text):
    (c,) = line(rf"dam break: volume change {NUM} %", text)
    assert abs(c) <= 2.0, c


def check_ritter(text):
    (m,) = line(rf"dam break: max Z - \(1 \+ 2T\) {NUM}", text)
    assert m < 0, m


def check_vortex(text):
    pic, flip, apic = line(rf"vortex: effective viscosity PIC {NUM}, FLIP {NUM}, APIC {NUM} m\^2/s", text)
    assert 0 < flip and 0 < apic and pic > 2 * max(flip, apic), (pic, flip, apic)


def test_projection_makes_the_water_divergence_free(printed):
    check_projection(printed)


def test_still_water_stays_still_and_hydrostatic(printed):
    e = check_rest(printed)
    h, half_cell = line(rf"depth h = {NUM} m = \d+ cells; half a cell over h: {NUM} %", printed)
    assert half_cell == pytest.approx(100 * 0.01 / (2 * h), abs=0.005)       # REST_DX = 1 cm
    assert e == pytest.approx(half_cell, abs=0.02)                            # the first-order surface, no more
    (naive,) = line(rf"naive FLIP \(no extrapolation into the air\): max speed {NUM} m/s", printed)
    assert naive > 1e-3                                                       # the part removed, the test fails


def test_dam_break_against_martin_and_moyce(printed):
    check_dam_break(printed)
    check_dam_volume(printed)
    check_ritter(printed)


def test_saved_dam_break_states_give_the_printed_fronts(printed, chapter_run):
    """results/021_water/dam_break.npz holds every frame's particles: the front and Ritter's margin recomputed
    from them are the printed ones."""
    run = np.load(checks.ROOT / "results" / CHAPTER / "dam_break.npz")
    x, T, dx = run["x"], run["T"], float(run["dx"])
    assert x.ndim == 3 and x.shape[2] == 2 and x.shape[0] == len(T)
    a = 32 * dx                                                               # 32 cells across the column
    Z = (x[:, :, 0].max(axis=1) - dx) / a
    np.testing.assert_allclose(Z, run["Z"], rtol=1e-12)
    (m,) = line(rf"dam break: max Z - \(1 \+ 2T\) {NUM}", printed)
    assert m == pytest.approx((Z - (1 + 2 * T))[1:].max(), abs=6e-4)
    assert T[-1] == pytest.approx(3.4, abs=1e-9) and x[0, :, 0].max() < dx + a  # released from the column


def test_pic_is_the_most_dissipative(printed):
    check_vortex(printed)
    (noise,) = line(rf"vortex: FLIP's particle velocities differ from the grid's by {NUM} % of the rms speed", printed)
    assert noise > 1.0


def test_sloshing_frequency_is_the_closed_form(printed):
    omega, period = line(rf"shaking at the first sloshing mode: omega = {NUM} rad/s, period {NUM} s", printed)
    k, h = np.pi / 0.6, 12 * 0.6 / 48                                         # tank 0.6 m, 12 of 48 cells deep
    assert omega == pytest.approx(np.sqrt(G * k * np.tanh(k * h)), abs=0.006)
    assert period == pytest.approx(2 * np.pi / omega, rel=2e-3)


def test_exercises(printed):
    plain, corrected = line(rf"exercise 1: volume change without the correction {NUM} % \(with it {NUM} %\)", printed)
    assert plain < -2.0 and abs(corrected) < abs(plain)
    e, half_cell = line(rf"exercise 2: pressure error {NUM} % of rho g h \(half a cell over h: {NUM} %\)", printed)
    assert half_cell == pytest.approx(1.0, abs=0.01) and e == pytest.approx(half_cell, abs=0.02)
    nus = [float(n) for n in re.findall(rf"alpha [\d.]+: {NUM}", re.search(r"exercise 3: .*", printed).group(0))]
    assert len(nus) == 3 and nus[0] > nus[1] > nus[2] > 0                   # more FLIP, less dissipation


def _skip_projection(u, v, fluid, solid, dx, dt, density):
    return u.copy(), v.copy(), np.zeros(fluid.shape)


def _wrong_sign_divergence(u, v, dx):
    return -(np.diff(u, axis=0) + np.diff(v, axis=1)) / dx


@pytest.mark.parametrize("bug", ["none", "projection skipped", "wrong sign in the divergence"])
def test_projection_check_fails_under_a_bug(bug, monkeypatch, tmp_path):
    if bug == "projection skipped":
        monkeypatch.setattr(mac, "pressure_projection", _skip_projection)
    elif bug == "wrong sign in the divergence":
        monkeypatch.setattr(mac, "divergence", _wrong_sign_divergence)
    text = checks.run_cells(CHAPTER, SETUP + ["c021-04"], monkeypatch, tmp_path)
    if bug == "none":
        check_projection(text)
    else:
        with pytest.raises(AssertionError):
            check_projection(text)


@pytest.mark.parametrize("bug", ["none", "gravity after the projection", "solid faces not zeroed"])
def test_rest_check_fails_under_a_bug(bug, monkeypatch, tmp_path):
    project = mac.pressure_projection
    if bug == "gravity after the projection":
        def late_gravity(u, v, fluid, solid, dx, dt, density):       # the projection sees the velocity before gravity
            u1, v1, p = project(u, v + G * dt, fluid, solid, dx, dt, density)
            return u1, v1 - G * dt, p
        monkeypatch.setattr(mac, "pressure_projection", late_gravity)
    elif bug == "solid faces not zeroed":
        monkeypatch.setattr(mac, "_solid_faces", lambda u, v, solid: None)
    if bug == "none":
        check_rest(checks.run_cells(CHAPTER, SETUP + ["c021-07"], monkeypatch, tmp_path))
    else:
        with pytest.raises((AssertionError, RuntimeError, ValueError)):
            check_rest(checks.run_cells(CHAPTER, SETUP + ["c021-07"], monkeypatch, tmp_path))


@pytest.mark.parametrize("bug", ["projection skipped", "no volume correction"])
def test_dam_break_checks_fail_under_a_bug(bug, monkeypatch, tmp_path):
    """The control is the executed chapter (test_dam_break_against_martin_and_moyce)."""
    if bug == "projection skipped":
        monkeypatch.setattr(mac, "pressure_projection", _skip_projection)
        text = checks.run_cells(CHAPTER, SETUP + ["c021-12", "c021-12b"], monkeypatch, tmp_path)
        with pytest.raises(AssertionError):
            check_dam_break(text)
    else:
        monkeypatch.setattr(simkit.mpm.mac_volume, "volume_correction", lambda x, *args, **kwargs: np.zeros_like(x))
        text = checks.run_cells(CHAPTER, SETUP + ["c021-12", "c021-12b"], monkeypatch, tmp_path)
        check_dam_break(text)                                        # the front alone does not see it
        with pytest.raises(AssertionError):
            check_dam_volume(text)


def test_vortex_check_fails_with_pic_in_place_of_apic(monkeypatch, tmp_path):
    """The G2P drops APIC's affine matrices: "APIC" is PIC. The control is the executed chapter."""
    gather = mac.staggered_g2p
    monkeypatch.setattr(mac, "staggered_g2p", lambda *args, **kwargs: (gather(*args, **kwargs)[0], np.zeros((len(args[0]), 2, 2))))
    text = checks.run_cells(CHAPTER, SETUP + ["c021-17", "c021-17b"], monkeypatch, tmp_path)
    with pytest.raises(AssertionError):
        check_vortex(text)
