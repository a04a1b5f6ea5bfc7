"""The media rule: a re-rendering that only round-off changed keeps the published bytes, a change a
reader can see (a 1 % change of a parameter) replaces them. Small synthetic renders through the
course's own writers; the chapter-level check is in test_chapters.py."""
import hashlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from bookbuild import chapters  # noqa: E402
from bookbuild.tree import Tree  # noqa: E402

from course.filesystem import media_rule  # noqa: E402
from course.filesystem import BlitAnimation, save_animation, save_figure  # noqa: E402

ROUND_OFF = 1e-12         # relative perturbation of a trajectory, as another CPU or BLAS kernel gives
COLOUR = "#1f77b4"
INVISIBLE = "#1f77b5"     # the same colour one level (of 255) bluer: other bytes, nothing a reader sees
PARAMETER = 1.01          # the smallest change a reader should see: a parameter 1 % off


def cable(stiffness=400.0, perturbation=0.0):
    """Node positions of a sagging cable whose sag goes as 1/stiffness, optionally perturbed."""
    s = np.linspace(-1.0, 1.0, 21)
    sag = 500.0 / stiffness * (np.cosh(1.2 * s) - np.cosh(1.2))
    xy = np.column_stack([s, sag])
    return xy * (1 + perturbation * np.random.default_rng(1).standard_normal(xy.shape))


def render_png(path, xy, colour=COLOUR):
    fig, ax = plt.subplots(figsize=(3.2, 2.4), dpi=100)
    ax.plot(xy[:, 0], xy[:, 1], "-o", ms=4, lw=2, color=colour)
    ax.set(xlim=(-1.2, 1.2), ylim=(-1.4, 0.2), title="cable")
    save_figure(fig, str(path))
    plt.close(fig)


def oscillators(stiffness=1.0, perturbation=0.0, frames=48):
    """Three springs' masses, x(t) = cos(sqrt(k_i) t), over `frames` steps of 0.1 s."""
    t = 0.1 * np.arange(frames)[:, None]
    x = np.cos(np.sqrt(stiffness * np.array([1.0, 2.0, 3.0])) * t)
    return x * (1 + perturbation * np.random.default_rng(2).standard_normal(x.shape))


def render_mp4(path, x, colour=COLOUR):
    fig, ax = plt.subplots(figsize=(3.2, 2.0), dpi=100)
    ax.set(xlim=(-1.3, 1.3), ylim=(-0.5, 2.5))
    dots = ax.plot(x[0], [0, 1, 2], "o", ms=8, zorder=3, color=colour)[0]

    def update(i):
        dots.set_xdata(x[i])

    save_animation(BlitAnimation(fig, update, len(x), [dots]), str(path), fps=20)
    plt.close(fig)


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(params=["png", "mp4"])
def renders(request, tmp_path):
    """Renders of one medium: published, trajectory perturbed at 1e-12, colour one level off, parameter +1 %."""
    kind = request.param
    draw, render = (cable, render_png) if kind == "png" else (oscillators, render_mp4)
    base = 400.0 if kind == "png" else 1.0
    out = {}
    for name, data, colour in [("published", {}, COLOUR), ("round_off", {"perturbation": ROUND_OFF}, COLOUR),
                               ("invisible", {}, INVISIBLE), ("parameter", {"stiffness": base * PARAMETER}, COLOUR)]:
        out[name] = tmp_path / name / f"090_medium.{kind}"
        out[name].parent.mkdir()
        render(out[name], draw(**{"stiffness": base, **data}), colour)
    return out


def test_round_off_is_no_change_and_a_parameter_change_is(renders):
    assert media_rule.compare(renders["round_off"], renders["published"]).same
    invisible = media_rule.compare(renders["invisible"], renders["published"])
    assert renders["invisible"].read_bytes() != renders["published"].read_bytes(), "the case must differ in bytes"
    assert invisible.same and invisible.reason != "same bytes", invisible
    changed = media_rule.compare(renders["parameter"], renders["published"])
    assert not changed.same, changed
    assert changed.worst > 5 * media_rule.PIXEL_FRACTION, "a 1 % change must sit clearly above the tolerance"


