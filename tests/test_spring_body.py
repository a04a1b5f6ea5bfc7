"""simkit.terms.SpringBody: a mesh's springs, gravity and lumped mass, as chapter 017 sets up its bodies."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
from simkit import terms

EXACT = 1e-12


def _block():
    X, T = simkit.grid_rectangle(4, 3, 0.6, 0.3)
    return X + [0.1, 0.2], T


def test_mass_gravity_and_springs_of_a_triangle_block():
    X, T = _block()
    body = terms.SpringBody(X, T, ym=5e4, rho=100.0, a=-9.8)
    assert body.size == X.size and body.terms == (body.springs, body.gravity)
    np.testing.assert_allclose(body.mass.sum(), 100.0 * 0.6 * 0.3, rtol=EXACT)          # rho times the area
    np.testing.assert_allclose(body.M.diagonal(), np.repeat(body.mass, 2), rtol=EXACT)
    assert sps.isspmatrix_csc(body.M) and body.M.nnz == X.size
    x = X.reshape(-1, 1)
    assert body.springs.energy(x) == 0.0                                              # at rest
    np.testing.assert_allclose(-body.gravity.gradient(x).reshape(-1, 2).sum(axis=0), [0.0, -9.8 * 18.0], rtol=EXACT)
    np.testing.assert_array_equal(body.springs.J.shape, (2 * len(simkit.edges(T)), X.size))   # one spring per edge


def test_a_spring_pulls_with_ym_times_its_strain():
    X = np.array([[0.0, 0.0], [2.0, 0.0]])
    body = terms.SpringBody(X, np.array([[0, 1]]), ym=300.0, rho=1.0, a=0.0)
    x = np.array([[0.0], [0.0], [2.2], [0.0]])                                        # 10 % strain
    np.testing.assert_allclose(body.gradient(x).ravel(), [-30.0, 0.0, 30.0, 0.0], rtol=EXACT)
    np.testing.assert_allclose(body.mass, [1.0, 1.0], rtol=EXACT)                     # the edge's length, halved


def test_the_body_is_chapter_017s_set_up_bit_for_bit():
    X, T = _block()
    E = simkit.edges(T)
    body = terms.SpringBody(X, T, E, ym=5e4, rho=100.0, a=-9.8)
    # 017's Bodies.__init__, as it stood in the chapter
    I = sps.eye(2)
    mass = simkit.massmatrix(X, T, rho=100.0).diagonal()
    M = sps.kron(sps.diags(mass), I, format="csc")
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), I, format="csc")
    l0 = simkit.edge_lengths(X, E).reshape(-1, 1)
    springs = terms.SpringEnergy(J, 5e4, l0, l0)
    gravity = terms.Gravity(simkit.gravity_force(X, T, a=-9.8, rho=100.0))
    x = (X + 0.01 * np.random.default_rng(0).standard_normal(X.shape)).reshape(-1, 1)
    np.testing.assert_array_equal(body.mass, mass)
    np.testing.assert_array_equal(body.M.toarray(), M.toarray())
    assert body.energy(x) == terms.Sum(springs, gravity).energy(x)
    np.testing.assert_array_equal(body.gradient(x), springs.gradient(x) + gravity.gradient(x))
    np.testing.assert_array_equal(body.hessian(x).toarray(), springs.hessian(x).toarray())


def test_edges_default_from_triangles_and_a_polyline_is_its_own_springs():
    X, T = _block()
    np.testing.assert_array_equal(terms.SpringBody(X, T, ym=1.0).springs.J.toarray(),
                                  terms.SpringBody(X, T, simkit.edges(T), ym=1.0).springs.J.toarray())
    line = np.column_stack([np.linspace(0, 1, 5), np.zeros(5)])
    E = np.column_stack([np.arange(4), np.arange(1, 5)])
    cable = terms.SpringBody(line, E, ym=1.0, rho=0.5)
    assert cable.springs.J.shape == (8, 10)
    np.testing.assert_allclose(cable.mass.sum(), 0.5, rtol=EXACT)


def test_bad_input():
    X, T = _block()
    with pytest.raises(ValueError, match="^ym: expected non-negative values"):
        terms.SpringBody(X, T, ym=-1.0)
    with pytest.raises(ValueError, match=r"^X: expected shape \(n, dim\)"):
        terms.SpringBody(X.ravel(), T, ym=1.0)
    with pytest.raises(TypeError):
        terms.SpringBody(X, T)                                                        # ym is required
