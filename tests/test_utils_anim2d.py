"""utils, 2D animations (course.anim2d): spring animations written to MP4, blitting, bad-input errors."""
import io

import imageio_ffmpeg
import numpy as np
import pytest
from matplotlib.collections import LineCollection

import utils
from course.filesystem import BlitAnimation, save_animation
from course.filesystem._probe import mp4_boxes, probe_video
from course.filesystem.media_rule import compare_videos, find_ffmpeg

# Animations built only to be rejected by validation are never rendered; matplotlib warns when they are collected.
pytestmark = pytest.mark.filterwarnings("ignore:Animation was deleted without rendering")

N_NODES = 5
N_FRAMES = 7
FPS = 10
SMALL = (5.0, 2.0)          # inches: 1000 x 400 pixel videos (DENSITY 2) keep the suite fast


def _cable(n_frames=N_FRAMES):
    """A pinned chain swinging down: states (T, n, 2), springs, rest shape, times, kinetic energy."""
    X = np.column_stack([np.linspace(0.0, 2.0, N_NODES), np.zeros(N_NODES)])
    E = np.column_stack([np.arange(N_NODES - 1), np.arange(1, N_NODES)])
    t = 0.1 * np.arange(n_frames)
    amp = 0.8 * np.sin(np.pi * t / (t[-1] if n_frames > 1 else 1.0))
    shape = np.sin(np.pi * X[:, 0] / 2.0)
    states = [X + np.column_stack([np.zeros(N_NODES), -a * shape]) for a in amp]
    ke = 0.5 * np.gradient(amp, t) ** 2 if n_frames > 1 else np.zeros(1)
    return states, E, X, t, ke


def _energy_animation(**kwargs):
    states, E, X, t, ke = _cable()
    args = dict(rest=X, lims=((-0.5, 2.5), (-1.2, 0.4)), xlabel="time  (s)", ylabel="kinetic energy",
                scene_title="cable", title="energy", colors={"kinetic": utils.ENERGY_COLORS["kinetic"]},
                pin_pts=X[[0, N_NODES - 1]], figsize=SMALL)
    args.update(kwargs)
    return utils.animate_springs_energy(states, E, t, {"kinetic": ke}, **args)


def _grid_animation(**kwargs):
    states, E, X, _, _ = _cable()
    panels = [{"states": states, "E": E, "title": "left"},
              {"states": [s * [1.0, 0.5] for s in states], "E": E, "title": "right"}]
    args = dict(lims=((-0.5, 2.5), (-1.2, 0.4)), fps=FPS, pin_pts=X[[0, N_NODES - 1]], figsize=SMALL,
                suptitle="two panels")
    args.update(kwargs)
    return utils.animate_springs_grid(panels, **args)


def _full_redraw(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="rgba", dpi=fig.dpi)
    w, h = fig.canvas.get_width_height(physical=True)
    return np.frombuffer(buf.getvalue(), np.uint8).reshape(h, w, 4)


def _assert_blit_equals_redraw(fig, anim):
    anim.draw_background()
    for i in range(anim.n_frames):
        blitted = anim.render_frame(i).copy()
        np.testing.assert_array_equal(blitted, _full_redraw(fig), err_msg=f"frame {i}")


def _assert_looks_the_same(new, old):
    """A second rendering shows a reader what the first did: the media rule's decoded-frame test
    (the bytes of two encodes once differed, 1 run in 12, with frames a reader cannot tell apart)."""
    comparison = compare_videos(new, old, find_ffmpeg())
    assert comparison.same, comparison.reason


def _assert_video(path, n_frames, fps):
    frames, secs = imageio_ffmpeg.count_frames_and_secs(path)
    assert frames == n_frames
    np.testing.assert_allclose(secs, n_frames / fps, rtol=1e-6)
    info = probe_video(path)
    assert (info["codec"], info["pix_fmt"]) == ("h264", "yuv420p")
    assert info["width"] % 2 == 0 and info["height"] % 2 == 0
    boxes = mp4_boxes(path)
    assert boxes.index("moov") < boxes.index("mdat")


