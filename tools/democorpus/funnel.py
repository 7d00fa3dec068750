"""The collection funnel the corpus is written to produce (``expected.json``), and the checks that the
declared article cases and page fates agree with what the captures imply."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .sources import Article, Capture, Page, SourceError, Sources, url_key
from .wikitext import references

#: What the collector concludes about a reference whose page has a status-200 capture, by its fate.
OUTCOME = {
    "ok": "kept",
    "empty": "empty_body",
    "pdf": "non_html",
    "image": "non_html",
    "js_shell": "empty_text",
}
#: The fates of pages without a status-200 capture, and what the capture rule may conclude for them.
FAILING_FATES = {
    "never_archived": ("no_snapshot",),
    "only_error": ("no_200_capture", "redirect_unresolved", "redirect_limit"),
}
#: Reference rejections in the collector's funnel order (the manifest's ``reference_*`` keys; see
#: ``wikihowqa.collect.outcomes``). This corpus is served by a faithful archive, so the failures of a
#: lookup or a playback (``fetch_failed``, ``deferred``, ``capture_not_200``, ``capture_unverified``,
#: ``redirect_outside_archive``) and pages past the size cap (``too_large``) cannot occur in it: the test
#: fixtures inject them.
NOT_FOUND = ("no_snapshot", "no_200_capture", "redirect_unresolved", "redirect_limit")
NOT_CONFIRMED = ("capture_not_200", "capture_unverified", "redirect_outside_archive")
REJECTIONS = (
    *NOT_FOUND,
    "fetch_failed",
    "deferred",
    *NOT_CONFIRMED,
    "empty_body",
    "non_html",
    "too_large",
    "empty_text",
)
#: Redirect captures the collector follows in a row before it gives up (``captures.MAX_REDIRECTS``).
MAX_REDIRECTS = 3


def _nearest(captures: list[Capture], moment: datetime) -> Capture | None:
    if not captures:
        return None
    return min(captures, key=lambda c: (abs((c.when - moment).total_seconds()), c.when))


def closest(captures: tuple[Capture, ...], moment: datetime) -> Capture | None:
    """The status-200 capture nearest to ``moment``; on a tie, the earlier capture."""
    return _nearest([c for c in captures if c.status == 200], moment)


def outcome(page: Page, moment: datetime, pages: dict[str, Page]) -> str:
    """What the capture rule concludes for a page at ``moment``: the fate of its closest 200 capture;
    without one, its redirect capture closest to ``moment`` followed to the target's page (a few hops
    at most), else ``no_200_capture`` (archived, never as a 200) or ``no_snapshot``."""
    seen = {url_key(page.url)}
    hops = 0
    while True:
        if closest(page.captures, moment) is not None:
            if hops:
                raise SourceError(
                    [
                        f"{page.source}: captures: a redirect capture leads to this page's 200 capture; "
                        "expected.json does not model followed redirects (cite the page itself)"
                    ]
                )
            return OUTCOME[page.fate]
        redirect = _nearest([c for c in page.captures if c.location], moment)
        if redirect is None:
            if hops:
                return "redirect_unresolved"
            return "no_200_capture" if page.captures else "no_snapshot"
        key = url_key(redirect.location or "")
        if hops == MAX_REDIRECTS or key in seen:
            return "redirect_limit"
        target = pages.get(key)
        if target is None:
            return "redirect_unresolved"  # the target is not archived at all
        seen.add(key)
        hops += 1
        page = target


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


def _check_cases(resolved: list[Resolved], pages: dict[str, Page]) -> None:
    problems = []
    cited_as: dict[str, tuple[str, Article]] = {}
    for r in resolved:
        a = r.article
        if a.summary is None:
            computed = "no_summary"
        elif not r.urls:
            computed = "no_references"
        elif all(p.fate != "ok" for p in r.pages):
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
            if page.fate in FAILING_FATES:
                for label, i in (("created", 0), ("modified", -1)):
                    found = outcome(page, a.revisions[i], pages)
                    if found not in FAILING_FATES[page.fate]:
                        problems.append(
                            f"{page.source}: fate: declared {page.fate!r} but its captures make the "
                            f"collector conclude {found!r} (reference time: {label} of {a.source})"
                        )
    if problems:
        raise SourceError(problems)


def expected(sources: Sources) -> dict[str, Any]:
    """``expected.json``: the funnel with default settings (reference time = last modified)."""
    resolved = resolve(sources)
    pages = {url_key(p.url): p for p in sources.pages}
    _check_cases(resolved, pages)
    seen = len(resolved)
    with_summary = [r for r in resolved if r.article.summary is not None]
    with_refs = [r for r in with_summary if r.urls]
    unique: dict[str, tuple[Page, Article]] = {}
    citations = 0
    for r in with_refs:
        for url, page in zip(r.urls, r.pages, strict=True):
            citations += 1
            unique.setdefault(url, (page, r.article))
    # Each URL is looked up once, at the reference time of the first article citing it.
    concluded = {url: outcome(page, article.revisions[-1], pages) for url, (page, article) in unique.items()}
    usable = [r for r in with_refs if any(concluded[url] == "kept" for url in r.urls)]
    outcomes = list(concluded.values())
    found = len(outcomes) - sum(outcomes.count(o) for o in NOT_FOUND)
    fetched = found - sum(outcomes.count(o) for o in NOT_CONFIRMED)
    non_empty = fetched - outcomes.count("empty_body")
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
            "fetched": fetched,
            "non_empty": non_empty,
            "html": html,
            "kept": kept,
        },
        "rejections": {
            "article_no_summary": seen - len(with_summary),
            "article_no_references": len(with_summary) - len(with_refs),
            "article_no_usable_document": len(with_refs) - len(usable),
            **{f"reference_{reason}": outcomes.count(reason) for reason in REJECTIONS},
        },
        "closest_snapshot": closest_snapshot,
    }
