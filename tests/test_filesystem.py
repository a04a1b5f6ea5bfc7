"""simkit.filesystem: deterministic, atomic PNG and MP4 writers and the blitting protocol."""
import io
import os
import shutil
import stat
import sys

import imageio_ffmpeg
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.animation import FuncAnimation

from simkit.filesystem import BlitAnimation, _ffmpeg_pipe, save_animation, save_figure
from simkit.filesystem._probe import mp4_boxes, probe_video

# Animations built only to be rejected by validation are never rendered; matplotlib warns when they are collected.
pytestmark = pytest.mark.filterwarnings("ignore:Animation was deleted without rendering")

FPS = 10
N_FRAMES = 6
SIZE_IN = (3.0, 2.0)        # inches; 300 x 200 pixels at dpi 100
DPI = 100


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _figure(seed=0, figsize=SIZE_IN):
    rng = np.random.default_rng(seed)
    fig, ax = plt.subplots(figsize=figsize, dpi=DPI)
    ax.plot(rng.random(20), "-o")
    ax.set_title("test figure")
    return fig


def _sine_parts(figsize=SIZE_IN):
    fig, ax = plt.subplots(figsize=figsize, dpi=DPI)
    ax.set_xlim(0, 1)
    ax.set_ylim(-1.2, 1.2)
    ax.plot([0, 1], [0, 0], color="0.7")
    x = np.linspace(0, 1, 50)
    return fig, ax, x


def _func_animation(n_frames=N_FRAMES, figsize=SIZE_IN):
    """A plain (generic-path) FuncAnimation."""
    fig, ax, x = _sine_parts(figsize)
    line, = ax.plot([], [])

    def update(i):
        line.set_data(x, np.sin(2 * np.pi * (x + i / 10)))
        return (line,)

    return fig, FuncAnimation(fig, update, frames=n_frames)


def _blit_animation(n_frames=N_FRAMES, figsize=SIZE_IN, fail_at=None):
    """A BlitAnimation moving a line and a marker; ``fail_at`` makes update raise at that frame."""
    fig, ax, x = _sine_parts(figsize)
    line, = ax.plot([], [], lw=2, zorder=10)
    dot, = ax.plot([], [], "o", ms=8, zorder=11)

    def update(i):
        if i == fail_at:
            raise RuntimeError(f"simulated failure at frame {i}")
        y = np.sin(2 * np.pi * (x + i / 10))
        line.set_data(x, y)
        dot.set_data(x[i:i + 1], y[i:i + 1])

    return fig, BlitAnimation(fig, update, n_frames, [line, dot])


def _leftovers(folder):
    return [f for f in os.listdir(folder) if f.endswith(".part")]


def _full_redraw(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="rgba", dpi=fig.dpi)
    w, h = fig.canvas.get_width_height(physical=True)
    return np.frombuffer(buf.getvalue(), np.uint8).reshape(h, w, 4)


# ---------------------------------------------------------------------------------------
# save_figure
# ---------------------------------------------------------------------------------------

def test_save_figure_is_byte_identical_across_saves_and_figures(tmp_path):
    a = save_figure(_figure(), tmp_path / "a.png")
    b = save_figure(_figure(), tmp_path / "sub" / "dir" / "b.png")
    assert a == str(tmp_path / "a.png")
    with open(a, "rb") as fa, open(b, "rb") as fb:
        data = fa.read()
        assert data == fb.read()
    assert data.startswith(b"\x89PNG")
    assert b"Software" not in data and b"tIME" not in data
    assert _leftovers(tmp_path) == []


def test_save_figure_copy_to_is_identical_and_atomic(tmp_path):
    path = save_figure(_figure(), tmp_path / "res" / "f.png", copy_to=tmp_path / "media" / "011_f.png")
    with open(path, "rb") as f1, open(tmp_path / "media" / "011_f.png", "rb") as f2:
        assert f1.read() == f2.read()
    assert _leftovers(tmp_path / "res") == [] and _leftovers(tmp_path / "media") == []


