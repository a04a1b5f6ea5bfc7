"""simkit.mpm weights and transfers: partition of unity, affine reproduction, momentum conservation,
the compiled kernels against a plain numpy reference, and the input checks."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simkit.mpm as mpm
from simkit.mpm import weights

SETTINGS = settings(max_examples=60, deadline=None, database=None, derandomize=True)
ROUNDOFF = 1e-12
FD_STEP = 1e-6


def _particles(rng, n, d, shape=(12, 13, 11), dx=0.1, origin=None):
    """n random particles strictly inside a grid's quadratic-stencil bounds."""
    origin = np.zeros(d) if origin is None else origin
    low, high = mpm.grid_bounds(dx, shape[:d], origin)
    return rng.uniform(low + 1e-9, high - 1e-9, (n, d))


# ---- weights ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("order, D", [(2, 0.25), (3, 1.0 / 3.0)])
@pytest.mark.parametrize("d", [2, 3])
def test_weights_partition_unity_reproduce_linear_and_have_the_apic_inertia(d, order, D):
    rng = np.random.default_rng(1)
    dx, origin = 0.3, rng.normal(size=d)
    x = origin + rng.uniform(2.0, 5.0, (40, d)) * dx
    nodes, w, grad = weights.bspline_stencil(x, dx, origin, order)
    offset = origin + nodes * dx - x[:, None, :]                        # x_i - x_p
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=ROUNDOFF)
    np.testing.assert_allclose(np.einsum("pi,pia->pa", w, offset), 0.0, atol=ROUNDOFF)
    np.testing.assert_allclose(np.einsum("pi,pia,pib->pab", w, offset, offset) / dx ** 2,
                               np.broadcast_to(D * np.eye(d), (40, d, d)), atol=ROUNDOFF)
    np.testing.assert_allclose(grad.sum(axis=1), 0.0, atol=1e-10)
    # sum_i grad w_ip (x_i - x_p)^T = I: d(sum_i w_ip x_i)/dx_p = dx_p/dx_p, since the weights reproduce x_p
    np.testing.assert_allclose(np.einsum("pia,pib->pab", grad, offset), np.broadcast_to(np.eye(d), (40, d, d)),
                               atol=1e-10)


@pytest.mark.parametrize("order", [2, 3])
@pytest.mark.parametrize("d", [2, 3])
def test_weight_gradients_match_central_differences(d, order):
    rng = np.random.default_rng(2)
    dx = 0.2
    x = rng.uniform(3.0, 6.0, (10, d)) * dx
    nodes, _, grad = weights.bspline_stencil(x, dx, None, order)
    for a in range(d):
        e = np.zeros(d)
        e[a] = FD_STEP
        r_plus = (x + e)[:, None, :] / dx - nodes
        r_minus = (x - e)[:, None, :] / dx - nodes
        fd = (np.prod(weights.bspline(r_plus, order)[0], axis=2) - np.prod(weights.bspline(r_minus, order)[0], axis=2))
        np.testing.assert_allclose(fd / (2 * FD_STEP), grad[:, :, a], atol=1e-6 / dx)


def test_the_1d_kernels_are_the_closed_forms():
    r = np.array([0.0, 0.25, -0.25, 0.5, 1.0, -1.25, 1.5, 2.5])
    N2 = weights.bspline(r, 2)[0]
    np.testing.assert_allclose(N2, [0.75, 0.6875, 0.6875, 0.5, 0.125, 0.03125, 0.0, 0.0], atol=ROUNDOFF)
    N3 = weights.bspline(r, 3)[0]
    np.testing.assert_allclose(N3, [2 / 3, 0.5 * 0.25 ** 3 - 0.0625 + 2 / 3, 0.5 * 0.25 ** 3 - 0.0625 + 2 / 3,
                                    0.5 * 0.125 - 0.25 + 2 / 3, 1 / 6, 0.75 ** 3 / 6, 0.125 / 6, 0.0], atol=ROUNDOFF)


# ---- the compiled kernels against a plain numpy reference -------------------------------------------------


def reference_p2g(x, v, m, dx, shape, C, origin):
    """P2G written with the weights tier and np.add.at, no loops over particles."""
    d = x.shape[1]
    nodes, w, _ = weights.bspline_stencil(x, dx, origin, 2)
    offset = origin + nodes * dx - x[:, None, :]
    flat = np.ravel_multi_index(tuple(nodes.reshape(-1, d).T), shape)
    mass = np.zeros(int(np.prod(shape)))
    np.add.at(mass, flat, (w * m[:, None]).ravel())
    p = m[:, None, None] * (v[:, None, :] + np.einsum("pab,pib->pia", C, offset))
    momentum = np.zeros((mass.size, d))
    np.add.at(momentum, flat, (w[:, :, None] * p).reshape(-1, d))
    return mass.reshape(shape), momentum.reshape(shape + (d,))


