"""course.filesystem: deterministic, atomic PNG and MP4 writers and the blitting protocol (and upstream's two
names, simkit.filesystem.save_figure and save_animation, which call them)."""
import importlib
import io
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
import warnings

import imageio_ffmpeg
import imageio_ffmpeg.binaries
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.animation import FuncAnimation

from conftest import descendants, running
from course.filesystem import BlitAnimation, _atomic, _encoder, save_animation, save_figure
from course.filesystem._probe import mp4_boxes, probe_video

# Animations built only to be rejected by validation are never rendered; matplotlib warns when they are collected.
pytestmark = pytest.mark.filterwarnings("ignore:Animation was deleted without rendering")

FPS = 10
N_FRAMES = 6
SIZE_IN = (3.0, 2.0)        # inches; 300 x 200 pixels at dpi 100
DPI = 100


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
    with pytest.raises(ValueError, match="^copy_to: expected a path ending in '.png'"):
        save_figure(_figure(), tmp_path / "f.png", copy_to=tmp_path / "f.jpg")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("path, error, match", [
    ("figure.jpg", ValueError, "^path: expected a path ending in '.png'"),
    (42, TypeError, "^path: expected a str"),
])
def test_save_figure_bad_path(tmp_path, path, error, match):
    target = tmp_path / path if isinstance(path, str) else path
    with pytest.raises(error, match=match):
        save_figure(_figure(), target)


def test_save_figure_rejects_non_figure(tmp_path):
    with pytest.raises(TypeError, match="^fig: expected a matplotlib Figure"):
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
    with pytest.raises(ValueError, match="^n_frames: expected an integer >= 1"):
        BlitAnimation(fig, lambda i: None, 0, [line])
    with pytest.raises(TypeError, match="^n_frames: expected an integer"):
        BlitAnimation(fig, lambda i: None, 2.0, [line])
    with pytest.raises(TypeError, match="^update: expected a callable"):
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

@pytest.mark.parametrize("fps, error", [(0, ValueError), (-5, ValueError), (float("nan"), ValueError),
                                        (float("inf"), ValueError), (True, TypeError), ("20", TypeError),
                                        (None, TypeError)])
def test_bad_fps(tmp_path, fps, error):
    _, anim = _blit_animation()
    with pytest.raises(error, match="^fps: expected a"):
        save_animation(anim, tmp_path / "v.mp4", fps=fps)
    assert os.listdir(tmp_path) == []


def test_not_an_animation(tmp_path):
    with pytest.raises(TypeError, match="^anim: expected a matplotlib Animation"):
        save_animation(_figure(), tmp_path / "v.mp4", fps=FPS)


@pytest.mark.parametrize("name, match", [("v.gif", "^path: expected a path ending in '.mp4'"), ("taken.mp4", "directory")])
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


def _bundled_exe():
    exe, _ = _encoder._bundled_ffmpeg()
    assert exe is not None, "the imageio-ffmpeg wheel's binary is missing from this environment"
    return exe


def _fake_ffmpeg(tmp_path, script, name="fake-ffmpeg"):
    exe = tmp_path / name
    exe.write_text("#!/bin/sh\n" + script)
    exe.chmod(0o755)
    return str(exe)


# shell: the output file among ffmpeg's arguments is the writer's temporary file
OUTPUT_ARG = 'for a; do case "$a" in *.part) out="$a";; esac; done\n'


def _use_encoder(monkeypatch, exe):
    """Make save_animation encode with `exe` (its output is still decoded by the pinned ffmpeg)."""
    monkeypatch.setattr(importlib.import_module("course.filesystem.save_animation"), "find_ffmpeg", lambda: exe)


def test_pinned_encoder_is_used_even_with_a_system_ffmpeg(tmp_path, monkeypatch):
    bundled = _bundled_exe()
    assert os.path.dirname(bundled) == os.path.dirname(imageio_ffmpeg.binaries.__file__)
    # a system ffmpeg on PATH that must never run (this machine also has a real /usr/bin/ffmpeg)
    system = _fake_ffmpeg(tmp_path, "echo 'the system ffmpeg ran' >&2\nexit 3\n", name="ffmpeg")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert shutil.which("ffmpeg") == system
    encoder = _encoder.find_encoder()
    assert encoder.exe == bundled and encoder.pinned
    assert "pinned ffmpeg of imageio-ffmpeg" in encoder.description
    _, anim = _blit_animation()
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no UnpinnedEncoderWarning either
        path = save_animation(anim, tmp_path / "out" / "v.mp4", fps=FPS)
    _check_video(path, N_FRAMES, FPS, 300, 200)


def test_pinned_encoder_ignores_imageio_ffmpeg_exe_override(monkeypatch, tmp_path):
    monkeypatch.setenv("IMAGEIO_FFMPEG_EXE", _fake_ffmpeg(tmp_path, "exit 3\n"))
    assert _encoder.find_ffmpeg() == _bundled_exe()