def test_save_figure_uses_normal_file_permissions(tmp_path):
    path = save_figure(_figure(), tmp_path / "f.png")
    (tmp_path / "plain.txt").write_text("a file created the ordinary way")
    expected = stat.S_IMODE(os.stat(tmp_path / "plain.txt").st_mode)
    assert stat.S_IMODE(os.stat(path).st_mode) == expected, "temporary-file permissions leaked into the result"


def test_save_figure_failed_write_keeps_previous_file(tmp_path, monkeypatch):
    path = save_figure(_figure(seed=1), tmp_path / "f.png")
    with open(path, "rb") as fh:
        before = fh.read()
    fig = _figure(seed=2)

    def broken_savefig(fh, **kwargs):
        fh.write(b"\x89PNG half a file")
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(fig, "savefig", broken_savefig)
    with pytest.raises(OSError, match="disk full"):
        save_figure(fig, path)
    with open(path, "rb") as fh:
        assert fh.read() == before
    assert _leftovers(tmp_path) == []


def test_save_figure_target_is_directory(tmp_path):
    (tmp_path / "taken.png").mkdir()
    with pytest.raises(ValueError, match="directory"):
        save_figure(_figure(), tmp_path / "taken.png")
    assert sorted(os.listdir(tmp_path)) == ["taken.png"]
    assert os.listdir(tmp_path / "taken.png") == []


def test_save_figure_parent_is_a_file(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="not a directory"):
        save_figure(_figure(), tmp_path / "file" / "f.png")


def test_save_figure_bad_copy_to_writes_nothing(tmp_path):
    with pytest.raises(ValueError, match="copy_to must end in '.png'"):
        save_figure(_figure(), tmp_path / "f.png", copy_to=tmp_path / "f.jpg")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("path, error, match", [
    ("figure.jpg", ValueError, "must end in '.png'"),
    (42, TypeError, "path must be a str"),
])
def test_save_figure_bad_path(tmp_path, path, error, match):
    target = tmp_path / path if isinstance(path, str) else path
    with pytest.raises(error, match=match):
        save_figure(_figure(), target)


def test_save_figure_rejects_non_figure(tmp_path):
    with pytest.raises(TypeError, match="fig must be a matplotlib Figure"):
        save_figure(plt.gca(), tmp_path / "f.png")


# ---------------------------------------------------------------------------------------
# save_animation: what the files look like
# ---------------------------------------------------------------------------------------

def _check_video(path, n_frames, fps, width, height):
    frames, secs = imageio_ffmpeg.count_frames_and_secs(path)
    assert frames == n_frames
    np.testing.assert_allclose(secs, n_frames / fps, rtol=1e-6)
    info = probe_video(path)
    assert info == {"codec": "h264", "pix_fmt": "yuv420p", "width": width, "height": height}
    boxes = mp4_boxes(path)
    assert boxes.index("moov") < boxes.index("mdat"), f"no faststart: {boxes}"


def test_blit_animation_video(tmp_path):
    _, anim = _blit_animation()
    path = save_animation(anim, tmp_path / "v.mp4", fps=FPS)
    assert path == str(tmp_path / "v.mp4")
    _check_video(path, N_FRAMES, FPS, 300, 200)
    assert _leftovers(tmp_path) == []


def test_generic_func_animation_video(tmp_path):
    _, anim = _func_animation()
    path = save_animation(anim, tmp_path / "deep" / "g.mp4", fps=FPS)
    _check_video(path, N_FRAMES, FPS, 300, 200)


def test_odd_frame_size_is_padded_to_even(tmp_path):
    _, anim = _blit_animation(figsize=(3.01, 2.01))      # 301 x 201 pixels
    path = save_animation(anim, tmp_path / "odd.mp4", fps=FPS)
    _check_video(path, N_FRAMES, FPS, 302, 202)


def test_fractional_frame_rate(tmp_path):
    fps = 2.5
    _, anim = _blit_animation(n_frames=5)
    _check_video(save_animation(anim, tmp_path / "slow.mp4", fps=fps), 5, fps, 300, 200)


@pytest.mark.parametrize("make", [_blit_animation, _func_animation])
def test_same_frames_give_identical_bytes(tmp_path, make):
    paths = [save_animation(make()[1], tmp_path / f"{k}.mp4", fps=FPS) for k in range(2)]
    with open(paths[0], "rb") as f0, open(paths[1], "rb") as f1:
        assert f0.read() == f1.read()


