"""Piping raw RGBA frames into an ffmpeg process that writes a deterministic H.264 MP4.

Encoding settings, chosen for browsers and reproducibility:
H.264 (libx264) in ``yuv420p`` with BT.709 colours, even frame size (odd sizes padded
with one white row/column), ``+faststart`` (index first, so playback starts before the
download ends), and bit-exact flags, stripped metadata and a pinned encoder thread count
so the same frames give byte-identical files.
"""
import subprocess
import tempfile
from fractions import Fraction

import numpy as np

ENCODER_THREADS = 2      # x264 output depends on its thread count: pinned, never the CPU count
X264_PRESET = "medium"
X264_CRF = 18            # near-transparent quality; line art compresses well
STDERR_TAIL = 2000       # characters of ffmpeg's stderr quoted in error messages


def frame_rate(fps):
    """Exact rational form of ``fps`` for ffmpeg's ``-r`` (``2.5`` -> ``"5/2"``, ``29.97`` -> ``"2997/100"``)."""
    rate = Fraction(fps).limit_denominator(1001000)
    return f"{rate.numerator}/{rate.denominator}"


def ffmpeg_args(exe, width, height, fps, out_path):
    """Command line that reads ``width x height`` RGBA frames from stdin and writes ``out_path`` as MP4.

    Parameters
    ----------
    exe : str
        ffmpeg executable.
    width, height : int
        Frame size in pixels (any parity; odd sizes are padded to even).
    fps : float
        Frame rate.
    out_path : str
        Output file (MP4 format is forced, whatever its extension).

    Returns
    -------
    args : list of str
    """
    import ffmpeg

    stream = ffmpeg.input("pipe:", format="rawvideo", pix_fmt="rgba", s=f"{width}x{height}",
                          r=frame_rate(fps))
    if width % 2 or height % 2:
        stream = stream.filter("pad", "ceil(iw/2)*2", "ceil(ih/2)*2", color="white")
    stream = (stream.filter("scale", out_color_matrix="bt709", out_range="tv")
              .filter("format", "yuv420p")
              .filter("setparams", color_primaries="bt709", color_trc="bt709", colorspace="bt709"))
    out = stream.output(
        out_path, format="mp4", vcodec="libx264", pix_fmt="yuv420p", preset=X264_PRESET,
        crf=X264_CRF, threads=ENCODER_THREADS, movflags="+faststart", fflags="+bitexact",
        map_metadata=-1, **{"flags:v": "+bitexact"})
    out = out.global_args("-hide_banner", "-nostats", "-loglevel", "error")
    return out.compile(cmd=exe, overwrite_output=True)


_ALPHA_BYTES = np.frombuffer(bytes([0, 0, 0, 255] * 2), np.uint64)[0]     # the alpha bytes of two pixels


def _is_opaque(rgba):
    """Whether every pixel of a C-contiguous (h, w, 4) uint8 frame has alpha 255.

    The AND of all pixels, two at a time as uint64 words, keeps an alpha byte at 255 only if
    every pixel has it: a third of the time of ``rgba[..., 3].min()``, which reads a strided view.
    """
    words = rgba.reshape(-1).view(np.uint64) if rgba.size % 8 == 0 else None
    if words is None:
        return rgba[..., 3].min() == 255
    return np.bitwise_and.reduce(words) & _ALPHA_BYTES == _ALPHA_BYTES


def _opaque_rgb(rgba):
    """Composite an RGBA frame over white where it is not opaque (ffmpeg would drop alpha to black)."""
    alpha = rgba[..., 3:].astype(np.uint16)
    rgb = (rgba[..., :3] * alpha + 255 * (255 - alpha) + 127) // 255
    out = np.empty_like(rgba)
    out[..., :3] = rgb
    out[..., 3] = 255
    return out


class FFmpegPipe:
    """Context manager feeding RGBA frames to ffmpeg; ffmpeg starts at the first frame.

    On a clean exit stdin is closed and ffmpeg's exit status checked; on any exception
    ffmpeg is killed. Errors quote the tail of ffmpeg's stderr.

    Parameters
    ----------
    exe : str
        ffmpeg executable.
    out_path : str
        File ffmpeg writes (a temporary file of the caller).
    fps : float
        Frame rate.
    """

    def __init__(self, exe, out_path, fps):
        self._exe = exe
        self._out_path = out_path
        self._fps = fps
        self._proc = None
        self._stderr = None
        self._shape = None
        self.n_written = 0

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self._finish()
        else:
            self._abort()
        return False

    def _start(self, height, width):
        # stderr goes to a file, not a pipe: a full, unread stderr pipe would stall ffmpeg.
        self._stderr = tempfile.TemporaryFile()
        args = ffmpeg_args(self._exe, width, height, self._fps, self._out_path)
        self._proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                      stderr=self._stderr)
        self._shape = (height, width, 4)

    def stderr_tail(self):
        """str : the last characters ffmpeg wrote to stderr."""
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-STDERR_TAIL:].strip()

    def write(self, rgba):
        """Send one frame.

        Parameters
        ----------
        rgba : (h, w, 4) uint8 array
            Frame pixels; every frame must have the size of the first.
        """
        if rgba.ndim != 3 or rgba.shape[2] != 4 or rgba.dtype != np.uint8:
            raise ValueError(f"frame: expected an (h, w, 4) uint8 array, got {rgba.dtype} {rgba.shape}")
        if self._proc is None:
            self._start(*rgba.shape[:2])
        elif rgba.shape != self._shape:
            raise ValueError(f"frame {self.n_written} has size {rgba.shape[1]}x{rgba.shape[0]}, "
                             f"expected {self._shape[1]}x{self._shape[0]} like the first frame; "
                             "keep the figure size fixed while animating")
        rgba = np.ascontiguousarray(rgba)
        if not _is_opaque(rgba):
            rgba = _opaque_rgb(rgba)
        try:
            self._proc.stdin.write(rgba.data)
        except (BrokenPipeError, OSError) as err:
            self._proc.wait()
            raise RuntimeError(f"ffmpeg stopped reading at frame {self.n_written} "
                               f"(exit code {self._proc.returncode}):\n{self.stderr_tail()}") from err
        self.n_written += 1

    def _finish(self):
        if self._proc is None:
            raise ValueError("the animation produced no frames; it needs at least one")
        try:
            self._proc.stdin.close()
        except BrokenPipeError:
            pass
        code = self._proc.wait()
        tail = self.stderr_tail()
        self._stderr.close()
        if code != 0:
            raise RuntimeError(f"ffmpeg failed with exit code {code}:\n{tail}")

    def _abort(self):
        if self._proc is None:
            return
        self._proc.kill()
        self._proc.wait()
        if self._proc.stdin is not None:
            try:
                self._proc.stdin.close()
            except BrokenPipeError:
                pass
        self._stderr.close()
