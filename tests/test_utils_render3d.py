"""utils, depth-correct 3D scenes (course.render3d, course.scene3d, course._raster): each pixel shows the
nearest surface, where painter's order cannot (cyclic overlap, parallel sheets 2 mm apart at a grazing
angle); shading, edges, pins, anti-aliasing, figures and videos."""
import matplotlib.colors as mcolors
import matplotlib.pyplot as plt
import numpy as np
import pytest

import simkit
import utils
from course.filesystem.media_rule import PIXEL_FRACTION, differing_fraction
from course import _raster

FLAT = utils.Lighting(ambient=1.0, diffuse=0.0, specular=0.0)      # every pixel shows its base colour exactly
FRONT_VIEW = utils.View(0.0, 0.0)                                   # screen x = world x, screen y = world y
COLORS = ["#d62728", "#2ca02c", "#1f77b4"]
SEED = 0


def rgb255(color):
    return np.rint(np.array(mcolors.to_rgb(color)) * 255).astype(int)


def to_pixel(points, lims, size):
    """(k, 2) screen points -> (rows, cols) of the pixels holding them in a render of ``size``."""
    (x0, x1), (y0, y1) = lims
    width, height = size
    cols = np.floor((points[:, 0] - x0) / (x1 - x0) * width).astype(int)
    rows = np.floor((y1 - points[:, 1]) / (y1 - y0) * height).astype(int)
    return rows, cols


# ---------------------------------------------------------------- scenes painter's order cannot draw

def cyclic_blades(length=2.0, half=0.25, offset=0.3, slope=0.2):
    """Three long triangles, each rising along its length, arranged so that 0 lies under 1 where they
    cross, 1 under 2 and 2 under 0: no order of whole triangles draws all three crossings right.

    Returns X (9, 3), F (3, 3) facing +z, and the three crossings (3, 2) of their centre lines.
    """
    X, F, lines = [], [], []
    for k in range(3):
        th = 2 * np.pi * k / 3
        u, v = np.array([np.cos(th), np.sin(th)]), np.array([-np.sin(th), np.cos(th)])
        base, tip = -length / 2 * u + offset * v, length / 2 * u + offset * v
        X += [[*(base + half * v), -slope], [*(base - half * v), -slope], [*tip, slope]]
        F.append([3 * k, 3 * k + 1, 3 * k + 2])
        lines.append((offset * v, u))
    X, F = np.array(X), np.array(F)
    up = np.cross(X[F[:, 1]] - X[F[:, 0]], X[F[:, 2]] - X[F[:, 0]])[:, 2] > 0
    F[~up] = F[~up][:, [0, 2, 1]]
    crossings = []
    for k in range(3):
        (p0, u0), (p1, u1) = lines[k], lines[(k + 1) % 3]
        s = np.linalg.solve(np.column_stack([u0, -u1]), p1 - p0)
        crossings.append(p0 + s[0] * u0)
    return X, F, np.array(crossings)


def nearest_at(X, F, points):
    """Index of the triangle nearest to a +z camera at each screen point (-1: none), by direct evaluation."""
    best, depth = np.full(len(points), -1), np.full(len(points), -np.inf)
    for t, tri in enumerate(F):
        A = X[tri]
        b = np.linalg.solve(np.column_stack([A[1, :2] - A[0, :2], A[2, :2] - A[0, :2]]), (points - A[0, :2]).T).T
        inside = (b.min(axis=1) > 0.01) & (b.sum(axis=1) < 0.99)
        z = A[0, 2] + b @ (A[1:, 2] - A[0, 2])
        better = inside & (z > depth)
        best[better], depth[better] = t, z[better]
    return best


def test_the_blades_overlap_cyclically():
    X, F, crossings = cyclic_blades()
    assert list(nearest_at(X, F, crossings)) == [1, 2, 0]      # 1 over 0, 2 over 1, 0 over 2