def test_blit_and_generic_paths_encode_the_same_frames(tmp_path):
    """The generic path fully redraws every frame; the blitted frames must be the same pixels."""
    fig, anim = _blit_animation()
    blit = save_animation(anim, tmp_path / "blit.mp4", fps=FPS)
    redraw = FuncAnimation(fig, lambda i: anim.set_frame(i) or (), frames=N_FRAMES)
    generic = save_animation(redraw, tmp_path / "generic.mp4", fps=FPS)
    with open(blit, "rb") as f0, open(generic, "rb") as f1:
        assert f0.read() == f1.read()


def test_copy_to_is_identical(tmp_path):
    _, anim = _blit_animation()
    path = save_animation(anim, tmp_path / "a.mp4", fps=FPS, copy_to=tmp_path / "media" / "b.mp4")
    with open(path, "rb") as f0, open(tmp_path / "media" / "b.mp4", "rb") as f1:
        assert f0.read() == f1.read()


# ---------------------------------------------------------------------------------------
# the blitting protocol
# ---------------------------------------------------------------------------------------

def test_blitted_frames_equal_full_redraw():
    fig, anim = _blit_animation()
    anim.draw_background()
    for i in range(N_FRAMES):
        blitted = anim.render_frame(i).copy()
        np.testing.assert_array_equal(blitted, _full_redraw(fig))


def test_blit_animation_draws_sorted_by_zorder():
    fig, ax = plt.subplots()
    top, = ax.plot([0, 1], [0, 1], zorder=12)
    low, = ax.plot([0, 1], [1, 0], zorder=11)
    anim = BlitAnimation(fig, lambda i: None, 2, [top, low])
    assert anim.artists == (low, top)
    assert all(a.get_animated() for a in anim.artists)
    assert anim.n_frames == 2 and anim.figure is fig


def test_blit_animation_rejects_bad_arguments():
    fig, ax = plt.subplots()
    line, = ax.plot([0, 1])
    with pytest.raises(ValueError, match="n_frames must be at least 1"):
        BlitAnimation(fig, lambda i: None, 0, [line])
    with pytest.raises(TypeError, match="n_frames must be an int"):
        BlitAnimation(fig, lambda i: None, 2.0, [line])
    with pytest.raises(TypeError, match="update must be callable"):
        BlitAnimation(fig, None, 2, [line])
    with pytest.raises(ValueError, match="at least one animated artist"):
        BlitAnimation(fig, lambda i: None, 2, [])
    with pytest.raises(ValueError, match="not in an Axes"):
        BlitAnimation(fig, lambda i: None, 2, [fig.text(0.5, 0.5, "figure-level")])
    other, other_ax = plt.subplots()
    with pytest.raises(ValueError, match="another figure"):
        BlitAnimation(fig, lambda i: None, 2, [other_ax.plot([0, 1])[0]])
    anim = BlitAnimation(fig, lambda i: None, 2, [line])
    with pytest.raises(RuntimeError, match="draw_background"):
        anim.render_frame(0)
    with pytest.raises(IndexError, match="out of range"):
        anim.set_frame(2)


# ---------------------------------------------------------------------------------------
# save_animation: bad input and failures
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("fps", [0, -5, float("nan"), float("inf"), True, "20", None])
def test_bad_fps(tmp_path, fps):
    _, anim = _blit_animation()
    with pytest.raises(ValueError, match="fps must be a positive finite number"):
        save_animation(anim, tmp_path / "v.mp4", fps=fps)
    assert os.listdir(tmp_path) == []


def test_not_an_animation(tmp_path):
    with pytest.raises(TypeError, match="anim must be a matplotlib Animation"):
        save_animation(_figure(), tmp_path / "v.mp4", fps=FPS)


@pytest.mark.parametrize("name, match", [("v.gif", "must end in '.mp4'"), ("taken.mp4", "directory")])
def test_bad_video_path(tmp_path, name, match):
    (tmp_path / "taken.mp4").mkdir()
    _, anim = _blit_animation()
    with pytest.raises(ValueError, match=match):
        save_animation(anim, tmp_path / name, fps=FPS)
    assert sorted(os.listdir(tmp_path)) == ["taken.mp4"]


