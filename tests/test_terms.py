"""simkit.terms: every term against finite differences, closed forms and the functional API it wraps; Sum."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
import utils
from simkit import terms

FD_STEP = 1e-6
GRAD_TOL = 1e-6
HESS_TOL = 1e-5
EXACT_TOL = 1e-12
N_NODES = 5


def _chain(dim, rng):
    """A random-ish chain of N_NODES nodes: rest positions, springs, stacked operators."""
    X = np.zeros((N_NODES, dim))
    X[:, 0] = np.linspace(0.0, 2.0, N_NODES)
    X[:, 1:] = 0.1 * rng.standard_normal((N_NODES, dim - 1))
    E = np.column_stack([np.arange(N_NODES - 1), np.arange(1, N_NODES)])
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(dim)).tocsc()
    l0 = simkit.edge_lengths(X, E).reshape(-1, 1)
    return X, E, J, l0


def _fd_check(term, x):
    g_fd = simkit.gradient_cfd(lambda y: term.energy(y), x, FD_STEP)
    np.testing.assert_allclose(term.gradient(x).ravel(), g_fd, rtol=GRAD_TOL, atol=GRAD_TOL)
    H_fd = simkit.gradient_cfd(lambda y: term.gradient(y).ravel(), x, FD_STEP)
    H = term.hessian(x)
    H = H.toarray() if sps.issparse(H) else np.asarray(H)
    np.testing.assert_allclose(H, H_fd, rtol=HESS_TOL, atol=HESS_TOL)


def _fd_check_scaled(term, x):
    """FD check for terms with large curvature (M / h^2): tolerances relative to the gradient scale."""
    g = term.gradient(x).ravel()
    g_fd = simkit.gradient_cfd(lambda y: term.energy(y), x, FD_STEP)
    np.testing.assert_allclose(g, g_fd, rtol=GRAD_TOL, atol=GRAD_TOL * np.abs(g).max())


# ---------------------------------------------------------------------------------------
# SpringEnergy
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [2, 3])
def test_spring_energy_closed_form_and_fd(dim):
    rng = np.random.default_rng(dim)
    X, E, J, l0 = _chain(dim, rng)
    ym = rng.uniform(1.0, 3.0, (len(E), 1))
    vol = rng.uniform(0.5, 1.5, (len(E), 1))
    spring = terms.SpringEnergy(J, ym, vol, l0)
    # Stretch every spring (scale up, then perturb a little): the exact Hessian is then PSD,
    # so the projected Hessian must match finite differences of the gradient.
    x = (1.3 * X + 0.01 * rng.standard_normal(X.shape)).reshape(-1, 1)
    l = simkit.edge_lengths(x.reshape(-1, dim), E).reshape(-1, 1)
    expected = np.sum(vol * 0.5 * ym * ((l - l0) / l0) ** 2)
    np.testing.assert_allclose(spring.energy(x), expected, rtol=EXACT_TOL)
    _fd_check(spring, x)


@pytest.mark.parametrize("dim", [2, 3])
def test_spring_energy_zero_at_rest(dim):
    rng = np.random.default_rng(10 + dim)
    X, E, J, l0 = _chain(dim, rng)
    spring = terms.SpringEnergy(J, np.full((len(E), 1), 5.0), l0.copy(), l0)
    x = X.reshape(-1, 1)
    assert spring.energy(x) == pytest.approx(0.0, abs=EXACT_TOL)
    np.testing.assert_allclose(spring.gradient(x), 0.0, atol=EXACT_TOL)


@pytest.mark.parametrize("dim", [2, 3])
def test_spring_energy_axial_stiffness(dim):
    """One spring with its first node fixed: d^2 Psi / d l^2 = ym * vol / l0^2 along the spring."""
    rng = np.random.default_rng(20 + dim)
    direction = rng.standard_normal(dim)
    direction /= np.linalg.norm(direction)
    L0, ym, vol = 0.7, 2.0e4, 0.7                     # ym = EA, vol = l0: an EA / l spring
    X = np.vstack([np.zeros(dim), L0 * direction])
    E = np.array([[0, 1]])
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(dim)).tocsc()
    spring = terms.SpringEnergy(J, [[ym]], [[vol]], [[L0]])
    x = np.concatenate([np.zeros(dim), 1.2 * L0 * direction]).reshape(-1, 1)
    H = spring.hessian(x).toarray()[dim:, dim:]
    np.testing.assert_allclose(direction @ H @ direction, ym * vol / L0 ** 2, rtol=EXACT_TOL)
    np.testing.assert_allclose(ym * vol / L0 ** 2, ym / L0)
    force = -spring.gradient(x)[dim:].ravel()
    np.testing.assert_allclose(force, -ym / L0 * (0.2 * L0) * direction, rtol=EXACT_TOL)   # EA/l * stretch


def test_spring_energy_hessian_is_psd_under_compression():
    rng = np.random.default_rng(30)
    X, E, J, l0 = _chain(2, rng)
    spring = terms.SpringEnergy(J, np.ones((len(E), 1)), l0.copy(), l0)
    x = (0.5 * X).reshape(-1, 1)                       # every spring compressed
    assert np.linalg.eigvalsh(spring.hessian(x).toarray()).min() >= -EXACT_TOL


@pytest.mark.parametrize("change, error, match", [
    (lambda a: {**a, "l0": np.zeros_like(a["l0"])}, ValueError, "^l0: expected strictly positive values"),
    (lambda a: {**a, "ym": np.ones((2, 1))}, ValueError, r"^ym: expected a scalar or one value per spring"),
    (lambda a: {**a, "ym": np.ones((8, 1))}, ValueError, r"^ym: .* for the 4 springs, got shape \(8, 1\)"),
    (lambda a: {**a, "vol": np.full((4, 1), np.nan)}, ValueError, "^vol: expected finite values"),
    (lambda a: {**a, "vol": "heavy"}, TypeError, "^vol: expected a real numeric array"),
    (lambda a: {**a, "J": "J"}, TypeError, "^J: expected a 2D sparse matrix"),
    (lambda a: {**a, "J": a["J"][:-1]}, ValueError, "^J: cannot tell the dimension"),
])
def test_spring_energy_bad_input(change, error, match):
    X, E, J, l0 = _chain(2, np.random.default_rng(0))
    args = change({"J": J, "ym": np.ones((4, 1)), "vol": np.ones((4, 1)), "l0": l0})
    with pytest.raises(error, match=match):
        terms.SpringEnergy(args["J"], args["ym"], args["vol"], args["l0"])


def test_spring_energy_takes_the_spring_count_from_j_not_from_a_parameter():
    """Issue 8: a 2-spring 2D chain with a 4-entry l0 is an error; a 1-entry ym means every spring."""
    X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
    E = np.array([[0, 1], [1, 2]])
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(2)).tocsc()
    with pytest.raises(ValueError, match="^l0: .* for the 2 springs"):
        terms.SpringEnergy(J, 1.0, 1.0, np.ones(4))
    spring = terms.SpringEnergy(J, np.ones(1), 1.0, 1.0)
    x = (1.1 * X).reshape(-1, 1)                       # both springs stretched by 10%
    np.testing.assert_allclose(spring.energy(x), 2 * 0.5 * 0.1 ** 2, rtol=EXACT_TOL)


def test_spring_energy_bad_state():
    X, E, J, l0 = _chain(2, np.random.default_rng(0))
    spring = terms.SpringEnergy(J, np.ones((4, 1)), l0, l0)
    with pytest.raises(ValueError, match=r"^x: expected a column vector of shape \(N, 1\), got \(2, 5\)"):
        spring.energy(np.zeros((5, 2)).T)
    with pytest.raises(ValueError, match="^x: expected 10 rows"):
        spring.gradient(np.zeros((8, 1)))


# ---------------------------------------------------------------------------------------
# PenaltySpring
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [2, 3])
def test_penalty_spring_closed_form_and_fd(dim):
    rng = np.random.default_rng(40 + dim)
    k = 123.0
    idx = np.array([0, 3])
    targets = rng.standard_normal((2, dim))
    pin = terms.PenaltySpring(N_NODES, dim, k)
    assert pin.set(idx, targets) is pin
    x = rng.standard_normal((N_NODES * dim, 1))
    expected = 0.5 * k * np.sum((x.reshape(N_NODES, dim)[idx] - targets) ** 2)
    np.testing.assert_allclose(pin.energy(x), expected, rtol=EXACT_TOL)
    _fd_check(pin, x)
    on_target = x.reshape(N_NODES, dim).copy()
    on_target[idx] = targets
    assert pin.energy(on_target.reshape(-1, 1)) == pytest.approx(0.0, abs=EXACT_TOL)


@pytest.mark.parametrize("dim", [2, 3])
def test_penalty_spring_energy_is_exact_at_a_stiff_clamp(dim):
    """A node 1e-7 off its target at k = 1e10: k/2 |r|^2 to round-off (the expanded 1/2 x^T Q x + b^T x + c
    cancels terms of size k |x|^2 ~ 1e16 and keeps no digit of the ~7e-5 J). Offset and target are
    powers of two, so x = target + offset is exact and so is the expected energy."""
    k, off = 1e10, 2.0 ** -23                  # 1.19e-7
    targets = np.full((1, dim), 1024.0)
    pin = terms.PenaltySpring(N_NODES, dim, k).set([2], targets)
    x = np.zeros((N_NODES, dim))
    x[2] = targets[0] + off
    expected = 0.5 * k * dim * off ** 2
    np.testing.assert_allclose(pin.energy(x.reshape(-1, 1)), expected, rtol=1e-12)


@pytest.mark.parametrize("dim", [2, 3])
def test_penalty_spring_gradient_is_exact_at_a_stiff_clamp(dim):
    """The same node: the force k (x_I - t) to round-off, zero off the held coordinates (the expanded
    Q x + b cancels terms of size k |x| ~ 1e13 and keeps about six digits of the ~1.2e3 N)."""
    k, off = 1e10, 2.0 ** -23
    targets = np.full((1, dim), 1024.0)
    pin = terms.PenaltySpring(N_NODES, dim, k).set([2], targets)
    x = np.full((N_NODES, dim), 7.0)
    x[2] = targets[0] + off
    expected = np.zeros((N_NODES, dim))
    expected[2] = k * off
    np.testing.assert_allclose(pin.gradient(x.reshape(-1, 1)), expected.reshape(-1, 1), rtol=1e-15, atol=0)


def test_penalty_spring_without_pins_is_zero():
    pin = terms.PenaltySpring(N_NODES, 2, 10.0)
    x = np.random.default_rng(50).standard_normal((2 * N_NODES, 1))
    assert pin.energy(x) == 0.0
    np.testing.assert_array_equal(pin.gradient(x), 0.0)
    assert pin.hessian(x).nnz == 0


def test_penalty_spring_set_replaces_pins():
    pin = terms.PenaltySpring(N_NODES, 2, 2.0).set([0], [[1.0, 0.0]]).set([1], [[0.0, 1.0]])
    x = np.zeros((2 * N_NODES, 1))
    np.testing.assert_allclose(pin.energy(x), 0.5 * 2.0 * 1.0)
    np.testing.assert_allclose(pin.gradient(x).ravel()[:4], [0.0, 0.0, 0.0, -2.0])


@pytest.mark.parametrize("args, error, match", [
    ((0, 2, 1.0), ValueError, "^n: expected an integer >= 1"),
    ((5.0, 2, 1.0), TypeError, "^n: expected an integer"),
    ((5, 4, 1.0), ValueError, "^dim: expected 2 or 3"),
    ((5, True, 1.0), TypeError, "^dim: expected an integer"),
    ((5, 2, 0.0), ValueError, "^k: expected a finite value > 0"),
    ((5, 2, "stiff"), TypeError, "^k: expected a real scalar"),
])
def test_penalty_spring_bad_construction(args, error, match):
    with pytest.raises(error, match=match):
        terms.PenaltySpring(*args)


@pytest.mark.parametrize("idx, targets, error, match", [
    ([N_NODES], [[0.0, 0.0]], ValueError, r"^idx: expected indices in \[0, 5\)"),
    ([0.5], [[0.0, 0.0]], TypeError, r"^idx: expected an integer index array"),
    ([0, 1], [[0.0, 0.0]], ValueError, r"^targets: expected shape \(2, 2\)"),
    ([0], [[np.nan, 0.0]], ValueError, "^targets: expected finite values"),
])
def test_penalty_spring_bad_set(idx, targets, error, match):
    with pytest.raises(error, match=match):
        terms.PenaltySpring(N_NODES, 2, 1.0).set(idx, targets)


# ---------------------------------------------------------------------------------------
# Gravity
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [2, 3])
def test_gravity(dim):
    rng = np.random.default_rng(60 + dim)
    X, E, J, l0 = _chain(dim, rng)
    f_g = simkit.gravity_force(X, E, a=-9.8, rho=1.0)
    gravity = terms.Gravity(f_g)
    x = rng.standard_normal((N_NODES * dim, 1))
    np.testing.assert_allclose(gravity.energy(x), -(f_g.reshape(-1) @ x.ravel()), rtol=EXACT_TOL)
    _fd_check(gravity, x)
    assert gravity.hessian(x).shape == (N_NODES * dim,) * 2 and gravity.hessian(x).nnz == 0
    lowered = x - 0.5 * np.tile(np.eye(dim)[1], N_NODES).reshape(-1, 1)     # every node 0.5 lower
    total_mass = simkit.massmatrix(X, E, rho=1.0).sum()
    np.testing.assert_allclose(gravity.energy(lowered) - gravity.energy(x), -0.5 * 9.8 * total_mass,
                               rtol=EXACT_TOL)


def test_gravity_bad_input():
    with pytest.raises(ValueError, match="^f_g: expected finite values"):
        terms.Gravity([[np.inf], [0.0]])
    with pytest.raises(TypeError, match="^f_g: expected a real numeric array"):
        terms.Gravity("down")
    with pytest.raises(ValueError, match="^x: expected 2 rows"):
        terms.Gravity([[1.0], [0.0]]).energy(np.zeros((3, 1)))


# ---------------------------------------------------------------------------------------
# Inertia
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [2, 3])
def test_inertia_equals_backward_euler_term(dim):
    rng = np.random.default_rng(70 + dim)
    X, E, J, l0 = _chain(dim, rng)
    M = sps.kron(simkit.massmatrix(X, E, rho=2.0), sps.eye(dim)).tocsc()
    h = 0.03
    x_n = rng.standard_normal((N_NODES * dim, 1))
    v_n = rng.standard_normal((N_NODES * dim, 1))
    inertia = terms.Inertia(M, h)
    assert inertia.update(x_n, v_n) is inertia
    x = rng.standard_normal((N_NODES * dim, 1))
    x_prev = x_n - h * v_n
    np.testing.assert_allclose(inertia.energy(x), simkit.energies.kinetic_energy_be(x, x_n, x_prev, M, h),
                               rtol=EXACT_TOL)
    r = x - (x_n + h * v_n)
    np.testing.assert_allclose(inertia.energy(x), (r.T @ (M @ r)).item() / (2 * h ** 2), rtol=EXACT_TOL)
    np.testing.assert_allclose(inertia.gradient(x), simkit.energies.kinetic_gradient_be(x, x_n, x_prev, M, h),
                               rtol=EXACT_TOL)
    np.testing.assert_allclose(inertia.hessian(x).toarray(), M.toarray() / h ** 2, rtol=EXACT_TOL)
    _fd_check_scaled(inertia, x)
    assert inertia.energy(x_n + h * v_n) == pytest.approx(0.0, abs=EXACT_TOL)


def test_inertia_needs_update():
    inertia = terms.Inertia(sps.eye(4).tocsc(), 0.1)
    with pytest.raises(RuntimeError, match=r"call update\(x_n, v_n\)"):
        inertia.energy(np.zeros((4, 1)))


@pytest.mark.parametrize("M, h, error, match", [
    (sps.eye(4).tocsc(), 0.0, ValueError, "^h: expected a finite value > 0"),
    (sps.eye(4).tocsc(), 1e200, ValueError, "^h: expected a time step with h\\*\\*2 a normal positive float"),
    (sps.eye(4).tocsc(), "0.1", TypeError, "^h: expected a real scalar"),
    (np.ones((4, 3)), 0.1, ValueError, r"^M: expected a square matrix of shape \(N, N\)"),
    (-sps.eye(4).tocsc(), 0.1, ValueError, "^M: expected a positive diagonal"),
    (sps.csc_matrix(np.triu(np.ones((4, 4)))), 0.1, ValueError, "^M: expected a symmetric mass matrix"),
])
def test_inertia_bad_construction(M, h, error, match):
    with pytest.raises(error, match=match):
        terms.Inertia(M, h)


def test_inertia_bad_update():
    inertia = terms.Inertia(sps.eye(4).tocsc(), 0.1)
    with pytest.raises(ValueError, match="^v_n: expected 4 rows"):
        inertia.update(np.zeros((4, 1)), np.zeros((3, 1)))
    with pytest.raises(ValueError, match="^x_n: expected finite values"):
        inertia.update(np.full((4, 1), np.nan), np.zeros((4, 1)))


# ---------------------------------------------------------------------------------------
# the terms are the functional API, prepared: bit-identical values (chapters print the same numbers)
# ---------------------------------------------------------------------------------------

def _same(a, b):
    """Bitwise equal floats, arrays or sparse matrices (same stored values, same pattern)."""
    if sps.issparse(a):
        a, b = sps.csc_matrix(a), sps.csc_matrix(b)
        a.sort_indices()
        b.sort_indices()
        np.testing.assert_array_equal(a.indptr, b.indptr)
        np.testing.assert_array_equal(a.indices, b.indices)
        a, b = a.data, b.data
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("dim", [2, 3])
def test_terms_equal_the_functions_they_prepare_bit_for_bit(dim):
    rng = np.random.default_rng(80 + dim)
    X, E, J, l0 = _chain(dim, rng)
    x = (X + 0.2 * rng.standard_normal(X.shape)).reshape(-1, 1)       # some springs stretched, some compressed
    ym, vol = rng.uniform(1.0, 3.0, (len(E), 1)), rng.uniform(0.5, 1.5, (len(E), 1))
    spring = terms.SpringEnergy(J, ym, vol, l0)
    k = ym / l0 ** 2
    _same(spring.energy(x), simkit.energies.mass_springs_energy_z(x, J, k, vol, l0))
    _same(spring.gradient(x), simkit.energies.mass_springs_gradient_z(x, J, k, vol, l0))
    _same(spring.hessian(x), simkit.energies.mass_springs_hessian_z(x, J, k, vol, l0, psd=True))
    targets = rng.standard_normal((2, dim))
    pin = terms.PenaltySpring(N_NODES, dim, 1e10).set([0, 1], targets)
    Q, b = simkit.dirichlet_penalty([0, 1], targets, N_NODES, 1e10)
    np.testing.assert_allclose(pin.energy(x), simkit.energies.quadratic_energy(x, Q, b)   # up to the expanded
                               + 0.5 * 1e10 * np.sum(targets ** 2), rtol=1e-9)             # form's cancellation
    np.testing.assert_allclose(pin.gradient(x), simkit.energies.quadratic_gradient(x, Q, b),   # the expanded
                               rtol=0, atol=1e-5)                                            # form cancels k |x|
    M = sps.kron(simkit.massmatrix(X, E, rho=0.2), sps.eye(dim)).tocsc()
    x_n, v_n, h = X.reshape(-1, 1), rng.standard_normal(x.shape), 0.02
    inertia = terms.Inertia(M, h).update(x_n, v_n)
    _same(inertia.energy(x), simkit.energies.kinetic_energy_be(x, x_n, x_n - h * v_n, M, h))
    _same(inertia.gradient(x), simkit.energies.kinetic_gradient_be(x, x_n, x_n - h * v_n, M, h))
    _same(inertia.hessian(x), simkit.energies.kinetic_hessian_be(M, h))


def test_utils_reexports_the_terms():
    for name in ("SpringEnergy", "PenaltySpring", "Gravity", "Inertia"):
        assert getattr(utils, name) is getattr(terms, name)


# ---------------------------------------------------------------------------------------
# Bending: the hinge term of 014 (2D triples) and 015 (3D quads)
# ---------------------------------------------------------------------------------------

def _beam(n=6, seed=90):
    """A bent 2D polyline: positions (n, 2), hinge triples, a random rest angle per hinge."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.linspace(0.0, 2.0, n), 0.2 * rng.standard_normal(n)])
    C = np.column_stack([np.arange(n - 2), np.arange(1, n - 1), np.arange(2, n)])
    return X, C, 0.3 * rng.standard_normal(n - 2), rng.uniform(1.0, 3.0, n - 2)