def zbuffer_colors(X, F, points, lims, size=(200, 200)):
    color = np.array([mcolors.to_rgb(c) for c in COLORS])
    image = utils.render_scene(utils.Surface(X, F, front=color, back=color), size, view=FRONT_VIEW, lims=lims,
                               lighting=FLAT)
    rows, cols = to_pixel(points, lims, size)
    return image[rows, cols, :3].astype(int)


def painter_colors(X, F, points, lims):
    """The scene through course.mesh3d's painter path (``plot_mesh_3d``: whole triangles far to near),
    each triangle recoloured to tell them apart, and the pixels at the points."""
    fig, ax = plt.subplots(figsize=(2, 2), dpi=100)
    fig.subplots_adjust(0, 0, 1, 1)
    art = utils.plot_mesh_3d(ax, X, F, view=FRONT_VIEW, lims=lims, edge_lw=0)
    drawn = np.array([path.vertices[:3] for path in art.faces.get_paths()])      # in painting order
    order = [int(np.argmin(np.abs(drawn[k] - X[F][:, :, :2]).sum(axis=(1, 2)))) for k in range(len(F))]
    art.faces.set_facecolor([COLORS[t] for t in order])
    art.faces.set_edgecolor("none")
    art.faces.set_antialiased(False)
    fig.canvas.draw()
    pixels = np.asarray(fig.canvas.buffer_rgba())
    display = ax.transData.transform(points)
    rows = (pixels.shape[0] - display[:, 1]).astype(int)
    return pixels[rows, display[:, 0].astype(int), :3].astype(int)


def test_cyclic_overlap_shows_the_nearer_triangle_at_every_crossing():
    X, F, crossings = cyclic_blades()
    lims = ((-1.3, 1.3), (-1.3, 1.3))
    expected = np.array([rgb255(COLORS[t]) for t in nearest_at(X, F, crossings)])
    np.testing.assert_array_equal(zbuffer_colors(X, F, crossings, lims), expected)


def test_the_cyclic_check_fails_for_painters_order():
    """The same check run on course.mesh3d's painter path: at least one crossing shows the farther blade."""
    X, F, crossings = cyclic_blades()
    lims = ((-1.3, 1.3), (-1.3, 1.3))
    expected = np.array([rgb255(COLORS[t]) for t in nearest_at(X, F, crossings)])
    wrong = np.abs(painter_colors(X, F, crossings, lims) - expected).max(axis=1) > 8
    assert wrong.any()


def parallel_sheets(gap=0.002, n=11, size=0.5):
    """Two sheets ``gap`` apart: the upper one faces up (front), the lower one faces down, so a camera
    above sees the upper one's front and, wherever a layer is wrongly drawn on top, the lower one's back.
    The lower sheet is a little smaller and its nodes sit off the upper one's (as in any fold), so its
    triangles are not each right under one of the upper sheet's."""
    V, F = simkit.grid_sheet(n, n, size, size)
    cell = size / (n - 1)
    lower = 0.9 * V + [0.4 * cell, 0.0, 0.3 * cell]
    upper = V + [0.0, gap, 0.0]
    X = np.vstack([upper, lower])
    return X, np.vstack([F, F[:, ::-1] + len(V)])


GRAZING = utils.View(5.0, -30.0)


def upper_sheet_pixels(rgb, X, lims, size, view, shrink=0.8):
    """Pixels of ``rgb`` whose centres lie in the upper sheet's outline shrunk towards its centre."""
    from matplotlib.path import Path

    basis = utils.view_basis(view)
    outline = X[[0, 10, 120, 110]] @ basis[:2].T
    outline = outline.mean(axis=0) + shrink * (outline - outline.mean(axis=0))
    (x0, x1), (y0, y1) = lims
    width, height = size
    cols, rows = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
    centres = np.column_stack([x0 + cols.ravel() / width * (x1 - x0), y1 - rows.ravel() / height * (y1 - y0)])
    return rgb.reshape(-1, 3)[Path(outline).contains_points(centres)]


