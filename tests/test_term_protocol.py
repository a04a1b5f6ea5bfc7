"""One protocol for every energy term of simkit.terms: size, derivatives, +, Sum, max_step, update."""
import inspect

import numpy as np
import pytest
import scipy.sparse as sps

import simkit
from simkit import terms
from simkit.terms import Term

DERIVATIVE_TOL = 1e-6      # relative to the largest entry of the gradient / Hessian compared


def _dense(H):
    return H.toarray() if sps.issparse(H) else np.asarray(H)


def _chain(dim, n=6, seed=0):
    """A wiggly chain of n nodes: rest positions X, edges E, stacked edge operator J, rest lengths."""
    rng = np.random.default_rng(seed + dim)
    X = np.zeros((n, dim))
    X[:, 0] = np.linspace(0.0, 1.0, n)
    X[:, 1:] = 0.05 * rng.standard_normal((n, dim - 1))
    E = np.column_stack([np.arange(n - 1), np.arange(1, n)])
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(dim)).tocsc()
    return X, E, J, simkit.edge_lengths(X, E).reshape(-1, 1)


def _stretched(X, seed):
    """X scaled up and perturbed: every spring stretched, so projected and exact Hessians agree."""
    rng = np.random.default_rng(seed)
    return (1.2 * X + 0.01 * rng.standard_normal(X.shape)).reshape(-1, 1)


def _springs(dim):
    X, E, J, l0 = _chain(dim)
    return terms.SpringEnergy(J, 3.0, l0.copy(), l0), _stretched(X, 1), 1e-6


def _bending(dim):
    if dim == 2:
        X, _, _, _ = _chain(2)
        C = np.column_stack([np.arange(4), np.arange(1, 5), np.arange(2, 6)])
    else:
        X, F = simkit.grid_sheet(3, 3, 1.0, 1.0)
        C = simkit.hinge_quads(F)
    rng = np.random.default_rng(5)
    x = (X + 0.1 * rng.standard_normal(X.shape)).reshape(-1, 1)
    return terms.Bending(C, simkit.dihedral_angles(X, C), 2.0, psd=False), x, 1e-6


def _pins(dim):
    X, _, _, _ = _chain(dim)
    pin = terms.PenaltySpring(len(X), dim, 50.0).set([0, 2], X[[0, 2]] + 0.1)
    return pin, _stretched(X, 2), 1e-6


def _gravity(dim):
    X, E, _, _ = _chain(dim)
    return terms.Gravity(simkit.gravity_force(X, E, a=-9.8, rho=0.3)), _stretched(X, 3), 1e-6


def _inertia(dim):
    X, E, _, _ = _chain(dim)
    M = sps.kron(simkit.massmatrix(X, E, rho=0.3), sps.eye(dim)).tocsc()
    x_n = X.reshape(-1, 1)
    inertia = terms.Inertia(M, 0.1).update(x_n, np.ones_like(x_n))
    return inertia, _stretched(X, 4), 1e-6


def _ground(X, dim, d_hat=0.1):
    """Nodes within d_hat above the ground y = 0 (barrier active), weighted."""
    x = X.copy()
    x[:, 1] = np.linspace(0.02, 0.08, len(X))
    weight = np.linspace(0.5, 1.5, len(X))
    ground = terms.HalfSpaceContact(len(X), dim, np.zeros(dim), np.eye(dim)[1], d_hat, 10.0, weight=weight)
    return ground, x.reshape(-1, 1)


def _half_space(dim):
    X, _, _, _ = _chain(dim)
    ground, x = _ground(X, dim)
    return ground, x, 1e-7


def _friction(dim):
    X, _, _, _ = _chain(dim)
    ground, x_n = _ground(X, dim)
    friction = terms.Friction(ground, 0.4, 0.01, 0.05).update(x_n)
    rng = np.random.default_rng(6)
    slide = np.zeros((len(X), dim))
    slide[:, 0] = rng.uniform(-2e-3, 2e-3, len(X))           # some nodes stick (|u| < eps_v h), some slide
    if dim == 3:
        slide[:, 2] = rng.uniform(-2e-3, 2e-3, len(X))
    return friction, x_n + slide.reshape(-1, 1), 1e-8


def _mesh_contact(dim):
    if dim == 3:                                   # two noisy sheets 2 mm apart: every collision group
        from mesh_contact_scenes import D_HAT, two_sheets
        X, F, E = two_sheets(m=3, shift=0.0, seed=1)
        return terms.MeshContact(X, D_HAT, 10.0, edges=E, faces=F, psd=False), X.reshape(-1, 1), 1e-9
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.3, 0.05], [0.6, 0.03], [0.5, 0.5], [1.04, 0.02]])
    contact = terms.MeshContact(X, 0.1, 10.0, edges=[[0, 1], [2, 3], [4, 5]], weight=[1.0, 1.0, 0.7, 1.3, 1.0, 2.0],
                                psd=False)
    return contact, X.reshape(-1, 1), 1e-7