def test_publishing_keeps_the_tracked_bytes_unless_a_reader_sees_a_change(renders, tmp_path):
    tree = Tree(tmp_path / "tree")
    tree.media.mkdir(parents=True)
    published = tree.media / renders["published"].name
    published.write_bytes(renders["published"].read_bytes())
    before = digest(published)
    for case in ("round_off", "invisible"):
        staging = tmp_path / f"staging-{case}"
        staging.mkdir()
        (staging / published.name).write_bytes(renders[case].read_bytes())
        digests, kept = chapters.publish_media(tree, "090_", staging, owned={published.name: before})
        assert digest(published) == before and digests == {published.name: before}, case
        assert published.name in kept
    staging = tmp_path / "staging-parameter"
    staging.mkdir()
    (staging / published.name).write_bytes(renders["parameter"].read_bytes())
    digests, kept = chapters.publish_media(tree, "090_", staging, owned={published.name: before})
    assert published.read_bytes() == renders["parameter"].read_bytes() and not kept
    assert digests[published.name] == digest(published)


def test_the_chapters_publisher_applies_the_rule_where_it_copies(renders, tmp_path):
    published = tmp_path / "media" / renders["published"].name
    assert media_rule.publish(str(renders["published"]), str(published))         # nothing there yet: copied
    before = digest(published)
    for case in ("round_off", "invisible"):
        assert not media_rule.publish(str(renders[case]), str(published)), case
        assert digest(published) == before, case
    assert media_rule.publish(str(renders["parameter"]), str(published))
    assert published.read_bytes() == renders["parameter"].read_bytes()


def test_videos_of_other_length_size_or_rate_differ(tmp_path):
    x = oscillators(frames=20)
    ffmpeg = media_rule.find_ffmpeg()
    render_mp4(tmp_path / "a.mp4", x)
    render_mp4(tmp_path / "shorter.mp4", x[:-1])
    assert media_rule.compare(tmp_path / "a.mp4", tmp_path / "a.mp4", ffmpeg).reason == "same bytes"
    shorter = media_rule.compare(tmp_path / "shorter.mp4", tmp_path / "a.mp4", ffmpeg)
    assert not shorter.same and "frame count" in shorter.reason
    fig, ax = plt.subplots(figsize=(3.2, 2.2), dpi=100)          # two rows taller
    dots = ax.plot(x[0], [0, 1, 2], "o")[0]
    save_animation(BlitAnimation(fig, lambda i: dots.set_xdata(x[i]), len(x), [dots]),
                   str(tmp_path / "taller.mp4"), fps=20)
    plt.close(fig)
    taller = media_rule.compare(tmp_path / "taller.mp4", tmp_path / "a.mp4", ffmpeg)
    assert not taller.same and "format" in taller.reason
    assert media_rule.video_format(tmp_path / "a.mp4", ffmpeg) == (320, 200, 20.0)


def test_pngs_of_another_size_and_unreadable_files_are_changes(tmp_path):
    render_png(tmp_path / "a.png", cable())
    fig = plt.figure(figsize=(3.0, 2.4), dpi=100)
    save_figure(fig, str(tmp_path / "narrow.png"))
    plt.close(fig)
    assert not media_rule.compare(tmp_path / "narrow.png", tmp_path / "a.png").same
    (tmp_path / "broken.png").write_bytes(b"not a png")
    broken = media_rule.compare(tmp_path / "a.png", tmp_path / "broken.png")
    assert not broken.same and "not comparable" in broken.reason


def test_differing_fraction_counts_pixels_without_a_look_alike():
    a = np.zeros((2, 4, 5, 3), np.uint8)
    b = a.copy()
    b[0, 0, 0, 1] = media_rule.PIXEL_LEVEL + 1          # one pixel of frame 0, one channel, just over
    b[0, 2, 3, :] = media_rule.PIXEL_LEVEL              # at the level: alike
    b[1, :2, :, 2] = 255                                # half of frame 1 turned blue
    np.testing.assert_allclose(media_rule.differing_fraction(a, b), [1 / 20, 0.5])
    np.testing.assert_allclose(media_rule.differing_fraction(b, a), [1 / 20, 0.5])   # symmetric, no wrap-around


def test_a_line_moved_by_a_pixel_is_alike_and_by_three_is_not():
    image = np.full((1, 20, 30, 3), 255, np.uint8)
    line = image.copy()
    line[0, :, 10:12] = 0                               # a vertical line two pixels wide
    for moved, expected in [(1, 0.0), (3, 2 * 20 / 600)]:
        other = image.copy()
        other[0, :, 10 + moved:12 + moved] = 0
        np.testing.assert_allclose(media_rule.differing_fraction(line, other), [expected])
