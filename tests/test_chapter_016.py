"""Chapter 016 Elasticity, executed headless by the build: the bounds it prints, from the values it computes."""
import re

import numpy as np
import pytest
from scipy.optimize import brentq

import chapter_checks as checks
import simkit
import simkit.terms

CHAPTER = "016_elasticity"
FIGURES = ["deformation_gradient", "energy_densities", "patch_test", "locking", "beam_solid", "soft_energy"]
VIDEOS = {"swing": 46, "soft_body": 61, "crank": 61}      # frames: clamp angles, steps + 1, steps + 1
PATCH_TOL = 1e-9            # the patch test reproduces a linear map to round-off
LOCK_TOL = 0.02             # ny = 16, nu = 0.3: within 2 % of Euler-Bernoulli
TIP_TOL = 0.02              # the extrapolated solid and beam tips agree within 2 %
SAG_TOL = 0.05              # the extrapolated 3D sag ratio is within 5 % of 1
MONOTONE_TOL = 1e-9         # J: round-off allowance of the non-increasing total energy
PATCH_E, PATCH_NU = 1.0, 0.3    # the patch's material, restated: its closed form is recomputed here
WRONG_TOL = 1e-3            # a wrong material misses the uniaxial patch by more than this


executed, printed = checks.fixtures(CHAPTER)


def number(pattern, text):
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not printed"
    return float(match.group(1))


def point(pattern, text):
    match = re.search(pattern + r": \[(\S+), (\S+)\]", text)
    assert match, f"{pattern!r}: [x, y] not printed"
    return np.array([float(match.group(1)), float(match.group(2))])


def test_deformation_gradient_of_each_motion_is_its_matrix(printed):
    rows = re.findall(r"^(\w+) +F = .*\|F - A\| = (\S+),  \|J x - F\| = (\S+)$", printed, re.M)
    assert [name for name, *_ in rows] == ["translation", "rotation", "stretch", "shear"]
    assert all(float(a) < 1e-12 and float(b) < 1e-12 for _, a, b in rows)


def test_only_linear_elasticity_charges_for_rotation_and_only_neo_hookean_refuses_inversion(printed):
    line = re.search(r"change of psi/E over a half turn of the same shape: (.*)", printed).group(1)
    spread = {name: float(v) for name, v in re.findall(r"(\S+) (\S+?)(?:,|$)", line)}
    assert spread["linear-elasticity"] > 1.0
    assert max(spread["arap"], spread["fcr"], spread["neo-hookean"]) < 1e-12
    at = {float(s): (float(le), nh) for s, le, nh in
          re.findall(r"s = +(\S+):  linear-elasticity (\S+),  neo-hookean (\S+)", printed)}
    assert at[0.0][1] == "inf" and at[-0.5][1] == "inf"            # +inf, never NaN
    assert np.isfinite(at[-0.5][0])                                 # linear elasticity lets it invert
    assert float(at[1e-3][1]) > float(at[0.1][1]) > float(at[0.5][1])   # rising towards J = 0
    pull = dict(re.findall(r"(\S+) (\S+?)(?:,|$)",
                           re.search(r"at s = -0\.5, dpsi/dF_00 / E:  (.*)", printed).group(1)))
    assert set(pull) == {"linear-elasticity", "arap", "fcr"}
    assert all(float(v) < 0 for v in pull.values())                 # the force -dpsi/dF pushes s back up
    assert float(pull["fcr"]) == pytest.approx(float(pull["linear-elasticity"]), rel=1e-2)   # one curve for s < 1


def test_swung_beam_grows_under_linear_elasticity_only(printed):
    rows = {m: (float(e), float(length)) for m, e, length in
            re.findall(r"(\S+) +at 90 deg: stored energy (\S+) J, beam length (\S+) m", printed)}
    assert rows["neo-hookean"][0] < 1e-9 and rows["neo-hookean"][1] == pytest.approx(2.0, abs=1e-3)
    assert rows["linear-elasticity"][0] > 1.0 and rows["linear-elasticity"][1] > 2.2


def test_patch_test_is_exact_to_round_off(printed):
    errors = dict(re.findall(r"patch test \((\S+)\): max error (\S+)", printed))
    assert set(errors) == {"linear-elasticity", "neo-hookean"}
    assert all(float(e) < PATCH_TOL for e in errors.values()), errors


def uniaxial_closed_form(s, mu, lam):
    """Plane-strain neo-Hookean under uniaxial stress: the lateral stretch t, from P22 = 0."""
    return brentq(lambda t: mu * (t - 1 / t) + lam * np.log(s * t) / t, 1e-3, 1.0, xtol=1e-15)


