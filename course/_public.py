"""The name chapters import the course by: every public class is published as ``utils.<Name>``."""

FACADE = "utils"


def public(cls):
    """Name ``cls`` by the facade chapters import it from (``utils.Chapter``, not ``course.publish.Chapter``).

    The site's code links follow a class, and the methods of its instances (``ch.figure``),
    through ``__module__``; the API reference documents them under ``utils``.
    """
    cls.__module__ = FACADE
    return cls
