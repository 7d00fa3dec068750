"""Row models: the readers' words for each problem, the strictness they keep, the shapes they accept."""

from __future__ import annotations

import numpy as np
import pytest

from wikihowqa.dataset.codecs import RowError, document_from_dict, example_from_dict, prediction_from_dict

EXAMPLE = {
    "article_id": 7,
    "question": "How to x?",
    "answer": "Do y.",
    "related_document_urls_wayback_snapshots": ["http://web.archive.org/web/2020/http://a.example"],
}
PREDICTION = {
    "article_id": 7,
    "system": "bm25+lead",
    "answer": "Do y.",
    "passages": [{"archive_url": "u", "position": 0, "rank": 1, "text": "t", "score": 1}],
    "settings": {"split": "test"},
}


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({**PREDICTION, "passages": "u"}, "field 'passages' must be a list"),
        ({**PREDICTION, "passages": ["u"]}, r"passages\[0\] must be an object"),
        (
            {**PREDICTION, "passages": [{**PREDICTION["passages"][0], "score": "high"}]},
            r"passages\[0\]\.score",
        ),
        (
            {**PREDICTION, "passages": [{"archive_url": "u", "rank": 1, "text": "t"}]},
            "missing field 'position'",
        ),
        ({**PREDICTION, "settings": [1]}, "field 'settings' must be an object"),
        ({**PREDICTION, "article_id": "7"}, "field 'article_id' must be an integer, got str '7'"),
        ({**PREDICTION, "system": None}, "field 'system' is null"),
    ],
)
def test_prediction_problems_are_worded_as_before(row, message):
    with pytest.raises(RowError, match=message):
        prediction_from_dict(row)


def test_empty_passages_and_settings_are_none_and_a_whole_score_is_a_float():
    p = prediction_from_dict({**PREDICTION, "passages": None, "settings": None})
    assert p.passages == () and p.settings == {}
    assert prediction_from_dict(PREDICTION).passages[0].score == 1.0


def test_integers_are_strict_but_whole_floats_from_parquet_are_integers():
    assert example_from_dict({**EXAMPLE, "article_id": 7.0, "cluster": 3.0}).article_id == 7
    for bad in (True, "7", 7.5):
        with pytest.raises(RowError, match="field 'article_id' must be an integer"):
            example_from_dict({**EXAMPLE, "article_id": bad})


def test_numpy_arrays_of_strings_are_lists_and_extra_fields_are_kept():
    urls = np.array(EXAMPLE["related_document_urls_wayback_snapshots"])
    example = example_from_dict({**EXAMPLE, "related_document_urls_wayback_snapshots": urls, "source": "x"})
    assert example.related_document_urls_wayback_snapshots == tuple(urls.tolist())
    assert example.extra == {"source": "x"}
    doc = document_from_dict(
        {
            "article_id": 7,
            "original_url": "o",
            "archive_url": "a",
            "parsed_text": None,
            "passages": np.array(["p", "q"]),
        }
    )
    assert doc.parsed_text == "p\n\nq" and doc.passages == ("p", "q")


def test_the_enriched_parsed_text_object_is_checked_too():
    row = {
        "article_id": 7,
        "original_url": "o",
        "archive_url": "a",
        "parsed_text": {"title": 3, "passages": ["p"]},
    }
    with pytest.raises(RowError, match=r"field 'parsed_text\.title' must be a string, got int"):
        document_from_dict(row)
    with pytest.raises(RowError, match="field 'passages' must be a list of strings, got a list holding int"):
        document_from_dict({**row, "parsed_text": {"passages": [1]}})