def _elastic(dim):
    if dim == 2:
        X, T = simkit.grid_rectangle(3, 3, 1.0, 1.0)
    else:
        X, T = simkit.grid_box(2, 2, 2, 1.0, 1.0, 1.0)
    mu, lam = simkit.ympr_to_lame(10.0, 0.3)
    rng = np.random.default_rng(7)
    x = (X + 0.05 * rng.standard_normal(X.shape)).reshape(-1, 1)
    return terms.ElasticEnergy(X, T, mu, lam, "neo-hookean", psd=False), x, 1e-6


def _spring_body(dim):
    if dim == 2:
        X, T = simkit.grid_rectangle(3, 3, 1.0, 1.0)
    else:
        X, T = simkit.grid_box(2, 2, 2, 1.0, 1.0, 1.0)
    return terms.SpringBody(X, T, ym=20.0, rho=2.0), _stretched(X, 10), 1e-6


def _sum(dim):
    X, E, J, _ = _chain(dim)
    ground, x = _ground(X, dim)
    l0 = 0.8 * simkit.edge_lengths(x.reshape(-1, dim), E).reshape(-1, 1)      # every spring stretched
    springs = terms.SpringEnergy(J, 3.0, l0.copy(), l0)
    gravity = terms.Gravity(np.full(x.shape, -0.5))
    return terms.Sum(springs, gravity, ground), x, 1e-7


def _map(dim, sparse):
    potential, x, step = _sum(dim)
    N = x.shape[0]
    rng = np.random.default_rng(8)
    B = rng.standard_normal((N, 4)) * 1e-2
    x0 = x - B @ np.ones((4, 1))                   # z = 1 maps to x
    return terms.Map(potential, sps.csc_matrix(B) if sparse else B, x0), np.ones((4, 1)), step


def _held(dim):
    potential, x, step = _sum(dim)
    fixed = np.array([0, 1, 3 * dim + 1])
    held = terms.Held(potential, x + 1.0, fixed)       # x_held's free entries are not used
    held.x0[held.fixed] = x[held.fixed]
    return held, x[held.free], step


def _reduced_elastic(dim):
    if dim == 2:
        X, T = simkit.grid_rectangle(3, 3, 1.0, 1.0)
    else:
        X, T = simkit.grid_box(2, 2, 2, 1.0, 1.0, 1.0)
    _, _, B = simkit.skinning_eigenmodes(X, T, 2)
    mu, lam = simkit.ympr_to_lame(10.0, 0.3)
    term = terms.ReducedElasticEnergy(X, T, B, mu, lam, cI=np.array([0, 3]), cW=np.array([0.3, 0.2]), psd=False)
    rng = np.random.default_rng(11)
    z = simkit.project_into_subspace(X.reshape(-1, 1), B) + 0.05 * rng.standard_normal((term.size, 1))
    return term, z, 1e-6


def _affine_orthogonality(dim):
    term = terms.AffineOrthogonality(np.array([0.5, 1.5]), 3.0, dim=dim, psd=False)
    return term, 0.2 * np.random.default_rng(12).standard_normal((term.size, 1)), 1e-6


CASES = {
    "SpringEnergy": _springs, "Bending": _bending, "PenaltySpring": _pins, "Gravity": _gravity,
    "Inertia": _inertia, "HalfSpaceContact": _half_space, "Friction": _friction,
    "MeshContact": _mesh_contact, "ElasticEnergy": _elastic, "SpringBody": _spring_body, "Sum": _sum, "Map": lambda dim: _map(dim, sparse=True),
    "Map (dense B)": lambda dim: _map(dim, sparse=False), "Held": _held,
    "ReducedElasticEnergy": _reduced_elastic, "AffineOrthogonality": _affine_orthogonality,
}
PARAMS = [(name, dim) for name in CASES for dim in (2, 3)]


def test_every_term_class_has_a_protocol_case():
    classes = {name for name, obj in vars(terms).items() if inspect.isclass(obj) and issubclass(obj, Term)}
    assert classes - {"Term"} <= set(CASES), f"term classes without a protocol case: {classes - set(CASES)}"


@pytest.mark.parametrize("name, dim", PARAMS)
def test_size_and_types(name, dim):
    term, x, _ = CASES[name](dim)
    assert isinstance(term, Term)
    assert term.size in (None, x.shape[0])
    assert isinstance(term.energy(x), float)
    assert term.gradient(x).shape == (x.shape[0], 1)
    H = term.hessian(x)
    assert H.shape == (x.shape[0],) * 2 and (sps.issparse(H) or isinstance(H, np.ndarray))


@pytest.mark.parametrize("name, dim", PARAMS)
def test_derivatives_match_central_differences(name, dim):
    term, x, step = CASES[name](dim)
    g = term.gradient(x).ravel()
    g_fd = simkit.gradient_cfd(lambda y: term.energy(y), x, step)
    scale = np.abs(g_fd).max()
    assert scale > 0, "a case must exercise the term"
    np.testing.assert_allclose(g, g_fd, rtol=DERIVATIVE_TOL, atol=DERIVATIVE_TOL * scale)
    H = _dense(term.hessian(x))
    H_fd = simkit.gradient_cfd(lambda y: term.gradient(y).ravel(), x, step)
    np.testing.assert_allclose(H, H_fd, rtol=DERIVATIVE_TOL, atol=DERIVATIVE_TOL * max(np.abs(H_fd).max(), 1e-12))
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-12 * np.abs(H).max())


