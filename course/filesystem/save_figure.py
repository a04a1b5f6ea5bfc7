"""Deterministic, atomic PNG export of a matplotlib figure."""

from ._atomic import atomic_copy, atomic_target, check_output_path, make_parent


def save_figure(fig, path, copy_to=None, *, dpi=None):
    """Write a figure to a PNG file that is byte-identical across runs.

    The PNG carries no software or time stamp (``metadata={"Software": None}``), so an
    unchanged figure gives the same bytes on every build. The figure is cropped to its
    drawn content (``bbox_inches="tight"``), as Jupyter shows it inline. The file is
    written to a temporary sibling and moved into place: a failed write leaves no
    temporary or truncated file and keeps any previous file intact.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        Figure to save.
    path : str or os.PathLike
        Target file, ending in ``.png``; missing parent folders are created.
    copy_to : str or os.PathLike, optional
        Second target (``.png``) that receives an identical copy, also written atomically.
    dpi : float, optional
        Resolution in dots per inch; the figure's own dpi when None.

    Returns
    -------
    path : str
        Absolute path of the written file.
    """
    from matplotlib.figure import Figure

    from simkit import checks

    if not isinstance(fig, Figure):
        raise TypeError(f"fig: expected a matplotlib Figure, got {type(fig).__name__}")
    if dpi is not None:
        dpi = checks.positive_scalar(dpi, "dpi")
    path = check_output_path(path, ".png", "path")
    if copy_to is not None:
        copy_to = check_output_path(copy_to, ".png", "copy_to")

    make_parent(path, "path")
    with atomic_target(path, "path") as tmp:
        with open(tmp, "wb") as fh:
            fig.savefig(fh, format="png", dpi=fig.dpi if dpi is None else dpi,
                        bbox_inches="tight", metadata={"Software": None})
    if copy_to is not None:
        atomic_copy(path, copy_to, "copy_to")
    return path