def check_uniaxial_patch(printed):
    """The neo-Hookean patch under the closed-form traction lands on F = diag(s, t); another material misses."""
    rows = {m: (float(s), float(t), float(closed), float(e)) for m, s, t, closed, e in re.findall(
        r"uniaxial patch test \((\S+), s = (\S+)\): lateral stretch (\S+) \(closed form (\S+)\), max error (\S+),",
        printed)}
    assert set(rows) == {"neo-hookean", "stable-neo-hookean"}
    s, t, closed, error = rows["neo-hookean"]
    assert closed == pytest.approx(uniaxial_closed_form(s, *simkit.ympr_to_lame(PATCH_E, PATCH_NU)), abs=1e-6)
    assert t == pytest.approx(closed, abs=2e-6) and error < PATCH_TOL
    assert rows["stable-neo-hookean"][3] > WRONG_TOL


def test_uniaxial_patch_test_loads_the_material(printed):
    check_uniaxial_patch(printed)


@pytest.mark.parametrize("wrong", [{"material": "stable-neo-hookean"}, {"lam": 1.1}],
                         ids=["another material", "lambda 10% off"])
def test_only_the_uniaxial_patch_test_sees_a_wrong_material(wrong, monkeypatch, tmp_path):
    """Section 3 with the neo-Hookean term built wrong: the affine patch test still passes (its forces
    cancel for any stress), the uniaxial one fails."""
    class Wrong(simkit.terms.ElasticEnergy):
        def __init__(self, X, T, mu, lam, material, *args, **kwargs):
            if material == "neo-hookean":
                material, lam = wrong.get("material", material), lam * wrong.get("lam", 1.0)
            super().__init__(X, T, mu, lam, material, *args, **kwargs)

    monkeypatch.setattr(simkit.terms, "ElasticEnergy", Wrong)
    text = checks.run_cells(CHAPTER, ["86f453f9", "01d35623", "3ea5528d", "016-traction"], monkeypatch, tmp_path)
    errors = dict(re.findall(r"patch test \((\S+)\): max error (\S+)", text))
    assert float(errors["neo-hookean"]) < PATCH_TOL                      # blind to the material
    with pytest.raises(AssertionError, match="comparison failed"):     # a number, not a missing line
        check_uniaxial_patch(text)


def locking_table(printed):
    rows = re.findall(r"^(0\.\d+) +((?:\d\.\d{3} *){6})$", printed, re.M)
    return {float(nu): np.array(values.split(), dtype=float).reshape(2, 3) for nu, values in rows}


def test_locking_table(printed):
    table = locking_table(printed)
    assert sorted(table) == [0.3, 0.45, 0.49, 0.499]
    assert np.all(np.abs(table[0.3][:, -1] - 1) < LOCK_TOL)          # both meshes at ny = 16, nu = 0.3
    assert np.all(np.diff(table[0.3], axis=1) > 0)                  # converging as the cells shrink
    assert table[0.499][1, -1] < 0.6 < 0.95 < table[0.499][0, -1]   # the same-way mesh locks, alternating does not


def test_extrapolated_tips_agree(printed):
    solid, beam = point(r"tip solid \(extrapolated\)", printed), point(r"tip beam \(extrapolated\)", printed)
    assert np.linalg.norm(solid - beam) / np.linalg.norm(beam) < TIP_TOL
    assert re.search(r"beam  N =  21:  tip \[3\.830, -1\.064\]", printed)     # 014's printed tip, recomputed
    solids = np.array(re.findall(r"solid ny = +\d+:  tip \[(\S+), (\S+)\]", printed), dtype=float)
    beams = np.array(re.findall(r"beam  N = +\d+:  tip \[(\S+), (\S+)\]", printed), dtype=float)
    assert len(solids) == len(beams) == 4
    assert np.all(np.diff(solids[:, 1]) < 0) and np.all(np.diff(beams[:, 1]) > 0)   # from opposite sides
    assert beams[-1, 1] < beam[1] < solid[1] + 0.02 and solids[-1, 1] > solid[1]


def successive_orders(tips):
    moves = np.linalg.norm(np.diff(tips, axis=0), axis=1)
    return np.log2(moves[:-1] / moves[1:])


