"""Benchmark and look-book of the depth-correct 3D renderer (``course.render3d``, ``course.scene3d``).

Scenes where a painter's algorithm fails, built here in numpy (no solver): a strip of cloth
folded twice into an S with its layers ``GAP`` apart (staggered, so every fold shows) on a
ground, a 40x40 cloth draped over a sphere of about 2,000 triangles, and a pile of small
tet-meshed boxes (``simkit.grid_box``, drawn by ``simkit.boundary_faces``) a millimetre apart.

Prints frames per second in CPU time of this process (``time.process_time``: the machine is
shared), best of ``--repeat`` passes over every frame, in one process so that the ratios compare
like with like:
- frames per second of ``utils.animate_scene_3d`` at the course's video size (7.4 in wide at
  ``DENSITY * DPI``, energy panel beside the scene), for the cloth on the sphere, per
  supersampling, and of the same scene alone over the full width;
- the painter's path (``utils.animate_meshes_3d``, the cloth and sphere merged into one mesh) on
  the same frames, for comparison.

``--look DIR`` also writes, for each scene, the painter's picture beside the renderer's
(``DIR/<scene>.png``), to look at.

Run from the repository root::

    .venv/bin/python benchmarks/bench_render.py [--look /tmp/render] [--repeat 5]
"""
import argparse
import os
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import simkit  # noqa: E402
import utils  # noqa: E402

GAP = 0.002                     # distance between the layers of the S-fold (m)
SPHERE_R = 0.3
CLOTH_N = 41                    # nodes per side: 40 x 40 cells, 3,200 triangles
FRAMES = 24
GROUND = "#e9e4dc"              # a light floor under the cloth and the pile
PILE_COLORS = ["#33495f", "#16907f", "#b03a2e", "#7b3fa0", "#c77c2a", "#4f86c6", "#8a6d1f", "#2e86c1"]


def sphere_mesh(n_around=40, n_rings=27, radius=SPHERE_R, centre=(0.0, 0.0, 0.0)):
    """A UV sphere, outward triangles: (n_around * (n_rings - 3) * 2 + 2 n_around) triangles."""
    theta = np.linspace(0.0, np.pi, n_rings)[1:-1]
    phi = np.linspace(0.0, 2 * np.pi, n_around, endpoint=False)
    th, ph = np.meshgrid(theta, phi, indexing="ij")
    ring = np.column_stack([np.sin(th).ravel() * np.cos(ph).ravel(), np.cos(th).ravel(),
                            np.sin(th).ravel() * np.sin(ph).ravel()])
    V = np.vstack([[0.0, 1.0, 0.0], ring, [0.0, -1.0, 0.0]]) * radius + np.asarray(centre)
    idx = 1 + np.arange(ring.shape[0]).reshape(len(theta), n_around)
    a, b = idx[:-1], np.roll(idx[:-1], -1, axis=1)
    c, d = idx[1:], np.roll(idx[1:], -1, axis=1)
    top = np.column_stack([np.zeros(n_around, int), np.roll(idx[0], -1), idx[0]])
    bottom = np.column_stack([np.full(n_around, len(V) - 1), idx[-1], np.roll(idx[-1], -1)])
    F = np.vstack([np.column_stack([a.ravel(), b.ravel(), c.ravel()]),
                   np.column_stack([b.ravel(), d.ravel(), c.ravel()]), top, bottom])
    return V, F


def ground(size, y, centre=(0.0, 0.0)):
    """A square of two triangles in the plane y, normal up."""
    cx, cz = centre
    h = size / 2
    V = np.array([[cx - h, y, cz - h], [cx + h, y, cz - h], [cx + h, y, cz + h], [cx - h, y, cz + h]])
    return V, np.array([[0, 2, 1], [0, 3, 2]])


