"""The media rule: a new rendering replaces a published file only when a reader could see the change.

Published media must not change bytes because the chapter ran on another CPU or BLAS kernel:
round-off moves a line or an axis tick by a pixel, and x264 turns that into other bytes. So a
new rendering is compared with the file already published by decoded content, and the published
bytes stay when they agree. Both places that publish apply it: the chapters' publisher
(``course.publish.Chapter``) when it copies a figure or video into ``media/``, wherever the
chapter runs (Jupyter Lab, nbclient), and the site build when it moves a chapter's staged media
into ``media/``:

- PNG: same size, and at most ``PIXEL_FRACTION`` of the pixels lack a look-alike: a pixel of
  the other image within ``SHIFT`` pixels whose channels differ by at most ``PIXEL_LEVEL``
  (out of 255), counted both ways (`differing_fraction`).
- MP4: same size, frame rate and frame count, and the same test on every frame (decoded to
  rgb24 with the pinned ffmpeg, in chunks of frames; the worst frame decides).
- Any other file: bytes.

The constants come from ``scripts/measure_media_rule.py``, run on a 2-core AMD EPYC (AVX2)
against the tracked media (numbers in ``benchmarks/README.md``, "Media identity"). Worst frame,
fraction of pixels without a look-alike:

- round-off (a rerun perturbed at 1e-12, OpenBLAS SandyBridge / Haswell, one BLAS thread, numpy
  without AVX2): at most 3.8e-5 (017's stack of blocks, whose contacts and friction pick up
  round-off), 2.7e-5 (015's hanging cloth: its trajectories agree to 2e-7 m, but x264 turns
  the few anti-aliased edge pixels that change into codec noise along the silhouette), 7.9e-6
  (011, 014), 1.9e-6 (016);
- a 1 % change of one parameter per chapter (011's spring stiffness, 014's EI, 015's EI and D,
  016's Young's modulus, 017's gravity): at least 5.0e-4 (011's spring collapse), 5.1e-4
  (014's convergence figure), 5.5e-4 (017's line-search figure), up to 1.4e-2.

``PIXEL_FRACTION`` sits at their geometric mean, 1.4e-4: a margin of about 3.6x either way, set
by 017's round-off and 011's smallest change (015's drape no longer sets it: its Newton steps
were halved at random by a line search deciding on the round-off of its 1e10 pins, then measured
in expanded form, which left trajectories 2e-3 m apart under another BLAS kernel and a 1.4x
margin; the pins' energy and force are now exact on the held coordinates and the drape takes
full steps with the line search on).
"""
import os
import re
import subprocess
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ._atomic import atomic_copy

PIXEL_LEVEL = 32            # two pixels look alike when no channel differs by more than this (of 255)
SHIFT = 1                   # ... and a pixel's look-alike may be this many pixels away (half a CSS pixel at 2x)
PIXEL_FRACTION = 1.4e-4     # a picture differs when more than this fraction of its pixels have no look-alike
CHUNK_BYTES = 64 << 20      # decoded video compared in chunks of about this many bytes per file

_STREAM = re.compile(r"Stream #\S+.*?: Video: .*?, (?P<width>\d+)x(?P<height>\d+)[ ,\[].*?"
                     r"(?P<fps>[0-9.]+(?:k)?) (?:fps|tbr)")


class Comparison(NamedTuple):
    """Outcome of comparing a new rendering with a published one."""

    same: bool              # True: a reader sees no difference, keep the published bytes
    reason: str             # one line for the build log
    worst: float            # largest fraction of differing pixels over images/frames (nan if not compared)


