"""Deterministic, atomic H.264 MP4 export of a matplotlib animation, frames piped to ffmpeg."""
from ._atomic import atomic_copy, atomic_target, check_output_path, make_parent
from ._encoder import find_ffmpeg
from ._ffmpeg_pipe import FFmpegPipe
from ._probe import decoded_frames

_NO_FRAME = object()


def save_animation(anim, path, fps, copy_to=None):
    """Render every frame of an animation into an H.264 MP4 that browsers play.

    Frames go straight from the Agg canvas (``buffer_rgba()``) to ffmpeg's stdin, one
    draw per frame and no image file per frame. A ``course.filesystem.BlitAnimation`` is
    rendered by blitting (static artists drawn once; per frame the background is restored
    and only the animated artists drawn), any other matplotlib Animation by a full draw of
    each frame. The video is ``yuv420p``, even-sized, ``+faststart``, and bit-exact: the
    same frames give byte-identical files: the encoder is the ffmpeg pinned with the
    imageio-ffmpeg wheel, even where a system ffmpeg exists (which is used only without the
    wheel, with a warning). It is written to a temporary sibling, decoded to check that it
    holds every frame sent, and only then moved into place; on any failure (SIGTERM
    included) ffmpeg is killed, the temporary file removed and a previous file left intact.

    Parameters
    ----------
    anim : matplotlib.animation.Animation
        Animation to render; it must yield at least one frame, at a constant figure size.
    path : str or os.PathLike
        Target file, ending in ``.mp4``; missing parent folders are created.
    fps : float
        Frames per second of the video, positive and finite: ``n`` frames last ``n / fps`` s.
    copy_to : str or os.PathLike, optional
        Second target (``.mp4``) that receives an identical copy, also written atomically.

    Returns
    -------
    path : str
        Absolute path of the written file.
    """
    from matplotlib.animation import Animation

    from simkit import checks

    from ._pipe_writer import PipeWriter, require_pixel_buffer
    from .blit_animation import BlitAnimation

    if not isinstance(anim, Animation):
        raise TypeError(f"anim: expected a matplotlib Animation, got {type(anim).__name__}")
    fps = checks.positive_scalar(fps, "fps")
    path = check_output_path(path, ".mp4", "path")
    if copy_to is not None:
        copy_to = check_output_path(copy_to, ".mp4", "copy_to")
    exe = find_ffmpeg()
    if isinstance(anim, BlitAnimation):
        require_pixel_buffer(anim.figure)
    elif next(iter(anim.new_saved_frame_seq()), _NO_FRAME) is _NO_FRAME:
        raise ValueError("anim has no frames; it needs at least one")

    make_parent(path, "path")
    with atomic_target(path, "path") as tmp:
        with FFmpegPipe(exe, tmp, fps) as pipe:
            if isinstance(anim, BlitAnimation):
                anim.draw_background()
                for i in range(anim.n_frames):
                    pipe.write(anim.render_frame(i))
            else:
                # dpi="figure" keeps the canvas resolution, which is what the writer reads.
                anim.save(tmp, writer=PipeWriter(pipe, fps), dpi="figure")
        _check_encoded(exe, tmp, pipe.n_written, path)
    if copy_to is not None:
        atomic_copy(path, copy_to, "copy_to")
    return path


def _check_encoded(exe, tmp, n_frames, path):
    """Raise RuntimeError unless ``tmp`` decodes to ``n_frames`` frames (ffmpeg's exit code alone is not proof).

    The pinned ffmpeg decodes, whichever encoded: a faulty encoder must not vouch for itself.
    """
    try:
        decoded = decoded_frames(tmp)
    except ValueError as err:
        problem = str(err).replace(repr(tmp), "the encoded file")
    else:
        if decoded == n_frames:
            return
        problem = f"it holds {decoded} frames, {n_frames} were sent"
    raise RuntimeError(f"ffmpeg ({exe}) exited with status 0 but its video is unusable: {problem}. "
                       f"{path!r} was not replaced.")
