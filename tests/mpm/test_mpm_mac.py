"""simkit.mpm.mac: staggered transfers against a numpy reference and on affine fields, the pressure
projection (divergence-free fluid cells, hydrostatic pressure), and a water column at rest."""
import numpy as np
import pytest

from simkit.mpm import mac, weights

DX, CELLS = 0.1, (12, 10)


def _particles(rng, n, cells=CELLS, dx=DX, origin=np.zeros(2)):
    return rng.uniform(origin + dx, origin + (np.asarray(cells) - 1) * dx - 1e-9, (n, 2))


def _reference_component(x, q, m, c, dx, shape, origin):
    """One component's face-grid P2G with the weights tier and np.add.at."""
    nodes, w, _ = weights.bspline_stencil(x, dx, origin, 2)
    offset = origin + nodes * dx - x[:, None, :]
    flat = np.ravel_multi_index((nodes[..., 0].ravel(), nodes[..., 1].ravel()), shape)
    mass, momentum = np.zeros(np.prod(shape)), np.zeros(np.prod(shape))
    np.add.at(mass, flat, (w * m[:, None]).ravel())
    np.add.at(momentum, flat, (w * m[:, None] * (q[:, None] + np.einsum("pa,pia->pi", c, offset))).ravel())
    mass, momentum = mass.reshape(shape), momentum.reshape(shape)
    return np.where(mass > 0, momentum / np.where(mass > 0, mass, 1.0), 0.0), mass


def test_staggered_transfers_equal_the_numpy_reference():
    rng = np.random.default_rng(40)
    origin = np.array([0.3, -0.2])
    x = _particles(rng, 80, origin=origin)
    v, m, C = rng.normal(size=(80, 2)), rng.uniform(0.5, 2.0, 80), rng.normal(size=(80, 2, 2))
    u, vf, u_mass, v_mass = mac.staggered_p2g(x, v, m, DX, CELLS, C=C, origin=origin)
    nx, ny = CELLS
    ref_u, ref_um = _reference_component(x, v[:, 0], m, C[:, 0], DX, (nx + 1, ny), origin + [0.0, DX / 2])
    ref_v, ref_vm = _reference_component(x, v[:, 1], m, C[:, 1], DX, (nx, ny + 1), origin + [DX / 2, 0.0])
    for ours, ref in ((u, ref_u), (vf, ref_v), (u_mass, ref_um), (v_mass, ref_vm)):
        np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-12)
    uf, vff = rng.normal(size=(nx + 1, ny)), rng.normal(size=(nx, ny + 1))
    vp, Cp = mac.staggered_g2p(x, uf, vff, DX, origin)
    for a, field, shift in ((0, uf, [0.0, DX / 2]), (1, vff, [DX / 2, 0.0])):
        nodes, w, _ = weights.bspline_stencil(x, DX, origin + shift, 2)
        values = field[nodes[..., 0], nodes[..., 1]]
        offset = origin + shift + nodes * DX - x[:, None, :]
        np.testing.assert_allclose(vp[:, a], np.sum(w * values, axis=1), atol=1e-13)
        np.testing.assert_allclose(Cp[:, a], 4 / DX ** 2 * np.einsum("pi,pi,pia->pa", w, values, offset), atol=1e-10)


def test_staggered_apic_gathers_an_affine_field_exactly():
    rng = np.random.default_rng(41)
    b, A = rng.normal(size=2), rng.normal(size=(2, 2))
    xu, xv = mac.face_positions(DX, CELLS)
    u = b[0] + xu @ A[0]
    v = b[1] + xv @ A[1]
    x = _particles(rng, 60)
    vp, Cp = mac.staggered_g2p(x, u, v, DX)
    np.testing.assert_allclose(vp, b + x @ A.T, atol=1e-12)
    np.testing.assert_allclose(Cp, np.broadcast_to(A, (60, 2, 2)), atol=1e-10)


def _border(cells=CELLS):
    solid = np.ones(cells, dtype=bool)
    solid[1:-1, 1:-1] = False
    return solid