def reference_g2p(x, velocity, dx, origin):
    d = x.shape[1]
    nodes, w, _ = weights.bspline_stencil(x, dx, origin, 2)
    offset = origin + nodes * dx - x[:, None, :]
    vi = velocity[tuple(nodes[..., a] for a in range(d))]               # (n, 3^d, d)
    return np.einsum("pi,pia->pa", w, vi), 4.0 / dx ** 2 * np.einsum("pi,pia,pib->pab", w, vi, offset)


@pytest.mark.parametrize("d", [2, 3])
def test_compiled_transfers_equal_the_numpy_reference(d):
    rng = np.random.default_rng(3)
    shape, dx, origin = (9, 10, 8)[:d], 0.07, rng.normal(size=d)
    x = _particles(rng, 60, d, shape, dx, origin)
    v, m, C = rng.normal(size=(60, d)), rng.uniform(0.1, 2.0, 60), rng.normal(size=(60, d, d))
    mass, momentum = mpm.p2g(x, v, m, dx, shape, C=C, origin=origin)
    ref_mass, ref_momentum = reference_p2g(x, v, m, dx, shape, C, origin)
    np.testing.assert_allclose(mass, ref_mass, rtol=ROUNDOFF, atol=ROUNDOFF)
    np.testing.assert_allclose(momentum, ref_momentum, rtol=1e-11, atol=1e-11)
    velocity = rng.normal(size=shape + (d,))
    v_new, C_new = mpm.g2p(x, velocity, dx, origin)
    ref_v, ref_C = reference_g2p(x, velocity, dx, origin)
    np.testing.assert_allclose(v_new, ref_v, atol=ROUNDOFF)
    np.testing.assert_allclose(C_new, ref_C, rtol=1e-11, atol=1e-9)


# ---- APIC's properties -------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [2, 3])
def test_apic_gathers_an_affine_field_exactly(d):
    rng = np.random.default_rng(4)
    shape, dx, origin = (10, 11, 9)[:d], 0.05, rng.normal(size=d)
    b, A = rng.normal(size=d), rng.normal(size=(d, d))
    nodes = origin + dx * np.stack(np.meshgrid(*[np.arange(s) for s in shape], indexing="ij"), axis=-1)
    velocity = b + nodes @ A.T                                           # v_i = b + A x_i
    x = _particles(rng, 50, d, shape, dx, origin)
    v, C = mpm.g2p(x, velocity, dx, origin)
    np.testing.assert_allclose(v, b + x @ A.T, atol=1e-12)
    np.testing.assert_allclose(C, np.broadcast_to(A, (50, d, d)), atol=1e-9)


def _angular_momentum(x, p):
    """sum of x x p in 2D (scalar z component)."""
    return np.sum(x[..., 0] * p[..., 1] - x[..., 1] * p[..., 0])


def _grid(shape, dx, origin):
    return origin + dx * np.stack(np.meshgrid(*[np.arange(s) for s in shape], indexing="ij"), axis=-1)


@SETTINGS
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(1, 40), dx=st.floats(0.01, 1.0))
def test_p2g_conserves_linear_and_angular_momentum_with_the_affine_term(seed, n, dx):
    rng = np.random.default_rng(seed)
    shape, origin = (14, 12), rng.uniform(-3, 3, 2)
    x = _particles(rng, n, 2, shape, dx, origin)
    v, m, C = rng.normal(size=(n, 2)), rng.uniform(0.0, 3.0, n), rng.normal(size=(n, 2, 2)) / dx
    mass, momentum = mpm.p2g(x, v, m, dx, shape, C=C, origin=origin)
    scale = np.sum(m * (np.abs(v).sum(axis=1) + dx * np.abs(C).sum(axis=(1, 2)))) * (1 + np.abs(x).max())
    np.testing.assert_allclose(mass.sum(), m.sum(), rtol=1e-12)
    np.testing.assert_allclose(momentum.sum(axis=(0, 1)), (m[:, None] * v).sum(axis=0), atol=1e-12 * scale)
    particles = _angular_momentum(x, m[:, None] * v) + np.sum(m * dx ** 2 / 4 * (C[:, 1, 0] - C[:, 0, 1]))
    assert abs(_angular_momentum(_grid(shape, dx, origin), momentum) - particles) <= 1e-11 * scale


def _rotation(n, seed):
    """Particles of a disk in rigid rotation about its centre, on a 32 x 32 grid."""
    rng = np.random.default_rng(seed)
    r, t = 0.25 * np.sqrt(rng.uniform(0, 1, n)), rng.uniform(0, 2 * np.pi, n)
    x = 0.5 + np.stack([r * np.cos(t), r * np.sin(t)], axis=1)
    v = 2.0 * np.stack([-(x[:, 1] - 0.5), x[:, 0] - 0.5], axis=1)
    return x, v, np.full(n, 1.0 / n), 1.0 / 31, (32, 32)


