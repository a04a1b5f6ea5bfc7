"""Chapters 015 to 021, executed by the build: the media each chapter's code announces are its
expected figures and videos, they exist and decode, media/ holds exactly them, a re-run keeps their
committed bytes (015, 017, 018, 019, 020, 021) and the committed notebook is clean. The expected names and frame counts
live in each chapter's test module."""
import pytest

import chapter_checks as checks
import test_chapter_015
import test_chapter_016
import test_chapter_017
import test_chapter_018
import test_chapter_019
import test_chapter_020
import test_chapter_021

MEDIA = {module.CHAPTER: (module.FIGURES, module.VIDEOS)
         for module in (test_chapter_015, test_chapter_016, test_chapter_017, test_chapter_018, test_chapter_019,
                        test_chapter_020, test_chapter_021)}
RERUN_IDENTICAL = [test_chapter_015.CHAPTER, test_chapter_017.CHAPTER, test_chapter_018.CHAPTER, test_chapter_019.CHAPTER,
                   test_chapter_020.CHAPTER, test_chapter_021.CHAPTER]


@pytest.mark.parametrize("chapter", sorted(MEDIA))
def test_announced_media_exist_and_decode(chapter_run, chapter):
    FIGURES, VIDEOS = MEDIA[chapter]
    figures, videos = checks.announced(checks.executed(chapter))
    assert sorted(figures) == sorted(FIGURES)
    assert sorted(videos) == sorted(VIDEOS)
    checks.assert_media_decode(chapter, figures, VIDEOS)


@pytest.mark.parametrize("chapter", sorted(MEDIA))
def test_media_folder_holds_exactly_the_chapters_files(chapter_run, chapter):
    found, expected = checks.published(chapter, *MEDIA[chapter])
    assert found == expected


@pytest.mark.parametrize("chapter", RERUN_IDENTICAL)
def test_rerun_keeps_the_published_media(chapter_run, chapter):
    """chapter_run re-executed the chapter: every file a reader would see unchanged keeps its committed bytes."""
    checks.assert_rerun_identical(chapter, *MEDIA[chapter])


@pytest.mark.parametrize("chapter", sorted(MEDIA))
def test_committed_notebook_is_clean(chapter):
    checks.assert_committed_notebook_clean(chapter)
