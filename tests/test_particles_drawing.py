"""course.particles (chapter 020's drawing helper): particles coloured by a quantity, animated on one clock."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import utils  # noqa: E402


def _panels(frames=4, n=5):
    t = np.linspace(0, 1, frames)[:, None]
    x = np.stack([0.2 + 0.5 * t + 0.01 * np.arange(n), 0.5 + 0 * t + 0.02 * np.arange(n)], axis=-1)
    return [("a", x, np.broadcast_to(t, (frames, n))), ("b", x[:, ::-1], 2 * np.broadcast_to(t, (frames, n)))]


def test_every_frame_moves_and_colours_the_particles_on_one_scale():
    panels = _panels()
    fig, anim = utils.animate_particles_2d(panels, ((0, 1), (0, 1)), "speed  (m/s)", times=np.arange(4) * 0.1)
    scatters = [a for a in anim.artists if hasattr(a, "get_offsets")]
    assert len(scatters) == 2 and anim.n_frames == 4
    anim.set_frame(3)
    for sc, (_, x, v) in zip(scatters, panels):
        assert np.allclose(sc.get_offsets(), x[3]) and np.allclose(sc.get_array(), v[3])
    assert scatters[0].norm.vmin == 0.0 and scatters[0].norm.vmax == 2.0 and scatters[1].norm is scatters[0].norm
    assert fig.axes[-1].get_ylabel() == "speed  (m/s)"
    utils.check_frames_inside(anim)
    plt.close(fig)


def test_a_particle_outside_the_limits_is_refused_before_writing():
    fig, anim = utils.animate_particles_2d(_panels(), ((0, 0.5), (0, 1)), "speed  (m/s)")
    with pytest.raises(ValueError, match="outside its limits"):
        utils.check_frames_inside(anim)
    plt.close(fig)


def test_panels_of_different_lengths_are_an_error():
    a, b = _panels()
    with pytest.raises(ValueError, match="panels"):
        utils.animate_particles_2d([a, (b[0], b[1][:2], b[2][:2])], ((0, 1), (0, 1)), "speed")
