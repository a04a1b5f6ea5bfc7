"""The course build, one job per module (``scripts/build_book.py`` is the entry point).

- ``tree``: where a build reads and writes, its error type, holding signals during a swap;
- ``chapters``: one chapter's cache key, nbclient run, and publishing of its media and results;
- ``site``: the strict Jupyter Book build of the site, swapped in on success.

The media rule (whether a new rendering shows what the published file shows) is
``course.filesystem.media_rule``: the chapters' publisher applies it too, wherever a chapter runs.
"""