def test_system_ffmpeg_is_the_fallback_without_the_wheel_and_says_so(tmp_path, monkeypatch):
    system = _bundled_exe()                     # a working binary standing in for the system one
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)      # import now raises ImportError
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: system)
    encoder = _encoder.find_encoder()
    assert encoder.exe == system and not encoder.pinned
    assert "imageio-ffmpeg is not installed" in encoder.description
    assert "pip install imageio-ffmpeg" in encoder.description
    _, anim = _blit_animation()
    with pytest.warns(_encoder.UnpinnedEncoderWarning, match="system ffmpeg .* imageio-ffmpeg is not installed"):
        path = save_animation(anim, tmp_path / "v.mp4", fps=FPS)
        _check_video(path, N_FRAMES, FPS, 300, 200)


@pytest.mark.parametrize("script, problem", [
    ("cat > /dev/null\nexit 0\n", "the encoded file is empty"),                       # writes nothing
    ("cat > /dev/null\n" + OUTPUT_ARG + 'echo "not a video" > "$out"\n', "the encoded file does not decode"),
])
def test_encoder_reporting_success_without_a_video_keeps_the_old_file(tmp_path, monkeypatch, script, problem):
    _, anim = _blit_animation()
    path = save_animation(anim, tmp_path / "v.mp4", fps=FPS)
    with open(path, "rb") as fh:
        before = fh.read()
    (tmp_path / "bin").mkdir()
    _use_encoder(monkeypatch, _fake_ffmpeg(tmp_path / "bin", script))
    _, anim = _blit_animation()
    with pytest.raises(RuntimeError, match=f"(?s)exited with status 0 but its video is unusable: {problem}.*"
                                           "v.mp4' was not replaced"):
        save_animation(anim, path, fps=FPS, copy_to=tmp_path / "media" / "v.mp4")
    with open(path, "rb") as fh:
        assert fh.read() == before
    assert sorted(os.listdir(tmp_path)) == ["bin", "v.mp4"], "a temporary file or copy_to was left behind"


def test_encoder_dropping_frames_is_caught(tmp_path, monkeypatch):
    # a real encode of 2 frames, whatever was sent
    script = ("cat > /dev/null\n" + OUTPUT_ARG + f'"{_bundled_exe()}" -v error -y -f lavfi '
              '-i color=white:s=300x200:r=10 -frames:v 2 -c:v libx264 -pix_fmt yuv420p -f mp4 "$out"\n')
    _use_encoder(monkeypatch, _fake_ffmpeg(tmp_path, script))
    _, anim = _blit_animation()
    with pytest.raises(RuntimeError, match=f"it holds 2 frames, {N_FRAMES} were sent"):
        save_animation(anim, tmp_path / "out" / "v.mp4", fps=FPS)
    assert os.listdir(tmp_path / "out") == []


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


@pytest.mark.parametrize("script", [
    "head -c 1000 > /dev/null\necho 'Error: encoder exploded (simulated)' >&2\nexit 1\n",   # dies mid-stream
    "cat > /dev/null\necho 'Error: encoder exploded (simulated)' >&2\nexit 1\n",           # fails at the end
])
def test_ffmpeg_failure_reports_stderr_and_cleans_up(tmp_path, monkeypatch, script):
    _use_encoder(monkeypatch, _fake_ffmpeg(tmp_path, script))
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


# ---------------------------------------------------------------------------------------
# interrupted writers: signals and stale temporary files
# ---------------------------------------------------------------------------------------

# Renders a long animation to argv[1]: a test signals it mid-render. SIGINT gets Python's usual
# handler even when the test runs where it is ignored (a background job of a script, as CI may be).
RENDER_FOREVER = """
import signal
import sys
signal.signal(signal.SIGINT, signal.default_int_handler)
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from course.filesystem import BlitAnimation, save_animation

fig, ax = plt.subplots(figsize=(1.6, 1.2), dpi=100)
ax.set_xlim(0, 1)
ax.set_ylim(0, 1)
line, = ax.plot([], [], zorder=5)
anim = BlitAnimation(fig, lambda i: line.set_data([0, 1], [0, (i % 97) / 97]), 10**7, [line])
save_animation(anim, sys.argv[1], fps=25)
"""