# ---------------------------------------------------------------------------------------
# animate_springs_energy
# ---------------------------------------------------------------------------------------

def test_energy_animation_video(tmp_path):
    fig, anim = _energy_animation()
    assert isinstance(anim, BlitAnimation) and anim.n_frames == N_FRAMES
    path = save_animation(anim, tmp_path / "energy.mp4", fps=FPS)
    _assert_video(path, N_FRAMES, FPS)
    # rendered at DENSITY device pixels per CSS pixel: 2 x (500 x 200)
    assert probe_video(path)["width"] == 1000 and probe_video(path)["height"] == 400
    again = save_animation(_energy_animation()[1], tmp_path / "again.mp4", fps=FPS)
    _assert_looks_the_same(again, path)


def test_energy_animation_blitting_equals_full_redraw():
    fig, anim = _energy_animation()
    _assert_blit_equals_redraw(fig, anim)


def test_energy_animation_frames_follow_the_states():
    states, E, X, t, ke = _cable()
    fig, anim = _energy_animation()
    ax_scene, ax_energy = fig.axes
    for i in [0, 3, N_FRAMES - 1]:
        anim.set_frame(i)
        springs = [c for c in ax_scene.collections if c.get_animated() and isinstance(c, LineCollection)]
        np.testing.assert_allclose(np.array(springs[0].get_segments()), states[i][E])
        trace, dot = [line for line in ax_energy.lines if line.get_animated()]
        np.testing.assert_allclose(trace.get_xydata(), np.column_stack([t[:i + 1], ke[:i + 1]]))
        np.testing.assert_allclose(dot.get_xydata(), [[t[i], ke[i]]])
        stamp = [txt for txt in ax_scene.texts if txt.get_animated()][0]
        assert stamp.get_text() == f"time = {t[i]:.2f} s"
    faint = [line for line in ax_energy.lines if not line.get_animated()]
    np.testing.assert_allclose(faint[0].get_xydata(), np.column_stack([t, ke]))   # full curve in the background


def test_energy_animation_integer_abscissa_label():
    states, E, X, _, ke = _cable()
    fig, anim = utils.animate_springs_energy(states, E, np.arange(N_FRAMES), {"potential": ke},
                                             xlabel="Newton iteration", figsize=SMALL)
    anim.set_frame(3)
    stamp = [txt for txt in fig.axes[0].texts if txt.get_animated()][0]
    assert stamp.get_text() == "Newton iteration = 3"


def test_energy_animation_single_frame(tmp_path):
    states, E, X, t, ke = _cable(n_frames=1)
    fig, anim = utils.animate_springs_energy(states, E, t, {"kinetic": ke}, figsize=SMALL)
    _assert_video(save_animation(anim, tmp_path / "one.mp4", fps=FPS), 1, FPS)


@pytest.mark.parametrize("change, error, match", [
    (lambda a: {**a, "t": a["t"][:-1]}, ValueError, rf"^t: expected one value per state \({N_FRAMES}\), got {N_FRAMES - 1}"),
    (lambda a: {**a, "series": {"kinetic": a["series"]["kinetic"][:-2]}}, ValueError,
     rf"^series\['kinetic'\]: expected {N_FRAMES} values \(there are {N_FRAMES} states\), got {N_FRAMES - 2}"),
    (lambda a: {**a, "states": []}, ValueError, "^states: expected at least one"),
    (lambda a: {**a, "states": [s[:, :1] for s in a["states"]]}, ValueError,
     r"^states: expected a sequence of \(n, 2\) position arrays"),
    (lambda a: {**a, "states": a["states"][:3] + [np.zeros((2, 2))] + a["states"][4:]}, ValueError,
     "^states: expected every state to have the same shape"),
    (lambda a: {**a, "states": [s * np.nan for s in a["states"]]}, ValueError, "^states: expected finite values"),
    (lambda a: {**a, "E": np.array([[0, N_NODES]])}, ValueError, r"^E: expected indices in \[0"),
    (lambda a: {**a, "rest": np.zeros((N_NODES + 1, 2))}, ValueError, f"^rest: expected {N_NODES} rows"),
    (lambda a: {**a, "colors": ["red"]}, TypeError, "^colors: expected a dict"),
])
def test_energy_animation_bad_input(change, error, match):
    states, E, X, t, ke = _cable()
    args = change({"states": states, "E": E, "t": t, "series": {"kinetic": ke}, "rest": X})
    with pytest.raises(error, match=match):
        utils.animate_springs_energy(args.pop("states"), args.pop("E"), args.pop("t"), args.pop("series"),
                                     **args)


