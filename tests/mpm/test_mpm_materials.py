"""simkit.mpm materials: Kirchhoff stresses against finite differences of their energies, the return maps
(on the yield surface, idempotent, interior untouched), the 2D friction angle, and the compiled
per-particle kernels against the numpy tier."""
import numpy as np
import pytest

import simkit.mpm as mpm
from simkit import energies
from simkit.mpm import _material_kernels as mk
from simkit.mpm import elasticity, plasticity

FD_STEP = 1e-6
FD_TOL = 1e-6            # relative to the stress's largest entry
MU, LAM = 3.0, 5.0


def _deformations(rng, n, d, spread=0.2):
    """Random F = R (I + small), det F > 0."""
    return np.eye(d) + spread * rng.normal(size=(n, d, d))


def _fd_stress(energy, F):
    """dpsi/dF by central differences, (n, d, d)."""
    P = np.zeros_like(F)
    for i in range(F.shape[1]):
        for j in range(F.shape[2]):
            E = np.zeros_like(F)
            E[:, i, j] = FD_STEP
            P[:, i, j] = (np.ravel(energy(F + E)) - np.ravel(energy(F - E))) / (2 * FD_STEP)
    return P


KIRCHHOFF_CASES = {
    "fixed corotated": (lambda F: elasticity.fixed_corotated_kirchhoff(F, MU, LAM),
                        lambda F: energies.fcr_energy_element_F(F, MU, LAM)),
    "neo-Hookean": (lambda F: elasticity.neo_hookean_kirchhoff(F, MU, LAM),
                    lambda F: energies.neo_hookean_energy_element_F(F, MU, LAM)),
    "Hencky": (lambda F: elasticity.hencky_kirchhoff(F, MU, LAM), lambda F: elasticity.hencky_energy(F, MU, LAM)),
    "fluid": (lambda F: elasticity.fluid_kirchhoff(F, 7.0), lambda F: elasticity.fluid_energy(F, 7.0)),
}


@pytest.mark.parametrize("name", list(KIRCHHOFF_CASES))
@pytest.mark.parametrize("d", [2, 3])
def test_kirchhoff_stress_is_the_energy_gradient_times_f_transpose(name, d):
    kirchhoff, energy = KIRCHHOFF_CASES[name]
    F = _deformations(np.random.default_rng(10), 8, d)
    tau = kirchhoff(F)
    P = _fd_stress(energy, F)
    np.testing.assert_allclose(tau, P @ np.swapaxes(F, 1, 2), atol=FD_TOL * np.abs(tau).max())
    np.testing.assert_allclose(tau, np.swapaxes(tau, 1, 2), atol=1e-12 * np.abs(tau).max())   # symmetric


@pytest.mark.parametrize("name", list(KIRCHHOFF_CASES))
def test_stresses_vanish_at_rest_and_rotations(name):
    kirchhoff = KIRCHHOFF_CASES[name][0]
    c, s = np.cos(0.7), np.sin(0.7)
    F = np.stack([np.eye(2), [[c, -s], [s, c]]])
    np.testing.assert_allclose(kirchhoff(F), 0.0, atol=1e-12)


def test_the_fluid_stress_is_mpm88s():
    F = np.array([[[1.1, 0.3], [0.0, 0.9]]])
    np.testing.assert_allclose(elasticity.fluid_kirchhoff(F, 400.0), 400.0 * (0.99 - 1.0) * np.eye(2)[None])


# ---- snow ---------------------------------------------------------------------------------------------------

THETA_C, THETA_S = 0.025, 0.0075


