"""simkit.mpm.blend: PIC and FLIP transfers beside MPM's APIC, held to their defining properties."""
import numpy as np
import pytest

from simkit.mpm import NeoHookean, g2p, p2g
from simkit.mpm.blend import BlendedMPM


def _spinning_block(transfer, flip_ratio=0.95, omega=3.0):
    dx = 1 / 32
    g = np.arange(0.35, 0.65, dx / 2)
    X, Y = np.meshgrid(g, g, indexing="ij")
    x = np.stack([X.ravel(), Y.ravel()], 1)
    v = omega * np.stack([-(x[:, 1] - 0.5), x[:, 0] - 0.5], 1)
    return BlendedMPM(x, NeoHookean(1e4, 0.3), dx, (33, 33), density=1000.0, volume=(dx / 2) ** 2, v=v,
                      transfer=transfer, flip_ratio=flip_ratio)


def _run(sim, steps=40):
    dt = 0.5 * sim.max_dt()
    for _ in range(steps):
        sim.substep(dt)
    return sim


def test_apic_is_mpms_own_transfer_and_keeps_angular_momentum():
    sim = _spinning_block("apic")
    L0 = sim.angular_momentum()
    _run(sim)
    assert abs(sim.angular_momentum() / L0 - 1) < 1e-12


@pytest.mark.parametrize("transfer", ["pic", "flip"])
def test_pic_and_flip_keep_linear_momentum_and_lose_angular_momentum(transfer):
    sim = _spinning_block(transfer)
    p0, L0 = (sim.mass[:, None] * sim.v).sum(0), sim.angular_momentum()
    _run(sim)
    assert np.abs((sim.mass[:, None] * sim.v).sum(0) - p0).max() < 1e-12 * np.abs(sim.mass[:, None] * sim.v).sum()
    assert sim.angular_momentum() < L0 * (1 - 1e-3)


def test_flip_loses_less_than_pic_and_flip_ratio_zero_is_pic():
    losses = {t: 1 - _run(_spinning_block(t)).angular_momentum() / _spinning_block(t).angular_momentum()
              for t in ("pic", "flip")}
    assert losses["flip"] < 0.5 * losses["pic"]
    a, b = _run(_spinning_block("pic")), _run(_spinning_block("flip", flip_ratio=0.0))
    assert np.abs(a.x - b.x).max() < 1e-12 and np.abs(a.v - b.v).max() < 1e-12


def test_one_flip_step_is_the_particle_velocity_plus_the_grids_change():
    """Reference: the FLIP blend written with the public p2g / g2p of the same step (no stress: F = I)."""
    sim = _spinning_block("flip", flip_ratio=0.7)
    x, v, dt = sim.x.copy(), sim.v.copy(), 1e-4
    mass, momentum = p2g(x, v, sim.mass, sim.dx, sim.shape)
    before = momentum / np.where(mass > 0, mass, 1)[..., None]
    sim.substep(dt)
    v_pic, _ = g2p(x, sim._velocity, sim.dx)
    change, _ = g2p(x, sim._velocity - before * (mass > 0)[..., None], sim.dx)
    assert np.allclose(sim.v, 0.7 * (v + change) + 0.3 * v_pic, rtol=0, atol=1e-12)
    assert np.allclose(sim.x, x + dt * v_pic, rtol=0, atol=1e-14)


@pytest.mark.parametrize("kwargs, message", [({"transfer": "mls"}, "transfer"), ({"flip_ratio": 1.5}, "flip_ratio")])
def test_bad_blend_input_is_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        _spinning_block(**{"transfer": "flip", **kwargs})
