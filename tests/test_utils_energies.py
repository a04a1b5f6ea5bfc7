"""utils energy terms: SpringEnergy, PenaltySpring, Gravity, Inertia against FD and closed forms."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
import utils

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
    spring = utils.SpringEnergy(J, ym, vol, l0)
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
    spring = utils.SpringEnergy(J, np.full((len(E), 1), 5.0), l0.copy(), l0)
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
    spring = utils.SpringEnergy(J, [[ym]], [[vol]], [[L0]])
    x = np.concatenate([np.zeros(dim), 1.2 * L0 * direction]).reshape(-1, 1)
    H = spring.hessian(x).toarray()[dim:, dim:]
    np.testing.assert_allclose(direction @ H @ direction, ym * vol / L0 ** 2, rtol=EXACT_TOL)
    np.testing.assert_allclose(ym * vol / L0 ** 2, ym / L0)
    force = -spring.gradient(x)[dim:].ravel()
    np.testing.assert_allclose(force, -ym / L0 * (0.2 * L0) * direction, rtol=EXACT_TOL)   # EA/l * stretch


def test_spring_energy_hessian_is_psd_under_compression():
    rng = np.random.default_rng(30)
    X, E, J, l0 = _chain(2, rng)
    spring = utils.SpringEnergy(J, np.ones((len(E), 1)), l0.copy(), l0)
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
        utils.SpringEnergy(args["J"], args["ym"], args["vol"], args["l0"])


def test_spring_energy_takes_the_spring_count_from_j_not_from_a_parameter():
    """Issue 8: a 2-spring 2D chain with a 4-entry l0 is an error; a 1-entry ym means every spring."""
    X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
    E = np.array([[0, 1], [1, 2]])
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(2)).tocsc()
    with pytest.raises(ValueError, match="^l0: .* for the 2 springs"):
        utils.SpringEnergy(J, 1.0, 1.0, np.ones(4))
    spring = utils.SpringEnergy(J, np.ones(1), 1.0, 1.0)
    x = (1.1 * X).reshape(-1, 1)                       # both springs stretched by 10%
    np.testing.assert_allclose(spring.energy(x), 2 * 0.5 * 0.1 ** 2, rtol=EXACT_TOL)


def test_spring_energy_bad_state():
    X, E, J, l0 = _chain(2, np.random.default_rng(0))
    spring = utils.SpringEnergy(J, np.ones((4, 1)), l0, l0)
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
    pin = utils.PenaltySpring(N_NODES, dim, k)
    assert pin.set(idx, targets) is pin
    x = rng.standard_normal((N_NODES * dim, 1))
    expected = 0.5 * k * np.sum((x.reshape(N_NODES, dim)[idx] - targets) ** 2)
    np.testing.assert_allclose(pin.energy(x), expected, rtol=EXACT_TOL)
    _fd_check(pin, x)
    on_target = x.reshape(N_NODES, dim).copy()
    on_target[idx] = targets
    assert pin.energy(on_target.reshape(-1, 1)) == pytest.approx(0.0, abs=EXACT_TOL)


def test_penalty_spring_without_pins_is_zero():
    pin = utils.PenaltySpring(N_NODES, 2, 10.0)
    x = np.random.default_rng(50).standard_normal((2 * N_NODES, 1))
    assert pin.energy(x) == 0.0
    np.testing.assert_array_equal(pin.gradient(x), 0.0)
    assert pin.hessian(x).nnz == 0


def test_penalty_spring_set_replaces_pins():
    pin = utils.PenaltySpring(N_NODES, 2, 2.0).set([0], [[1.0, 0.0]]).set([1], [[0.0, 1.0]])
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
        utils.PenaltySpring(*args)


@pytest.mark.parametrize("idx, targets, error, match", [
    ([N_NODES], [[0.0, 0.0]], ValueError, r"^idx: expected indices in \[0, 5\)"),
    ([0.5], [[0.0, 0.0]], TypeError, r"^idx: expected an integer index array"),
    ([0, 1], [[0.0, 0.0]], ValueError, r"^targets: expected shape \(2, 2\)"),
    ([0], [[np.nan, 0.0]], ValueError, "^targets: expected finite values"),
])
def test_penalty_spring_bad_set(idx, targets, error, match):
    with pytest.raises(error, match=match):
        utils.PenaltySpring(N_NODES, 2, 1.0).set(idx, targets)


# ---------------------------------------------------------------------------------------
# Gravity
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [2, 3])
def test_gravity(dim):
    rng = np.random.default_rng(60 + dim)
    X, E, J, l0 = _chain(dim, rng)
    f_g = simkit.gravity_force(X, E, a=-9.8, rho=1.0)
    gravity = utils.Gravity(f_g)
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
        utils.Gravity([[np.inf], [0.0]])
    with pytest.raises(TypeError, match="^f_g: expected a real numeric array"):
        utils.Gravity("down")
    with pytest.raises(ValueError, match="^x: expected 2 rows"):
        utils.Gravity([[1.0], [0.0]]).energy(np.zeros((3, 1)))


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
    inertia = utils.Inertia(M, h)
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
    inertia = utils.Inertia(sps.eye(4).tocsc(), 0.1)
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
        utils.Inertia(M, h)


def test_inertia_bad_update():
    inertia = utils.Inertia(sps.eye(4).tocsc(), 0.1)
    with pytest.raises(ValueError, match="^v_n: expected 4 rows"):
        inertia.update(np.zeros((4, 1)), np.zeros((3, 1)))
    with pytest.raises(ValueError, match="^x_n: expected finite values"):
        inertia.update(np.full((4, 1), np.nan), np.zeros((4, 1)))
