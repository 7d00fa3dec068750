"""The coverage report is counted row by row: a hydration holds its counters, never its rows."""

from __future__ import annotations

from wikihowqa.release.coverage import Tally, coverage


def test_a_tally_counts_urls_by_capture_year_and_site_and_questions_by_documents_recovered():
    tally = Tally()
    for row in (
        {"archive_url": "a", "url": "https://www.x.org/1", "timestamp": "20190101000000", "status": "kept"},
        {"archive_url": "b", "url": "https://x.org/2", "timestamp": "20200101000000", "status": "non_html"},
        {"archive_url": "c", "url": "https://y.org/", "timestamp": "20190505000000", "status": "kept"},
        {"archive_url": "nonsense", "status": "not_a_snapshot_url"},
    ):
        tally.add_url(row)
    for q in ({"article_id": 1, "recovered": 2}, {"article_id": 2, "recovered": 0}):
        tally.add_question(q)
    report = coverage(tally)
    assert report["urls"] == {"named": 4, "recovered": 2, "coverage": 0.5}
    assert [(r["year"], r["named"], r["recovered"]) for r in report["by_year"]] == [
        ("2019", 2, 2),
        ("2020", 1, 0),
        ("?", 1, 0),
    ]
    assert [(r["site"], r["named"], r["recovered"]) for r in report["by_site"]] == [
        ("x.org", 2, 1),
        ("y.org", 1, 1),
        ("?", 1, 0),  # a value with no host
    ]
    assert report["questions"] == {"total": 2, "recovered_documents": {0: 1, 2: 1}, "with_none": [2]}
    assert report["sites"] == 3


def test_an_empty_tally_reports_no_coverage_rather_than_dividing_by_zero():
    assert coverage(Tally())["urls"] == {"named": 0, "recovered": 0, "coverage": 0.0}