def s_fold(n=120, gap=GAP):
    """A 1.5 m x 0.4 m strip folded twice into three layers ``gap`` apart, staggered: (V, F) on the ground y=0."""
    V, F = simkit.grid_sheet(n + 1, 17, 1.5, 0.4)
    s = V[:, 0]
    r = gap / 2
    lengths = np.array([0.62, np.pi * r, 0.44, np.pi * r, 0.30])
    b = np.concatenate([[0.0], np.cumsum(lengths)])
    b *= 1.5 / b[-1]
    L0, L1 = b[1], b[3] - b[2]
    x, y = np.empty_like(s), np.empty_like(s)
    seg = np.searchsorted(b[1:-1], s, side="right")
    u = s - b[seg]
    x[seg == 0], y[seg == 0] = u[seg == 0], 0.0                                    # bottom, +x
    a = u / r
    x[seg == 1], y[seg == 1] = L0 + r * np.sin(a[seg == 1]), r - r * np.cos(a[seg == 1])
    x[seg == 2], y[seg == 2] = L0 - u[seg == 2], gap                               # middle, -x
    x[seg == 3] = L0 - L1 - r * np.sin(a[seg == 3])
    y[seg == 3] = gap + r - r * np.cos(a[seg == 3])
    x[seg == 4], y[seg == 4] = L0 - L1 + u[seg == 4], 2 * gap                      # top, +x
    return np.column_stack([x, y + gap, V[:, 2]]), F


def drape(phase=0.0, n=CLOTH_N, width=0.8, radius=SPHERE_R):
    """A cloth over a sphere at the origin (a shape, not a simulation): on the cap, then hanging in waves."""
    V, F = simkit.grid_sheet(n, n, width, width)
    V[:, [0, 2]] -= width / 2
    rho = np.hypot(V[:, 0], V[:, 2])
    theta = np.arctan2(V[:, 2], V[:, 0])
    lift = radius + 0.004
    cap = 0.75 * radius
    on_cap = rho < cap
    fall = np.clip(rho - cap, 0.0, None)
    out = np.where(on_cap, 1.0, (cap + 0.35 * fall) / np.maximum(rho, 1e-12))
    y = np.where(on_cap, np.sqrt(np.maximum(lift ** 2 - rho ** 2, 0.0)), np.sqrt(lift ** 2 - cap ** 2) - 0.95 * fall)
    out = out + np.where(on_cap, 0.0, 0.06 * fall * np.sin(6 * theta + phase))
    # the hem hangs outside the sphere: push nodes that would enter it out to the offset surface
    P = np.column_stack([V[:, 0] * out, y, V[:, 2] * out])
    dist = np.linalg.norm(P, axis=1)
    P *= np.maximum(1.0, lift / dist)[:, None]
    return P, F


def pile(seed=0, count=7, gap=0.001):
    """Small tet-meshed boxes (3x2x2 nodes) stacked in a loose pile, each ``gap`` above what it rests on."""
    rng = np.random.default_rng(seed)
    Xb, Tb = simkit.grid_box(3, 2, 2, 0.24, 0.08, 0.12)
    Xb = Xb - Xb.mean(axis=0)
    Xs, Ts, ys = [], [], []
    for k in range(count):
        yaw = rng.uniform(0, np.pi)
        c, s = np.cos(yaw), np.sin(yaw)
        R = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
        X = Xb @ R.T + [rng.uniform(-0.1, 0.1), 0.0, rng.uniform(-0.1, 0.1)]
        X[:, 1] += 0.04 + gap
        # drop onto what lies below: rest gap above the highest overlapping box (boxes stay level)
        for Y in Xs:
            if np.abs(X[:, [0, 2]].mean(0) - Y[:, [0, 2]].mean(0)).max() < 0.2:
                X[:, 1] += max(0.0, Y[:, 1].max() + gap - X[:, 1].min())
        Xs.append(X)
        Ts.append(Tb + k * len(Xb))
    return np.vstack(Xs), np.vstack(Ts), len(Xb)