def grazing_window(X, F):
    """Screen window 3:1 around the sheets at the grazing view."""
    (x0, x1), (y0, y1) = utils.scene_limits(utils.Surface(X, F), GRAZING)
    middle, half = 0.5 * (y0 + y1), (x1 - x0) / 6
    return (x0, x1), (middle - half, middle + half)


def test_parallel_sheets_2mm_apart_at_a_grazing_angle_show_only_the_upper_sheet():
    X, F = parallel_sheets()
    size, lims = (600, 200), grazing_window(X, F)
    image = utils.render_scene(utils.Surface(X, F), size, view=GRAZING, lims=lims, lighting=FLAT)
    seen = upper_sheet_pixels(image[..., :3].astype(int), X, lims, size, GRAZING)
    assert len(seen) > 1000
    assert np.all(seen == rgb255(utils.CLOTH_FRONT))


def test_the_parallel_sheets_check_fails_for_painters_order():
    X, F = parallel_sheets()
    fig, ax = plt.subplots(figsize=(6, 2), dpi=100)
    fig.subplots_adjust(0, 0, 1, 1)
    lims = grazing_window(X, F)
    art = utils.plot_mesh_3d(ax, X, F, view=GRAZING, lims=lims, edge_lw=0)
    front, back = rgb255(utils.CLOTH_FRONT), rgb255(utils.CLOTH_BACK)
    art.faces.set_facecolor([utils.CLOTH_FRONT if rgba[2] > rgba[0] else utils.CLOTH_BACK
                             for rgba in art.faces.get_facecolor()])      # unshaded, to compare exactly
    art.faces.set_edgecolor("none")
    art.faces.set_antialiased(False)
    fig.canvas.draw()
    seen = upper_sheet_pixels(np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(int), X, lims, (600, 200), GRAZING)
    assert len(seen) > 1000
    assert np.all((seen == front).all(axis=1) | (seen == back).all(axis=1))
    assert (seen == back).all(axis=1).sum() > 0.05 * len(seen)     # the lower sheet's back shows through


# ---------------------------------------------------------------- the rasterizer

def random_scene(rng, h, w, count):
    P = rng.uniform([0.0, 0.0, 0.0], [w, h, 10.0], (3 * count, 3))
    F = np.arange(3 * count).reshape(count, 3)
    discs = np.column_stack([rng.uniform(0, w, 3), rng.uniform(0, h, 3), rng.uniform(0, 10, 3), rng.uniform(1, 6, 3)])
    return P, F, discs


def brute_force(P, F, discs, h, w):
    """Nearest primitive per sample, by testing every sample against every primitive."""
    cols, rows = np.meshgrid(np.arange(w) + 0.5, np.arange(h) + 0.5)
    centres = np.column_stack([cols.ravel(), rows.ravel()])
    ids, best = np.full(h * w, -1), np.full(h * w, np.inf)
    for t, tri in enumerate(F):
        A = P[tri]
        b12 = np.linalg.solve(np.column_stack([A[1, :2] - A[0, :2], A[2, :2] - A[0, :2]]), (centres - A[0, :2]).T).T
        b = np.column_stack([1 - b12.sum(axis=1), b12])
        z = b @ A[:, 2]
        closer = (b.min(axis=1) >= 0) & (z < best)
        ids[closer], best[closer] = t, z[closer]
    for k, (cx, cy, cz, r) in enumerate(discs):
        rho2 = (cols.ravel() - cx) ** 2 + (rows.ravel() - cy) ** 2
        z = cz - np.sqrt(np.maximum(r * r - rho2, 0.0))
        closer = (rho2 <= r * r) & (z < best)
        ids[closer], best[closer] = len(F) + k, z[closer]
    return ids.reshape(h, w)


