"""simkit.mpm.mac_volume: particle density relative to rest, and the volume correction that spreads dense
cells (zero on water at rest, density brought back to one, refused under a solid ceiling)."""
import numpy as np
import pytest

from simkit.mpm import mac, mac_volume

DX, CELLS = 0.1, (14, 12)


def lattice(low, high, spacing):
    """Particles on a regular lattice filling [low, high), first ones half a spacing in."""
    counts = np.round((np.asarray(high) - low) / spacing).astype(int)
    i, j = np.meshgrid(np.arange(counts[0]), np.arange(counts[1]), indexing="ij")
    return np.asarray(low) + spacing * (np.stack([i.ravel(), j.ravel()], axis=1) + 0.5)


def border(cells=CELLS):
    solid = np.ones(cells, dtype=bool)
    solid[1:-1, 1:-1] = False
    return solid


def test_a_regular_block_has_density_one_inside_and_the_weights_count_every_particle():
    x = lattice([DX, DX], [13 * DX, 7 * DX], DX / 2)                    # 4 per cell in cells 1..12 x 1..6
    density = mac_volume.particle_density(x, DX, CELLS, 4)
    np.testing.assert_allclose(density[2:-2, 2:6], 1.0, rtol=1e-12)    # away from the block's edges
    assert density.sum() == pytest.approx(len(x) / 4, rel=1e-12)       # partition of unity


def test_water_filled_as_at_rest_is_not_moved():
    x = lattice([DX, DX], [13 * DX, 7 * DX], DX / 2)
    d = mac_volume.volume_correction(x, DX, border(), 4)
    assert np.abs(d).max() < 1e-12


def test_a_compressed_block_is_spread_back_towards_rest_density():
    x = lattice([3 * DX, DX], [9 * DX, 6 * DX], 0.9 * DX / 2)          # 23 % too dense
    solid = border()
    before = mac_volume.particle_density(x, DX, CELLS, 4)
    for _ in range(4):
        x = x + mac_volume.volume_correction(x, DX, solid, 4)
    after = mac_volume.particle_density(x, DX, CELLS, 4)
    core = lambda density: density[4:8, 2:4].mean()                    # noqa: E731  cells inside the block
    assert core(before) > 1.2 and abs(core(after) - 1.0) < 0.25 * (core(before) - 1.0), (core(before), core(after))
    assert (x >= DX).all() and (x[:, 1] > DX).all()                      # pushed up and sideways, not through walls


def test_the_correction_is_the_gradient_whose_divergence_is_the_excess():
    """Moving face positions by the correction field changes each interior cell's area by its excess (to first
    order): the field's discrete divergence, taken on the faces the projection returns, equals rho - 1."""
    rng = np.random.default_rng(3)
    x = lattice([DX, DX], [13 * DX, 8 * DX], DX / 2) + rng.uniform(-DX / 8, DX / 8, (12 * 7 * 4, 2))
    solid = border()
    captured = {}
    project = mac.pressure_projection

    def spy(u, v, fluid, solid_, dx, dt, density):
        out = project(u, v, fluid, solid_, dx, dt, density)
        captured.update(u=u, v=v, out=out, fluid=fluid)
        return out

    mac.pressure_projection = spy
    try:
        mac_volume.volume_correction(x, DX, solid, 4)
    finally:
        mac.pressure_projection = project
    du, dv = captured["u"] - captured["out"][0], captured["v"] - captured["out"][1]
    density = mac_volume.particle_density(x, DX, CELLS, 4)
    fluid = captured["fluid"]
    interior = fluid[1:-1, 1:-1] & fluid[:-2, 1:-1] & fluid[2:, 1:-1] & fluid[1:-1, :-2] & fluid[1:-1, 2:]
    div = mac.divergence(du, dv, DX)[1:-1, 1:-1]
    np.testing.assert_allclose(div[interior], density[1:-1, 1:-1][interior] - 1.0, atol=1e-10)
    np.testing.assert_allclose(div[fluid[1:-1, 1:-1] & ~interior], 0.0, atol=1e-10)


def test_a_volume_corrected_tank_at_rest_stays_at_rest():
    x = lattice([DX, DX], [13 * DX, 7 * DX], DX / 2)
    water = mac_volume.VolumeCorrectedMACFluid(x, DX, CELLS, density=1000.0, gravity=[0.0, -9.81], per_cell=4)
    for _ in range(5):
        water.substep(0.02)
    assert np.abs(water.v).max() < 1e-10 and np.abs(water.x - x).max() < 1e-10


def test_bad_volume_input_is_named():
    x = lattice([DX, DX], [13 * DX, 7 * DX], DX / 2)
    with pytest.raises(ValueError, match="per_cell"):
        mac_volume.particle_density(x, DX, CELLS, 0)
    ceiling = border()
    ceiling[:, 7] = True                                                  # a lid right on the water
    x = lattice([DX, DX], [13 * DX, 7 * DX], 0.9 * DX / 2)
    with pytest.raises(ValueError, match="open tanks only"):
        mac_volume.volume_correction(x, DX, ceiling, 4)
