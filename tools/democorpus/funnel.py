"""The collection funnel the corpus is written to produce (``expected.json``), and the checks that the
declared article cases and page fates agree with what the captures imply."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .sources import Article, Capture, Page, SourceError, Sources, url_key
from .wikitext import references

#: What the collector concludes about a reference, by the fate of its page.
OUTCOME = {
    "ok": "kept",
    "never_archived": "no_snapshot",
    "only_error": "no_snapshot",
    "empty": "empty_body",
    "pdf": "non_html",
    "image": "non_html",
    "js_shell": "empty_text",
}


def closest(captures: tuple[Capture, ...], moment: datetime) -> Capture | None:
    """The status-200 capture nearest to ``moment``; on a tie, the earlier capture."""
    ok = [c for c in captures if c.status == 200]
    if not ok:
        return None
    return min(ok, key=lambda c: (abs((c.when - moment).total_seconds()), c.when))


@dataclass(frozen=True)
class Resolved:
    article: Article
    urls: tuple[str, ...]  # as cited
    pages: tuple[Page, ...]


def resolve(sources: Sources) -> list[Resolved]:
    """Each content article with its references mapped to page sources; unresolvable ones are errors."""
    by_key = {url_key(p.url): p for p in sources.pages}
    problems: list[str] = []
    resolved = []
    for article in sources.articles:
        if not article.is_content:
            continue
        urls = references(article.wikitext)
        pages = []
        for url in urls:
            page = by_key.get(url_key(url))
            if page is None:
                problems.append(
                    f"{article.source}: wikitext: reference {url} has no page YAML "
                    "(no pages/*.yaml has this url)"
                )
            else:
                pages.append(page)
        resolved.append(Resolved(article, tuple(urls), tuple(pages)))
    if problems:
        raise SourceError(problems)
    return resolved


def _check_cases(resolved: list[Resolved]) -> None:
    problems = []
    cited_as: dict[str, tuple[str, Article]] = {}
    for r in resolved:
        a = r.article
        if a.summary is None:
            computed = "no_summary"
        elif not r.urls:
            computed = "no_references"
        elif all(OUTCOME[p.fate] != "kept" for p in r.pages):
            computed = "all_references_fail"
        else:
            computed = "ok"
        if computed != a.case:
            problems.append(
                f"{a.source}: case: declared {a.case!r} but the article's summary and references "
                f"make it {computed!r}"
            )
        if a.summary is None or not r.urls:
            continue
        for url, page in zip(r.urls, r.pages, strict=True):
            key = url_key(page.url)
            if key in cited_as:
                first_url, first = cited_as[key]
                if first_url != url:
                    problems.append(
                        f"{a.source}: wikitext: cites {url} but {first.source} cites the same page "
                        f"as {first_url}; "
                        "shared references must be cited with the identical URL"
                    )
                for label, i in (("created", 0), ("modified", -1)):
                    mine, theirs = (
                        closest(page.captures, a.revisions[i]),
                        closest(page.captures, first.revisions[i]),
                    )
                    if mine != theirs:
                        problems.append(
                            f"{a.source}: wikitext: {url} is also cited by {first.source} but the closest "
                            f"capture ({label}) differs "
                            f"({mine and mine.timestamp} vs {theirs and theirs.timestamp}); "
                            "a shared URL is fetched once, so its closest capture must agree"
                        )
            else:
                cited_as[key] = (url, a)
    if problems:
        raise SourceError(problems)


def expected(sources: Sources) -> dict[str, Any]:
    """``expected.json``: the funnel with default settings (reference time = last modified)."""
    resolved = resolve(sources)
    _check_cases(resolved)
    seen = len(resolved)
    with_summary = [r for r in resolved if r.article.summary is not None]
    with_refs = [r for r in with_summary if r.urls]
    usable = [r for r in with_refs if any(OUTCOME[p.fate] == "kept" for p in r.pages)]
    unique: dict[str, tuple[Page, Article]] = {}
    citations = 0
    for r in with_refs:
        for url, page in zip(r.urls, r.pages, strict=True):
            citations += 1
            unique.setdefault(url, (page, r.article))
    outcomes = [OUTCOME[page.fate] for page, _ in unique.values()]
    found = sum(o != "no_snapshot" for o in outcomes)
    non_empty = found - outcomes.count("empty_body")
    html = non_empty - outcomes.count("non_html")
    kept = outcomes.count("kept")
    closest_snapshot = {}
    for url in sorted(unique):
        page, article = unique[url]
        modified, created = (
            closest(page.captures, article.revisions[-1]),
            closest(page.captures, article.revisions[0]),
        )
        if modified is not None and created is not None:
            closest_snapshot[url] = {"modified": modified.timestamp, "created": created.timestamp}
    return {
        "articles": {
            "seen": seen,
            "with_summary": len(with_summary),
            "with_references": len(with_refs),
            "with_usable_document": len(usable),
        },
        "references": {
            "citations": citations,
            "unique_urls": len(unique),
            "snapshot_found": found,
            "fetched": found,
            "non_empty": non_empty,
            "html": html,
            "kept": kept,
        },
        "rejections": {
            "article_no_summary": seen - len(with_summary),
            "article_no_references": len(with_summary) - len(with_refs),
            "article_no_usable_document": len(with_refs) - len(usable),
            "reference_no_snapshot": len(unique) - found,
            "reference_fetch_failed": 0,
            "reference_empty_body": found - non_empty,
            "reference_non_html": non_empty - html,
            "reference_empty_text": html - kept,
        },
        "closest_snapshot": closest_snapshot,
    }
