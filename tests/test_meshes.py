"""Triangle-mesh helpers of the 3D path: edges, hinge quads, the grid sheet, shell stiffness."""
import numpy as np
import pytest

import simkit

ROUNDOFF = 1e-12


def _rotations(F):
    """Every cyclic rotation of every triangle, as a set of tuples (orientation kept)."""
    return {tuple(np.roll(f, r)) for f in F for r in range(3)}


def test_edges_of_one_triangle_and_one_tet():
    np.testing.assert_array_equal(simkit.edges(np.array([[2, 0, 1]])), [[0, 1], [0, 2], [1, 2]])
    E = simkit.edges(np.array([[0, 1, 2, 3]]))
    assert E.shape == (6, 2)
    assert {tuple(e) for e in E} == {(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)}


@pytest.mark.parametrize("diagonals", ["alternating", "right", "left"])
def test_grid_sheet_counts_orientation_and_area(diagonals):
    nx, nz, width, depth = 5, 4, 2.0, 1.5
    V, F = simkit.grid_sheet(nx, nz, width, depth, diagonals=diagonals)
    assert V.shape == (nx * nz, 3) and F.shape == (2 * (nx - 1) * (nz - 1), 3)
    np.testing.assert_array_equal(V[:, 1], 0.0)
    np.testing.assert_allclose(V[nx - 1], [width, 0.0, 0.0])
    np.testing.assert_allclose(V[-1], [width, 0.0, depth])
    normals = np.cross(V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]])
    assert (normals[:, 1] > 0).all()
    np.testing.assert_allclose(normals[:, [0, 2]], 0.0, atol=ROUNDOFF)
    np.testing.assert_allclose(0.5 * normals[:, 1].sum(), width * depth, rtol=ROUNDOFF)
    E = simkit.edges(F)
    assert len(E) == nx * (nz - 1) + nz * (nx - 1) + (nx - 1) * (nz - 1)
    assert len(simkit.hinge_quads(F)) == len(E) - 2 * (nx - 1) - 2 * (nz - 1)


def test_grid_sheet_diagonal_patterns_differ():
    faces = {d: {tuple(sorted(f)) for f in simkit.grid_sheet(3, 3, diagonals=d)[1]}
             for d in ("alternating", "right", "left")}
    assert faces["right"] != faces["left"]
    assert faces["alternating"] not in (faces["right"], faces["left"])


def test_hinge_quads_of_two_triangles():
    F = np.array([[0, 1, 2], [1, 0, 3]])
    np.testing.assert_array_equal(simkit.hinge_quads(F), [[0, 1, 2, 3]])
    # the same pair listed from the other triangle's side keeps e0 < e1 and swaps the apexes
    np.testing.assert_array_equal(simkit.hinge_quads(np.array([[3, 1, 0], [2, 0, 1]])), [[0, 1, 2, 3]])


def test_hinge_quads_rows_are_the_interior_edges_with_their_triangles():
    V, F = simkit.grid_sheet(6, 5)
    C = simkit.hinge_quads(F)
    E = simkit.edges(F)
    interior = {tuple(e) for e in C[:, :2]}
    assert C[:, :2].tolist() == [e for e in E.tolist() if tuple(e) in interior]
    triangles = _rotations(F)
    assert all((e0, e1, o0) in triangles and (e1, e0, o1) in triangles for e0, e1, o0, o1 in C)
    np.testing.assert_allclose(simkit.dihedral_angles(V, C), 0.0, atol=ROUNDOFF)


@pytest.mark.parametrize("F, match", [
    (np.array([[0, 1, 2], [0, 1, 3]]), "same direction"),
    (np.array([[0, 1, 2], [1, 0, 3], [0, 1, 4]]), "shared by 3"),
    (np.array([[0, 1, 1]]), "repeats a vertex"),
])
def test_hinge_quads_rejects_meshes_without_well_defined_hinges(F, match):
    with pytest.raises(ValueError, match=f"F: .*{match}"):
        simkit.hinge_quads(F)


@pytest.mark.parametrize("call", [
    lambda: simkit.edges(np.array([[0.0, 1.0, 2.0]])),
    lambda: simkit.hinge_quads(np.array([[0, 1]])),
    lambda: simkit.edges(np.array([[0, -1, 2]])),
    lambda: simkit.grid_sheet(1, 4),
    lambda: simkit.grid_sheet(3, 3, width=-1.0),
    lambda: simkit.grid_sheet(3, 3, diagonals="cross"),
])
def test_mesh_helpers_reject_bad_input(call):
    with pytest.raises((ValueError, TypeError)):
        call()


def test_shell_stiffness_closed_form_and_relation_to_upstream_weight():
    # unit hinge edge, apex heights 1 and 2: areas 1/2 and 1
    X = np.array([[0.0, 0, 0], [1.0, 0, 0], [0.3, 0, -1.0], [0.6, 0, 2.0]])
    C = np.array([[0, 1, 2, 3]])
    kappa = simkit.discrete_shells_stiffness(X, C, k_bend=2.0)
    assert kappa.shape == (1, 1)
    np.testing.assert_allclose(kappa[0, 0], 2.0 * 3.0 * 1.0 / 1.5, rtol=ROUNDOFF)
    mean_altitude = 0.5 * (1.0 + 2.0)                       # upstream's weight |e| / h
    np.testing.assert_allclose(kappa[0, 0] / 2.0, 3.0 * 1.0 / mean_altitude, rtol=ROUNDOFF)
    # |e|^2 / area is scale free: a uniformly scaled mesh keeps its stiffness
    np.testing.assert_allclose(simkit.discrete_shells_stiffness(7.0 * X, C, 2.0), kappa, rtol=ROUNDOFF)


def test_shell_stiffness_rejects_collapsed_hinges():
    X = np.array([[0.0, 0, 0], [1.0, 0, 0], [2.0, 0, 0], [3.0, 0, 0]])
    with pytest.raises(ValueError, match="X: .*zero area"):
        simkit.discrete_shells_stiffness(X, np.array([[0, 1, 2, 3]]))


def test_shell_energy_relation_to_upstream_and_grinspun():
    # unit hinge edge, apex altitudes 1 and 2 (mean 1.5), flap o1 turned by 0.3 rad
    X0 = np.array([[0.0, 0, 0], [1.0, 0, 0], [0.3, 0, -1.0], [0.6, 0, 2.0]])
    X = X0.copy()
    X[3] = [0.6, 2.0 * np.sin(0.3), 2.0 * np.cos(0.3)]
    C = np.array([[0, 1, 2, 3]])
    energy = simkit.energies.discrete_shells_bending_energy(X.reshape(-1, 1), C, X0=X0, k_bend=1.0)
    grinspun = 3.0 * 1.0 / 1.5 * 0.3**2           # k 3 |e|^2 / A (theta - theta0)^2, A = |e| * mean altitude
    upstream = 1.0 / 1.5 * 0.3**2                 # ym |e| / h (theta - theta0)^2 (upstream 0.1.8 gives 0.06)
    np.testing.assert_allclose(energy, 0.5 * grinspun, rtol=ROUNDOFF)
    np.testing.assert_allclose(energy, 1.5 * upstream, rtol=ROUNDOFF)
