"""Benchmark: render chapter 011's dynamic-cable video through course.filesystem.save_animation.

The scene matches the chapter: 251 frames of a 21-node / 20-spring cable pinned at both
ends, the kinetic-energy panel on the right, ``utils.animate_springs_energy`` at its
default size (11 x 4 in at 100 dpi: 1100 x 400 px), written at 40 frames/s. The states
are synthetic (a damped oscillation about a catenary-like sag, numpy only), so the
benchmark does not depend on the solver.

Prints, as the median of ``--repeat`` runs:
- end to end: blitted rendering + H.264 encoding (the figure the target applies to,
  at least 60 frames/s on a 2-core machine), and its CPU time (this process and ffmpeg,
  best of ``--repeat``), which is what it costs a machine busy with other work;
- render only: blitted frames without ffmpeg;
- generic path: the same animation redrawn in full every frame (what any matplotlib
  Animation gets), for comparison.

Run from the repository root::

    PYTHONPATH=. .venv/bin/python benchmarks/bench_video.py
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.animation import FuncAnimation  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import utils  # noqa: E402
from course.filesystem import save_animation  # noqa: E402

N_NODES = 21
CABLE_LENGTH = 4.0
N_STEPS = 250               # 251 frames: the rest state plus one per time step
DT = 0.04
CABLE_FPS = 40
CABLE_LIMS = ((-0.5, 4.5), (-2.6, 0.5))
STATIC_SAG = 1.258          # the chapter's equilibrium sag
PERIOD = 0.9                # oscillation period of the synthetic motion (s)
DECAY = 1.6                 # amplitude decay time (s)
TARGET_FPS = 60.0


def cable_states():
    """Rest shape, springs, pins, times, states (T, n, 2) and kinetic energy of a damped sagging cable."""
    X = np.column_stack([np.linspace(0.0, CABLE_LENGTH, N_NODES), np.zeros(N_NODES)])
    E = np.column_stack([np.arange(N_NODES - 1), np.arange(1, N_NODES)])
    t = DT * np.arange(N_STEPS + 1)
    sag = STATIC_SAG * (1.0 - np.exp(-t / DECAY) * np.cos(2 * np.pi * t / PERIOD))
    s = X[:, 0] / CABLE_LENGTH
    shape = np.cosh(1.2 * (2 * s - 1)) - np.cosh(1.2)
    shape /= -shape.min()                                              # 0 at the pins, -1 in the middle
    sway = 0.05 * np.exp(-t / DECAY) * np.sin(2 * np.pi * t / (0.7 * PERIOD))
    states = np.stack([X + np.column_stack([sw * np.sin(2 * np.pi * s), a * shape])
                       for a, sw in zip(sag, sway)])
    v = np.gradient(states, DT, axis=0)
    mass = np.full(N_NODES, CABLE_LENGTH / (N_NODES - 1))
    mass[[0, -1]] *= 0.5
    ke = 0.5 * np.einsum("i,tij,tij->t", mass, v, v)
    return X, E, np.array([0, N_NODES - 1]), t, states, ke


def make_animation():
    X, E, pins, t, states, ke = cable_states()
    return utils.animate_springs_energy(
        list(states), E, t, {"kinetic": ke}, rest=X, lims=CABLE_LIMS, xlabel="time  (s)",
        ylabel="kinetic energy", scene_title="dynamic sag (Backward Euler)", title="kinetic energy rings down",
        colors={"kinetic": utils.ENERGY_COLORS["kinetic"]}, pin_pts=X[pins])


def time_end_to_end(path):
    fig, anim = make_animation()
    start = time.perf_counter()
    save_animation(anim, path, fps=CABLE_FPS)
    elapsed = time.perf_counter() - start
    plt.close(fig)
    return anim.n_frames / elapsed


def cpu_end_to_end(path):
    """CPU seconds of one end-to-end render (this process plus ffmpeg, which the writer waits for)."""
    fig, anim = make_animation()
    start, children = time.process_time(), os.times()
    save_animation(anim, path, fps=CABLE_FPS)
    now = os.times()
    plt.close(fig)
    return (time.process_time() - start + now.children_user + now.children_system
            - children.children_user - children.children_system)


def time_render_only():
    fig, anim = make_animation()
    start = time.perf_counter()
    anim.draw_background()
    for i in range(anim.n_frames):
        anim.render_frame(i)
    elapsed = time.perf_counter() - start
    plt.close(fig)
    return anim.n_frames / elapsed


def time_generic(path):
    fig, anim = make_animation()
    generic = FuncAnimation(fig, lambda i: anim.set_frame(i) or (), frames=anim.n_frames)
    start = time.perf_counter()
    save_animation(generic, path, fps=CABLE_FPS)
    elapsed = time.perf_counter() - start
    plt.close(fig)
    return anim.n_frames / elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (median reported)")
    parser.add_argument("--out", default=None, help="folder for the MP4s (a temporary folder when omitted)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or tmp
        os.makedirs(out, exist_ok=True)
        video = os.path.join(out, "bench_cable_dynamic.mp4")
        end_to_end = statistics.median(time_end_to_end(video) for _ in range(args.repeat))
        size = os.path.getsize(video)
        cpu = min(cpu_end_to_end(video) for _ in range(args.repeat))
        render = statistics.median(time_render_only() for _ in range(args.repeat))
        generic = statistics.median(time_generic(os.path.join(out, "bench_generic.mp4"))
                                    for _ in range(args.repeat))
        w, h = make_animation()[0].canvas.get_width_height(physical=True)
        plt.close("all")

    frames = N_STEPS + 1
    print(f"chapter-011 dynamic cable: {frames} frames, {N_NODES} nodes / {N_NODES - 1} springs, "
          f"{w}x{h} px, {CABLE_FPS} fps, {os.cpu_count()} CPUs, median of {args.repeat}")
    print(f"  end to end (blit + H.264): {end_to_end:7.1f} frames/s   ({frames / end_to_end:.2f} s, "
          f"{size / 1024:.0f} KiB)   target >= {TARGET_FPS:.0f}: {'met' if end_to_end >= TARGET_FPS else 'MISSED'}")
    print(f"  end to end, CPU time:      {1e3 * cpu / frames:7.1f} ms/frame  ({cpu:.2f} s of this process and "
          f"ffmpeg, best of {args.repeat}: what a busy machine pays)")
    print(f"  render only (blit):        {render:7.1f} frames/s")
    print(f"  generic full redraw:       {generic:7.1f} frames/s   (blitting speed-up x{end_to_end / generic:.1f})")


if __name__ == "__main__":
    main()
