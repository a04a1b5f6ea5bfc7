"""Which ffmpeg encodes the videos: the pinned binary of the imageio-ffmpeg wheel.

x264's bytes depend on the ffmpeg and x264 build, so videos are byte-identical across
machines only when every machine encodes with the same binary. The binary bundled in the
imageio-ffmpeg wheel (pinned in ``requirements.lock``) is that binary, and it is used even
when a system ffmpeg exists. A system ffmpeg on PATH is the fallback for when the wheel
or its binary is absent; it is announced with an ``UnpinnedEncoderWarning``.
"""
import os
import shutil
import warnings
from typing import NamedTuple


class UnpinnedEncoderWarning(UserWarning):
    """Videos are encoded with a system ffmpeg, so their bytes may differ from other machines'."""


class Encoder(NamedTuple):
    """An ffmpeg executable and where it comes from."""

    exe: str
    pinned: bool
    description: str


def _bundled_ffmpeg():
    """``(path, None)`` of the imageio-ffmpeg wheel's ffmpeg, or ``(None, reason)`` when there is none."""
    try:
        import imageio_ffmpeg
        from imageio_ffmpeg import binaries
    except ImportError:
        return None, "imageio-ffmpeg is not installed"
    folder = os.path.dirname(binaries.__file__)
    found = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.startswith("ffmpeg"))
    found = [f for f in found if os.path.isfile(f) and os.access(f, os.X_OK)]
    if not found:
        return None, f"imageio-ffmpeg {imageio_ffmpeg.__version__} has no bundled ffmpeg for this platform"
    return found[-1], f"imageio-ffmpeg {imageio_ffmpeg.__version__}"


def find_encoder():
    """The ffmpeg that encodes videos, and whether it is the pinned one.

    Returns
    -------
    encoder : Encoder
        ``exe`` (path), ``pinned`` (True for the imageio-ffmpeg wheel's binary) and a
        one-line ``description`` for build logs.
    """
    bundled, origin = _bundled_ffmpeg()
    if bundled is not None:
        return Encoder(bundled, True, f"pinned ffmpeg of {origin} ({os.path.basename(bundled)})")
    system = shutil.which("ffmpeg")
    if system is None:
        raise RuntimeError(
            f"ffmpeg not found: {origin} and there is no `ffmpeg` on PATH. "
            "Fix: `pip install imageio-ffmpeg` (pinned in requirements.lock), or install a system ffmpeg")
    return Encoder(system, False,
                   f"system ffmpeg {system}, because {origin}: videos may differ byte for byte from "
                   "other machines'; `pip install imageio-ffmpeg` (pinned in requirements.lock) to fix")


def find_ffmpeg():
    """Path of the ffmpeg to run; warns (``UnpinnedEncoderWarning``) when it is not the pinned one.

    Returns
    -------
    exe : str
        Path of the ffmpeg executable.
    """
    encoder = find_encoder()
    if not encoder.pinned:
        warnings.warn(f"encoding with the {encoder.description}", UnpinnedEncoderWarning, stacklevel=2)
    return encoder.exe