def test_projection_leaves_every_fluid_cell_divergence_free_and_solid_faces_at_rest():
    rng = np.random.default_rng(42)
    solid = _border()
    solid[5, 2] = True                                                   # an obstacle inside the fluid
    fluid = np.zeros(CELLS, dtype=bool)
    fluid[1:-1, 1:6] = True
    fluid &= ~solid
    u, v = rng.normal(size=(CELLS[0] + 1, CELLS[1])), rng.normal(size=(CELLS[0], CELLS[1] + 1))
    before = np.abs(mac.divergence(u, v, DX)[fluid]).max()
    u2, v2, p = mac.pressure_projection(u, v, fluid, solid, DX, 0.01, 1000.0)
    after = np.abs(mac.divergence(u2, v2, DX)[fluid]).max()
    assert before > 1.0 and after < 1e-10 * before, (before, after)
    np.testing.assert_array_equal(u2[1:][solid], 0.0)
    np.testing.assert_array_equal(v2[:, :-1][solid], 0.0)
    np.testing.assert_array_equal(p[~fluid], 0.0)
    air = ~fluid & ~solid
    np.testing.assert_array_equal(u2[1:-1][air[1:] & air[:-1]], u[1:-1][air[1:] & air[:-1]])   # air untouched


def test_a_column_at_rest_gets_exactly_hydrostatic_pressure():
    g, rho, dt = 9.81, 1000.0, 0.005
    solid = _border()
    fluid = np.zeros(CELLS, dtype=bool)
    fluid[1:-1, 1:5] = True                                              # water in rows 1..4, air above
    u, v = np.zeros((CELLS[0] + 1, CELLS[1])), np.full((CELLS[0], CELLS[1] + 1), -g * dt)
    u2, v2, p = mac.pressure_projection(u, v, fluid, solid, DX, dt, rho)
    y_surface = 5.5 * DX                                                 # centre of the first air cell
    y = (np.arange(CELLS[1]) + 0.5) * DX
    expected = np.where(fluid, rho * g * (y_surface - y)[None, :], 0.0)
    np.testing.assert_allclose(p, expected, rtol=1e-10, atol=1e-9 * rho * g * DX)
    np.testing.assert_allclose(v2[:, :6], 0.0, atol=1e-12)               # the water does not move


@pytest.mark.parametrize("transfer", mac.TRANSFERS)
def test_water_at_rest_stays_at_rest(transfer):
    rng = np.random.default_rng(43)
    x = rng.uniform([DX, DX], [11 * DX, 5 * DX], (800, 2))               # fills rows 1..4 of the box
    water = mac.MACFluid(x, DX, CELLS, density=1000.0, gravity=[0.0, -9.81], transfer=transfer)
    for _ in range(5):
        water.substep(0.005)
    assert np.abs(water.v).max() < 1e-10
    y = (np.arange(CELLS[1]) + 0.5) * DX
    np.testing.assert_allclose(water.pressure[1:-1, 1:5], np.broadcast_to(1000.0 * 9.81 * (5.5 * DX - y[1:5]), (10, 4)),
                               rtol=1e-9)


def test_a_falling_blob_stays_divergence_free_and_in_the_box():
    rng = np.random.default_rng(44)
    x = rng.uniform([0.3, 0.4], [0.6, 0.8], (600, 2))
    water = mac.MACFluid(x, DX, CELLS, density=1000.0, gravity=[0.0, -9.81], transfer="flip")
    water.run(4, 0.01, 5)
    speed = np.abs(water.u).max() / DX
    assert speed > 1.0 and np.abs(mac.divergence(water.u, water.v_face, DX)[water.fluid]).max() < 1e-10 * speed
    assert (water.x >= DX).all() and (water.x < (np.asarray(CELLS) - 1) * DX).all()
    assert water.x[:, 1].mean() < 0.55                                   # it fell


def test_bad_mac_input_is_named():
    rng = np.random.default_rng(45)
    x = _particles(rng, 10)
    with pytest.raises(ValueError, match=r"x: 1 of 10 particles lie outside the box's solid border"):
        mac.staggered_p2g(np.vstack([x[:9], [[0.05, 0.5]]]), np.zeros((10, 2)), 1.0, DX, CELLS)
    with pytest.raises(ValueError, match="transfer: expected one of"):
        mac.MACFluid(x, DX, CELLS, density=1.0, transfer="flop")
    with pytest.raises(ValueError, match="solid: expected a bool mask of shape"):
        mac.MACFluid(x, DX, CELLS, density=1.0, solid=np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"dt: 1 is above the CFL limit"):
        mac.MACFluid(x, DX, CELLS, density=1.0, gravity=[0, -9.81]).substep(1.0)
    with pytest.raises(ValueError, match="fluid: no fluid cell touches an air cell"):
        mac.pressure_projection(np.zeros((13, 10)), np.zeros((12, 11)), ~_border(), _border(), DX, 0.1, 1.0)
    with pytest.raises(ValueError, match="fluid, solid: expected disjoint"):
        mac.pressure_projection(np.zeros((13, 10)), np.zeros((12, 11)), _border(), _border(), DX, 0.1, 1.0)