def _folded_sheet(seed=91):
    """A 4 x 3 grid sheet, crumpled: positions (12, 3), hinge quads, flat rest angles, stiffnesses."""
    rng = np.random.default_rng(seed)
    V, F = simkit.grid_sheet(4, 3, 1.0, 0.6)
    C = simkit.hinge_quads(F)
    X = V + 0.1 * rng.standard_normal(V.shape)
    return X, C, np.zeros(len(C)), simkit.discrete_shells_stiffness(V, C, 2.0).ravel()


@pytest.mark.parametrize("geometry", [_beam, _folded_sheet])
@pytest.mark.parametrize("psd", [True, False])
def test_bending_equals_bending_x_bit_for_bit(geometry, psd):
    X, C, theta0, kappa = geometry()
    x = X.reshape(-1, 1)
    bending = terms.Bending(C, theta0, kappa, psd=psd)
    _same(bending.energy(x), simkit.energies.bending_energy_x(x, C, theta0, kappa))
    _same(bending.gradient(x), simkit.energies.bending_gradient_x(x, C, theta0, kappa))
    _same(bending.hessian(x), simkit.energies.bending_hessian_x(x, C, theta0, kappa, psd=psd))


@pytest.mark.parametrize("geometry", [_beam, _folded_sheet])
def test_bending_closed_form_fd_and_projection(geometry):
    X, C, theta0, kappa = geometry()
    x = X.reshape(-1, 1)
    exact = terms.Bending(C, theta0, kappa, psd=False)
    theta = simkit.dihedral_angles(X, C).ravel()
    np.testing.assert_allclose(exact.energy(x), np.sum(0.5 * kappa * (theta - theta0) ** 2), rtol=EXACT_TOL)
    _fd_check(exact, x)
    projected = terms.Bending(C, theta0, kappa).hessian(x).toarray()           # psd=True, as chapters use it
    assert np.linalg.eigvalsh(projected).min() >= -EXACT_TOL
    assert np.linalg.eigvalsh(exact.hessian(x).toarray()).min() < -1e-3       # folded: the exact one is not PSD