def _start_render(tmp_path):
    """A render in a subprocess, over an existing video; returns (process, folder, target, old bytes, ffmpeg pid)."""
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "v.mp4"
    target.write_bytes(b"the previous video")
    script = tmp_path / "render.py"
    script.write_text(RENDER_FOREVER)
    proc = subprocess.Popen([sys.executable, str(script), str(target)], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while True:             # wait until ffmpeg runs and has written into the temporary file
        parts = [p for p in folder.iterdir() if p.name.endswith(".part")]
        if parts and parts[0].stat().st_size > 0 and descendants(proc.pid):
            break
        assert proc.poll() is None, f"the render stopped early:\n{proc.stderr.read()}"
        assert time.monotonic() < deadline, "the render never started"
        time.sleep(0.05)
    (ffmpeg,) = descendants(proc.pid)
    return proc, folder, target, ffmpeg


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_during_render_removes_the_temporary_file_and_ffmpeg(tmp_path, signum):
    proc, folder, target, ffmpeg = _start_render(tmp_path)
    proc.send_signal(signum)
    proc.wait(timeout=30)
    proc.stderr.close()
    assert proc.returncode == -signum, "the process must still end by the signal it was sent"
    assert os.listdir(folder) == ["v.mp4"], "a temporary file was left behind"
    assert target.read_bytes() == b"the previous video"
    assert not running(ffmpeg), "ffmpeg outlived the render"


# A write interrupted by a signal whose exception an extension replaces on its way out, as matplotlib's Agg
# renderer does when the KeyboardInterrupt is raised while it converts a clip box (seen once in 30 renders).
SIGNAL_REPLACED = """
import signal
import sys
from course.filesystem._atomic import atomic_target
from course.filesystem._termination import Terminated

signal.signal(signal.SIGINT, signal.default_int_handler)
signum = signal.Signals[sys.argv[2]]
with atomic_target(sys.argv[1]) as tmp:
    with open(tmp, "w") as fh:
        fh.write("half a file")
    try:
        signal.raise_signal(signum)
    except (KeyboardInterrupt, Terminated):
        raise ValueError("Invalid bounding box") from None
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_whose_exception_was_replaced_still_ends_the_process(tmp_path, signum):
    target = tmp_path / "v.mp4"
    target.write_bytes(b"the previous video")
    done = subprocess.run([sys.executable, "-c", SIGNAL_REPLACED, str(target), signum.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == -signum, done.stderr
    assert os.listdir(tmp_path) == ["v.mp4"], "a temporary file was left behind"
    assert target.read_bytes() == b"the previous video"


def test_next_write_sweeps_the_temporary_file_of_a_killed_render(tmp_path):
    proc, folder, target, ffmpeg = _start_render(tmp_path)
    proc.kill()                                      # SIGKILL: no clean-up can run
    proc.wait(timeout=30)
    proc.stderr.close()
    os.kill(ffmpeg, signal.SIGKILL)                  # the orphan would finish the file and exit on its own
    (stale,) = [p.name for p in folder.iterdir() if p.name.endswith(".part")]
    save_figure(_figure(), folder / "figure.png")
    assert sorted(os.listdir(folder)) == ["figure.png", "v.mp4"], f"{stale} survived the next write"
    assert target.read_bytes() == b"the previous video"


def _dead_pid():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_sweep_removes_only_our_files_of_dead_processes(tmp_path):
    host = _atomic._HOST
    other_host = "0" * 8 if host != "0" * 8 else "1" * 8
    dead = _dead_pid()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        names = {
            f".a.png.simkit-{host}-{dead}-0123456789ab.part": False,          # ours, writer gone: swept
            f".b.mp4.simkit-{host}-{dead}-0123456789ab.part": False,
            f".c.png.simkit-{host}-{live.pid}-0123456789ab.part": True,       # writer still running
            f".d.png.simkit-{host}-{os.getpid()}-0123456789ab.part": True,    # this process (another thread)
            f".e.png.simkit-{other_host}-{dead}-0123456789ab.part": True,     # another host's process
            ".f.png.0123456789ab.part": True,                                 # not recognisably ours
            f"g.png.simkit-{host}-{dead}-0123456789ab.part": True,            # not hidden: a user's file
            "h.png": True,
        }
        for name in names:
            (tmp_path / name).write_bytes(b"x")
        save_figure(_figure(), tmp_path / "new.png")
        assert sorted(os.listdir(tmp_path)) == sorted([n for n, keep in names.items() if keep] + ["new.png"])
    finally:
        live.kill()
        live.wait()


def test_sigterm_with_a_python_handler_unwinds_then_calls_it(tmp_path):
    calls = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: calls.append(signum))
    try:
        fig = _figure()

        def savefig_then_terminated(fh, **kwargs):
            fh.write(b"\x89PNG half a file")
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)                            # the handler interrupts this

        fig.savefig = savefig_then_terminated
        with pytest.raises(SystemExit):
            save_figure(fig, tmp_path / "f.png")
        assert calls == [signal.SIGTERM], "the previous handler must see the signal once"
        assert os.listdir(tmp_path) == []
        assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    finally:
        signal.signal(signal.SIGTERM, previous)


# ---------------------------------------------------------------------------------------
# simkit.filesystem: upstream's two names, calling the course's writers
# ---------------------------------------------------------------------------------------

def test_import_simkit_needs_neither_the_course_nor_matplotlib():
    code = "import sys, simkit, simkit.filesystem; print(sorted(m for m in ('course', 'matplotlib') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_simkit_filesystem_writes_what_the_course_writers_write(tmp_path):
    import simkit.filesystem as upstream_names

    fig, ax = plt.subplots(figsize=(2, 1.5), dpi=50)
    ax.plot([0, 1], [0, 1])
    a = upstream_names.save_figure(fig, tmp_path / "a.png", copy_to=tmp_path / "copy" / "a.png", dpi=60)
    b = save_figure(fig, tmp_path / "b.png", dpi=60)
    plt.close(fig)
    assert open(a, "rb").read() == open(b, "rb").read() == (tmp_path / "copy" / "a.png").read_bytes()
    assert upstream_names.BlitAnimation is BlitAnimation
