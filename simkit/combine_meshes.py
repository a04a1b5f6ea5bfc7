"""Several meshes as one: stacked vertices, connectivity re-indexed into them (upstream simkit's name)."""
import numpy as np

from . import _validate


def combine_meshes(V_list, F_list):
    r"""Merge meshes into one by stacking their vertices and shifting each connectivity by the vertices before it.

    :math:`F_i \mapsto F_i + \sum_{j < i} n_j`; coincident vertices are not merged.

    Parameters
    ----------
    V_list : sequence of (n_i, d) float arrays
        Each mesh's vertices, one common d.
    F_list : sequence of (m_i, s) int arrays
        Each mesh's connectivity (edges, triangles, tetrahedra, ...), one common s, indexing its
        own vertices.

    Returns
    -------
    V : (sum n_i, d) float array
        The vertices of every mesh, in input order.
    F : (sum m_i, s) int array
        Every connectivity, in input order, indexing V.

    Notes
    -----
    Several connectivities of the same meshes (triangles, springs, boundary segments) merge
    with one call each on the same ``V_list``; mesh i's vertices are rows
    ``sum_{j<i} n_j`` to ``sum_{j<=i} n_j - 1`` of V (``np.repeat(np.arange(k), n)`` labels them).
    """
    if isinstance(V_list, np.ndarray) or isinstance(F_list, np.ndarray):
        raise TypeError("V_list, F_list: expected sequences of per-mesh arrays (a list), got an ndarray")
    V_list, F_list = list(V_list), list(F_list)
    if len(V_list) != len(F_list):
        raise ValueError(f"F_list: expected one connectivity per vertex array ({len(V_list)}), got {len(F_list)}")
    if not V_list:
        raise ValueError("V_list: expected at least one mesh, got none")
    Vs = [_validate.positions(V, f"V_list[{i}]", dims=range(1, 4)) for i, V in enumerate(V_list)]
    if len({V.shape[1] for V in Vs}) > 1:
        raise ValueError(f"V_list: expected one dimension for every mesh, got {sorted({V.shape[1] for V in Vs})}")
    columns = {np.shape(F)[1] if np.ndim(F) == 2 else None for F in F_list}
    if len(columns) > 1 or None in columns:
        raise ValueError(f"F_list: expected (m_i, s) arrays with one common s, got shapes "
                         f"{[np.shape(F) for F in F_list]}")
    s = columns.pop()
    Fs = [_validate.index_array(F, f"F_list[{i}]", s, V.shape[0]) for i, (F, V) in enumerate(zip(F_list, Vs))]
    counts = np.array([V.shape[0] for V in Vs])
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    F = np.concatenate(Fs) + np.repeat(offsets, [F.shape[0] for F in Fs])[:, None]
    return np.concatenate(Vs), F