def test_bending_is_zero_at_rest_and_takes_positions_too():
    X, C, _, kappa = _beam()
    bending = terms.Bending(C, simkit.dihedral_angles(X, C), kappa)
    assert bending.energy(X.reshape(-1, 1)) == pytest.approx(0.0, abs=EXACT_TOL)
    np.testing.assert_allclose(bending.gradient(X), 0.0, atol=EXACT_TOL)     # (n, dim) positions, as bending_x


def test_bending_reads_the_size_from_x():
    """Hinges need not reach the last nodes: a longer x just adds free nodes (zero rows)."""
    X, C, theta0, kappa = _beam()
    bending = terms.Bending(C, theta0, kappa)
    longer = np.vstack([X, [[5.0, 5.0], [6.0, 5.0]]])
    g = bending.gradient(longer.reshape(-1, 1))
    assert g.shape == (2 * len(longer), 1)
    np.testing.assert_array_equal(g[-4:], 0.0)
    _same(g[:-4], bending.gradient(X.reshape(-1, 1)))
    assert bending.hessian(longer.reshape(-1, 1)).shape == (2 * len(longer),) * 2


@pytest.mark.parametrize("args, x, error, match", [
    ((np.zeros((3, 2), int), 0.0, 1.0), None, ValueError, r"^C: expected hinge triples \(c, 3\)"),
    ((np.zeros((3, 3)), 0.0, 1.0), None, TypeError, "^C: expected an integer index array"),
    (([[0, 1, -1]], 0.0, 1.0), None, ValueError, r"^C: expected indices in \[0, "),
    (([[0, 1, 2]], [0.0, 1.0], 1.0), None, ValueError, r"^theta0: expected a scalar or one value per hinge"),
    (([[0, 1, 2]], 0.0, -1.0), None, ValueError, "^kappa: expected non-negative values"),
    (([[0, 1, 7]], 0.0, 1.0), np.zeros((6, 1)), ValueError, "^x: the hinges C reach node 7, but x holds 3 nodes"),
    (([[0, 1, 2]], 0.0, 1.0), np.zeros((7, 1)), ValueError, "^x: 7 rows is not a multiple of dim = 2"),
    (([[0, 1, 2, 3]], 0.0, 1.0), np.zeros((4, 2)), ValueError, r"^x: expected \(n, dim\) positions with dim in \(3,\)"),
])
def test_bending_bad_input(args, x, error, match):
    with pytest.raises(error, match=match):
        terms.Bending(*args).energy(x)
    with pytest.raises(TypeError, match="^psd: expected True, False or the name of a projection"):
        terms.Bending([[0, 1, 2]], 0.0, 1.0, psd=None)


