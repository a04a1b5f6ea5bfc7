"""utils, publishing (course.publish): results and media folders, Chapter, the embedded video."""
import base64
import os
import re
import shutil
import sys

import matplotlib.pyplot as plt
import numpy as np
import pytest

import utils
from course import publish
from course.filesystem import save_animation

FPS = 10


def _spring_animation(n_frames=3, step=0.1):
    """A two-node spring whose free node moves right by `step` per frame, in a small fixed window."""
    X = np.array([[0.0, 0.0], [1.0, 0.0]])
    states = [X + [[0, 0], [step * i, 0]] for i in range(n_frames)]
    return utils.animate_springs_grid([{"states": states, "E": [[0, 1]], "title": "spring"}], figsize=(3, 2),
                                      lims=((-0.5, 1.6), (-0.5, 0.5)))


# ---------------------------------------------------------------------------------------
# paths
# ---------------------------------------------------------------------------------------

def test_root_is_the_repository_root():
    assert os.path.isfile(os.path.join(utils.ROOT, "utils.py"))
    assert os.path.isdir(os.path.join(utils.ROOT, "simkit"))
    assert os.path.isdir(os.path.join(utils.ROOT, "course"))


def test_notebook_results_path_ignores_cwd(tmp_path, monkeypatch):
    monkeypatch.setattr(publish, "ROOT", str(tmp_path / "repo"))
    monkeypatch.chdir(tmp_path)
    path = utils.notebook_results_path("011_mass_springs")
    assert path == str(tmp_path / "repo" / "results" / "011_mass_springs")
    assert os.path.isdir(path)
    assert not os.path.exists(tmp_path / "results")
    assert utils.notebook_results_path("011_mass_springs") == path     # idempotent


@pytest.mark.parametrize("name, error", [("", ValueError), ("..", ValueError), ("a/b", ValueError), (None, TypeError)])
def test_notebook_results_path_bad_name(name, error):
    with pytest.raises(error, match="^name: expected a"):
        utils.notebook_results_path(name)


def test_media_dir_default_and_environment(tmp_path, monkeypatch):
    monkeypatch.setattr(publish, "ROOT", str(tmp_path / "repo"))
    monkeypatch.delenv(utils.MEDIA_ENV, raising=False)
    assert utils.media_dir() == str(tmp_path / "repo" / "media")
    assert os.path.isdir(tmp_path / "repo" / "media")
    monkeypatch.setenv(utils.MEDIA_ENV, str(tmp_path / "staging" / "media"))
    assert utils.media_dir() == str(tmp_path / "staging" / "media")
    assert os.path.isdir(tmp_path / "staging" / "media")


def test_media_dir_that_is_a_file(tmp_path, monkeypatch):
    (tmp_path / "media").write_text("x")
    monkeypatch.setenv(utils.MEDIA_ENV, str(tmp_path / "media"))
    with pytest.raises(ValueError, match="is a file, not a folder"):
        utils.media_dir()


# ---------------------------------------------------------------------------------------
# Chapter: the one publishing call of a chapter
# ---------------------------------------------------------------------------------------

@pytest.fixture
def chapter(tmp_path, monkeypatch):
    monkeypatch.setattr(publish, "ROOT", str(tmp_path / "repo"))
    monkeypatch.setenv(utils.MEDIA_ENV, str(tmp_path / "staging"))
    return utils.Chapter("011_mass_springs")


@pytest.mark.parametrize("name", ["11_mass", "011", "011_Mass", "011-mass", "../011_x"])
def test_chapter_bad_name(name):
    with pytest.raises(ValueError, match="^name: expected a notebook name 'NNN_topic'"):
        utils.Chapter(name)
    with pytest.raises(TypeError, match="^name: expected a str"):
        utils.Chapter(None)


def test_chapter_paths_follow_results_and_media_dir(chapter, tmp_path):
    assert (chapter.name, chapter.prefix) == ("011_mass_springs", "011")
    assert chapter.results_dir == str(tmp_path / "repo" / "results" / "011_mass_springs")
    result, published = chapter.paths("cable_static", ".mp4")
    assert result == str(tmp_path / "repo" / "results" / "011_mass_springs" / "cable_static.mp4")
    assert published == str(tmp_path / "staging" / "011_cable_static.mp4")
    with pytest.raises(ValueError, match="^name: expected a lower-case media name"):
        chapter.paths("Cable static", ".png")


def test_chapter_figure_publishes_at_double_density_and_closes(chapter, tmp_path):
    fig, ax = utils.line_plot([0, 1], {"a": [0, 1]}, figsize=(4, 3))
    shown = chapter.figure(fig, "line")
    assert not plt.fignum_exists(fig.number)
    result = tmp_path / "repo" / "results" / "011_mass_springs" / "line.png"
    published = tmp_path / "staging" / "011_line.png"
    assert result.read_bytes() == published.read_bytes() == shown.data
    width = int.from_bytes(shown.data[16:20], "big")
    assert 2 * 380 <= width <= 2 * 400, "about 2 x 400 pixels: 4 inches at DENSITY x DPI (tight bbox)"
    assert shown.width == round(width / utils.DENSITY)
    fig, ax = utils.line_plot([0, 1], {"a": [0, 1]}, figsize=(4, 3))
    assert chapter.figure(fig, "line").data == shown.data, "byte-reproducible"


def _line_figure(colour, slope=1.0):
    fig, ax = utils.line_plot([0, 1], {"a": [0, slope]}, colors={"a": colour}, figsize=(4, 3))
    return fig