@pytest.mark.parametrize("seed", range(3))
def test_rasterize_keeps_the_nearest_primitive_of_every_sample(seed):
    rng = np.random.default_rng(seed)
    h, w = 48, 64
    P, F, discs = random_scene(rng, h, w, 14)
    np.testing.assert_array_equal(_raster.rasterize(P, F, discs, (h, w)), brute_force(P, F, discs, h, w))


def test_rasterize_does_not_depend_on_the_order_of_the_triangles():
    rng = np.random.default_rng(SEED)
    P, F, discs = random_scene(rng, 40, 40, 20)
    perm = rng.permutation(len(F))
    ids = _raster.rasterize(P, F, discs, (40, 40))
    shuffled = _raster.rasterize(P, F[perm], discs, (40, 40))
    mapped = np.where((shuffled >= 0) & (shuffled < len(F)), perm[np.clip(shuffled, 0, len(F) - 1)], shuffled)
    np.testing.assert_array_equal(mapped, ids)


def test_rasterize_on_some_samples_equals_the_full_image_there():
    rng = np.random.default_rng(SEED)
    h, w = 50, 70
    P, F, discs = random_scene(rng, h, w, 16)
    samples = np.sort(rng.choice(h * w, 900, replace=False))
    full = _raster.rasterize(P, F, discs, (h, w))
    np.testing.assert_array_equal(_raster.rasterize(P, F, discs, (h, w), samples=samples), full.ravel()[samples])


def test_a_crumpled_mesh_leaves_no_crack_between_its_triangles():
    """Every sample inside a noisy grid's outline is covered: shared edges are bit-identical in both triangles."""
    rng = np.random.default_rng(SEED)
    V, F = simkit.grid_sheet(23, 17, 1.0, 1.0)
    P = np.column_stack([V[:, 0] * 311 + 3.3, V[:, 2] * 197 + 2.7, rng.normal(0, 5, len(V))])
    inner = (V[:, 0] > 0) & (V[:, 0] < 1) & (V[:, 2] > 0) & (V[:, 2] < 1)
    P[inner, :2] += rng.uniform(-5, 5, (inner.sum(), 2))                   # crumpled inside, a straight outline
    ids = _raster.rasterize(P, F, np.zeros((0, 4)), (205, 320))
    assert (ids[3:200, 4:314] >= 0).all()


def test_an_edge_is_the_same_line_for_both_of_its_triangles():
    """Traversed either way, an edge gives bit-identical bounds (anchored at its lower-indexed end)."""
    rng = np.random.default_rng(SEED)
    P = rng.uniform(0, 100, (50, 3)) / 3.0
    i, j = rng.integers(0, 50, 200), rng.integers(0, 50, 200)
    keep = P[i, 1] != P[j, 1]
    forward, backward = _raster._edge_lines(P, i[keep], j[keep]), _raster._edge_lines(P, j[keep], i[keep])
    for a, b in zip(forward, backward):
        assert np.array_equal(a, b)


# ---------------------------------------------------------------- shading, edges, pins, anti-aliasing

def unit_sphere(count=2000):
    """Triangles of the convex hull of ``count`` Fibonacci points on the unit sphere, facing outwards."""
    from scipy.spatial import ConvexHull

    k = np.arange(count) + 0.5
    z = 1 - 2 * k / count
    phi = np.pi * (1 + 5 ** 0.5) * k
    V = np.column_stack([np.sqrt(1 - z * z) * np.cos(phi), np.sqrt(1 - z * z) * np.sin(phi), z])
    F = ConvexHull(V).simplices
    inward = np.einsum("ij,ij->i", np.cross(V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]]), V[F].mean(axis=1)) < 0
    F[inward] = F[inward][:, ::-1]
    return V, F