# ---------------------------------------------------------------------------------------
# animate_springs_grid
# ---------------------------------------------------------------------------------------

def test_grid_animation_video_after_tight_layout(tmp_path):
    """Chapter 011 calls fig.tight_layout() on the grid figure before saving."""
    fig, anim = _grid_animation()
    fig.tight_layout()
    path = save_animation(anim, tmp_path / "grid.mp4", fps=FPS)
    _assert_video(path, N_FRAMES, FPS)
    fig2, anim2 = _grid_animation()
    fig2.tight_layout()
    again = save_animation(anim2, tmp_path / "again.mp4", fps=FPS)
    _assert_looks_the_same(again, path)


def test_grid_animation_blitting_equals_full_redraw_after_tight_layout():
    fig, anim = _grid_animation()
    fig.tight_layout()
    _assert_blit_equals_redraw(fig, anim)


def test_grid_animation_panels_and_timeline():
    states, E, X, _, _ = _cable()
    fig, anim = _grid_animation()
    panels = [ax for ax in fig.axes if ax.axison]
    assert [ax.get_title() for ax in panels] == ["left", "right"]
    assert fig.get_suptitle() == "two panels"
    timeline = [ax for ax in fig.axes if not ax.axison][0]
    bar = [p for p in timeline.patches if p.get_animated()][0]
    for i in [0, 3, N_FRAMES - 1]:
        anim.set_frame(i)
        np.testing.assert_allclose(bar.get_width(), i / (N_FRAMES - 1))
        springs = [c for c in panels[0].collections if c.get_animated() and isinstance(c, LineCollection)]
        np.testing.assert_allclose(np.array(springs[0].get_segments()), states[i][E])
    pins = [c for c in panels[1].collections if c.get_animated() and len(c.get_offsets()) == 2
            and not isinstance(c, LineCollection)]
    np.testing.assert_allclose(pins[0].get_offsets(), X[[0, N_NODES - 1]])


def test_grid_animation_default_size_scales_with_panels():
    fig, _ = _grid_animation(figsize=None)
    np.testing.assert_allclose(fig.get_size_inches(), (4.2 * 2 + 0.4, 3.9))


def test_grid_animation_needs_equal_frame_counts():
    states, E, _, _, _ = _cable()
    panels = [{"states": states, "E": E}, {"states": states[:-1], "E": E}]
    with pytest.raises(ValueError, match=rf"^panels: expected the same number of frames in every panel, got \[{N_FRAMES}, {N_FRAMES - 1}\]"):
        utils.animate_springs_grid(panels)


@pytest.mark.parametrize("panels, match", [
    ([], "non-empty list"),
    ([{"E": np.array([[0, 1]])}], r"^panels\[0\]: expected keys 'states' and 'E'"),
    ([{"states": [], "E": np.array([[0, 1]])}], r"^panels\[0\]\['states'\]: expected at least one"),
])
def test_grid_animation_bad_panels(panels, match):
    with pytest.raises(ValueError, match=match):
        utils.animate_springs_grid(panels)


@pytest.mark.parametrize("fps", [0, -1, float("nan")])
def test_grid_animation_bad_fps(fps):
    with pytest.raises(ValueError, match="^fps: expected a finite value"):
        _grid_animation(fps=fps)


