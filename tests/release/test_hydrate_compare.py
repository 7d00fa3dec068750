"""``hydrate --compare``: word F1 per document against the released text, and what the hydration lacks."""

from __future__ import annotations

import pytest

from wikihowqa.core.records import Document
from wikihowqa.release.compare import compare, word_f1

COOKIE = "This website uses cookies to improve your experience while you navigate through the website."


def _doc(url: str, passages: list[str]) -> Document:
    return Document(
        1,
        url,
        f"http://web.archive.org/web/20200101000000/{url}",
        "\n\n".join(passages),
        passages=tuple(passages),
    )


def test_the_same_words_score_one_and_missing_words_lower_recall_only():
    assert word_f1("Dry the figs in the sun.", "Dry the figs in the sun.") == (1.0, 1.0, 1.0)
    # Released: 10 words; hydrated: 6, all of them released. P = 6/6, R = 6/10, F1 = 2·1·0.6/1.6 = 0.75.
    p, r, f1 = word_f1("Dry the figs in the sun. Cover them at night.", "Dry the figs in the sun.")
    assert (p, r) == (1.0, 0.6) and f1 == pytest.approx(0.75)


def test_words_are_counted_as_a_bag_with_their_case_kept():
    # Released {the: 3, cat: 1}, hydrated {the: 1, cat: 2}: 2 in common. P = 2/3, R = 2/4, F1 = 4/7.
    assert word_f1("the the the cat", "the cat cat") == pytest.approx((2 / 3, 1 / 2, 4 / 7))
    # "Figs" and "figs" are two words: 1 of 2 in common each way.
    assert word_f1("Figs dry", "figs dry") == pytest.approx((0.5, 0.5, 0.5))
    assert word_f1("figs", "") == (0.0, 0.0, 0.0)


def test_the_worst_documents_list_the_released_passages_the_hydration_lacks():
    text = ["Cut the figs in half and lay them cut side up on a rack in the sun for several days."]
    released = [_doc("https://a.example/figs", [*text, COOKIE]), _doc("https://b.example/gone", text)]
    hydrated = [_doc("https://a.example/figs", text)]
    result = compare(hydrated, released)
    first = result.documents[0]
    assert first["recovered"] and first["precision"] == 1.0 and first["released_passages_missing"] == [COOKIE]
    assert result.summary["recovered"] == 1 and result.summary["not_recovered"] == 1
    # Released: the 20 words of the text and the cookie notice's 14; hydrated: the 20, every one released.
    # P = 1, R = 20/34, F1 = 2·(20/34)/(1 + 20/34) = 20/27; the mean over the one recovered document.
    assert (first["precision"], first["recall"]) == (1.0, pytest.approx(20 / 34))
    assert first["f1"] == pytest.approx(20 / 27) and result.summary["mean_f1"] == pytest.approx(20 / 27)



def test_a_released_document_listed_twice_is_scored_and_counted_once():
    text = ["Cut the figs in half and lay them cut side up on a rack in the sun for several days."]
    figs = _doc("https://a.example/figs", text)
    result = compare([figs], [figs, _doc("https://b.example/gone", text), figs])
    summary = result.summary
    assert (summary["released"], summary["recovered"], summary["not_recovered"]) == (2, 1, 1)
    assert summary["released_repeated"] == 1 and len(result.documents) == 2


def test_a_comparison_that_fails_leaves_no_report_of_an_earlier_one(tmp_path):
    from wikihowqa.core.errors import DatasetError
    from wikihowqa.dataset.writers import write_documents
    from wikihowqa.release.compare import compare_files

    hydrated, released, out = (
        tmp_path / "hydrated.jsonl",
        tmp_path / "released.jsonl",
        tmp_path / "compare.json",
    )
    write_documents(hydrated, [_doc("https://a.example/figs", ["Dry the figs in the sun."])])
    write_documents(released, [_doc("https://a.example/figs", ["Dry the figs in the sun."])])
    compare_files(hydrated, released, out)
    assert out.is_file()
    released.write_text('{"article_id": 1, "archive_url": \n', encoding="utf-8")  # damaged since
    with pytest.raises(DatasetError, match=r"released\.jsonl:1: invalid JSON"):
        compare_files(hydrated, released, out)
    assert not out.exists()
    with pytest.raises(DatasetError, match="no such file"):
        compare_files(hydrated, tmp_path / "missing.jsonl", out)
    assert not out.exists()