def scenes():
    """{name: (view, list of Surface)} of the look-book."""
    Vs, Fs = sphere_mesh()
    Vc, Fc = drape()
    Vf, Ff = s_fold()
    Vg, Fg = ground(2.2, 0.0, (0.75, 0.2))
    X, T, per_body = pile()
    Fb = simkit.boundary_faces(T)
    colors = np.array([matplotlib.colors.to_rgb(c) for c in PILE_COLORS])[(Fb[:, 0] // per_body) % len(PILE_COLORS)]
    Vp, Fp = ground(0.8, 0.0)
    return {
        "s_fold": (utils.View(28, -20), [utils.Surface(Vf, Ff, smooth=True, edge_width=0.25),
                                         utils.Surface(Vg, Fg, front=GROUND, back=GROUND, fit=False)]),
        "cloth_on_sphere": (utils.View(22, -35), [utils.Surface(Vc, Fc, smooth=True, edge_width=0.2),
                                                  utils.Surface(Vs, Fs, front="0.72", back="0.72", smooth=True)]),
        "pile": (utils.View(25, -40), [utils.Surface(X, Fb, front=colors, back=colors, edge_width=0.4),
                                       utils.Surface(Vp, Fp, front=GROUND, back=GROUND, fit=False)]),
    }


def painter_panel(ax, view, surfaces, title):
    """The same scene through course.mesh3d's painter path, every surface but the backdrops (``fit=False``)
    merged into one mesh sorted far to near."""
    surfaces = [s for s in surfaces if s.fit]
    offsets = np.cumsum([0] + [s.states.shape[1] for s in surfaces])
    X = np.vstack([s.states[0] for s in surfaces])
    F = np.vstack([s.F + o for s, o in zip(surfaces, offsets)])
    utils.plot_mesh_3d(ax, X, F, view=view, lims=utils.scene_limits(surfaces, view), title=title, edge_lw=0.2)


def look(folder):
    os.makedirs(folder, exist_ok=True)
    for name, (view, surfaces) in scenes().items():
        fig, axes = plt.subplots(1, 2, figsize=(7.4, 3.2))
        painter_panel(axes[0], view, surfaces, "painter's order (mesh3d)")
        utils.plot_scene_3d(axes[1], surfaces, view=view, title="z-buffer (render3d)")
        fig.tight_layout()
        path = os.path.join(folder, f"{name}.png")
        fig.savefig(path, dpi=utils.DENSITY * utils.DPI)
        plt.close(fig)
        print("wrote", path)


def best_fps(fig, anim, repeat):
    """Frames per second of blitted rendering (best of ``repeat`` passes over every frame)."""
    anim.draw_background()
    anim.render_frame(0)
    best = np.inf
    for _ in range(repeat):
        start = time.process_time()
        for i in range(anim.n_frames):
            anim.render_frame(i)
        best = min(best, time.process_time() - start)
    plt.close(fig)
    return anim.n_frames / best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--look", default=None, help="folder for the painter / z-buffer pictures")
    args = parser.parse_args()
    if args.look:
        look(args.look)
    Vs, Fs = sphere_mesh()
    states = np.stack([drape(phase=0.3 * k)[0] for k in range(FRAMES)])
    F = drape()[1]
    t = np.arange(FRAMES) / 30.0
    energy = {"kinetic": np.exp(-t), "potential": 1.0 - np.exp(-t)}
    view = utils.View(22, -35)
    print(f"cloth {F.shape[0]} triangles + sphere {Fs.shape[0]} triangles, {FRAMES} frames, "
          f"figure 7.4 in wide at {utils.DENSITY * utils.DPI} dpi")
    for ss in (1, 2, 3):
        scene = [utils.Surface(states, F, smooth=True), utils.Surface(Vs, Fs, front="0.72", back="0.72", smooth=True)]
        fig, anim = utils.animate_scene_3d(scene, t, series=energy, view=view, supersample=ss)
        size = fig.canvas.get_width_height()
        print(f"  z-buffer, energy panel, supersample {ss}: {best_fps(fig, anim, args.repeat):5.1f} frames/s "
              f"({size[0]} x {size[1]} px)")
    fig, anim = utils.animate_scene_3d(scene, t, view=view, supersample=2, figsize=(7.4, 5.4))
    print(f"  z-buffer, scene alone 7.4 x 5.4 in, supersample 2: {best_fps(fig, anim, args.repeat):5.1f} frames/s")
    scene = [utils.Surface(states, F, smooth=True, edge_width=0.2), scene[1]]
    fig, anim = utils.animate_scene_3d(scene, t, series=energy, view=view, supersample=2)
    print(f"  z-buffer, energy panel, supersample 2, mesh edges: {best_fps(fig, anim, args.repeat):5.1f} frames/s")
    merged = np.concatenate([states, np.broadcast_to(Vs, (FRAMES,) + Vs.shape)], axis=1)
    fig, anim = utils.animate_meshes_3d([{"states": merged, "F": np.vstack([F, Fs + states.shape[1]])}], t,
                                        view=view, figsize=(7.4, 3.7))
    print(f"  painter (animate_meshes_3d), one panel 7.4 x 3.7 in: {best_fps(fig, anim, args.repeat):5.1f} frames/s")


if __name__ == "__main__":
    main()