@pytest.mark.parametrize("name, dim", PARAMS)
def test_plus_and_sum(name, dim):
    term, x, _ = CASES[name](dim)
    other = terms.Gravity(np.linspace(-1.0, 1.0, x.shape[0]))
    for total in (term + other, terms.Sum(term, other)):
        assert isinstance(total, terms.Sum) and total.terms == (term, other)
        assert total.energy(x) == term.energy(x) + other.energy(x)
        np.testing.assert_array_equal(total.gradient(x), term.gradient(x) + other.gradient(x))
    assert (other + term).terms == (other, term)
    assert terms.Sum(term).energy(x) == term.energy(x)


@pytest.mark.parametrize("name, dim", PARAMS)
def test_max_step_is_a_fraction_and_update_returns_the_term(name, dim):
    term, x, _ = CASES[name](dim)
    rng = np.random.default_rng(9)
    for scale in (1e-3, 1.0, 100.0):
        alpha = term.max_step(x, scale * rng.standard_normal(x.shape))
        assert isinstance(alpha, float) and 0.0 < alpha <= 1.0
        if not term.has_max_step:
            assert alpha == 1.0
    if name == "Inertia":          # the seed's API: the velocity sets the target too
        assert term.update(x, np.zeros_like(x)) is term
    else:
        assert term.update(x) is term


@pytest.mark.parametrize("name", ["HalfSpaceContact", "Sum", "Map", "Map (dense B)", "Held"])
def test_contact_filters_a_step_into_the_ground_in_every_coordinates(name):
    term, x, _ = CASES[name](2)
    assert term.has_max_step
    full = term.full(x) if isinstance(term, terms.Map) else x
    down = np.zeros_like(full)
    down[1::2] = -1.0                                  # every node 1 m down: through the ground
    dz = down if not isinstance(term, terms.Map) else np.linalg.lstsq(_dense(term.B), down, rcond=None)[0]
    if isinstance(term, terms.Held):
        dz = down[term.free]
    alpha = term.max_step(x, dz)
    assert 0.0 < alpha < 1.0
    y = (term.full(x + alpha * dz) if isinstance(term, terms.Map) else x + alpha * dz).reshape(-1, 2)
    assert (y[:, 1] > 0).all()


def test_a_term_without_a_filter_does_not_filter():
    springs, x, _ = _springs(2)
    assert not springs.has_max_step and not (springs + terms.Gravity(np.zeros(x.shape))).has_max_step
    assert not terms.Held(springs, x, [0, 1]).has_max_step


def test_the_default_protocol_of_a_bare_term():
    class Quadratic(Term):
        size = 2

        def energy(self, x):
            return 0.5 * float(x.T @ x)

    q = Quadratic()
    assert q.max_step(np.zeros((2, 1)), np.ones((2, 1))) == 1.0 and q.update(np.zeros((2, 1))) is q
    assert not q.has_max_step
    with pytest.raises(NotImplementedError, match="Quadratic.gradient"):
        q.gradient(np.zeros((2, 1)))


def test_sum_update_reaches_every_term_in_order():
    seen = []

    class Recorder(Term):
        def __init__(self, label):
            self.label = label

        def energy(self, x):
            return 0.0

        def gradient(self, x):
            return np.zeros_like(x)

        def hessian(self, x):
            return sps.csc_matrix((x.shape[0],) * 2)

        def update(self, x_n):
            seen.append((self.label, float(x_n[0, 0])))
            return self

    total = terms.Sum(Recorder("a"), terms.Sum(Recorder("b"), Recorder("c")))
    assert total.update(np.full((2, 1), 3.0)) is total
    assert seen == [("a", 3.0), ("b", 3.0), ("c", 3.0)]


class _DenseQuadratic(Term):
    """1/2 x^T A x with a dense Hessian A, as a reduced term returns."""

    def __init__(self, A):
        self.A, self.size = A, A.shape[0]

    def energy(self, x):
        return 0.5 * float(x.T @ self.A @ x)

    def gradient(self, x):
        return self.A @ x

    def hessian(self, x):
        return self.A


def test_a_constant_force_leaves_a_dense_hessian_dense():
    """Gravity's zero sparse Hessian is skipped in a sum with a dense one (no numpy.matrix); the values are the sum."""
    A = np.array([[2.0, 1.0], [1.0, 3.0]])
    gravity, quadratic = terms.Gravity(np.array([1.0, -2.0])), _DenseQuadratic(A)
    x = np.array([[0.3], [-0.1]])
    for total in (quadratic + gravity, gravity + quadratic, terms.Sum(gravity, quadratic, gravity)):
        H = total.hessian(x)
        assert type(H) is np.ndarray
        np.testing.assert_array_equal(H, A)
    both = (gravity + gravity).hessian(x)
    assert sps.issparse(both) and both.nnz == 0 and both.shape == (2, 2)
    springs = sps.csc_matrix(A)
    assert sps.issparse((gravity + _DenseQuadratic(springs)).hessian(x))