def differing_fraction(a, b, level=PIXEL_LEVEL, shift=SHIFT):
    """Fraction of the pixels of each image that have no look-alike within `shift` pixels in the other image.

    A pixel of one image has a look-alike when a pixel of the other image, at most `shift` rows and
    columns away, differs from it by at most `level` in every channel; the count is taken both ways
    and the larger kept. So a drawing moved by up to `shift` pixels counts as unmoved.

    Parameters
    ----------
    a, b : (..., h, w, c) uint8 arrays
        Images (or a stack of frames) of the same shape.
    level : int
        Channel difference, out of 255, above which two pixels do not look alike.
    shift : int
        How far, in pixels, a look-alike may be.

    Returns
    -------
    fraction : (...) float array
        ``max over (a, b), (b, a) of mean_p [min_{|o| <= shift} max_c |x(p) - y(p + o)| > level]``.
    """
    lead, (h, w, c) = a.shape[:-3], a.shape[-3:]
    a, b = a.reshape(-1, h, w, c), b.reshape(-1, h, w, c)
    # only pixels that differ from the pixel at the same place can lack a look-alike, and that test
    # is symmetric: find them once, in uint8 (|a - b| as max - min; a video chunk is 64 MB)
    f, i, j = np.nonzero(_unlike(a, b, level))
    fraction = np.zeros(len(a))
    for x, y in ((a, b), (b, a)):
        value, nearest = x[f, i, j].astype(np.int16), np.full(len(f), 255, np.int16)
        for di in range(-shift, shift + 1):
            for dj in range(-shift, shift + 1):
                other = y[f, np.clip(i + di, 0, h - 1), np.clip(j + dj, 0, w - 1)]
                nearest = np.minimum(nearest, np.abs(value - other).max(axis=-1))
        fraction = np.maximum(fraction, np.bincount(f[nearest > level], minlength=len(a)) / (h * w))
    return fraction.reshape(lead)


def _unlike(a, b, level):
    """(..., h, w) bool: where some channel of the uint8 images `a` and `b` differs by more than `level`."""
    difference = np.maximum(a, b)
    difference -= np.minimum(a, b)
    over = (difference > level).view(np.uint8)
    unlike = over[..., 0].copy()
    for channel in range(1, over.shape[-1]):       # channels one by one: a reduction over 3 is slow
        unlike |= over[..., channel]
    return unlike.view(bool)


def read_png(path):
    """Pixels of a PNG as an (h, w, 4) uint8 array (RGBA, whatever the file's mode)."""
    from PIL import Image

    with Image.open(path) as image:
        return np.asarray(image.convert("RGBA"))


def video_format(path, ffmpeg):
    """``(width, height, fps)`` of a video's first stream, parsed from ``ffmpeg -i``."""
    result = subprocess.run([ffmpeg, "-hide_banner", "-i", str(path)], capture_output=True, text=True)
    match = _STREAM.search(result.stderr)
    if match is None:
        raise ValueError(f"no video stream found in {path}:\n{result.stderr[-800:]}")
    fps = match["fps"]
    fps = float(fps[:-1]) * 1000 if fps.endswith("k") else float(fps)
    return int(match["width"]), int(match["height"]), fps


class FramesDiffer(Exception):
    """Two videos do not have the same frame format or frame count."""


