"""Loading a rendered corpus folder: derived wiki pages, SURT keys, digests, and clear errors."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest

from tests.replay.replay_corpus import standard_articles, standard_captures, write_corpus
from wikihowqa.core.errors import WikihowqaError
from wikihowqa.replay import CorpusError, load_corpus
from wikihowqa.replay.wiki import Wiki


def test_captures_get_surt_keys_digests_and_lengths(corpus_dir):
    corpus = load_corpus(corpus_dir)
    by_file = {c.file: c for c in corpus.captures if c.file}
    data = standard_captures()[1]["ratios.html"]
    ratios = by_file["ratios.html"]
    assert ratios.urlkey == "org,coffee-lab)/ratios"
    assert ratios.digest == base64.b32encode(hashlib.sha1(data).digest()).decode()
    assert ratios.length == len(data)
    assert by_file["empty.html"].length == 0
    assert by_file["list.html"].urlkey == "org,example)/list?a=1&b=2"


def test_the_wiki_derives_summary_and_category_pages(corpus_dir):
    wiki = Wiki(load_corpus(corpus_dir))
    summary = wiki.by_id[50100001]
    assert (summary.ns, summary.title) == (30, "Summary:How to Brew Pour-Over Coffee")
    categories = {p.title: p for p in wiki.by_id.values() if p.ns == 14}
    assert categories["Category:Coffee"].categories == ("Drinks",)
    assert categories["Category:Food and Entertaining"].categories == ()
    assert "Category:Featured Articles" in categories
    # derived ids come after the corpus's own, in a fixed order: the same on every load
    again = Wiki(load_corpus(corpus_dir))
    assert {p.title: p.pageid for p in again.by_id.values()} == {
        p.title: p.pageid for p in wiki.by_id.values()
    }
    assert min(p.pageid for p in categories.values()) > 50100003


def test_titles_normalise_like_mediawiki(corpus_dir):
    wiki = Wiki(load_corpus(corpus_dir))
    title = wiki.parse_title("category:food_and  entertaining")
    assert (title.ns, title.text, title.prefixed) == (
        14,
        "Food and entertaining",
        "Category:Food and entertaining",
    )
    assert wiki.parse_title("Image:x.jpg").prefixed == "File:X.jpg"
    assert wiki.parse_title("Nonexistent prefix: text").prefixed == "Nonexistent prefix: text"


@pytest.mark.parametrize(
    "breakage, message",
    [
        (lambda root: (root / "site.json").unlink(), "site.json: file not found"),
        (lambda root: (root / "articles" / "100001.json").write_text("{oops"), "100001.json: not valid JSON"),
        (lambda root: _edit_article(root, lambda a: a.pop("title")), "missing field 'title'"),
        (lambda root: _edit_article(root, lambda a: a.update(pageid="x")), "field 'pageid' must be int"),
        (lambda root: _edit_article(root, lambda a: a.update(revisions=[])), "at least one revision"),
        (lambda root: _edit_article(root, lambda a: a.update(pageid=100002)), "page id 100002 is used twice"),
        (lambda root: (root / "archive" / "cdx.jsonl").write_text('{"url": "x"}\nnot json\n'), "cdx.jsonl:1"),
        (lambda root: (root / "archive" / "snapshots" / "pour-a.html").unlink(), "pour-a.html not found"),
    ],
)
def test_a_broken_corpus_names_the_file_to_fix(tmp_path, breakage, message):
    root = write_corpus(tmp_path / "corpus")
    breakage(root)
    with pytest.raises(CorpusError, match=message) as caught:
        Wiki(load_corpus(root))
    assert isinstance(caught.value, WikihowqaError)


def test_a_bad_cdx_line_reports_its_number(tmp_path):
    caps, snaps = standard_captures()
    lines = [*caps[:2], {"url": "https://x.example/", "timestamp": "2019", "statuscode": "200"}]
    root = write_corpus(tmp_path / "corpus", captures=lines, snapshots=snaps)
    with pytest.raises(CorpusError, match=r"cdx.jsonl:3: timestamp must have 14 digits"):
        load_corpus(root)


def test_a_redirect_capture_needs_a_location(tmp_path):
    caps = [{"url": "https://x.example/", "timestamp": "20190101000000", "statuscode": "302"}]
    root = write_corpus(tmp_path / "corpus", captures=caps, snapshots={})
    with pytest.raises(CorpusError, match="needs a 'location'"):
        load_corpus(root)


def _edit_article(root, change):
    path = root / "articles" / "100001.json"
    article = json.loads(path.read_text())
    change(article)
    path.write_text(json.dumps(article))


def test_standard_articles_fixture_is_what_the_files_hold(corpus_dir):
    # guards the other tests: they assume the fixture wrote exactly these pages
    ids = sorted(a["pageid"] for a in standard_articles())
    assert sorted(p.pageid for p in load_corpus(corpus_dir).pages) == ids


def test_a_lazy_corpus_serves_the_same_captures_from_disk_without_holding_their_bodies(corpus_dir):
    eager, lazy = load_corpus(corpus_dir), load_corpus(corpus_dir, lazy=True)
    assert lazy.captures == eager.captures  # digests and lengths computed at load, as for the eager one
    assert sorted(lazy.snapshots) == sorted(eager.snapshots) and len(lazy.snapshots) == len(eager.snapshots)
    assert all(lazy.snapshots[name] == body for name, body in eager.snapshots.items())
    assert not isinstance(lazy.snapshots, dict) and lazy.snapshots.get("no-such-file") is None