def test_unwritable_folder(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    _, anim = _blit_animation()
    with pytest.raises(ValueError, match="cannot create the folder of path"):
        save_animation(anim, tmp_path / "file" / "sub" / "v.mp4", fps=FPS)


def test_animation_without_frames(tmp_path):
    fig, ax, _ = _sine_parts()
    anim = FuncAnimation(fig, lambda i: (), frames=[])
    with pytest.raises(ValueError, match="no frames"):
        save_animation(anim, tmp_path / "v.mp4", fps=FPS)
    assert os.listdir(tmp_path) == []


def _hide_ffmpeg(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)      # import now raises ImportError


def test_no_ffmpeg(tmp_path, monkeypatch):
    _hide_ffmpeg(monkeypatch)
    _, anim = _blit_animation()
    with pytest.raises(RuntimeError, match="pip install imageio-ffmpeg"):
        save_animation(anim, tmp_path / "new" / "v.mp4", fps=FPS)
    assert os.listdir(tmp_path) == []


def test_system_ffmpeg_is_preferred(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: "/opt/ffmpeg/bin/ffmpeg")
    assert _ffmpeg_pipe.find_ffmpeg() == "/opt/ffmpeg/bin/ffmpeg"
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    assert _ffmpeg_pipe.find_ffmpeg() == imageio_ffmpeg.get_ffmpeg_exe()


def test_failure_while_rendering_leaves_previous_file(tmp_path):
    _, anim = _blit_animation()
    path = save_animation(anim, tmp_path / "v.mp4", fps=FPS)
    with open(path, "rb") as fh:
        before = fh.read()
    _, failing = _blit_animation(fail_at=3)
    with pytest.raises(RuntimeError, match="simulated failure at frame 3"):
        save_animation(failing, path, fps=FPS)
    with open(path, "rb") as fh:
        assert fh.read() == before
    assert os.listdir(tmp_path) == ["v.mp4"]


def _fake_ffmpeg(tmp_path, script):
    exe = tmp_path / "fake-ffmpeg"
    exe.write_text("#!/bin/sh\n" + script)
    exe.chmod(0o755)
    return str(exe)


@pytest.mark.parametrize("script", [
    "head -c 1000 > /dev/null\necho 'Error: encoder exploded (simulated)' >&2\nexit 1\n",   # dies mid-stream
    "cat > /dev/null\necho 'Error: encoder exploded (simulated)' >&2\nexit 1\n",           # fails at the end
])
def test_ffmpeg_failure_reports_stderr_and_cleans_up(tmp_path, monkeypatch, script):
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: _fake_ffmpeg(tmp_path, script))
    out = tmp_path / "out"
    _, anim = _blit_animation()
    with pytest.raises(RuntimeError, match="encoder exploded"):
        save_animation(anim, out / "v.mp4", fps=FPS)
    assert os.listdir(out) == []


def test_changing_figure_size_mid_animation_fails_cleanly(tmp_path):
    fig, ax, x = _sine_parts()
    line, = ax.plot([], [])

    def update(i):
        line.set_data(x, x * i)
        if i == 2:
            fig.set_size_inches(4, 3)
        return (line,)

    with pytest.raises(ValueError, match="keep the figure size fixed"):
        save_animation(FuncAnimation(fig, update, frames=4), tmp_path / "v.mp4", fps=FPS)
    assert os.listdir(tmp_path) == []


def test_transparent_figure_is_composited_on_white(tmp_path):
    fig, ax, x = _sine_parts()
    fig.patch.set_alpha(0.0)
    ax.patch.set_alpha(0.0)
    line, = ax.plot(x, x, zorder=10)
    path = save_animation(BlitAnimation(fig, lambda i: None, 1, [line]), tmp_path / "t.mp4", fps=FPS)
    rgb = _decode_first_frame(path)
    assert rgb[2, 2].min() > 240, f"corner should be white, got {rgb[2, 2]}"


def _decode_first_frame(path):
    reader = imageio_ffmpeg.read_frames(path)
    meta = next(reader)
    w, h = meta["size"]
    frame = np.frombuffer(next(reader), np.uint8).reshape(h, w, 3)
    reader.close()
    return frame
