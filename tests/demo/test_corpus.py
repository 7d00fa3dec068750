"""The committed demo corpus keeps its contract (docs/demo-corpus.md).

The checks recompute what they can with code written here, independently of the renderer: references are
re-extracted with a separate regex, closest captures found by brute force, the funnel recounted from the
rendered files, and encodings decoded with Python's codecs.
"""

from __future__ import annotations

import html
import json
import re
import sys
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import pytest
import yaml

from wikihowqa.demo.paths import corpus_path

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / "tools" / "democorpus"
sys.path.insert(0, str(REPO / "tools"))

from democorpus import render as renderer  # noqa: E402
from democorpus.sources import SourceError, load_sources  # noqa: E402

CORPUS = corpus_path()
SIZE_BUDGET = 4_000_000
TOP_19 = {
    "Arts and Entertainment",
    "Cars & Other Vehicles",
    "Computers and Electronics",
    "Education and Communications",
    "Family Life",
    "Finance and Business",
    "Food and Entertaining",
    "Health",
    "Hobbies and Crafts",
    "Holidays and Traditions",
    "Home and Garden",
    "Personal Care and Style",
    "Pets and Animals",
    "Philosophy and Religion",
    "Relationships",
    "Sports and Fitness",
    "Travel",
    "Work World",
    "Youth",
}


# --------------------------------------------------------------------------- reading the rendered corpus