@pytest.mark.parametrize("d", [2, 3])
def test_snow_return_map_clamps_is_idempotent_and_leaves_the_interior(d):
    rng = np.random.default_rng(11)
    F = _deformations(rng, 50, d, 0.05)
    F_E, ratio = plasticity.snow_return_map(F, THETA_C, THETA_S)
    s = np.linalg.svd(F_E, compute_uv=False)
    assert (s >= 1 - THETA_C - 1e-12).all() and (s <= 1 + THETA_S + 1e-12).all()
    np.testing.assert_allclose(ratio * np.linalg.det(F_E), np.linalg.det(F), rtol=1e-12)   # J = J_E J_P
    again, ratio_again = plasticity.snow_return_map(F_E, THETA_C, THETA_S)
    np.testing.assert_allclose(again, F_E, atol=1e-12)
    np.testing.assert_allclose(ratio_again, 1.0, atol=1e-12)
    # interior: a rotation times singular values inside the interval is untouched, bit for bit
    U = np.linalg.qr(rng.normal(size=(d, d)))[0]
    inside = (U * rng.uniform(1 - 0.9 * THETA_C, 1 + 0.9 * THETA_S, (20, 1, d))) @ U.T
    F_in, r_in = plasticity.snow_return_map(inside, THETA_C, THETA_S)
    assert np.array_equal(F_in, inside) and np.array_equal(r_in, np.ones(20))


def test_snow_hardens_under_compression():
    mu, lam = plasticity.snow_hardening(1.0, 2.0, 10.0, np.array([1.0, 0.9, 1.1]))
    np.testing.assert_allclose(mu, [1.0, np.exp(1.0), np.exp(-1.0)])
    np.testing.assert_allclose(lam, 2.0 * mu)


# ---- Drucker–Prager sand ------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [2, 3])
def test_drucker_prager_return_map_lands_on_the_cone_is_idempotent_and_leaves_the_interior(d):
    rng = np.random.default_rng(12)
    alpha = plasticity.drucker_prager_alpha(np.radians(30.0))
    F = _deformations(rng, 400, d, 0.15)
    tau0 = elasticity.hencky_kirchhoff(F, MU, LAM)
    y0 = plasticity.drucker_prager_yield(tau0, alpha)
    F_E = plasticity.drucker_prager_return_map(F, MU, LAM, alpha)
    tau = elasticity.hencky_kirchhoff(F_E, MU, LAM)
    y = plasticity.drucker_prager_yield(tau, alpha)
    tension = np.trace(tau0, axis1=1, axis2=2) > 0
    outside = (y0 > 0) & ~tension
    assert outside.sum() > 50 and tension.sum() > 50 and (y0 <= 0).sum() > 50
    np.testing.assert_allclose(y[outside], 0.0, atol=1e-10 * np.abs(tau0).max())     # on the cone
    np.testing.assert_allclose(tau[tension], 0.0, atol=1e-12)                          # tension: the tip
    # the return keeps the volumetric strain of compressed states
    np.testing.assert_allclose(np.linalg.det(F_E[outside]), np.linalg.det(F[outside]), rtol=1e-10)
    np.testing.assert_allclose(plasticity.drucker_prager_return_map(F_E, MU, LAM, alpha), F_E, atol=1e-12)
    assert np.array_equal(F_E[y0 <= 0], F[y0 <= 0])                                    # interior untouched


def test_the_2d_cone_is_mohr_coulomb_of_the_plane_strain_angle():
    alpha = plasticity.drucker_prager_alpha(np.radians(30.0))
    phi_eff = plasticity.plane_strain_friction_angle(alpha)
    assert abs(np.degrees(phi_eff) - 27.5) < 0.05                                        # FIELD-NOTES' value
    rng = np.random.default_rng(13)
    F = _deformations(rng, 300, 2, 0.15)
    tau = elasticity.hencky_kirchhoff(plasticity.drucker_prager_return_map(F, MU, LAM, alpha), MU, LAM)
    t = np.linalg.eigvalsh(tau)
    on = (t.sum(axis=1) < -1e-6) & (np.abs(t[:, 1] - t[:, 0]) > 1e-6)
    on &= np.abs(plasticity.drucker_prager_yield(tau, alpha)) < 1e-9
    assert on.sum() > 50
    # Mohr-Coulomb: the circle of diameter |t1 - t2| touches the line of slope tan(phi_eff)
    np.testing.assert_allclose(np.abs(t[on, 1] - t[on, 0]), -np.sin(phi_eff) * t[on].sum(axis=1), rtol=1e-9)
    assert mpm.Sand(1e4, 0.3, 30.0).plane_strain_angle == pytest.approx(np.degrees(phi_eff))