def test_convergence_prints_what_the_tips_show(printed):
    """The successive orders are the printed tips' (the beam's steady, the solid's not), the solid's
    estimate moves more with one refinement less than the two estimates differ, and the difference is
    quoted against the tip's displacement, not its 4 m position."""
    solids = np.array(re.findall(r"solid ny = +\d+:  tip \[(\S+), (\S+)\]", printed), dtype=float)
    beams = np.array(re.findall(r"beam  N = +\d+:  tip \[(\S+), (\S+)\]", printed), dtype=float)
    line = re.search(r"successive orders: solid (\S+), (\S+); beam (\S+), (\S+)$", printed, re.M)
    assert line
    solid_orders, beam_orders = np.array(line.groups()[:2], float), np.array(line.groups()[2:], float)
    np.testing.assert_allclose(solid_orders, successive_orders(solids), atol=0.1)    # tips printed to 1 mm
    np.testing.assert_allclose(beam_orders, successive_orders(beams), atol=0.15)
    assert np.ptp(beam_orders) < 0.05 and np.all(np.abs(beam_orders - 1) < 0.05)    # steady, first order
    assert np.ptp(solid_orders) > 0.3                                               # not steady
    solid, beam = point(r"tip solid \(extrapolated\)", printed), point(r"tip beam \(extrapolated\)", printed)
    moved = float(re.search(r"solid extrapolated from ny = 2, 4, 8 instead: \[\S+, \S+\], (\S+) m away",
                            printed).group(1))
    gap, of_displacement, of_position = (float(v) for v in re.search(
        r"extrapolated tips (\S+) m apart: (\S+)% of the tip's displacement \((\S+)% of its position\)",
        printed).groups())
    assert gap == pytest.approx(np.linalg.norm(solid - beam), abs=1.5e-3)           # tips printed to 1 mm
    assert of_displacement / 100 == pytest.approx(gap / np.linalg.norm(beam - [4.0, 0.0]), rel=0.02)
    assert of_position / 100 == pytest.approx(gap / np.linalg.norm(beam), rel=0.05)
    assert moved > 3 * gap                                                          # the estimate's uncertainty


def test_soft_body_energy_never_increases_and_every_step_converges(printed):
    assert re.search(r"^unconverged steps: 0$", printed, re.M)
    line = re.search(r"total energy non-increasing: (\w+)  \(largest step change (\S+) J\)", printed)
    assert line and line.group(1) == "True" and float(line.group(2)) <= MONOTONE_TOL


def test_3d_bar_is_big_enough_and_its_extrapolated_sag_ratio_is_beam_theory(printed):
    assert number(r"\d+ nodes, (\d+) tetrahedra", printed) >= 1500
    assert number(r"tetrahedra, \d+ boundary triangles;  \d+ steps in \S+ s, (\d+) unconverged", printed) == 0
    ratios = np.array(re.findall(r"(\d) cubes through the thickness \( *\d+ tets\):  FEM / EB = (\S+),", printed),
                      dtype=float)
    assert list(ratios[:, 0]) == [2, 3, 4, 6]
    assert np.all(np.diff(ratios[:, 1]) > 0) and ratios[-1, 1] < 0.95          # tets lock, and converge
    assert abs(number(r"3D sag ratio \(extrapolated\): (\S+)", printed) - 1) < SAG_TOL


def test_exercise_answers(printed):
    orders = re.search(r"exercise 1: .*observed orders (\S+), (\S+)", printed)
    assert orders and min(float(orders.group(1)), float(orders.group(2))) > 1.5
    limit = re.search(r"against the extrapolated limit (\S+) the order is (\S+); Timoshenko's beam with shear: (\S+)",
                      printed)
    assert limit and 1.5 < float(limit.group(2)) < 2.5
    assert abs(float(limit.group(1)) - float(limit.group(3))) < 0.005      # the mesh converges to the shear beam
    assert number(r"exercise 2: lateral contraction (\S+);", printed) == pytest.approx(0.3 / 0.7, abs=1e-3)
    reach = re.search(r"exercise 3: largest pivot-to-end distance (\S+) m at .*, (\S+) m at .* \(rest (\S+)\); "
                      r"unconverged steps (\d+)", printed)
    assert reach
    soft, stiff, rest, unconverged = (float(v) for v in reach.groups())
    assert rest < stiff < soft and unconverged == 0
    assert 6 < number(r"exercise 4: within 5% at about (\S+) cubes", printed) < 30


def test_interactive_view_is_in_the_page(executed):
    html = "".join(out.get("data", {}).get("text/html", "") for cell in executed.cells if cell.cell_type == "code"
                   for out in cell.outputs if out.output_type in ("display_data", "execute_result"))
    assert 'id="crank-view"' in html
