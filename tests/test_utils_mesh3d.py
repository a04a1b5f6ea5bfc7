"""utils, 3D meshes (course.mesh3d): camera, flat shading, mesh figures and videos, hinge drawings."""
import matplotlib.colors as mcolors
import matplotlib.pyplot as plt
import numpy as np
import pytest

import simkit
import utils
from course import mesh3d

SEED = 0
TOL = 1e-12


@pytest.fixture
def sheet():
    V, F = simkit.grid_sheet(4, 3, 1.0, 0.6)
    return V, F


def test_view_basis_is_a_right_handed_orthonormal_frame():
    for view in [utils.View(), utils.View(35.0, 120.0), utils.View(-10.0, -75.0)]:
        B = utils.view_basis(view)
        np.testing.assert_allclose(B @ B.T, np.eye(3), atol=TOL)
        np.testing.assert_allclose(np.cross(B[0], B[1]), B[2], atol=TOL)
        assert B[1, 1] > 0                                   # screen-up leans towards world-up (y)


def test_view_basis_front_view():
    np.testing.assert_allclose(utils.view_basis(utils.View(0.0, 0.0)), np.eye(3), atol=TOL)


@pytest.mark.parametrize("view", [(90.0, 0.0), ("a", 1), (1.0,), (np.nan, 0.0)])
def test_view_basis_rejects_bad_views(view):
    with pytest.raises((TypeError, ValueError), match="^view: expected"):
        utils.view_basis(view)


def test_faces_are_shaded_by_normal_and_side():
    front, back = np.array(mcolors.to_rgb(utils.CLOTH_FRONT)), np.array(mcolors.to_rgb(utils.CLOTH_BACK))
    X = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])    # normal +z: faces the front camera
    basis = utils.view_basis(utils.View(0.0, 0.0))
    light = basis[2] + 0.2 * basis[1]
    lit = (light / np.linalg.norm(light))[2]
    _, rgba = mesh3d._shaded_faces(X, np.array([[0, 1, 2]]), basis, front, back)
    np.testing.assert_allclose(rgba[0, :3], front * (utils.AMBIENT + utils.DIFFUSE * lit), atol=TOL)
    _, rgba = mesh3d._shaded_faces(X, np.array([[0, 2, 1]]), basis, front, back)     # flipped: its back shows
    np.testing.assert_allclose(rgba[0, :3], back * (utils.AMBIENT + utils.DIFFUSE * lit), atol=TOL)


def test_faces_are_painted_far_to_near():
    X = np.array([[0, 0, -1], [1, 0, -1], [0, 1, -1], [0, 0, 1], [1, 0, 1], [0, 1, 1.0]])
    F = np.array([[3, 4, 5], [0, 1, 2]])                     # near triangle listed first
    screen, _ = mesh3d._shaded_faces(X, F, utils.view_basis(utils.View(0.0, 0.0)), np.ones(3), np.ones(3))
    np.testing.assert_allclose(screen[0], X[[0, 1, 2], :2])   # the far one (z = -1) is drawn first


def test_plot_mesh_3d_draws_every_triangle_and_pin(sheet):
    V, F = sheet
    fig, ax = plt.subplots()
    art = utils.plot_mesh_3d(ax, V, F, pins=[0, 3])
    assert len(art.faces.get_paths()) == len(F)
    assert art.pins.get_offsets().shape == (2, 2)
    assert not ax.axison


@pytest.mark.parametrize("bad, error, match", [
    (dict(X=np.zeros((5, 2))), ValueError, r"^X: expected shape \(n, dim\)"),
    (dict(F=np.array([[0, 1, 99]])), ValueError, r"^F: expected indices in \[0, 12\)"),
    (dict(F=np.array([[0.0, 1.0, 2.0]])), TypeError, "^F: expected an integer index array"),
    (dict(pins=[42]), ValueError, r"^pins: expected indices in \[0, 12\)"),
    (dict(front="not a colour"), ValueError, "^front: expected a matplotlib colour"),
])
def test_plot_mesh_3d_rejects_bad_input(sheet, bad, error, match):
    V, F = sheet
    args = dict(X=V, F=F) | bad
    _, ax = plt.subplots()
    with pytest.raises(error, match=match):
        utils.plot_mesh_3d(ax, args.pop("X"), args.pop("F"), **args)


def test_mesh_limits_enclose_every_state(sheet):
    V, _ = sheet
    states = np.stack([V, V + [0.0, -2.0, 0.0]])
    (x0, x1), (y0, y1) = utils.mesh_limits(states, utils.View(0.0, 0.0))
    assert x0 < 0 and x1 > 1 and y0 < -2 and y1 > 0


def test_animate_meshes_3d_renders_moving_frames(sheet):
    V, F = sheet
    T = 4
    states = np.stack([V + [0.0, -0.2 * k, 0.1 * k] for k in range(T)])
    fig, anim = utils.animate_meshes_3d([{"states": states, "F": F, "pins": [0]},
                                         {"states": states[::-1], "F": F, "title": "reversed"}],
                                        np.arange(T) * 0.1)
    assert anim.n_frames == T
    anim.draw_background()
    first = anim.render_frame(0).copy()
    last = anim.render_frame(T - 1).copy()
    assert (first != last).any()
    np.testing.assert_array_equal(anim.render_frame(0), first)     # a pure function of the frame index
    assert fig.dpi == utils.DENSITY * utils.DPI


def test_animate_meshes_3d_rejects_mismatched_frames(sheet):
    V, F = sheet
    states = np.stack([V, V])
    with pytest.raises(ValueError, match="^t: expected 2 values"):
        utils.animate_meshes_3d([{"states": states, "F": F}], [0.0, 0.1, 0.2])
    with pytest.raises(ValueError, match="^panels: expected the same number of frames"):
        utils.animate_meshes_3d([{"states": states, "F": F}, {"states": states[:1], "F": F}], [0.0, 0.1])
    with pytest.raises(ValueError, match=r"^panels\[0\]: expected a dict"):
        utils.animate_meshes_3d([{"F": F}], [0.0])
    with pytest.raises(TypeError, match="^panels: expected a list"):
        utils.animate_meshes_3d({"F": F}, [0.0])


def test_plot_meshes_3d_one_panel_per_mesh(sheet):
    V, F = sheet
    fig, axes = utils.plot_meshes_3d([{"X": V, "F": F}, {"X": V * 2, "F": F, "title": "twice"}], ncols=1)
    assert len(axes) == 2 and len(fig.axes) == 2
    assert axes[1].get_title() == "twice"


def test_plot_sheet_hinges_colours_interior_edges(sheet):
    V, F = sheet
    C = simkit.hinge_quads(F)
    _, ax = plt.subplots()
    utils.plot_sheet_hinges(ax, V, F, C, hinge=0)
    boundary, interior = ax.collections[:2]
    assert len(interior.get_segments()) == len(C)
    assert len(boundary.get_segments()) == len(simkit.edges(F)) - len(C)
    assert [t.get_text() for t in ax.texts] == ["e0", "e1", "o0", "o1"]
    with pytest.raises(ValueError, match="^hinge: expected a row of C"):
        utils.plot_sheet_hinges(ax, V, F, C, hinge=len(C))


def test_plot_hinge_3d_draws_both_normals():
    X4 = np.array([[0.0, 0, 0], [0, 0, 1], [1, 0, 0.5], [-1, 0.5, 0.5]])
    _, ax = plt.subplots()
    utils.plot_hinge_3d(ax, X4)
    labels = [t.get_text() for t in ax.texts]
    assert "$n_0$" in labels and "$n_1$" in labels and "o1" in labels
