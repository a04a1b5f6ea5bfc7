"""Distance of two segments by Ericson's clamped closest points: a cheap cull before the edge-edge classification."""
import numpy as np

NEAR_PARALLEL = 1e-8        # sin^2 of the angle below which the distance may be overestimated


def segment_distance2(X, nodes):
    """Squared distances (k,) of the segment pairs nodes (k, 4) = (a0, a1, b0, b1) of X (n, 3), and near-parallel flags.

    Ericson's clamped closest points ("Real-Time Collision Detection", 5.1.9), on coordinate
    columns gathered straight from X: several times cheaper than the edge-edge classification of ``edge_edge_distance``,
    so the collision set and the step filter use it to drop the broad phase's far pairs. It is
    the distance up to round-off, except for near-parallel pairs (sin^2 of the angle below
    ``NEAR_PARALLEL``), where round-off in the line parameter can overestimate it: those are
    flagged, and the callers keep them.
    """
    columns = [np.ascontiguousarray(X[:, c]) for c in range(3)]
    P = [[columns[c][nodes[:, j]] for c in range(3)] for j in range(4)]
    ea = [P[1][c] - P[0][c] for c in range(3)]
    eb = [P[3][c] - P[2][c] for c in range(3)]
    w = [P[0][c] - P[2][c] for c in range(3)]

    def dot(u, v):
        return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]

    a, e, f, c, b = dot(ea, ea), dot(eb, eb), dot(eb, w), dot(ea, w), dot(ea, eb)
    denom = a * e - b * b
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.clip(np.where(denom > 0, (b * f - c * e) / denom, 0.0), 0.0, 1.0)
        t = (b * s + f) / e
        s = np.where(t < 0, np.clip(-c / a, 0.0, 1.0), np.where(t > 1, np.clip((b - c) / a, 0.0, 1.0), s))
        t = np.clip(t, 0.0, 1.0)
    r = [w[i] + s * ea[i] - t * eb[i] for i in range(3)]
    return dot(r, r), denom <= NEAR_PARALLEL * a * e
