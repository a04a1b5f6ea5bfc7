"""The shortcuts that make video frames cheaper draw exactly what the plain matplotlib calls draw."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib import transforms  # noqa: E402
from matplotlib.path import Path  # noqa: E402

import simkit  # noqa: E402
import utils  # noqa: E402
from course import mesh3d  # noqa: E402
from course._marker_path import _MarkerPath, cache_marker_extents  # noqa: E402
from course._moving_polygons import movable_polygons  # noqa: E402
from course.filesystem import BlitAnimation, _ffmpeg_pipe, save_animation  # noqa: E402
from course.filesystem._probe import decoded_frames  # noqa: E402


# --- the pipe's opacity test -------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 6), (3, 5), (1, 1), (37, 41)])
def test_opacity_test_finds_any_translucent_pixel(shape):
    rgba = np.full((*shape, 4), 255, dtype=np.uint8)
    assert _ffmpeg_pipe._is_opaque(rgba)
    rng = np.random.default_rng(0)
    positions = {0, rgba.shape[0] * rgba.shape[1] - 1, *rng.integers(0, shape[0] * shape[1], 5).tolist()}
    for flat in positions:
        for alpha in (0, 128, 254):
            frame = rgba.copy()
            frame.reshape(-1, 4)[flat, 3] = alpha
            frame.reshape(-1, 4)[flat, :3] = 255 - alpha     # colours never vouch for opacity
            assert not _ffmpeg_pipe._is_opaque(frame), (shape, flat, alpha)


def test_opacity_test_agrees_with_the_alpha_minimum_on_random_frames():
    rng = np.random.default_rng(1)
    for k in range(50):
        frame = rng.integers(0, 256, (8, 10, 4), dtype=np.uint8)
        frame[..., 3] = 255
        if k % 2:
            frame.reshape(-1, 4)[rng.integers(0, 80), 3] = rng.integers(0, 255)
        assert _ffmpeg_pipe._is_opaque(frame) == (frame[..., 3].min() == 255)


# --- the writer's decode check ------------------------------------------------------------------

def test_decoded_frames_counts_every_frame_and_refuses_a_truncated_file(tmp_path):
    fig, ax = plt.subplots(figsize=(1.6, 1.2), dpi=50)
    line, = ax.plot([0, 1], [0, 0])
    anim = BlitAnimation(fig, lambda i: line.set_ydata([0, i / 10]), 13, [line])
    path = save_animation(anim, tmp_path / "count.mp4", fps=10)
    plt.close(fig)
    assert decoded_frames(path) == 13
    data = open(path, "rb").read()
    (tmp_path / "cut.mp4").write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(ValueError, match="does not decode"):
        decoded_frames(str(tmp_path / "cut.mp4"))


# --- scatter markers that keep their extents -----------------------------------------------------

def _circle():
    fig, ax = plt.subplots()
    path = ax.scatter([0.0], [0.0], s=40).get_paths()[0]
    plt.close(fig)
    return path


@pytest.mark.parametrize("scale", [0.5, 1.0, 2.8, 41.0])
def test_marker_extents_are_matplotlibs_for_every_transform(scale):
    plain = _circle()
    cached = _MarkerPath(plain.vertices, plain.codes)
    for _ in range(2):                       # the second call answers from the cache
        for k, t in enumerate([transforms.Affine2D().scale(scale), transforms.Affine2D().scale(scale, 2 * scale),
                               transforms.Affine2D().scale(scale).rotate_deg(30).translate(3, -1)]):
            assert np.array_equal(cached.get_extents(t).get_points(), plain.get_extents(t).get_points()), k
    assert np.array_equal(cached.get_extents().get_points(), plain.get_extents().get_points())


def test_a_scatter_with_cached_extents_draws_the_same_pixels():
    rng = np.random.default_rng(2)
    xy = rng.random((30, 2))
    pictures = []
    for cache in (False, True):
        fig, ax = plt.subplots(figsize=(3, 2), dpi=120)
        nodes = ax.scatter(xy[:, 0], xy[:, 1], s=60, edgecolors="white", linewidths=0.6)
        if cache:
            cache_marker_extents(nodes)
            assert all(isinstance(p, _MarkerPath) for p in nodes.get_paths())
        frames = []
        for dpi in (120, 200):               # another dpi: another marker transform
            fig.set_dpi(dpi)
            nodes.set_offsets(xy[::-1] * (dpi / 200))
            fig.canvas.draw()
            frames.append(np.asarray(fig.canvas.buffer_rgba()).copy())
        pictures.append(frames)
        plt.close(fig)
    for plain, cached in zip(*pictures):
        assert np.array_equal(plain, cached)


# --- mesh3d: triangles moved in place ------------------------------------------------------------

def _crumpled_sheet(frames=8):
    V, F = simkit.grid_sheet(9, 7, 1.0, 0.8)
    rng = np.random.default_rng(3)
    states = np.stack([V + 0.15 * np.sin(0.7 * k + 4 * V[:, [2, 0, 0]]) + 0.03 * rng.standard_normal(V.shape)
                       for k in range(frames)])
    return states, F


def _faces(anim):
    return next(a for a in anim.artists if isinstance(a, matplotlib.collections.PolyCollection))


def test_mesh_animation_moves_its_triangles_in_place():
    states, F = _crumpled_sheet()
    fig, anim = utils.animate_meshes_3d([{"states": states, "F": F, "pins": [0]}], np.arange(len(states)) * 0.1)
    paths = _faces(anim).get_paths()
    block = paths[0].vertices.base                                 # one (f, 4, 2) array behind every path
    assert block is not None and block.shape == (len(F), 4, 2)
    assert all(p.vertices.base is block for p in paths)
    drawn = block.copy()
    anim.set_frame(3)
    assert _faces(anim).get_paths() is paths                       # no new Path objects per frame
    assert not np.array_equal(block, drawn)                        # ... yet they moved
    plt.close(fig)


@pytest.mark.parametrize("frame", [0, 3, 7])
def test_mesh_frames_equal_a_drawing_by_set_verts(frame):
    states, F = _crumpled_sheet()
    t = np.arange(len(states)) * 0.1
    fig, anim = utils.animate_meshes_3d([{"states": states, "F": F, "pins": [0, 5]}], t, edge_lw=0.4)
    anim.draw_background()
    for i in range(frame + 1):               # frames in order, as the writer renders them
        got = anim.render_frame(i).copy()
    plt.close(fig)
    # the reference: the same frame with the triangles given to set_verts, fresh Path objects
    fig, anim = utils.animate_meshes_3d([{"states": states, "F": F, "pins": [0, 5]}], t, edge_lw=0.4)
    anim.draw_background()
    anim.set_frame(frame)
    faces = _faces(anim)
    front, back = mesh3d._rgb(utils.CLOTH_FRONT, "front"), mesh3d._rgb(utils.CLOTH_BACK, "back")
    faces.set_verts(mesh3d._shaded_faces(states[frame], F, mesh3d.view_basis(), front, back)[0])
    canvas = fig.canvas
    canvas.restore_region(anim._background)
    for a in anim.artists:
        fig.draw_artist(a)
    expected = np.asarray(canvas.buffer_rgba()).copy()
    plt.close(fig)
    assert np.array_equal(got, expected)
    if frame:                                # and the frame did move
        fig, anim = utils.animate_meshes_3d([{"states": states, "F": F, "pins": [0, 5]}], t, edge_lw=0.4)
        anim.draw_background()
        assert not np.array_equal(anim.render_frame(0), got)
        plt.close(fig)


@pytest.mark.parametrize("frame", [2, 5])
def test_planar_solid_frames_equal_a_drawing_by_set_verts(frame):
    V, T = simkit.grid_sheet(8, 5, 1.0, 0.5)
    X = V[:, [0, 2]]
    rng = np.random.default_rng(5)
    states = np.stack([X + 0.05 * k * np.column_stack([np.sin(3 * X[:, 1]), -X[:, 0] ** 2])
                       + 0.01 * rng.standard_normal(X.shape) for k in range(6)])
    values = rng.random((6, len(T)))
    panel = {"states": states, "T": T, "pins": [0, 1], "values": values}
    t = np.arange(6) * 0.1
    fig, anim = utils.animate_triangles_2d([panel], t)
    anim.draw_background()
    for i in range(frame + 1):
        got = anim.render_frame(i).copy()
    plt.close(fig)
    fig, anim = utils.animate_triangles_2d([panel], t)
    anim.draw_background()
    anim.set_frame(frame)
    _faces(anim).set_verts(states[frame][T])                      # fresh Path objects
    fig.canvas.restore_region(anim._background)
    for a in anim.artists:
        fig.draw_artist(a)
    expected = np.asarray(fig.canvas.buffer_rgba()).copy()
    assert not np.array_equal(anim.render_frame(0), expected)      # the frame moved
    plt.close(fig)
    assert np.array_equal(got, expected)


def test_movable_triangles_keep_set_verts_vertices_and_codes():
    fig, ax = plt.subplots()
    tri = np.random.default_rng(4).random((5, 3, 2))
    faces = matplotlib.collections.PolyCollection(tri)
    ax.add_collection(faces)
    before = [(p.vertices.copy(), p.codes.copy()) for p in faces.get_paths()]
    corners = movable_polygons(faces)
    for (v, c), p in zip(before, faces.get_paths()):
        assert np.array_equal(v, p.vertices) and np.array_equal(c, p.codes)
        assert p.codes[-1] == Path.CLOSEPOLY
    corners[2, :3] += 1.0
    assert np.array_equal(faces.get_paths()[2].vertices[:3], tri[2] + 1.0)
    plt.close(fig)


# --- render3d: pixels written only where something is seen ----------------------------------------

def test_a_scene_outside_the_window_renders_transparent_black():
    states, F = _crumpled_sheet(1)
    surface = utils.Surface(states[0], F, edge_width=0.3)
    for supersample in (1, 3):
        rgba = utils.render_scene(surface, (31, 17), lims=((50.0, 51.0), (50.0, 50.55)), supersample=supersample)
        assert rgba.shape == (17, 31, 4) and rgba.dtype == np.uint8 and rgba.flags.c_contiguous
        assert not rgba.any()


def test_only_seen_pixels_are_coloured_and_opaque_pixels_are_the_covered_ones():
    states, F = _crumpled_sheet(1)
    surface = utils.Surface(states[0], F, edge_width=0.3)
    rgba = utils.render_scene(surface, (90, 70), supersample=1)
    alpha = rgba[..., 3]
    assert set(np.unique(alpha)) == {0, 255}                      # one sample per pixel: in or out
    assert not rgba[alpha == 0].any()                             # the background: black, transparent
    assert (rgba[alpha == 255, :3].max(axis=1) > 0).all()         # every covered pixel got its colour
    assert 0.2 < (alpha == 255).mean() < 0.95
