"""The shared assembly path: block scatter equals the COO sum, and its pattern cache is never stale."""
import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sps

import simkit
from simkit import _assembly

ROUNDOFF = 1e-12


def coo_reference(blocks, dofs, ndof):
    k, p = dofs.shape
    rows = np.repeat(dofs, p, axis=1).ravel()
    cols = np.tile(dofs, (1, p)).ravel()
    return sps.coo_matrix((blocks.ravel(), (rows, cols)), shape=(ndof, ndof)).toarray()


def random_blocks(seed, k=50, p=4, ndof=30):
    rng = np.random.default_rng(seed)
    dofs = np.stack([rng.choice(ndof, size=p, replace=False) for _ in range(k)])
    return rng.standard_normal((k, p, p)), dofs, ndof


def test_assemble_matrix_equals_the_coo_sum():
    blocks, dofs, ndof = random_blocks(0)
    H = _assembly.assemble_matrix(blocks, dofs, ndof)
    assert H.format == "csc" and H.shape == (ndof, ndof)
    np.testing.assert_allclose(H.toarray(), coo_reference(blocks, dofs, ndof), atol=ROUNDOFF)
    H.sort_indices()
    np.testing.assert_allclose(H.toarray(), coo_reference(blocks, dofs, ndof), atol=ROUNDOFF)


def test_assemble_vector_equals_add_at():
    rng = np.random.default_rng(1)
    dofs = rng.integers(0, 20, size=(40, 3))
    values = rng.standard_normal((40, 3))
    expected = np.zeros(20)
    np.add.at(expected, dofs.ravel(), values.ravel())
    np.testing.assert_allclose(_assembly.assemble_vector(values, dofs, 20), expected[:, None], atol=ROUNDOFF)


def test_assemble_vector_of_no_elements_is_float_zeros():
    g = _assembly.assemble_vector(np.zeros((0, 4)), np.zeros((0, 4), dtype=int), 6)
    assert g.dtype == float and g.shape == (6, 1) and not g.any()


def test_mutated_connectivity_never_reuses_a_stale_pattern():
    blocks, dofs, ndof = random_blocks(2)
    _assembly.assemble_matrix(blocks, dofs, ndof)
    dofs[7, 1], dofs[40, 2] = dofs[40, 2], dofs[7, 1]
    dofs[49] = dofs[49][::-1]
    np.testing.assert_allclose(_assembly.assemble_matrix(blocks, dofs, ndof).toarray(),
                               coo_reference(blocks, dofs, ndof), atol=ROUNDOFF)


def test_editing_a_returned_matrix_does_not_corrupt_the_cache():
    blocks, dofs, ndof = random_blocks(3)
    blocks[0] = 0.0
    H = _assembly.assemble_matrix(blocks, dofs, ndof)
    H.eliminate_zeros()
    H.indices[:] = 0
    np.testing.assert_allclose(_assembly.assemble_matrix(blocks, dofs, ndof).toarray(),
                               coo_reference(blocks, dofs, ndof), atol=ROUNDOFF)


def test_operator_cache_follows_the_values_of_J():
    X = np.column_stack([np.arange(5.0), np.zeros(5)])
    E = np.column_stack([np.arange(4), np.arange(1, 5)])
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(2)).tocsc()
    x = (X * 1.1).reshape(-1, 1)
    H1 = simkit.energies.mass_springs_hessian_z(x, J, 1.0, 1.0, np.ones(4), psd=False).toarray()
    J2 = J.copy()
    J2.data *= 2.0
    H2 = simkit.energies.mass_springs_hessian_z(x, J2, 1.0, 1.0, np.ones(4), psd=False).toarray()
    d = (J2 @ x).reshape(-1, 2)
    blocks = simkit.energies.mass_springs_hessian_element_d(d, np.ones(4), np.ones(4))
    expected = J2.T.toarray() @ scipy.linalg.block_diag(*blocks) @ J2.toarray()
    np.testing.assert_allclose(H2, expected, atol=ROUNDOFF)
    assert not np.allclose(H1, H2)


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_element_pattern_equals_the_coo_sum_of_node_major_blocks(dim):
    rng = np.random.default_rng(10 + dim)
    n, k, q = 12, 40, 3
    T = rng.integers(0, n, size=(k, q))
    T[0] = [4, 4, 7]
    blocks = rng.standard_normal((k, q * dim, q * dim))
    pattern = _assembly.element_pattern(T, dim, n * dim)
    dofs = _assembly.node_dofs(T, dim)
    np.testing.assert_array_equal(pattern.dofs, dofs)
    H = pattern.matrix(blocks)
    np.testing.assert_allclose(H.toarray(), coo_reference(blocks, dofs, n * dim), atol=ROUNDOFF)
    canonical = H.copy()
    canonical.has_sorted_indices = False
    canonical.sort_indices()
    np.testing.assert_array_equal(canonical.indices, H.indices)
    assert H.nnz == len({(r, c) for e in dofs for r in e for c in e})


def test_element_and_dof_patterns_agree():
    rng = np.random.default_rng(20)
    T = rng.integers(0, 9, size=(25, 4))
    blocks = rng.standard_normal((25, 12, 12))
    A = _assembly.element_pattern(T, 3, 27).matrix(blocks)
    B = _assembly.dof_pattern(_assembly.node_dofs(T, 3), 27).matrix(blocks)
    np.testing.assert_array_equal(A.indptr, B.indptr)
    np.testing.assert_array_equal(A.indices, B.indices)
    np.testing.assert_allclose(A.data, B.data, atol=ROUNDOFF)


def test_empty_connectivity_assembles_zero():
    x = np.zeros((6, 1))
    none = np.zeros(0)
    E = np.zeros((0, 2), dtype=int)
    C = np.zeros((0, 3), dtype=int)
    en = simkit.energies
    assert en.mass_springs_energy_x(x.reshape(3, 2), E, none, none, none) == 0.0
    np.testing.assert_array_equal(en.mass_springs_gradient_x(x, E, none, none, none, dim=2), 0.0)
    assert en.mass_springs_hessian_x(x, E, none, none, none, dim=2).nnz == 0
    assert en.bending_energy_x(x, C, none, none) == 0.0
    np.testing.assert_array_equal(en.bending_gradient_x(x, C, none, none), 0.0)
    assert en.bending_hessian_x(x, C, none, none, psd=True).shape == (6, 6)
    np.testing.assert_array_equal(simkit.massmatrix(x.reshape(3, 2), E).toarray(), 0.0)
