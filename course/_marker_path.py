"""Scatter markers whose extents are computed once: an animated scatter of round nodes drawn faster.

Each time a scatter is drawn, matplotlib's ``Collection.draw`` measures the extents of its marker
under the marker's transform to decide whether it may stamp the marker (``draw_markers``). For a
circle that is a Python loop over its Bézier segments, about 2 ms, in every frame of a video:
more than drawing the nodes. The transform is the same from frame to frame, so the answer is too;
``cache_marker_extents`` gives a scatter a marker path that keeps it. The drawing is unchanged.
"""
from matplotlib.path import Path


class _MarkerPath(Path):
    """A Path whose extents under an affine transform are measured once per transform matrix."""

    def get_extents(self, transform=None, **kwargs):
        if transform is None or kwargs or not transform.is_affine:
            return super().get_extents(transform, **kwargs)
        cache = self.__dict__.setdefault("_extents_by_matrix", {})
        key = transform.get_matrix().tobytes()
        if key not in cache:
            if len(cache) >= 8:                 # a transform that keeps changing: keep only the latest few
                cache.clear()
            cache[key] = super().get_extents(transform)
        return cache[key].frozen()


def cache_marker_extents(collection):
    """Give a scatter's ``PathCollection`` marker paths that measure their extents once per transform.

    Parameters
    ----------
    collection : matplotlib.collections.PathCollection
        A scatter (``ax.scatter``); its paths are replaced by equal ones.

    Returns
    -------
    collection : matplotlib.collections.PathCollection
        The same collection.
    """
    collection.set_paths([_MarkerPath(p.vertices, p.codes) for p in collection.get_paths()])
    return collection