# ---------------------------------------------------------------------------------------
# Sum: one more term, evaluated left to right
# ---------------------------------------------------------------------------------------

def _cantilever(dim=2):
    """014's potential on a small chain: springs, bending (2D), gravity and a clamp, plus inertia."""
    rng = np.random.default_rng(100 + dim)
    X, E, J, l0 = _chain(dim, rng)
    spring = terms.SpringEnergy(J, 2.0e4, l0.copy(), l0)
    C = np.column_stack([np.arange(N_NODES - 2), np.arange(1, N_NODES - 1), np.arange(2, N_NODES)])
    bending = terms.Bending(C, simkit.dihedral_angles(X, C), 50.0)
    gravity = terms.Gravity(simkit.gravity_force(X, E, a=-9.8, rho=0.2))
    pin = terms.PenaltySpring(N_NODES, dim, 1e10).set([0, 1], X[[0, 1]])
    M = sps.kron(simkit.massmatrix(X, E, rho=0.2), sps.eye(dim)).tocsc()
    inertia = terms.Inertia(M, 0.02).update(X.reshape(-1, 1), np.zeros((N_NODES * dim, 1)))
    x = (X + 0.05 * rng.standard_normal(X.shape)).reshape(-1, 1)
    return (spring, bending, gravity, pin), inertia, x


