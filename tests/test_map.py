"""simkit.terms.Map and Held: a term of other coordinates x = B z + x0, and held (Dirichlet) coordinates."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
from simkit import terms

FD_STEP = 1e-6
FD_TOL = 1e-6
EXACT = 1e-12


def _cloth_term(n_side=4, seed=0):
    """A small crumpled sheet: springs (stretched), discrete-shells bending, gravity; x of 3D positions."""
    V, F = simkit.grid_sheet(n_side, n_side, 1.0, 1.0)
    E, C = simkit.edges(F), simkit.hinge_quads(F)
    J = sps.kron(simkit.edge_displacement_jacobian(V, E), sps.eye(3)).tocsc()
    l0 = 0.8 * simkit.edge_lengths(V, E).reshape(-1, 1)
    rng = np.random.default_rng(seed)
    x = (1.05 * V + 0.02 * rng.standard_normal(V.shape)).reshape(-1, 1)
    potential = (terms.SpringEnergy(J, 10.0, l0.copy(), l0) + terms.Bending(C, 0.0, 0.5, psd=False)
                 + terms.Gravity(simkit.gravity_force(V, F, rho=0.2)))
    return potential, x


def _dense(H):
    return H.toarray() if sps.issparse(H) else np.asarray(H)


@pytest.mark.parametrize("sparse", [True, False])
def test_map_is_the_term_of_b_z_plus_x0(sparse):
    potential, x = _cloth_term()
    N, k = x.shape[0], 5
    rng = np.random.default_rng(1)
    B = rng.standard_normal((N, k)) * 0.05
    if sparse:
        B[np.abs(B) < 0.04] = 0.0                           # a genuinely sparse basis
    z = rng.standard_normal((k, 1))
    x0 = x - B @ z + 0.01 * rng.standard_normal(x.shape)
    mapped = terms.Map(potential, sps.csc_matrix(B) if sparse else B, x0)
    full = B @ z + x0
    assert mapped.size == k
    np.testing.assert_array_equal(mapped.full(z), mapped.B @ z + x0)
    assert mapped.energy(z) == potential.energy(mapped.full(z))
    np.testing.assert_allclose(mapped.gradient(z), B.T @ potential.gradient(full), rtol=EXACT, atol=EXACT)
    H = mapped.hessian(z)
    assert sps.issparse(H) if sparse else (isinstance(H, np.ndarray) and not sps.issparse(H))
    np.testing.assert_allclose(_dense(H), B.T @ _dense(potential.hessian(full)) @ B, rtol=EXACT,
                               atol=EXACT * np.abs(_dense(H)).max())
    # and against central differences of the reduced energy itself
    g = mapped.gradient(z).ravel()
    np.testing.assert_allclose(g, simkit.gradient_cfd(mapped.energy, z, FD_STEP), rtol=FD_TOL,
                               atol=FD_TOL * np.abs(g).max())
    H_fd = simkit.gradient_cfd(lambda y: mapped.gradient(y).ravel(), z, FD_STEP)
    np.testing.assert_allclose(_dense(H), H_fd, rtol=FD_TOL, atol=FD_TOL * np.abs(H_fd).max())


def test_map_default_offset_and_vector_inputs():
    potential, x = _cloth_term()
    B = np.eye(x.shape[0])[:, :3]
    mapped = terms.Map(potential, B)
    np.testing.assert_array_equal(mapped.x0, np.zeros_like(x))
    np.testing.assert_array_equal(mapped.full(np.array([1.0, 2.0, 3.0])), B @ [[1.0], [2.0], [3.0]])


def test_project_is_b_transpose_a_b():
    rng = np.random.default_rng(2)
    A = sps.random(12, 12, density=0.3, random_state=3) + sps.eye(12)
    B = rng.standard_normal((12, 4))
    gravity = terms.Gravity(np.zeros((12, 1)))
    np.testing.assert_allclose(terms.Map(gravity, B).project(A), B.T @ A.toarray() @ B, rtol=EXACT)
    sparse = terms.Map(gravity, sps.csc_matrix(B)).project(A)
    assert sps.issparse(sparse)
    np.testing.assert_allclose(sparse.toarray(), B.T @ A.toarray() @ B, rtol=EXACT)


def test_map_filters_the_mapped_step_and_updates_the_full_term():
    ground = terms.HalfSpaceContact(2, 2, [0.0, 0.0], [0.0, 1.0], 0.1, 1.0)
    friction = terms.Friction(ground, 0.5, 1e-3, 0.01)
    B = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])       # both nodes move together
    x0 = np.array([[0.0], [0.0], [1.0], [0.0]])
    body = terms.Map(ground + friction, B, x0)
    z = np.array([[0.0], [0.05]])
    assert body.update(z) is body
    assert friction.frame is not None and friction.frame.x_start.shape == (2, 2)    # lagged at B z + x0
    dz = np.array([[0.0], [-0.1]])
    assert body.max_step(z, dz) == ground.max_step(body.full(z), B @ dz) == pytest.approx(0.45)


@pytest.mark.parametrize("B, x0, error, match", [
    (np.ones((5, 2)), None, ValueError, r"^B: expected 4 rows, one per coordinate of the term"),
    (np.ones((4, 0)), None, ValueError, r"^B: expected at least one column"),
    (np.ones(4), None, ValueError, r"^B: expected a 2D matrix"),
    (np.full((4, 2), np.nan), None, ValueError, "^B: expected finite values"),
    (np.ones((4, 2)), np.ones(3), ValueError, "^x0: expected 4 rows"),
])
def test_map_bad_input(B, x0, error, match):
    with pytest.raises(error, match=match):
        terms.Map(terms.Gravity(np.zeros(4)), B, x0)
    with pytest.raises(TypeError, match="^term: expected an energy term"):
        terms.Map(np.eye(4), np.ones((4, 2)))


def test_held_is_the_selection_map():
    potential, x = _cloth_term()
    N = x.shape[0]
    fixed = np.array([0, 1, 2, 7, 7, N - 1])                      # repeats are fine
    held = terms.Held(potential, x.reshape(-1, 3), fixed)
    np.testing.assert_array_equal(held.fixed, [0, 1, 2, 7, N - 1])
    np.testing.assert_array_equal(held.free, np.setdiff1d(np.arange(N), fixed))
    q = x[held.free] + 0.01
    full = held.full(q)
    np.testing.assert_array_equal(full[held.fixed], x[held.fixed])
    np.testing.assert_array_equal(full[held.free], q)
    np.testing.assert_array_equal(full, held.B @ q + held.x0)           # the Map it is
    # free rows and the free-free block: the numbers of B^T g and B^T H B, bit for bit
    as_map = terms.Map(potential, held.B, held.x0)
    np.testing.assert_array_equal(held.gradient(q), as_map.gradient(q))
    np.testing.assert_array_equal(held.hessian(q).toarray(), as_map.hessian(q).toarray())
    H = potential.hessian(full)
    np.testing.assert_array_equal(held.hessian(q).toarray(), H.toarray()[np.ix_(held.free, held.free)])
    M = sps.diags(np.arange(1.0, N + 1.0), format="csc")
    np.testing.assert_array_equal(held.project(M).toarray(), M.toarray()[np.ix_(held.free, held.free)])
    np.testing.assert_array_equal(held.project(M.toarray()), M.toarray()[np.ix_(held.free, held.free)])


def test_held_values_move_in_place_and_newton_keeps_them():
    """A string of springs between two held ends: moving the ends moves the minimizer with them."""
    X = np.column_stack([np.linspace(0.0, 1.0, 6), np.zeros(6)])
    E = np.column_stack([np.arange(5), np.arange(1, 6)])
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(2)).tocsc()
    l0 = simkit.edge_lengths(X, E).reshape(-1, 1)
    held = terms.Held(terms.SpringEnergy(J, 1.0, l0.copy(), l0), X, [0, 1, 10, 11])
    held.x0[held.fixed] = np.array([[0.0], [0.0], [2.0], [0.0]])     # stretch to twice the length
    q = simkit.solvers.newton_solver(X.reshape(-1, 1)[held.free], held.energy, held.gradient, held.hessian,
                                     tolerance=1e-12, max_iter=50)
    np.testing.assert_allclose(held.full(q).reshape(-1, 2), np.column_stack([np.linspace(0, 2, 6), np.zeros(6)]),
                               atol=1e-10)                         # evenly stretched: the closed form


def test_held_bad_input():
    gravity = terms.Gravity(np.zeros(4))
    with pytest.raises(ValueError, match=r"^fixed: expected indices in \[0, 4\)"):
        terms.Held(gravity, np.zeros(4), [4])
    with pytest.raises(ValueError, match="^fixed: every one of the 4 coordinates is held"):
        terms.Held(gravity, np.zeros(4), [0, 1, 2, 3])
    with pytest.raises(ValueError, match="^x_held: expected finite values"):
        terms.Held(gravity, np.full(4, np.nan), [0])