def test_chapter_figure_keeps_the_published_bytes_unless_a_reader_sees_a_change(chapter, tmp_path):
    """The publisher applies the media rule where it copies: a line one colour level off (other bytes,
    the same picture) leaves the published PNG as it was; a line of another slope replaces it."""
    result = tmp_path / "repo" / "results" / "011_mass_springs" / "line.png"
    published = tmp_path / "staging" / "011_line.png"
    chapter.figure(_line_figure("#1f77b4"), "line")
    first = published.read_bytes()
    chapter.figure(_line_figure("#1f77b5"), "line")
    assert result.read_bytes() != first, "the case must differ in bytes"
    assert published.read_bytes() == first
    chapter.figure(_line_figure("#1f77b4", slope=0.8), "line")
    assert published.read_bytes() == result.read_bytes() != first


def test_chapter_video_publishes_embeds_with_alt_and_width(chapter, tmp_path):
    X = np.array([[0.0, 0.0], [1.0, 0.0]])
    states = [X + [[0, 0], [0.1 * i, 0]] for i in range(3)]
    fig, anim = utils.animate_springs_grid([{"states": states, "E": [[0, 1]]}], figsize=(3, 2),
                                           lims=((-0.5, 1.5), (-0.5, 0.5)))
    html = chapter.video(fig, anim, "spring", fps=10, alt="A spring stretches to the right.").data
    assert not plt.fignum_exists(fig.number)
    assert 'aria-label="A spring stretches to the right."' in html and 'width="300"' in html
    assert (tmp_path / "staging" / "011_spring.mp4").read_bytes() == (
        tmp_path / "repo" / "results" / "011_mass_springs" / "spring.mp4").read_bytes()


def test_chapter_video_refuses_frames_outside_and_missing_alt(chapter, tmp_path):
    X = np.array([[0.0, 0.0], [1.0, 0.0]])
    states = [X + [[0, 0], [0.5 * i, 0]] for i in range(4)]       # the free node runs out of the window
    fig, anim = utils.animate_springs_grid([{"states": states, "E": [[0, 1]], "title": "run"}],
                                           lims=((-0.5, 1.6), (-0.5, 0.5)))
    with pytest.raises(ValueError, match="escape: frame 2 of 4 draws a point at"):
        chapter.video(fig, anim, "escape", fps=10, alt="A spring stretches far.")
    assert not plt.fignum_exists(fig.number)
    fig, anim = utils.animate_springs_grid([{"states": states[:2], "E": [[0, 1]]}])
    with pytest.raises(ValueError, match="^alt: expected a few words"):
        chapter.video(fig, anim, "short", fps=10, alt="video")
    assert not (tmp_path / "staging").exists() or not list((tmp_path / "staging").iterdir())


# ---------------------------------------------------------------------------------------
# embed_video, and Chapter.video when it cannot write
# ---------------------------------------------------------------------------------------

def test_embed_video_inlines_the_file(tmp_path):
    path = save_animation(_spring_animation()[1], tmp_path / "v.mp4", fps=FPS)
    html = utils.embed_video(path, alt="A spring stretches.", width=300).data
    assert re.search(r"<video controls loop muted playsinline", html)
    assert 'aria-label="A spring stretches."' in html and 'width="300"' in html
    data = re.search(r'src="data:video/mp4;base64,([^"]+)"', html).group(1)
    with open(path, "rb") as fh:
        assert base64.b64decode(data) == fh.read()


@pytest.mark.parametrize("name, error, match", [
    ("missing.mp4", ValueError, "does not exist"),
    ("clip.gif", ValueError, "^path: expected an .mp4 file"),
])
def test_embed_video_bad_path(tmp_path, name, error, match):
    with pytest.raises(error, match=match):
        utils.embed_video(tmp_path / name)


def test_show_video_saves_the_mp4_and_returns_the_page_video(tmp_path, monkeypatch):
    """As chapter 014's seed calls it: a path relative to the working folder, fps by keyword."""
    monkeypatch.chdir(tmp_path)
    fig, anim = _spring_animation()
    html = utils.show_video(fig, anim, "media/14_springs_only.mp4", fps=20).data
    assert not plt.fignum_exists(fig.number)
    written = (tmp_path / "media" / "14_springs_only.mp4").read_bytes()
    assert base64.b64decode(re.search(r'src="data:video/mp4;base64,([^"]+)"', html).group(1)) == written
    with pytest.raises(TypeError, match="^fig: expected a matplotlib Figure"):
        utils.show_video(None, anim, "media/x.mp4", fps=20)


def _nothing_written(tmp_path):
    return all(not files for _, _, files in os.walk(tmp_path))


@pytest.mark.parametrize("fps", [0, -20])
def test_chapter_video_bad_fps_writes_nothing_and_closes(chapter, tmp_path, fps):
    fig, anim = _spring_animation()
    with pytest.raises(ValueError, match="^fps: expected a finite value > 0"):
        chapter.video(fig, anim, "spring", fps=fps, alt="A spring stretches to the right.")
    assert _nothing_written(tmp_path)
    assert not plt.fignum_exists(fig.number)


def test_chapter_video_without_ffmpeg(chapter, tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)
    fig, anim = _spring_animation()
    with pytest.raises(RuntimeError, match="pip install imageio-ffmpeg"):
        chapter.video(fig, anim, "spring", fps=FPS, alt="A spring stretches to the right.")
    assert _nothing_written(tmp_path)


def test_chapter_video_and_figure_reject_non_figures(chapter):
    _, anim = _spring_animation()
    with pytest.raises(TypeError, match="^fig: expected a matplotlib Figure"):
        chapter.video("fig", anim, "spring", fps=FPS, alt="A spring stretches to the right.")
    with pytest.raises(TypeError, match="^fig: expected a matplotlib Figure"):
        chapter.figure(None, "line")