def test_an_apic_round_trip_keeps_angular_momentum_and_pic_loses_it():
    x, v, m, dx, shape = _rotation(2000, 5)
    L0 = _angular_momentum(x, m[:, None] * v)                             # C = 0 at the start
    grid_x = _grid(shape, dx, np.zeros(2))
    C = np.zeros((len(m), 2, 2))
    for _ in range(3):                                                    # three APIC round trips
        mass, momentum = mpm.p2g(x, v, m, dx, shape, C=C)
        velocity = np.where(mass[..., None] > 0, momentum / np.where(mass > 0, mass, 1.0)[..., None], 0.0)
        np.testing.assert_allclose(_angular_momentum(grid_x, momentum), L0, rtol=1e-12)
        v, C = mpm.g2p(x, velocity, dx)
    apic = _angular_momentum(x, m[:, None] * v) + np.sum(m * dx ** 2 / 4 * (C[:, 1, 0] - C[:, 0, 1]))
    np.testing.assert_allclose(apic, L0, rtol=1e-12)

    x, v, m, dx, shape = _rotation(2000, 5)
    for _ in range(3):                                                    # three PIC round trips
        mass, momentum = mpm.p2g(x, v, m, dx, shape)
        velocity = np.where(mass[..., None] > 0, momentum / np.where(mass > 0, mass, 1.0)[..., None], 0.0)
        v = mpm.g2p(x, velocity, dx)[0]
    pic = _angular_momentum(x, m[:, None] * v)
    assert pic < 0.97 * L0, f"PIC kept {pic / L0:.4f} of the angular momentum"


# ---- input checks ------------------------------------------------------------------------------------------


def _case(n=5, d=2):
    rng = np.random.default_rng(6)
    return _particles(rng, n, d, (10, 10, 10), 0.1), rng.normal(size=(n, d)), np.ones(n)


def test_particles_outside_the_grid_are_counted_with_the_bounds():
    x, v, m = _case()
    x[1] = [0.01, 0.5]
    x[3] = [0.5, 0.95]
    with pytest.raises(ValueError, match=r"x: 2 of 5 particles lie outside the grid.*\[\(0.05, 0.05\), \(0.85, 0.85\)\)"):
        mpm.p2g(x, v, m, 0.1, (10, 10))
    with pytest.raises(ValueError, match="x: 2 of 5 particles lie outside"):
        mpm.g2p(x, np.zeros((10, 10, 2)), 0.1)


@pytest.mark.parametrize("field", ["x", "v", "m", "C"])
def test_nan_and_inf_are_named(field):
    x, v, m = _case()
    args = dict(x=x, v=v, m=m, C=np.zeros((5, 2, 2)))
    args[field] = args[field].copy()
    args[field].flat[2] = np.nan if field != "m" else np.inf
    with pytest.raises(ValueError, match=f"^{field}: expected finite values"):
        mpm.p2g(args["x"], args["v"], args["m"], 0.1, (10, 10), C=args["C"])


def test_negative_mass_is_an_error():
    x, v, m = _case()
    m[4] = -1.0
    with pytest.raises(ValueError, match="m: expected masses >= 0, found 1 negative"):
        mpm.p2g(x, v, m, 0.1, (10, 10))


@pytest.mark.parametrize("call, message", [
    (lambda x, v, m: mpm.p2g(x, v[:4], m, 0.1, (10, 10)), r"v: expected shape \(5, 2\)"),
    (lambda x, v, m: mpm.p2g(x, v, m[:3], 0.1, (10, 10)), r"m: expected one mass per particle"),
    (lambda x, v, m: mpm.p2g(x, v, m, 0.1, (10, 10), C=np.zeros((5, 3, 3))), r"C: expected shape \(5, 2, 2\)"),
    (lambda x, v, m: mpm.p2g(x, v, m, 0.1, (10, 10, 10)), r"shape: expected 2 node counts"),
    (lambda x, v, m: mpm.p2g(x, v, m, 0.1, (10, 2)), r"shape: expected at least 3 nodes"),
    (lambda x, v, m: mpm.p2g(x, v, m, -0.1, (10, 10)), r"dx"),
    (lambda x, v, m: mpm.p2g(x, v, m, 0.1, (10, 10), origin=[0.0, 0.0, 0.0]), r"origin: expected shape \(2,\)"),
    (lambda x, v, m: mpm.g2p(x, np.zeros((10, 10, 3)), 0.1), r"velocity: expected a grid of d-vectors"),
    (lambda x, v, m: mpm.p2g(x[:, :1], v, m, 0.1, (10,)), r"x: expected shape \(n, dim\)"),
])
def test_mismatched_shapes_are_named(call, message):
    with pytest.raises(ValueError, match=message):
        call(*_case())