def test_plane_strain_angle_rejects_a_cone_steeper_than_any_angle():
    with pytest.raises(ValueError, match="alpha: expected values in"):
        plasticity.plane_strain_friction_angle(0.8)


# ---- the compiled per-particle kernels against the tier -----------------------------------------------------


def _tier_stress(material, F, Jp):
    mu, lam = (material.lame if not isinstance(material, mpm.Fluid) else (None, None))
    if isinstance(material, mpm.Fluid):
        return elasticity.fluid_kirchhoff(F, material.bulk_modulus)
    if isinstance(material, mpm.FixedCorotated):
        return elasticity.fixed_corotated_kirchhoff(F, mu, lam)
    if isinstance(material, mpm.NeoHookean):
        return elasticity.neo_hookean_kirchhoff(F, mu, lam)
    if isinstance(material, mpm.Snow):
        return elasticity.fixed_corotated_kirchhoff(F, *plasticity.snow_hardening(mu, lam, material.hardening, Jp))
    return elasticity.hencky_kirchhoff(F, mu, lam)


MATERIALS = [mpm.Fluid(50.0), mpm.FixedCorotated(10.0, 0.3), mpm.NeoHookean(10.0, 0.3), mpm.Snow(10.0, 0.2),
             mpm.Sand(10.0, 0.3, 35.0)]


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: type(m).__name__)
@pytest.mark.parametrize("d", [2, 3])
def test_compiled_stress_and_projection_equal_the_tier(material, d):
    rng = np.random.default_rng(14)
    F = _deformations(rng, 40, d, 0.1)
    Jp = rng.uniform(0.9, 1.1, 40)
    tau = np.empty_like(F)
    mk.stresses(material.kind, material.params, F, Jp, tau)
    np.testing.assert_allclose(tau, _tier_stress(material, F, Jp), atol=1e-12 * np.abs(tau).max())
    G, Jp_new = F.copy(), Jp.copy()
    mk.projections(material.kind, material.params, G, Jp_new)
    if isinstance(material, mpm.Snow):
        F_E, ratio = plasticity.snow_return_map(F, material.theta_c, material.theta_s)
        np.testing.assert_allclose(G, F_E, atol=1e-12)
        np.testing.assert_allclose(Jp_new, Jp * ratio, rtol=1e-12)
    elif isinstance(material, mpm.Sand):
        np.testing.assert_allclose(G, plasticity.drucker_prager_return_map(F, *material.lame, material.alpha),
                                   atol=1e-12)
    elif isinstance(material, mpm.Fluid):
        np.testing.assert_allclose(G, np.linalg.det(F)[:, None, None] ** (1 / d) * np.eye(d), rtol=1e-12)
    else:
        assert np.array_equal(G, F)


@pytest.mark.parametrize("make, message", [
    (lambda: mpm.Fluid(-1.0), "bulk_modulus"),
    (lambda: mpm.FixedCorotated(10.0, 0.5), "pr: expected Poisson's ratio"),
    (lambda: mpm.Snow(10.0, 0.2, theta_c=1.5), "theta_c: expected a critical compression below 1"),
    (lambda: mpm.Sand(10.0, 0.3, 95.0), r"friction_angle: expected degrees in \[0, 90\)"),
    (lambda: elasticity.hencky_kirchhoff(np.array([[[1.0, 0.0], [0.0, -1.0]]]), 1.0, 1.0), r"F: expected det F > 0"),
    (lambda: elasticity.fluid_kirchhoff(np.ones((2, 2)), 1.0), r"F: expected \(n, d, d\)"),
])
def test_bad_material_input_is_named(make, message):
    with pytest.raises(ValueError, match=message):
        make()