def test_sum_is_the_left_to_right_sum_of_its_terms():
    parts, inertia, x = _cantilever()
    spring, bending, gravity, pin = parts
    potential = terms.Sum(*parts)
    _same(potential.energy(x), spring.energy(x) + bending.energy(x) + gravity.energy(x) + pin.energy(x))
    _same(potential.gradient(x), spring.gradient(x) + bending.gradient(x) + gravity.gradient(x) + pin.gradient(x))
    _same(potential.hessian(x), spring.hessian(x) + bending.hessian(x) + pin.hessian(x))     # gravity adds 0
    step = terms.Sum(inertia, potential)                     # a sum is a term: one backward-Euler objective
    _same(step.energy(x), inertia.energy(x) + potential.energy(x))
    _same(step.hessian(x), inertia.hessian(x) + potential.hessian(x))
    assert potential.size == step.size == x.shape[0] and potential.terms == parts
    _fd_check_scaled(step, x)


def test_plus_builds_a_sum_in_order():
    parts, _, x = _cantilever()
    spring, bending, gravity, pin = parts
    total = spring + bending + gravity + pin
    assert isinstance(total, terms.Sum)
    _same(total.energy(x), terms.Sum(*parts).energy(x))

    class Doubled:                                           # any object with the three methods is a term
        def energy(self, x):
            return 2 * spring.energy(x)

        def gradient(self, x):
            return 2 * spring.gradient(x)

        def hessian(self, x):
            return 2 * spring.hessian(x)

    _same((Doubled() + spring).energy(x), 3 * spring.energy(x))
    with pytest.raises(TypeError):
        spring + 1.0


