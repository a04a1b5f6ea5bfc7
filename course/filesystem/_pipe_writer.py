"""A matplotlib movie writer that hands each frame's canvas pixels to an FFmpegPipe."""
import numpy as np
from matplotlib.animation import AbstractMovieWriter


def require_pixel_buffer(fig):
    """Raise TypeError unless ``fig`` draws on an Agg-based canvas, whose RGBA buffer can be piped."""
    if not hasattr(fig.canvas, "buffer_rgba"):
        raise TypeError(f"the figure's {type(fig.canvas).__name__} has no pixel buffer; use an "
                        "Agg-based backend (MPLBACKEND=Agg, inline, or any *Agg GUI backend)")


class PipeWriter(AbstractMovieWriter):
    """Writer for ``Animation.save`` (the generic, non-blitting path of ``save_animation``).

    Parameters
    ----------
    pipe : course.filesystem._ffmpeg_pipe.FFmpegPipe
        Open pipe receiving the frames.
    fps : float
        Frame rate (informational; the pipe owns the encoding rate).
    """

    def __init__(self, pipe, fps):
        super().__init__(fps=fps)
        self._pipe = pipe

    def setup(self, fig, outfile, dpi=None):
        require_pixel_buffer(fig)
        super().setup(fig, outfile, dpi)

    def grab_frame(self, **savefig_kwargs):
        canvas = self.fig.canvas
        # Animation.save has already drawn the frame when the canvas draws synchronously
        # (Agg's draw_idle); draw only if that left the figure stale: one draw per frame.
        if self.fig.stale:
            canvas.draw()
        self._pipe.write(np.asarray(canvas.buffer_rgba()))

    def finish(self):
        """Nothing to flush: the pipe is closed by its owner."""
