"""Inspecting written MP4 files without ffprobe: the writer's check of what ffmpeg wrote, tests, benchmarks.

The imageio-ffmpeg wheel ships ffmpeg but no ffprobe, so the stream description is
parsed from ``ffmpeg -i`` and the frame count comes from a decode pass.
"""
import os
import re
import struct
import subprocess

from ._encoder import find_encoder

_STREAM = re.compile(r"Stream #\S+.*?: Video: (?P<codec>\w+).*?, (?P<pix_fmt>[a-z0-9]+)(?:\([^)]*\))?, "
                     r"(?P<width>\d+)x(?P<height>\d+)")
_PROGRESS_FRAMES = re.compile(r"^frame=(\d+)$", re.MULTILINE)


def probe_video(path):
    """Codec, pixel format and size of the first video stream of a file.

    Parameters
    ----------
    path : str
        Video file.

    Returns
    -------
    info : dict
        ``{"codec": str, "pix_fmt": str, "width": int, "height": int}``.
    """
    result = subprocess.run([find_encoder().exe, "-hide_banner", "-i", path], capture_output=True, text=True)
    match = _STREAM.search(result.stderr)
    if match is None:
        raise ValueError(f"no video stream found in {path!r}:\n{result.stderr[-1000:]}")
    return {"codec": match["codec"], "pix_fmt": match["pix_fmt"],
            "width": int(match["width"]), "height": int(match["height"])}


def decoded_frames(path, exe=None):
    """Decode every frame of the first video stream and count them.

    Parameters
    ----------
    path : str
        Video file.
    exe : str, optional
        ffmpeg executable; the pinned one (``find_encoder``) when None.

    Returns
    -------
    n_frames : int
        Number of frames that decoded without error.

    Raises
    ------
    ValueError
        The file is missing or empty, has no video stream, or a frame fails to decode.
    """
    size = os.path.getsize(path) if os.path.isfile(path) else None
    if not size:
        raise ValueError(f"{path!r} is {'empty' if size == 0 else 'missing'}")
    # every frame is decoded into the null muxer, which keeps nothing; -progress reports the frames it
    # received ("frame=N"), -xerror stops at the first decoding error. One decoding thread: the
    # decoded frames are the same, at about half the CPU time of framecrc with frame threads.
    result = subprocess.run([exe or find_encoder().exe, "-hide_banner", "-nostdin", "-v", "error", "-xerror",
                             "-threads", "1", "-i", path, "-map", "0:v:0", "-f", "null", "-progress", "pipe:1",
                             "-nostats", "-"],
                            capture_output=True, text=True)
    counts = _PROGRESS_FRAMES.findall(result.stdout)
    if result.returncode != 0 or result.stderr.strip() or not counts:
        raise ValueError(f"{path!r} does not decode (exit code {result.returncode}): "
                         f"{result.stderr.strip()[-1000:] or 'no error message'}")
    return int(counts[-1])


def mp4_boxes(path):
    """Types of the top-level boxes (atoms) of an MP4 file, in file order.

    ``"moov"`` before ``"mdat"`` means the index comes first (``+faststart``).

    Parameters
    ----------
    path : str
        MP4 file.

    Returns
    -------
    boxes : list of str
    """
    boxes = []
    with open(path, "rb") as fh:
        while header := fh.read(8):
            if len(header) < 8:
                raise ValueError(f"{path!r}: truncated box header")
            size, kind = struct.unpack(">I4s", header)
            skip = size - 8
            if size == 1:
                skip = struct.unpack(">Q", fh.read(8))[0] - 16
            elif size == 0:
                boxes.append(kind.decode("latin-1"))
                break
            boxes.append(kind.decode("latin-1"))
            fh.seek(skip, 1)
    return boxes
