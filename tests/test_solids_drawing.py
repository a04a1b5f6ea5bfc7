"""course.solids (chapter 016's drawing helpers): planar triangle meshes, still and animated."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import simkit  # noqa: E402
import utils  # noqa: E402

X, T = simkit.grid_rectangle(4, 3, 3.0, 2.0)


def test_triangles_are_drawn_where_the_nodes_are_and_coloured_by_value():
    fig, ax = plt.subplots()
    values = np.arange(len(T), dtype=float)
    art = utils.plot_triangles_2d(ax, X + [1.0, 0.5], T, pins=[0, 3], values=values, vmin=0.0, vmax=20.0, rest=X)
    np.testing.assert_allclose(np.array([p.vertices[:3] for p in art.faces.get_paths()]), (X + [1.0, 0.5])[T])
    np.testing.assert_allclose(art.faces.get_array(), values)
    assert art.faces.norm.vmin == 0.0 and art.faces.norm.vmax == 20.0
    np.testing.assert_allclose(art.pins.get_offsets(), X[[0, 3]] + [1.0, 0.5])
    np.testing.assert_allclose(np.array([p.vertices[:3] for p in art.rest.get_paths()]), X[T])


@pytest.mark.parametrize("kwargs, message", [
    ({"X": np.zeros((5, 3))}, "X"),
    ({"T": np.array([[0, 1, 99]])}, "T"),
    ({"values": np.ones(3)}, "values"),
    ({"pins": [50]}, "pins"),
    ({"rest": np.zeros((2, 2))}, "rest"),
])
def test_bad_input_is_refused_naming_the_argument(kwargs, message):
    fig, ax = plt.subplots()
    args = {"X": X, "T": T, **kwargs}
    with pytest.raises((ValueError, TypeError), match=message):
        utils.plot_triangles_2d(ax, args.pop("X"), args.pop("T"), **args)


def test_limits_enclose_every_state_with_a_margin():
    (x0, x1), (y0, y1) = utils.triangle_limits([X, X + [5.0, -1.0]], pad=0.1)
    assert x0 < 0.0 and x1 > 8.0 and y0 < -1.0 and y1 > 2.0
    assert x1 - 8.0 == pytest.approx(0.8) and -1.0 - y0 == pytest.approx(0.8)


def test_animation_moves_the_mesh_and_its_colours_frame_by_frame():
    states = np.array([X + [0.1 * i, 0.0] for i in range(5)])
    values = np.arange(5 * len(T), dtype=float).reshape(5, len(T))
    fig, anim = utils.animate_triangles_2d([{"states": states, "T": T, "pins": [0], "values": values},
                                            {"states": states[::-1], "T": T, "title": "back"}], np.arange(5.0))
    assert anim.n_frames == 5
    anim.set_frame(3)
    faces = [a for a in anim.artists if isinstance(a, matplotlib.collections.PolyCollection)]
    np.testing.assert_allclose(np.array([p.vertices[:3] for p in faces[0].get_paths()]), states[3][T])
    np.testing.assert_allclose(np.array([p.vertices[:3] for p in faces[1].get_paths()]), states[1][T])
    np.testing.assert_allclose(faces[0].get_array(), values[3])
    utils.check_frames_inside(anim)                     # default limits fit every frame


def test_animation_refuses_panels_of_different_lengths_and_a_wrong_clock():
    states = np.array([X] * 3)
    with pytest.raises(ValueError, match="same number of frames"):
        utils.animate_triangles_2d([{"states": states, "T": T}, {"states": states[:2], "T": T}], np.arange(3.0))
    with pytest.raises(ValueError, match="t: expected 3 values"):
        utils.animate_triangles_2d([{"states": states, "T": T}], np.arange(4.0))
    with pytest.raises(ValueError, match="values"):
        utils.animate_triangles_2d([{"states": states, "T": T, "values": np.ones((3, 2))}], np.arange(3.0))