def _decoder(path, ffmpeg):
    return subprocess.Popen([ffmpeg, "-v", "error", "-i", str(path), "-map", "0:v:0", "-f", "rawvideo",
                             "-pix_fmt", "rgb24", "-"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def frame_pairs(new, old, ffmpeg):
    """Decode two videos side by side, in chunks of frames.

    Parameters
    ----------
    new, old : path-like
        Video files.
    ffmpeg : str
        ffmpeg executable that decodes both.

    Yields
    ------
    a, b : (k, h, w, 3) uint8 arrays
        The next k frames of each video (k bounded by ``CHUNK_BYTES``).

    Raises
    ------
    FramesDiffer
        The sizes, frame rates or frame counts differ.
    """
    formats = video_format(new, ffmpeg), video_format(old, ffmpeg)
    if formats[0] != formats[1]:
        raise FramesDiffer(f"format {formats[1]} -> {formats[0]} (width, height, fps)")
    width, height, _ = formats[0]
    frame_bytes = width * height * 3
    chunk = max(1, CHUNK_BYTES // frame_bytes)
    decoders = _decoder(new, ffmpeg), _decoder(old, ffmpeg)
    try:
        while True:
            a, b = (d.stdout.read(chunk * frame_bytes) for d in decoders)
            if len(a) != len(b) or len(a) % frame_bytes:
                raise FramesDiffer("frame count differs (or a frame failed to decode)")
            if not a:
                return
            yield (np.frombuffer(a, np.uint8).reshape(-1, height, width, 3),
                   np.frombuffer(b, np.uint8).reshape(-1, height, width, 3))
    finally:
        for d in decoders:
            d.stdout.close()
            d.kill()
            d.wait()


def compare_videos(new, old, ffmpeg, level=PIXEL_LEVEL, fraction=PIXEL_FRACTION):
    """Compare two videos by format, frame count and decoded frames; see the module docstring.

    Parameters
    ----------
    new, old : path-like
        The new rendering and the published file.
    ffmpeg : str
        ffmpeg executable that decodes both (the pinned one).
    level, fraction : float
        The pixel test: see `differing_fraction` and ``PIXEL_FRACTION``.

    Returns
    -------
    comparison : Comparison
    """
    worst, frames = 0.0, 0
    try:
        for a, b in frame_pairs(new, old, ffmpeg):
            worst = max(worst, float(differing_fraction(a, b, level).max()))
            frames += len(a)
    except FramesDiffer as err:
        return Comparison(False, str(err), float("nan"))
    if frames == 0:
        return Comparison(False, "no frame decoded", float("nan"))
    return Comparison(worst <= fraction, f"{frames} frames, worst frame {worst:.3%} of pixels without a look-alike",
                      worst)


def compare_pngs(new, old, level=PIXEL_LEVEL, fraction=PIXEL_FRACTION):
    """Compare two PNGs by size and pixels; see the module docstring. Returns a `Comparison`."""
    a, b = read_png(new), read_png(old)
    if a.shape != b.shape:
        return Comparison(False, f"size {b.shape[1]}x{b.shape[0]} -> {a.shape[1]}x{a.shape[0]}", float("nan"))
    worst = float(differing_fraction(a, b, level))
    return Comparison(worst <= fraction, f"{worst:.3%} of pixels without a look-alike", worst)


def find_ffmpeg():
    """The pinned ffmpeg that decodes videos."""
    from ._encoder import find_encoder
    return find_encoder().exe


def compare(new, old, ffmpeg=None):
    """Does the new rendering `new` show what the published file `old` shows?

    Parameters
    ----------
    new, old : path-like
        Files of the same name: the one a chapter just wrote and the one in ``media/``.
    ffmpeg : str, optional
        ffmpeg that decodes videos (the pinned one when None).

    Returns
    -------
    comparison : Comparison
        ``same`` True when the published bytes should stay.
    """
    new, old = Path(new), Path(old)
    if new.read_bytes() == old.read_bytes():
        return Comparison(True, "same bytes", 0.0)
    suffix = new.suffix.lower()
    try:
        if suffix == ".png":
            return compare_pngs(new, old)
        if suffix == ".mp4":
            return compare_videos(new, old, ffmpeg or find_ffmpeg())
    except (OSError, ValueError) as err:          # an unreadable published file: publish the new one
        return Comparison(False, f"not comparable ({err})".splitlines()[0], float("nan"))
    return Comparison(False, "bytes differ", float("nan"))


def publish(path, published):
    """Copy a new rendering to its published place, unless the file there already shows the same.

    ``compare`` decides: PNGs by their pixels, MP4s by format, frame count and decoded frames; a
    difference no reader could see keeps the published bytes. The chapters' publisher
    (``Chapter.figure``, ``Chapter.video``) copies every figure and video through it.

    Parameters
    ----------
    path : str
        The new rendering (a ``.png`` or ``.mp4`` in ``results/``).
    published : str
        Absolute path of its published copy (in ``course.publish.media_dir()``); written atomically
        when replaced.

    Returns
    -------
    replaced : bool
        False when the published file was kept.
    """
    if os.path.isfile(published) and compare(path, published).same:
        return False
    atomic_copy(path, published, "published")
    return True