# ---------------------------------------------------------------------------------------
# grid counters, reference lines, stacked panels
# ---------------------------------------------------------------------------------------

def test_grid_animation_counter_refs_and_stacked_panels():
    states, E, X, t, _ = _cable()
    amplitude = np.array([[0.0, -0.8], [2.0, -0.8], [np.nan, np.nan], [0.0, 0.8], [2.0, 0.8]])
    panels = [{"states": states, "E": E, "title": "time", "refs": {"rest": X, "amplitude": amplitude}},
              {"states": states, "E": E, "title": "iterations", "t": np.arange(N_FRAMES),
               "time_format": "Newton iteration {:d}"}]
    fig, anim = utils.animate_springs_grid(panels, t=t, ncols=1, figsize=(4, 4), lims=((-0.5, 2.5), (-1, 1)))
    top, bottom = [ax for ax in fig.axes if ax.axison]
    assert top.get_position().y0 > bottom.get_position().y1, "ncols=1 stacks the panels"
    refs = [line for line in top.lines if not line.get_animated()]
    assert [line.get_label() for line in refs] == ["rest", "amplitude"]
    np.testing.assert_allclose(refs[1].get_xydata(), amplitude)
    assert [t.get_text() for t in top.get_legend().get_texts()] == ["rest", "amplitude"]
    anim.set_frame(3)
    stamps = [[txt for txt in ax.texts if txt.get_animated()][0].get_text() for ax in (top, bottom)]
    assert stamps == [f"time = {t[3]:.2f} s", "Newton iteration 3"]
    _assert_blit_equals_redraw(fig, anim)


@pytest.mark.parametrize("panel, kwargs, error, match", [
    ({"refs": [[0, 0], [1, 1]]}, {}, TypeError, r"^panels\[0\]\['refs'\]: expected a dict"),
    ({"refs": {"a": np.zeros((1, 2))}}, {}, ValueError, r"^panels\[0\]\['refs'\]\['a'\]: expected a \(k, 2\) array"),
    ({"refs": {"a": [[0, 0], [np.inf, 1]]}}, {}, ValueError, "expected no inf"),
    ({}, {"t": np.arange(N_FRAMES - 1)}, ValueError, rf"^t: expected one value per frame \({N_FRAMES}\), got {N_FRAMES - 1}"),
    ({}, {"ncols": 0}, ValueError, "^ncols: expected an integer >= 1"),
    ({}, {"ncols": 1.5}, TypeError, "^ncols: expected an integer"),
])
def test_grid_animation_bad_refs_counter_layout(panel, kwargs, error, match):
    states, E, *_ = _cable()
    with pytest.raises(error, match=match):
        utils.animate_springs_grid([{"states": states, "E": E, **panel}], **kwargs)


# ---------------------------------------------------------------------------------------
# check_frames_inside
# ---------------------------------------------------------------------------------------

def test_check_frames_inside_passes_fitting_frames_and_names_the_first_escape():
    states, E, X, t, ke = _cable()
    fig, anim = _energy_animation(lims=((-0.5, 2.5), (-1.2, 0.4)))
    utils.check_frames_inside(anim, "fits")          # every state lies in the window
    fig, anim = _energy_animation(lims=((-0.5, 2.5), (-0.5, 0.4)))
    first = next(i for i, s in enumerate(states) if s[:, 1].min() < -0.5)
    with pytest.raises(ValueError, match=rf"swing: frame {first} of {N_FRAMES} draws a point at .* in 'cable', "
                                         r"outside its limits .* widen lims"):
        utils.check_frames_inside(anim, "swing")


def test_check_frames_inside_covers_grid_panels():
    states, E, *_ = _cable()
    fig, anim = utils.animate_springs_grid([{"states": states, "E": E, "title": "p"}],
                                           lims=((-0.5, 2.5), (-0.2, 0.4)))
    with pytest.raises(ValueError, match="in 'p', outside its limits"):
        utils.check_frames_inside(anim)
