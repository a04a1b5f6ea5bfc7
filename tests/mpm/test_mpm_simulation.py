"""simkit.mpm.MPM: free fall, conservation of the whole P2G-grid-G2P cycle, the CFL limit, the compiled
substep kernels against the unfused pieces and the numpy tier, and particles that leave the grid."""
import numpy as np
import pytest

import simkit.mpm as mpm
from simkit.mpm import _kernels, _material_kernels, _step_kernels
from simkit.mpm import grid as grid_tier

MATERIALS = [mpm.Fluid(50.0), mpm.FixedCorotated(50.0, 0.3), mpm.NeoHookean(50.0, 0.3), mpm.Snow(50.0, 0.2),
             mpm.Sand(50.0, 0.3, 35.0)]


def _block(d, n_side=8, dx=0.05, shape=40, seed=30):
    """Particles two per cell in a block near the middle of a shape^d grid."""
    rng = np.random.default_rng(seed)
    side = np.arange(n_side) * dx / 2 + 0.4 * shape * dx
    x = np.stack(np.meshgrid(*[side] * d, indexing="ij"), axis=-1).reshape(-1, d)
    return x + rng.uniform(0, 0.1 * dx, x.shape), dx, (shape,) * d, (dx / 2) ** d


@pytest.mark.parametrize("d", [2, 3])
def test_a_free_falling_block_has_exactly_gravitys_acceleration(d):
    x, dx, shape, vol = _block(d)
    g = np.zeros(d)
    g[-1] = -9.81
    sim = mpm.MPM(x, mpm.FixedCorotated(1e3, 0.3), dx, shape, density=1e3, volume=vol, gravity=g)
    dt, steps = 1e-3, 30
    for _ in range(steps):
        sim.substep(dt)
    t = steps * dt
    np.testing.assert_allclose(sim.v, np.broadcast_to(g * t, x.shape), atol=1e-12)
    # symplectic Euler: x_n = x_0 + g dt^2 n (n + 1) / 2 = x_0 + g t^2 / 2 + g t dt / 2
    np.testing.assert_allclose(sim.x, x + g * dt ** 2 * steps * (steps + 1) / 2, atol=1e-12)
    np.testing.assert_allclose(sim.C, 0.0, atol=1e-10)
    np.testing.assert_allclose(sim.F, np.broadcast_to(np.eye(d), sim.F.shape), atol=1e-12)


def _angular_momentum_2d(sim):
    m, x, v, C = sim.mass, sim.x, sim.v, sim.C
    return np.sum(m * (x[:, 0] * v[:, 1] - x[:, 1] * v[:, 0])) + np.sum(m * sim.dx ** 2 / 4 * (C[:, 1, 0] - C[:, 0, 1]))


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: type(m).__name__)
def test_the_cycle_conserves_linear_and_angular_momentum_without_gravity_or_walls(material):
    x, dx, shape, vol = _block(2, n_side=10)
    rng = np.random.default_rng(31)
    sim = mpm.MPM(x, material, dx, shape, density=1e3, volume=vol, v=rng.normal(0, 0.05, x.shape),
                  wall_thickness=0)
    sim.F[:] += rng.normal(0, 0.05, sim.F.shape)                       # a stressed start
    sim.C[:] = rng.normal(0, 0.5, sim.C.shape)
    p0, L0, v0 = (sim.mass[:, None] * sim.v).sum(axis=0), _angular_momentum_2d(sim), sim.v.copy()
    scale = np.sum(sim.mass * np.abs(sim.v).sum(axis=1))
    for _ in range(20):
        sim.substep(2e-4)
    np.testing.assert_allclose((sim.mass[:, None] * sim.v).sum(axis=0), p0, atol=1e-12 * scale)
    assert abs(_angular_momentum_2d(sim) - L0) <= 1e-11 * scale
    assert np.abs(sim.v - v0).max() > 1e-3 * np.abs(v0).max()                         # the stress acted


def test_a_step_above_the_cfl_limit_is_refused_with_the_limit():
    x, dx, shape, vol = _block(2)
    sim = mpm.MPM(x, mpm.Fluid(400.0), dx, shape, density=1.0, volume=vol)
    limit = 0.9 * dx / np.sqrt(400.0)
    assert sim.max_dt() == pytest.approx(limit)
    with pytest.raises(ValueError, match=f"dt: 0.01 is above the CFL limit {limit:.6g}"):
        sim.substep(0.01)
    np.testing.assert_array_equal(sim.x, x)
    assert sim.time == 0.0