def _load(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def corpus():
    articles = {a["pageid"]: a for a in map(_load, sorted((CORPUS / "articles").glob("*.json")))}
    rows = [
        json.loads(line)
        for line in (CORPUS / "archive" / "cdx.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    truth = {p.name.removesuffix(".json"): _load(p) for p in (CORPUS / "truth").glob("*.json")}
    return {
        "site": _load(CORPUS / "site.json"),
        "articles": articles,
        "rows": rows,
        "truth": truth,
        "expected": _load(CORPUS / "expected.json"),
    }


def snapshot(name: str) -> bytes:
    return (CORPUS / "archive" / "snapshots" / name).read_bytes()


def key(url: str) -> str:
    """Scheme- and www-insensitive URL key, written independently of the renderer's."""
    m = re.match(r"^https?://(?:www\.)?([^/?#]+)(/[^?#]*)?(\?[^#]*)?", url.strip(), re.I)
    assert m, url
    return m.group(1).lower() + (m.group(2) or "/") + (m.group(3) or "")


def cited_urls(wikitext: str) -> list[str]:
    """URLs in <ref>…</ref> and in the * list of the Sources and Citations section, first citation first."""
    urls = []
    for body in re.findall(r"<ref(?:\s[^>]*?)?(?<!/)>(.*?)</ref>", wikitext, re.S):
        found = re.search(r"https?://[^\s\]<|]+", body)
        if found:
            urls.append(found.group(0))
    section = re.search(
        r"==\s*(?:Sources and Citations|References)\s*==\n(.*?)(?=\n==[^=]|\Z)", wikitext, re.S
    )
    if section:
        for line in section.group(1).splitlines():
            found = re.match(r"\s*\*\s*\[?(https?://[^\s\]]+)", line)
            if found:
                urls.append(found.group(1))
    return list(dict.fromkeys(urls))


def content_articles(corpus) -> list[dict]:
    return [a for a in corpus["articles"].values() if a["ns"] == 0 and a["redirect"] is None]


def when(ts: str) -> datetime:
    return (
        datetime.strptime(ts, "%Y%m%d%H%M%S")
        if ts[0:4].isdigit() and "T" not in ts
        else datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ")
    )


def brute_force_closest(rows: list[dict], moment: datetime) -> dict | None:
    best = None
    for row in rows:
        if row["statuscode"] != "200":
            continue
        gap = abs((when(row["timestamp"]) - moment).total_seconds())
        if best is None or gap < best[0] or (gap == best[0] and row["timestamp"] < best[1]["timestamp"]):
            best = (gap, row)
    return best and best[1]


def without_200(by_key, url: str, moment: datetime) -> str:
    """Where the capture rule ends for a URL without a status-200 capture: its nearest redirect capture
    is followed to the target's captures (at most 3 in a row), else it was archived only otherwise."""
    seen, hops = {key(url)}, 0
    while True:
        rows = by_key.get(key(url), [])
        if hops and any(r["statuscode"] == "200" for r in rows):
            raise AssertionError(f"{url}: a followed redirect reaches a 200 capture (not modelled here)")
        redirects = [r for r in rows if r["statuscode"] in ("301", "302")]
        best = None
        for r in redirects:
            gap = abs((when(r["timestamp"]) - moment).total_seconds())
            if best is None or (gap, r["timestamp"]) < best[0]:
                best = ((gap, r["timestamp"]), r)
        if best is None:
            if hops:
                return "redirect_unresolved"
            return "no_200_capture" if rows else "no_snapshot"
        url = best[1]["location"]
        if hops == 3 or key(url) in seen:
            return "redirect_limit"
        seen.add(key(url))
        hops += 1


def outcome(corpus, row: dict | None, url: str = "", moment: datetime | None = None, by_key=None) -> str:
    if row is None:
        return without_200(by_key, url, moment)
    data = snapshot(row["file"])
    if not data:
        return "empty_body"
    if row["mimetype"] != "text/html":
        return "non_html"
    return "kept" if corpus["truth"][row["file"]]["main_text"].strip() else "empty_text"


@pytest.fixture(scope="module")
def recount(corpus):
    """The funnel recomputed from the rendered files alone."""
    by_key = defaultdict(list)
    for row in corpus["rows"]:
        by_key[key(row["url"])].append(row)
    seen = content_articles(corpus)
    with_summary = [a for a in seen if a["summary"] is not None]
    with_refs = [a for a in with_summary if cited_urls(a["wikitext"])]
    unique, citations, usable, per_article = {}, 0, 0, {}
    for a in with_refs:
        urls = cited_urls(a["wikitext"])
        citations += len(urls)
        results = {}
        for url in urls:
            rows = by_key.get(key(url), [])
            modified = when(a["revisions"][-1]["timestamp"])
            chosen = brute_force_closest(rows, modified)
            created = brute_force_closest(rows, when(a["revisions"][0]["timestamp"]))
            results[url] = (chosen, outcome(corpus, chosen, url, modified, by_key))
            unique.setdefault(url, (chosen, created, results[url][1]))
        per_article[a["pageid"]] = results
        usable += any(o == "kept" for _, o in results.values())
    outcomes = [o for _, _, o in unique.values()]
    not_found = ("no_snapshot", "no_200_capture", "redirect_unresolved", "redirect_limit")
    found = len(outcomes) - sum(outcomes.count(o) for o in not_found)
    funnel = {
        "articles": {
            "seen": len(seen),
            "with_summary": len(with_summary),
            "with_references": len(with_refs),
            "with_usable_document": usable,
        },
        "references": {
            "citations": citations,
            "unique_urls": len(unique),
            "snapshot_found": found,
            "fetched": found,
            "non_empty": found - outcomes.count("empty_body"),
            "html": found - outcomes.count("empty_body") - outcomes.count("non_html"),
            "kept": outcomes.count("kept"),
        },
        "rejections": {
            "article_no_summary": len(seen) - len(with_summary),
            "article_no_references": len(with_summary) - len(with_refs),
            "article_no_usable_document": len(with_refs) - usable,
            **{f"reference_{o}": outcomes.count(o) for o in not_found},
            "reference_fetch_failed": 0,  # a faithful archive: no lookup or playback fails
            "reference_deferred": 0,
            "reference_capture_not_200": 0,
            "reference_capture_unverified": 0,
            "reference_redirect_outside_archive": 0,
            "reference_empty_body": outcomes.count("empty_body"),
            "reference_non_html": outcomes.count("non_html"),
            "reference_too_large": 0,
            "reference_empty_text": outcomes.count("empty_text"),
        },
        "closest_snapshot": {
            url: {"modified": m["timestamp"], "created": c["timestamp"]}
            for url, (m, c, _) in sorted(unique.items())
            if m is not None
        },
    }
    return {"funnel": funnel, "per_article": per_article, "by_key": by_key, "with_refs": with_refs}


# --------------------------------------------------------------------------- determinism and shape


def test_rerendering_reproduces_the_committed_corpus_byte_for_byte(tmp_path):
    out = tmp_path / "corpus"
    assert renderer.main(["--out", str(out)]) == 0
    fresh = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    committed = {
        p.relative_to(CORPUS).as_posix(): p.read_bytes() for p in sorted(CORPUS.rglob("*")) if p.is_file()
    }
    assert sorted(fresh) == sorted(committed)
    differing = [name for name in fresh if fresh[name] != committed[name]]
    assert differing == [], f"re-rendered files differ: {differing[:5]}"


def test_expected_funnel_equals_an_independent_recount(corpus, recount):
    assert corpus["expected"] == recount["funnel"]


def test_site_lists_the_19_top_categories_and_every_category_reaches_one(corpus):
    site = corpus["site"]
    assert set(site["top_categories"]) == TOP_19 and len(site["top_categories"]) == 19
    parents = site["category_parents"]
    for article in content_articles(corpus):
        for category in article["categories"]:
            seen, todo = set(), [category]
            while todo:
                c = todo.pop()
                seen.add(c)
                todo.extend(p for p in parents[c] if p not in seen)
            assert seen & TOP_19, f"{article['title']}: {category} reaches no top-level category"


def test_articles_follow_the_wiki_page_shape(corpus):
    for a in corpus["articles"].values():
        stamps = [r["timestamp"] for r in a["revisions"]]
        assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
        assert [r["parentid"] for r in a["revisions"]] == [0] + [r["revid"] for r in a["revisions"][:-1]]
        if a["redirect"]:
            assert a["wikitext"].startswith(f"#REDIRECT [[{a['redirect']}]]")
        prefix = {1: "Talk:", 2: "User:", 4: "wikiHow:"}.get(a["ns"])
        if prefix:
            assert a["title"].startswith(prefix)
        if a["summary"] is not None:
            assert f"== Quick Summary ==\n{{{{Summary:{a['title']}}}}}" in a["wikitext"]
            assert a["summary"]["pageid"] == 50_000_000 + a["pageid"]
            words = len((a["summary"]["content"] + " " + a["summary"]["last_sentence"]).split())
            assert 60 <= words <= 120, a["title"]
        else:
            assert "{{Summary:" not in a["wikitext"]
    namespaces = {a["ns"] for a in corpus["articles"].values()}
    assert {0, 1, 2, 4} <= namespaces
    assert sum(1 for a in corpus["articles"].values() if a["redirect"]) >= 2


def test_identical_snapshots_are_stored_once(corpus):
    files = sorted((CORPUS / "archive" / "snapshots").iterdir())
    digests = [f.read_bytes() for f in files]
    assert len(set(digests)) == len(digests)
    referenced = {r["file"] for r in corpus["rows"] if "file" in r}
    assert referenced == {f.name for f in files}
    assert len(referenced) < sum(1 for r in corpus["rows"] if "file" in r)


# --------------------------------------------------------------------------- the cases the contract lists


def test_every_case_the_contract_lists_is_present(corpus, recount):
    arts = content_articles(corpus)
    rows, by_key, truth = corpus["rows"], recount["by_key"], corpus["truth"]
    cited = [(a, url) for a in recount["with_refs"] for url in cited_urls(a["wikitext"])]
    rejections = recount["funnel"]["rejections"]

    assert any(a["summary"] is None for a in arts), "no summary"
    assert rejections["article_no_references"] > 0, "no references"
    assert any(not by_key.get(key(u)) for _, u in cited), "reference never archived"
    only_error = [
        u for _, u in cited if by_key.get(key(u)) and all(r["statuscode"] != "200" for r in by_key[key(u)])
    ]
    assert only_error, "reference archived only as 404/redirect"
    codes = {r["statuscode"] for u in only_error for r in by_key[key(u)]}
    assert "404" in codes and codes & {"301", "302"}
    ok_rows = [r for r in rows if r["statuscode"] == "200"]
    assert any(snapshot(r["file"]) == b"" for r in ok_rows), "empty snapshot"
    assert any(
        r["mimetype"] == "application/pdf" and snapshot(r["file"]).startswith(b"%PDF-") for r in ok_rows
    )
    assert any(
        r["mimetype"] == "image/png" and snapshot(r["file"]).startswith(b"\x89PNG\r\n\x1a\n") for r in ok_rows
    )
    assert any(
        r["mimetype"] == "text/html" and snapshot(r["file"]) and not truth[r["file"]]["main_text"]
        for r in ok_rows
    ), "JS shell"
    assert rejections["article_no_usable_document"] > 0, "article all of whose references fail"
    citing = defaultdict(set)
    for a, url in cited:
        citing[url].add(a["pageid"])
    assert sum(len(ids) >= 2 for ids in citing.values()) >= 2, "URLs cited by two articles"
    captured = {r["url"] for r in rows}
    assert sum(u not in captured and key(u) in {key(c) for c in captured} for _, u in cited) >= 2, (
        "scheme/www variants"
    )
    assert sum(t["has_comments"] for t in truth.values()) >= 6, "comment sections"
    assert sum(1 for t in truth.values() if t["pagination"]["next"]) >= 3, "rel=next / Next page links"
    paginated = {r["url"].split("?")[0] for r in ok_rows if "?page=" in r["url"]}
    assert len(paginated) >= 3, "paginated articles with their further pages archived"
    assert any(t["pagination"]["view_all"] for t in truth.values())
    assert any(r["url"].endswith("?view=all") for r in ok_rows), "View-all variant archived"
    assert sum(t["has_table"] for t in truth.values()) >= 8, "tables"
    assert any(b"<li" in snapshot(r["file"]).lower() for r in ok_rows if r["mimetype"] == "text/html"), (
        "lists"
    )
    matters = [
        url
        for url, c in corpus["expected"]["closest_snapshot"].items()
        if c["modified"] != c["created"]
        and len({r["file"] for r in by_key[key(url)] if r["timestamp"] in (c["modified"], c["created"])}) == 2
    ]
    assert len(matters) >= 10, "captures whose content differs, so choosing the closest one matters"


def _declared(corpus, name: str) -> tuple[str | None, str | None]:
    """(charset in the Content-Type header, charset in a <meta>) of a snapshot file."""
    header = next(r["headers"]["Content-Type"] for r in corpus["rows"] if r.get("file") == name)
    in_header = re.search(r"charset=([\w-]+)", header)
    head = snapshot(name)[:2000].decode("ascii", errors="replace")
    in_meta = re.search(r"<meta[^>]+charset=\"?([\w-]+)", head, re.I)
    return (in_header and in_header.group(1).lower(), in_meta and in_meta.group(1).lower())


def test_non_utf8_snapshots_decode_in_their_declared_encoding_and_not_as_utf8(corpus):
    checked = defaultdict(set)
    for name, t in corpus["truth"].items():
        if t["encoding"] == "utf-8":
            continue
        data = snapshot(name)
        text = html.unescape(re.sub(r"<[^>]+>", " ", data.decode(t["encoding"])))
        flat = " ".join(text.split())
        for line in t["main_text"].splitlines():
            assert " ".join(line.replace(" | ", " ").split()) in flat or all(
                w in flat for w in line.split()
            ), (name, line)
        if any(b > 0x7F for b in data):
            with pytest.raises(UnicodeDecodeError):
                data.decode("utf-8")
        assert any(ord(c) > 0x7F for c in t["main_text"]), f"{name}: no non-ASCII text to get wrong"
        header, meta = _declared(corpus, name)
        where = {
            (True, False): "header",
            (False, True): "meta",
            (True, True): "both",
            (False, False): "none",
        }[(header is not None, meta is not None)]
        checked[t["encoding"]].add(where)
        for found in (header, meta):
            assert found is None or found == t["encoding"].lower(), (name, found)
    assert "header" in checked["windows-1252"]
    assert "meta" in checked["iso-8859-1"]
    assert "none" in checked["shift_jis"] | checked["euc-jp"]


def test_undeclared_japanese_pages_are_recoverable_by_detection(corpus):
    from charset_normalizer import from_bytes

    undeclared = [
        n
        for n, t in corpus["truth"].items()
        if t["encoding"] in ("shift_jis", "euc-jp") and _declared(corpus, n) == (None, None)
    ]
    assert undeclared
    for name in undeclared:
        data = snapshot(name)
        best = from_bytes(data).best()
        assert best is not None and str(best) == data.decode(corpus["truth"][name]["encoding"]), name


def test_pdf_and_png_snapshots_are_well_formed(corpus):
    pdfs = [r["file"] for r in corpus["rows"] if r.get("mimetype") == "application/pdf"]
    for name in set(pdfs):
        data = snapshot(name)
        assert data.startswith(b"%PDF-1.") and data.rstrip().endswith(b"%%EOF")
        start = int(re.search(rb"startxref\s+(\d+)", data).group(1))
        assert data[start:].startswith(b"xref")
        table = re.search(rb"xref\s+0 (\d+)\s+(.*?)trailer", data, re.S)
        entries = re.findall(rb"(\d{10}) (\d{5}) ([nf])", table.group(2))
        assert len(entries) == int(table.group(1))
        for number, (offset, _, kind) in enumerate(entries):
            if kind == b"n":
                assert data[int(offset) :].startswith(f"{number} 0 obj".encode()), (name, number)
        for length, stream in re.findall(rb"/Length (\d+) >>\nstream\n(.*?)\nendstream", data, re.S):
            assert int(length) == len(stream)
    image = pytest.importorskip("PIL.Image")
    pngs = {r["file"] for r in corpus["rows"] if r.get("mimetype") == "image/png"}
    assert pngs
    for name in pngs:
        with image.open(CORPUS / "archive" / "snapshots" / name) as img:
            img.load()
            assert img.size[0] > 10 and img.size[1] > 10


# --------------------------------------------------------------------------- answerability and scale

#: Share of a summary sentence's content words (stemmed, stop words removed) that must occur in the text
#: of the pages its article cites. Summaries are human paraphrases, as in WikiHowQA: their facts come from
#: the sources, their connecting words need not. Measured on half A of the corpus: a summary sentence
#: against its own article's pages scores min 0.78, median 1.00; against another article's pages
#: (a sentence whose facts are absent) median 0.18, 99th percentile 0.67. 0.75 separates the two.
MIN_SENTENCE_COVERAGE = 0.75


def _content_words(text: str) -> set[str]:
    from nltk.stem import PorterStemmer
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    stem = PorterStemmer().stem
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {
        stem(w)
        for w in words
        if w not in ENGLISH_STOP_WORDS and (len(w) > 2 or w.isdigit()) and w not in DISCOURSE
    }


DISCOURSE = {
    "finally",
    "make",
    "sure",
    "try",
    "use",
    "using",
    "want",
    "like",
    "need",
    "way",
    "help",
    "good",
    "just",
    "don",
}


def sentence_coverage(corpus, recount) -> dict[tuple[int, str], float]:
    import nupunkt

    scores = {}
    for pageid, results in recount["per_article"].items():
        article = corpus["articles"][pageid]
        texts = [corpus["truth"][row["file"]]["main_text"] for row, o in results.values() if o == "kept"]
        if not texts:
            continue
        source_words = _content_words(" ".join(texts))
        answer = article["summary"]["content"] + " " + article["summary"]["last_sentence"]
        for sentence in nupunkt.sent_tokenize(answer):
            words = _content_words(sentence)
            if words:
                scores[(pageid, sentence)] = len(words & source_words) / len(words)
    return scores


def test_every_summary_sentence_is_answerable_from_the_cited_pages(corpus, recount):
    scores = sentence_coverage(corpus, recount)
    assert scores
    weak = {k: round(v, 2) for k, v in scores.items() if v < MIN_SENTENCE_COVERAGE}
    assert weak == {}


def test_lexical_check_rejects_sentences_scored_against_another_articles_pages(corpus, recount):
    """The control: the same check, pairing each summary sentence with the pages of every other article."""
    import nupunkt

    pages = {}
    for pageid, results in recount["per_article"].items():
        texts = [corpus["truth"][row["file"]]["main_text"] for row, o in results.values() if o == "kept"]
        if texts:
            pages[pageid] = _content_words(" ".join(texts))
    passed = total = 0
    for pageid in pages:
        summary = corpus["articles"][pageid]["summary"]
        for sentence in nupunkt.sent_tokenize(summary["content"] + " " + summary["last_sentence"]):
            words = _content_words(sentence)
            for other, source_words in pages.items():
                if other != pageid and words:
                    total += 1
                    passed += len(words & source_words) / len(words) >= MIN_SENTENCE_COVERAGE
    assert total > 100
    assert passed / total < 0.02


def test_at_least_40_answerable_articles_across_8_top_categories(corpus, recount):
    parents = corpus["site"]["category_parents"]

    def top(category: str) -> str:
        while parents[category]:
            category = parents[category][0]
        return category

    usable = [
        corpus["articles"][pid]
        for pid, res in recount["per_article"].items()
        if any(o == "kept" for _, o in res.values())
    ]
    assert len(usable) >= 40
    assert len({top(a["categories"][0]) for a in usable}) >= 8


def test_at_least_150_cited_pages(corpus):
    pages = {key(u) for a in content_articles(corpus) for u in cited_urls(a["wikitext"])}
    assert len(pages) >= 150


def test_rendered_corpus_fits_the_size_budget():
    size = sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file())
    assert size <= SIZE_BUDGET, f"{size / 1e6:.2f} MB"


# --------------------------------------------------------------------------- the renderer's validation


QUICK_SUMMARY = "== Quick Summary ==\n{{Summary:How to Test}}\n"


def _summary(words: int) -> dict:
    text = " ".join(["water"] * (words - 4))
    return {"content": f"Heat the {text}.", "last_sentence": "Then pour."}


def _write_sources(
    root: Path, article: dict | None = None, page: dict | None = None, extra_pages: list[dict] = ()
) -> Path:
    a = {
        "pageid": 100001,
        "title": "How to Test",
        "category_path": ["Food and Entertaining", "Testing"],
        "revisions": ["2016-01-01T00:00:00Z", "2018-01-01T00:00:00Z"],
        "summary": _summary(70),
        "case": "ok",
        "wikitext": "Intro.\n== Steps ==\n# Step.<ref>https://example.org/a</ref>\n"
        "== Quick Summary ==\n{{Summary:How to Test}}\n== Sources and Citations ==\n{{reflist}}\n",
    }
    p = {
        "url": "https://example.org/a",
        "theme": "blog",
        "title": "A page",
        "body": "Some text about water.",
        "captures": [{"timestamp": "20170101000000"}],
    }
    a.update(article or {})
    p.update(page or {})
    (root / "articles").mkdir(parents=True)
    (root / "pages").mkdir()
    (root / "articles" / f"{a['pageid']}-test.yaml").write_text(
        yaml.safe_dump(a, allow_unicode=True), encoding="utf-8"
    )
    for i, item in enumerate([p, *extra_pages]):
        (root / "pages" / f"page-{i}.yaml").write_text(
            yaml.safe_dump(item, allow_unicode=True), encoding="utf-8"
        )
    return root


def _problems(root: Path) -> list[str]:
    with pytest.raises(SourceError) as info:
        renderer.render_files(load_sources(root))
    return info.value.problems


def test_minimal_valid_sources_render(tmp_path):
    files = renderer.render_files(load_sources(_write_sources(tmp_path)))
    assert json.loads(files["expected.json"])["articles"]["with_usable_document"] == 1


@pytest.mark.parametrize(
    ("article", "page", "needle"),
    [
        ({}, {"theme": "newspaper"}, "page-0.yaml: theme: unknown theme 'newspaper'"),
        (
            {"wikitext": "x\n# s<ref>https://nowhere.example/b</ref>\n" + QUICK_SUMMARY},
            {},
            "100001-test.yaml: wikitext: reference https://nowhere.example/b has no page YAML",
        ),
        (
            {"summary": _summary(40)},
            {},
            "100001-test.yaml: summary: answer (content + last_sentence) has 40 words",
        ),
        ({"summary": _summary(130)}, {}, "has 130 words, needs 60–120"),
        ({"case": "no_references"}, {}, "100001-test.yaml: case: declared 'no_references'"),
        (
            {"category_path": ["Cooking"]},
            {},
            "category_path: 'Cooking' is not one of wikiHow's 19 top-level categories",
        ),
        (
            {},
            {"fate": "never_archived", "captures": []},
            "case: declared 'ok' but the article's summary and references make it 'all_references_fail'",
        ),
        (
            {},
            {"captures": [{"timestamp": "2017"}]},
            "page-0.yaml: captures[0].timestamp: must be a quoted 14-digit",
        ),
        ({}, {"pages": 2}, "page-0.yaml: body: has 0 '<!-- page -->' markers but pages is 2"),
        ({}, {"colour": "red"}, "page-0.yaml: colour: unknown field"),
    ],
)
def test_invalid_sources_are_reported_with_file_and_field(tmp_path, article, page, needle):
    problems = _problems(_write_sources(tmp_path, article, page))
    assert any(needle in p for p in problems), problems


def test_duplicate_urls_and_pageids_are_reported(tmp_path):
    root = _write_sources(
        tmp_path,
        extra_pages=[
            {
                "url": "http://www.example.org/a",
                "theme": "blog",
                "title": "Dup",
                "body": "x",
                "captures": [{"timestamp": "20170101000000"}],
            }
        ],
    )
    (root / "articles" / "100001-again.yaml").write_text(
        (root / "articles" / "100001-test.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    problems = _problems(root)
    assert any("page-1.yaml: url: http://www.example.org/a is already the URL of" in p for p in problems), (
        problems
    )
    assert any("100001-test.yaml: pageid: 100001 already used by" in p for p in problems), problems


def test_cli_reports_every_problem_and_writes_nothing(tmp_path, capsys):
    root = _write_sources(tmp_path / "src", {"summary": _summary(30)}, {"theme": "nope"})
    out = tmp_path / "out"
    assert renderer.main(["--sources", str(root), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "theme: unknown theme 'nope'" in err and "has 30 words" in err
    assert not out.exists()
