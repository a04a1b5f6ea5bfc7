"""Inspecting written MP4 files without ffprobe (tests and benchmarks use it).

The imageio-ffmpeg wheel ships ffmpeg but no ffprobe, so the stream description is
parsed from ``ffmpeg -i`` and the frame count comes from a decode pass.
"""
import re
import struct
import subprocess

from ._ffmpeg_pipe import find_ffmpeg

_STREAM = re.compile(r"Stream #\S+.*?: Video: (?P<codec>\w+).*?, (?P<pix_fmt>[a-z0-9]+)(?:\([^)]*\))?, "
                     r"(?P<width>\d+)x(?P<height>\d+)")


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
    result = subprocess.run([find_ffmpeg(), "-hide_banner", "-i", path], capture_output=True, text=True)
    match = _STREAM.search(result.stderr)
    if match is None:
        raise ValueError(f"no video stream found in {path!r}:\n{result.stderr[-1000:]}")
    return {"codec": match["codec"], "pix_fmt": match["pix_fmt"],
            "width": int(match["width"]), "height": int(match["height"])}


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