TRIANGLE = np.array([[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [0.0, 1.0, 0.0]])     # normal +z: faces the front camera
LIMS = ((-1.2, 1.2), (-1.2, 1.2))


def centre_pixel(image):
    return image[image.shape[0] // 2 + 10, image.shape[1] // 2, :3].astype(float) / 255


@pytest.mark.parametrize("flip", [False, True])
def test_lighting_follows_the_blinn_phong_formula_on_the_side_the_camera_sees(flip):
    F = np.array([[0, 2, 1]]) if flip else np.array([[0, 1, 2]])
    light = utils.Lighting(ambient=0.3, diffuse=0.5, specular=0.2, shininess=8.0, direction=(0.3, 0.4, 1.0))
    image = utils.render_scene(utils.Surface(TRIANGLE, F), (120, 120), view=FRONT_VIEW, lims=LIMS, lighting=light)
    base = np.array(mcolors.to_rgb(utils.CLOTH_BACK if flip else utils.CLOTH_FRONT))
    ell = np.array(light.direction) / np.linalg.norm(light.direction)
    half = (ell + [0, 0, 1]) / np.linalg.norm(ell + [0, 0, 1])
    expected = base * (0.3 + 0.5 * ell[2]) + 0.2 * half[2] ** 8.0
    np.testing.assert_allclose(centre_pixel(image), np.clip(expected, 0, 1), atol=0.6 / 255)


def test_smooth_shading_interpolates_node_normals():
    """A sphere's brightness, shaded from node normals, matches the diffuse law at the sampled point."""
    V, F = unit_sphere()
    light = utils.Lighting(ambient=0.0, diffuse=1.0, specular=0.0, direction=(0.0, 0.0, 1.0))
    size = (201, 201)
    image = utils.render_scene(utils.Surface(V, F, front="white", smooth=True), size, view=FRONT_VIEW,
                               lims=((-1.005, 1.005), (-1.005, 1.005)), lighting=light)
    flat = utils.render_scene(utils.Surface(V, F, front="white"), size, view=FRONT_VIEW,
                              lims=((-1.005, 1.005), (-1.005, 1.005)), lighting=light)
    points = np.array([[0.0, 0.0], [0.5, 0.3], [-0.6, -0.55], [0.2, -0.8]])
    rows, cols = to_pixel(points, ((-1.005, 1.005), (-1.005, 1.005)), size)
    expected = np.sqrt(1 - (points ** 2).sum(axis=1))               # n . l = z on the unit sphere
    np.testing.assert_allclose(image[rows, cols, 0] / 255, expected, atol=0.02)
    # smooth shading is continuous: neighbouring pixels differ far less than flat faces do
    smooth_jumps = np.abs(np.diff(image[60:140, 60:140, 0].astype(int), axis=1)).max()
    flat_jumps = np.abs(np.diff(flat[60:140, 60:140, 0].astype(int), axis=1)).max()
    assert smooth_jumps <= 3 < flat_jumps


def test_edges_are_drawn_and_depth_tested():
    """A near square hides the edges of a far one; its own edges darken by LINE_SHADE."""
    V, F = simkit.grid_sheet(3, 3, 2.0, 2.0)
    near = np.column_stack([V[:, 0] - 1, V[:, 2] - 1, np.full(len(V), 0.5)])
    far = near * [1.0, 1.0, -1.0]
    size = (240, 240)
    hidden = utils.render_scene([utils.Surface(near, F, front="white", back="white"),
                                 utils.Surface(far, F, front="white", back="white", edge_width=2.0)], size,
                                view=FRONT_VIEW, lims=LIMS, lighting=FLAT)
    assert (hidden[20:220, 20:220, :3] == 255).all()
    drawn = utils.render_scene(utils.Surface(near, F, front="white", back="white", edge_width=2.0), size,
                               view=FRONT_VIEW, lims=LIMS, lighting=FLAT, dpi=72.0)
    line = drawn[60, 115:125, 0]                                      # across the edge x = 0
    assert line.min() == round(255 * utils.LINE_SHADE)
    assert drawn[60, 40, 0] == 255                                    # 20 px from every edge


def test_a_pin_shows_in_front_and_hides_behind_a_surface():
    X = np.vstack([TRIANGLE, [[0.0, -0.2, 0.5]], [[0.0, -0.2, -0.5]]])
    size, lims = (120, 120), LIMS
    row, col = to_pixel(np.array([[0.0, -0.2]]), lims, size)
    front, behind = (utils.render_scene(utils.Surface(X, np.array([[0, 1, 2]]), front="white", pins=[pin], pin_size=20),
                                        size, view=FRONT_VIEW, lims=lims, dpi=72.0, lighting=FLAT)
                     for pin in (3, 4))
    np.testing.assert_allclose(front[row[0], col[0], :3], rgb255(utils.PIN_C), atol=1)    # the ball's centre
    np.testing.assert_array_equal(behind[row[0], col[0], :3], [255, 255, 255])
    seen = behind[..., 3] > 0
    assert (behind[seen, :3] == 255).all()                             # no part of it shows through


@pytest.mark.parametrize("supersample", [1, 2, 4])
def test_silhouettes_are_anti_aliased_by_coverage(supersample):
    """A half-plane's border pixels carry the covered fraction of their subsamples as alpha."""
    X = np.array([[-5.0, -5.0, 0.0], [0.37, -5.0, 0.0], [0.37, 5.0, 0.0], [-5.0, 5.0, 0.0]])   # x <= 0.37
    F = np.array([[0, 1, 2], [0, 2, 3]])
    image = utils.render_scene(utils.Surface(X, F), (24, 24), view=FRONT_VIEW, lims=((-1.2, 1.2), (-1.2, 1.2)),
                               supersample=supersample)
    alpha = image[12, :, 3] / 255
    covered = np.clip((0.37 + 1.2) / 0.1 - np.arange(24), 0, 1)      # exact area fraction of each pixel column
    expected = np.floor(covered * supersample + 0.5) / supersample   # the fraction of subsample centres inside
    np.testing.assert_allclose(alpha, expected, atol=0.6 / 255)


def test_rendering_is_deterministic_and_absorbs_round_off():
    V, F = unit_sphere(800)
    C, G = simkit.grid_sheet(25, 25, 2.4, 2.4)
    C = C - [1.2, 0.0, 1.2]
    rho = np.hypot(C[:, 0], C[:, 2])
    C[:, 1] = np.where(rho < 0.9, np.sqrt(np.maximum(1.004 ** 2 - rho ** 2, 0.0)), 0.44 - 1.5 * (rho - 0.9))
    C *= np.maximum(1.0, 1.004 / np.linalg.norm(C, axis=1))[:, None]            # 4 mm off the sphere
    scene, view = [utils.Surface(C, G, smooth=True, edge_width=0.3), utils.Surface(V, F, front="0.7")], utils.View()
    first = utils.render_scene(scene, (320, 280), view=view)
    np.testing.assert_array_equal(utils.render_scene(scene, (320, 280), view=view), first)
    rng = np.random.default_rng(SEED)
    nudged = [utils.Surface(s.states[0] * (1 + 1e-12 * rng.standard_normal(s.states[0].shape)), s.F, front=s.front,
                            back=s.back, smooth=s.smooth, edge_width=s.edge_width) for s in scene]
    lims = utils.scene_limits(scene, view)
    fraction = differing_fraction(utils.render_scene(scene, (320, 280), view=view, lims=lims),
                                  utils.render_scene(nudged, (320, 280), view=view, lims=lims))
    assert fraction <= PIXEL_FRACTION


def test_closed_outward_surfaces_skip_their_far_side_with_the_same_picture():
    V, F = unit_sphere(600)
    X, T = simkit.grid_box(3, 2, 2)
    assert utils.Surface(V, F).closed and utils.Surface(X, simkit.boundary_faces(T)).closed
    assert not utils.Surface(V, F[:, ::-1]).closed                        # inside out
    assert not utils.Surface(V, F[1:]).closed                             # a hole
    assert not utils.Surface(*simkit.grid_sheet(3, 3)).closed             # a sheet
    culled = utils.Surface(V, F, front="0.7", smooth=True, edge_width=0.4)
    drawn = utils.Surface(V, F, front="0.7", smooth=True, edge_width=0.4)
    drawn.closed = False
    np.testing.assert_array_equal(utils.render_scene(culled, (160, 160), view=utils.View(30, 20)),
                                  utils.render_scene(drawn, (160, 160), view=utils.View(30, 20)))


# ---------------------------------------------------------------- input checks

@pytest.fixture
def sheet():
    V, F = simkit.grid_sheet(4, 3, 1.0, 0.6)
    return V, F


@pytest.mark.parametrize("bad, error, match", [
    (dict(X=np.zeros((12, 2))), ValueError, r"^X: expected"),
    (dict(X=np.zeros((2, 12, 2))), ValueError, r"^X: expected"),
    (dict(X=np.full((12, 3), np.nan)), ValueError, "^X: expected finite values"),
    (dict(F=np.array([[0, 1, 99]])), ValueError, r"^F: expected indices in \[0, 12\)"),
    (dict(F=np.array([[0.0, 1.0, 2.0]])), TypeError, "^F: expected an integer index array"),
    (dict(front="not a colour"), ValueError, "^front: expected a matplotlib colour"),
    (dict(back=np.zeros((3, 3))), ValueError, r"^back: expected a colour or an \(12, 3\) array"),
    (dict(smooth=1), TypeError, "^smooth: expected True or False"),
    (dict(edge_width=-0.1), ValueError, "^edge_width: expected a value >= 0"),
    (dict(pins=[12]), ValueError, r"^pins: expected indices in \[0, 12\)"),
    (dict(pin_size=0.0), ValueError, "^pin_size: expected a finite value > 0"),
])
def test_surface_rejects_bad_input(sheet, bad, error, match):
    V, F = sheet
    args = dict(X=V, F=F) | bad
    with pytest.raises(error, match=match):
        utils.Surface(args.pop("X"), args.pop("F"), **args)


def test_render_scene_rejects_bad_input(sheet):
    V, F = sheet
    moving = utils.Surface(np.stack([V, V + 0.1]), F)
    with pytest.raises(TypeError, match="^scene: expected a Surface"):
        utils.render_scene([V, F], (10, 10))
    with pytest.raises(ValueError, match=r"^size: expected a pair"):
        utils.render_scene(moving, 10)
    with pytest.raises(ValueError, match="^size: expected an integer >= 1"):
        utils.render_scene(moving, (0, 10))
    with pytest.raises(ValueError, match=r"^frame: expected a frame in \[0, 2\)"):
        utils.render_scene(moving, (10, 10), frame=2)
    with pytest.raises(ValueError, match="^supersample: expected an integer >= 1"):
        utils.render_scene(moving, (10, 10), supersample=0)
    with pytest.raises(TypeError, match="^lighting: expected a Lighting"):
        utils.render_scene(moving, (10, 10), lighting={"ambient": 1.0})
    with pytest.raises(ValueError, match="^scene: expected every moving surface to have the same number"):
        utils.render_scene([moving, utils.Surface(np.stack([V, V, V]), F)], (10, 10))


# ---------------------------------------------------------------- figures and videos

def test_a_scene_in_a_figure_is_rendered_at_the_axes_pixel_size_unresampled(sheet, tmp_path):
    V, F = sheet
    scene = [utils.Surface(V, F, smooth=True, edge_width=0.5, pins=[0])]
    fig, ax = plt.subplots(figsize=(3.0, 2.0), dpi=utils.DPI)
    artist = utils.plot_scene_3d(ax, scene, view=utils.View(30, -40), title="sheet")
    assert isinstance(artist, utils.SceneArtist) and ax.get_title() == "sheet" and not ax.axison
    dpi = utils.DENSITY * utils.DPI
    fig.savefig(tmp_path / "scene.png", dpi=dpi)
    from PIL import Image

    saved = np.asarray(Image.open(tmp_path / "scene.png").convert("RGB")).astype(int)
    fig.set_dpi(dpi)
    x0, y0, x1, y1 = np.rint(ax.bbox.extents).astype(int)
    (left, bottom), (right, top) = ax.transData.inverted().transform([[x0, y0], [x1, y1]])
    picture = utils.render_scene(scene, (x1 - x0, y1 - y0), view=utils.View(30, -40),
                                 lims=((left, right), (bottom, top))).astype(int)
    over_white = (picture[..., :3] * picture[..., 3:] + 255 * (255 - picture[..., 3:])) / 255
    region = saved[saved.shape[0] - y1:saved.shape[0] - y0, x0:x1]
    assert np.abs(region - over_white).max() <= 2


def test_plot_scenes_3d_one_panel_per_scene_at_one_scale(sheet):
    V, F = sheet
    fig, axes = utils.plot_scenes_3d([[utils.Surface(V, F)], [utils.Surface(2 * V, F)]], titles=["one", "two"])
    assert len(axes) == 2 and [ax.get_title() for ax in axes] == ["one", "two"]
    assert axes[0].get_xlim() == axes[1].get_xlim()
    with pytest.raises(ValueError, match="^titles: expected a list of 2 str"):
        utils.plot_scenes_3d([[utils.Surface(V, F)], [utils.Surface(V, F)]], titles=["one"])


def test_animate_scene_3d_renders_frames_with_an_energy_panel(sheet):
    V, F = sheet
    T = 4
    states = np.stack([V + [0.0, -0.1 * k, 0.05 * k] for k in range(T)])
    ground = utils.Surface(np.array([[-1, -0.5, -1], [2, -0.5, -1], [2, -0.5, 2], [-1, -0.5, 2.0]]),
                           np.array([[0, 2, 1], [0, 3, 2]]), front="0.9", fit=False)
    t = np.arange(T) * 0.1
    fig, anim = utils.animate_scene_3d([utils.Surface(states, F, pins=[0]), ground], t,
                                       series={"kinetic": t ** 2, "potential": 1 - t})
    assert anim.n_frames == T and len(fig.axes) == 2 and fig.dpi == utils.DENSITY * utils.DPI
    assert np.allclose(fig.get_size_inches(), (7.4, 3.7))
    utils.check_frames_inside(anim)
    anim.draw_background()
    first = anim.render_frame(0).copy()
    last = anim.render_frame(T - 1).copy()
    assert (first != last).any()
    np.testing.assert_array_equal(anim.render_frame(0), first)     # a pure function of the frame index


def test_animate_scene_3d_side_by_side_and_checks(sheet):
    V, F = sheet
    states = np.stack([V, V + 0.1, V + 0.2])
    fig, anim = utils.animate_scene_3d([[utils.Surface(states, F)], [utils.Surface(states[::-1], F)]], [0, 1, 2],
                                       titles=["a", "b"])
    assert anim.n_frames == 3 and [ax.get_title() for ax in fig.axes] == ["a", "b"]
    with pytest.raises(ValueError, match=r"^t: expected 3 values \(one per frame of scenes\[0\]\)"):
        utils.animate_scene_3d(utils.Surface(states, F), [0.0, 0.1])
    with pytest.raises(ValueError, match=r"^series\['kinetic'\]: expected 3 values"):
        utils.animate_scene_3d(utils.Surface(states, F), [0, 1, 2], series={"kinetic": [1.0, 2.0]})


def test_a_scene_video_is_written(sheet, tmp_path):
    from course.filesystem import save_animation

    V, F = sheet
    fig, anim = utils.animate_scene_3d(utils.Surface(np.stack([V, V + 0.1]), F), [0.0, 0.1], figsize=(2.0, 1.6))
    path = save_animation(anim, tmp_path / "scene.mp4", fps=10)
    import imageio_ffmpeg

    assert imageio_ffmpeg.count_frames_and_secs(path)[0] == 2
