"""combine_meshes and boundary_edges: upstream simkit's names for merging meshes and finding their boundary."""
import numpy as np
import pytest

import simkit


def test_combine_meshes_shifts_each_connectivity_by_the_vertices_before_it():
    V0, V1, V2 = np.zeros((2, 2)), np.ones((3, 2)), 2 * np.ones((1, 2))
    E0, E1, E2 = np.array([[0, 1]]), np.array([[0, 2], [2, 1]]), np.zeros((0, 2), int)
    V, E = simkit.combine_meshes([V0, V1, V2], [E0, E1, E2])
    np.testing.assert_array_equal(V, np.vstack([V0, V1, V2]))
    np.testing.assert_array_equal(E, [[0, 1], [2, 4], [4, 3]])           # upstream's docstring example, extended
    assert E.dtype == np.int64


def test_combined_blocks_keep_their_geometry_and_boundary():
    meshes = [simkit.grid_rectangle(3, 2, 1.0, 0.5), simkit.grid_rectangle(2, 4, 0.3, 0.9)]
    V, T = simkit.combine_meshes([m[0] for m in meshes], [m[1] for m in meshes])
    np.testing.assert_allclose(simkit.volume(V, T).sum(), 1.0 * 0.5 + 0.3 * 0.9, rtol=1e-12)
    _, B = simkit.combine_meshes([m[0] for m in meshes], [simkit.boundary_edges(m[1]) for m in meshes])
    assert {tuple(e) for e in B} == {tuple(e) for e in simkit.boundary_edges(T)}    # disjoint: boundaries merge
    assert len(B) == 2 * (2 + 1) + 2 * (1 + 3)


@pytest.mark.parametrize("V_list, F_list, error, match", [
    ([np.zeros((2, 2))], [], ValueError, r"^F_list: expected one connectivity per vertex array \(1\), got 0"),
    ([], [], ValueError, "^V_list: expected at least one mesh"),
    ([np.zeros((2, 2)), np.zeros((2, 3))], [[[0, 1]], [[0, 1]]], ValueError, "^V_list: expected one dimension"),
    ([np.zeros((2, 2)), np.zeros((3, 2))], [[[0, 1]], [[0, 1, 2]]], ValueError, "^F_list: expected .* one common s"),
    ([np.zeros((2, 2))], [[[0, 2]]], ValueError, r"^F_list\[0\]: expected indices in \[0, 2\)"),
    ([np.zeros((2, 2))], [[[0.0, 1.0]]], TypeError, r"^F_list\[0\]: expected an integer index array"),
    (np.zeros((1, 2, 2)), [[[0, 1]]], TypeError, "^V_list, F_list: expected sequences"),
])
def test_combine_meshes_bad_input(V_list, F_list, error, match):
    with pytest.raises(error, match=match):
        simkit.combine_meshes(V_list, F_list)


def test_boundary_edges_of_one_and_two_triangles():
    np.testing.assert_array_equal(simkit.boundary_edges(np.array([[0, 1, 2]])), [[0, 1], [1, 2], [2, 0]])
    # two triangles sharing (1, 2): its two half-edges are interior, the four others keep their winding
    B = simkit.boundary_edges(np.array([[0, 1, 2], [2, 1, 3]]))
    np.testing.assert_array_equal(B, [[0, 1], [1, 3], [2, 0], [3, 2]])


def test_boundary_edges_outline_a_counter_clockwise_rectangle_once():
    X, T = simkit.grid_rectangle(4, 3, 3.0, 2.0)
    B = simkit.boundary_edges(T)
    assert len(B) == 2 * (3 + 2)
    assert sorted(B[:, 0].tolist()) == sorted(B[:, 1].tolist())            # a closed loop: every node in and out once
    d = X[B[:, 1]] - X[B[:, 0]]
    outward = np.column_stack([d[:, 1], -d[:, 0]])                        # the tangent turned by -90 degrees
    middle = 0.5 * (X[B[:, 0]] + X[B[:, 1]]) - X.mean(axis=0)
    assert (np.sum(outward * middle, axis=1) > 0).all()
    # the shoelace area of the loop is the rectangle's, counter-clockwise
    assert 0.5 * np.sum(X[B[:, 0], 0] * X[B[:, 1], 1] - X[B[:, 1], 0] * X[B[:, 0], 1]) == pytest.approx(6.0)


def test_boundary_edges_bad_input():
    with pytest.raises(ValueError, match=r"^F: expected shape \(k, 3\)"):
        simkit.boundary_edges(np.array([[0, 1, 2, 3]]))