def test_particles_that_leave_the_grid_stop_the_run_and_leave_the_state():
    x, dx, shape, vol = _block(2, shape=16)
    v = np.zeros_like(x)
    v[:, 0] = 3.0
    sim = mpm.MPM(x, mpm.Fluid(10.0), dx, shape, density=1.0, volume=vol, v=v, wall_thickness=0)
    with pytest.raises(ValueError, match=r"x: 8 of 64 particles left the grid at time 0.08; .*\[\(0.025, 0.025\), \(0.725, 0.725\)\)"):
        for _ in range(100):
            before = sim.x.copy()
            sim.substep(0.005)
    np.testing.assert_array_equal(sim.x, before)


def test_run_records_every_frame():
    x, dx, shape, vol = _block(2)
    sim = mpm.MPM(x, mpm.Fluid(10.0), dx, shape, density=1.0, volume=vol, gravity=[0.0, -1.0])
    frames = sim.run(3, 1e-3, 5)
    assert frames.shape == (4,) + x.shape
    np.testing.assert_array_equal(frames[0], x)
    np.testing.assert_array_equal(frames[-1], sim.x)
    assert sim.time == pytest.approx(0.015)


@pytest.mark.parametrize("make, message", [
    (lambda x, dx, s, vol: mpm.MPM(x, "water", dx, s, density=1.0, volume=vol), "material: expected a simkit.mpm"),
    (lambda x, dx, s, vol: mpm.MPM(x, mpm.Fluid(1.0), dx, s, density=-1.0, volume=vol), "density"),
    (lambda x, dx, s, vol: mpm.MPM(x, mpm.Fluid(1.0), dx, s, density=1.0, volume=-vol), "volume: expected volumes > 0"),
    (lambda x, dx, s, vol: mpm.MPM(x, mpm.Fluid(1.0), dx, s, density=1.0, volume=vol, walls="glue"), "walls: expected"),
    (lambda x, dx, s, vol: mpm.MPM(x, mpm.Fluid(1.0), dx, s, density=1.0, volume=vol, gravity=[0, 0, -1]),
     r"gravity: expected shape \(2,\)"),
    (lambda x, dx, s, vol: mpm.MPM(x * 10, mpm.Fluid(1.0), dx, s, density=1.0, volume=vol), "x: 64 of 64 particles"),
])
def test_bad_simulation_input_is_named(make, message):
    x, dx, shape, vol = _block(2)
    with pytest.raises((ValueError, TypeError), match=message):
        make(x, dx, shape, vol)


# ---- the compiled substep against its unfused pieces and the numpy tier --------------------------------------


@pytest.mark.parametrize("condition", grid_tier.WALLS)
@pytest.mark.parametrize("d", [2, 3])
def test_the_compiled_grid_update_equals_the_numpy_tier(d, condition):
    rng = np.random.default_rng(32)
    shape = (7, 8, 6)[:d]
    mass = np.where(rng.uniform(size=shape) < 0.3, 0.0, rng.uniform(0.1, 1.0, shape))
    momentum = rng.normal(size=shape + (d,))
    g = rng.normal(size=d)
    expected = grid_tier.walls(grid_tier.grid_velocity(mass, momentum, 0.01, g), 2, condition)
    velocity = np.empty(shape + (d,))
    _step_kernels.grid_update(mass.reshape(-1), momentum.reshape(-1, d), 0.01, g, *_step_kernels.wall_entries(shape, 2),
                              grid_tier.WALLS.index(condition), velocity.reshape(-1, d))
    np.testing.assert_allclose(velocity, expected, atol=1e-14)


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: type(m).__name__)
def test_the_2d_substep_equals_the_unfused_pieces(material):
    x, dx, shape, vol = _block(2, n_side=10)
    rng = np.random.default_rng(33)
    sim = mpm.MPM(x, material, dx, shape, density=1e3, volume=vol, v=rng.normal(0, 0.05, x.shape),
                  gravity=[0.0, -9.8], wall_thickness=12)
    sim.F[:] += rng.normal(0, 0.05, sim.F.shape)
    sim.C[:] = rng.normal(0, 0.5, sim.C.shape)
    x, v, C, F, Jp = (a.copy() for a in (sim.x, sim.v, sim.C, sim.F, sim.Jp))
    dt, kind, params = 2e-4, material.kind, material.params
    A = np.empty_like(C)
    _step_kernels.affine_momentum(kind, params, dt, dx, sim.mass, sim.volume, C, F, Jp, A)
    mass, momentum = np.zeros(shape), np.zeros(shape + (2,))
    _kernels.p2g_2d(x, v, sim.mass, A, sim.origin, dx, mass, momentum)
    velocity = grid_tier.walls(grid_tier.grid_velocity(mass, momentum, dt, sim.gravity), 12, "separate")
    _kernels.g2p_2d(x, velocity, sim.origin, dx, v, C)
    _step_kernels.advance(isinstance(material, mpm.Fluid), dt, x, v, C, F)
    _material_kernels.projections(kind, params, F, Jp)
    sim.substep(dt)
    for name, ours, theirs in (("x", sim.x, x), ("v", sim.v, v), ("C", sim.C, C), ("F", sim.F, F), ("Jp", sim.Jp, Jp)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12, err_msg=name)
    assert np.abs(velocity).max() > 0 and (velocity[:12] == 0).any()                    # the walls acted