def test_sum_max_step_is_the_smallest_filter_of_its_terms():
    (spring, bending, gravity, pin), inertia, x = _cantilever()
    n = N_NODES
    ground = terms.HalfSpaceContact(n, 2, [0.0, -0.5], [0.0, 1.0], 0.01, 1e3)
    wall = terms.HalfSpaceContact(n, 2, [4.0, 0.0], [-1.0, 0.0], 0.01, 1e3)
    X = x.reshape(n, 2)
    dx = np.zeros_like(X)
    dx[:, 1] = -(X[:, 1] + 0.5) * 2.0          # every node would end as far below the ground as it starts above
    dx[:, 0] = 1.0
    dx = dx.reshape(-1, 1)
    a, b = ground.max_step(x, dx), wall.max_step(x, dx)
    assert 0 < a < 1 and 0 < b <= 1 and a != b
    assert terms.Sum(spring, ground, gravity, wall).max_step(x, dx) == min(a, b)
    assert terms.Sum(terms.Sum(spring, wall), ground).max_step(x, dx) == min(a, b)   # a nested Sum's filter counts
    assert terms.Sum(spring, gravity).max_step(x, dx) == 1.0                          # no filter: the full step
    assert terms.Sum(spring, ground).max_step(x, dx) == a


def test_sum_bad_terms():
    parts, _, _ = _cantilever()
    with pytest.raises(ValueError, match="^terms: expected at least one energy term"):
        terms.Sum()
    with pytest.raises(TypeError, match=r"^terms\[1\]: expected an energy term with energy\(x\)"):
        terms.Sum(parts[0], np.eye(3))
    other = terms.Gravity(np.zeros((3 * N_NODES, 1)))             # a 3D system beside a 2D one
    with pytest.raises(ValueError, match=r"^terms: expected every term to act on the same stacked x, got sizes \[10, 15\]"):
        terms.Sum(*parts, other)