def test_import_simkit_leaves_numba_and_simkit_mpm_out():
    import subprocess
    import sys
    code = "import sys, simkit; print('numba' in sys.modules, 'simkit.mpm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def _spinning_disk(transfer, flip=0.95):
    rng = np.random.default_rng(34)
    dx = 1.0 / 32
    r, t = 0.2 * np.sqrt(rng.uniform(0, 1, 1500)), rng.uniform(0, 2 * np.pi, 1500)
    x = 0.5 + np.stack([r * np.cos(t), r * np.sin(t)], axis=1)
    v = 1.0 * np.stack([-(x[:, 1] - 0.5), x[:, 0] - 0.5], axis=1)
    return mpm.MPM(x, mpm.NeoHookean(100.0, 0.3), dx, (33, 33), density=1.0, volume=np.pi * 0.04 / 1500, v=v,
                   wall_thickness=0, transfer=transfer, flip=flip)


@pytest.mark.parametrize("d", [2, 3])
def test_pic_and_flip_conserve_linear_momentum_and_flip_at_zero_is_pic(d):
    x, dx, shape, vol = _block(d, n_side=6)
    rng = np.random.default_rng(35)
    v = rng.normal(0, 0.05, x.shape)
    sims = {name: mpm.MPM(x, mpm.FixedCorotated(50.0, 0.3), dx, shape, density=1e3, volume=vol, v=v,
                          wall_thickness=0, transfer=transfer, flip=flip)
            for name, transfer, flip in (("pic", "pic", 0.95), ("flip", "flip", 0.95), ("flip0", "flip", 0.0))}
    for sim in sims.values():
        sim.F[:] += np.random.default_rng(36).normal(0, 0.05, sim.F.shape)
        p0 = (sim.mass[:, None] * sim.v).sum(axis=0)
        for _ in range(10):
            sim.substep(2e-4)
        np.testing.assert_allclose((sim.mass[:, None] * sim.v).sum(axis=0), p0, atol=1e-12 * np.abs(sim.mass[:, None] * v).sum())
    np.testing.assert_allclose(sims["flip0"].v, sims["pic"].v, atol=1e-14)
    assert np.abs(sims["flip"].v - sims["pic"].v).max() > 1e-6


def test_a_spinning_disk_keeps_its_angular_momentum_with_apic_and_loses_it_with_pic():
    change = {}
    for transfer in ("apic", "pic"):
        sim = _spinning_disk(transfer)
        L0 = _angular_momentum_2d(sim)
        for _ in range(20):
            sim.substep(1e-3)
        change[transfer] = (_angular_momentum_2d(sim) - L0) / L0
    assert abs(change["apic"]) < 1e-12
    assert change["pic"] < -0.02, change


def _block_on_plane(friction):
    """A block resting on a plane collider at y = 0.5, sliding along x at 1 m/s."""
    dx = 1.0 / 64
    side = np.arange(16) * dx / 2
    x = np.stack(np.meshgrid(0.3 + side, 0.5 + dx / 4 + side, indexing="ij"), axis=-1).reshape(-1, 2)
    v = np.zeros_like(x)
    v[:, 0] = 1.0
    return mpm.MPM(x, mpm.NeoHookean(1e6, 0.3), dx, (65, 65), density=1e3, volume=(dx / 2) ** 2, v=v,
                   gravity=[0.0, -9.81], colliders=[(mpm.Plane((0.0, 0.5), (0.0, 1.0)), friction)])


def test_a_plane_collider_holds_a_block_up_and_its_friction_brakes_it():
    dt, steps = 2e-4, 100
    free, stuck = _block_on_plane(0.0), _block_on_plane(np.inf)
    for _ in range(steps):
        free.substep(dt)
        stuck.substep(dt)
    for sim in (free, stuck):
        assert sim.x[:, 1].min() > 0.5 - 0.5 * sim.dx                    # held up: no particle sinks half a cell
    assert abs(np.mean(free.v[:, 1])) < 0.05                              # resting (free fall would be -0.2 m/s)
    np.testing.assert_allclose(np.sum(free.mass * free.v[:, 0]) / free.mass.sum(), 1.0, atol=1e-9)  # no friction
    # sticky: the base stops and the block, with 0.5 J/kg of kinetic energy, tips over its front edge
    assert np.sum(stuck.mass * stuck.v[:, 0]) / stuck.mass.sum() < 0.5
