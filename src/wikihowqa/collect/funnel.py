"""Phase 4 of the collector: examples, documents, the funnel of counts and every rejection with its reason."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from wikihowqa.collect.articles import ArticleRecord
from wikihowqa.collect.categories import CategoryRoot, top_category
from wikihowqa.collect.outcomes import (
    DEFERRED,
    EMPTY_BODY,
    EMPTY_TEXT,
    FETCH_FAILED,
    FETCHED,
    KEPT,
    NON_HTML,
    NOT_CONFIRMED,
    NOT_FOUND,
    REFERENCE_REJECTIONS,
    TOO_LARGE,
)
from wikihowqa.core.records import Document, Example


@dataclass(frozen=True, slots=True)
class KeptReference:
    """A reference kept for an article: its document, whose text stays in the state store until the
    dataset is written (:func:`documents`)."""

    article_id: int
    url: str
    archive_url: str
    redirects: list[Any] | None = None


def documents(kept: Iterable[KeptReference], parsed: Mapping[str, dict[str, Any]]) -> Iterator[Document]:
    """The documents of the kept references, in order, each read from ``parsed`` as it is needed."""
    for ref in kept:
        result = parsed[ref.archive_url]
        yield parsed_document(result, ref.article_id, ref.url, ref.archive_url, ref.redirects)


def parsed_document(
    result: Mapping[str, Any],
    article_id: int,
    original_url: str,
    archive_url: str,
    redirects: list[Any] | None = None,
    first: Mapping[str, Any] | None = None,
) -> Document:
    """A document from a capture's parse result (``build`` and ``hydrate`` alike); its ``extra``: ``first``
    (hydrate's capture), the parse info, then the redirects when there were any."""
    extra = {**(first or {}), "parse": result["info"], **({"redirects": redirects} if redirects else {})}
    return Document(
        article_id=article_id,
        original_url=original_url,
        archive_url=archive_url,
        parsed_text=result["text"],
        parsed_md=result["markdown"],
        title=result["title"],
        passages=tuple(result["passages"]),
        extra=extra,
    )


def final_status(outcome: dict[str, Any], parsed: Mapping[str, dict[str, Any]]) -> str:
    """A reference's place in the funnel; a page too large counts as ``too_large``, one the parser gives
    up on otherwise (too deep, a crash, a timeout) yields no text, so it counts as ``empty_text`` (its
    detail names the parser's reason)."""
    if outcome["status"] != FETCHED:
        return outcome["status"]
    doc = parsed.get(outcome["archive_url"]) or {}
    reason = doc.get("rejection")
    if reason is None:
        return KEPT
    return reason if reason in (EMPTY_BODY, NON_HTML, TOO_LARGE) else EMPTY_TEXT


#: Outcomes of a lookup or playback that did not answer (failed, or deferred to a later run).
UNANSWERED = (FETCH_FAILED, DEFERRED)


def assemble(
    seen: list[ArticleRecord],
    created: dict[int, str | None],
    parents: dict[str, list[str]],
    outcomes: dict[str, dict[str, Any]],
    parsed: Mapping[str, dict[str, Any]],
    *,
    category_root: CategoryRoot | None = None,
) -> tuple[list[Example], list[KeptReference], dict[str, Any], list[dict[str, Any]]]:
    """Examples, the kept references (whose :func:`documents` are read as they are written), the funnel
    and the rejection records, all in a deterministic order."""
    seen = sorted(seen, key=lambda a: a.article_id)
    with_summary = [a for a in seen if a.answer]
    with_refs = [a for a in with_summary if a.references]
    status = {url: final_status(o, parsed) for url, o in outcomes.items()}
    rejections: list[dict[str, Any]] = []
    for a in seen:
        if not a.answer:
            rejections.append(
                {"kind": "article", "article_id": a.article_id, "title": a.title, "reason": "no_summary"}
            )
        elif not a.references:
            rejections.append(
                {"kind": "article", "article_id": a.article_id, "title": a.title, "reason": "no_references"}
            )
    examples: list[Example] = []
    kept_refs: list[KeptReference] = []
    cited_by: dict[str, list[int]] = {}
    for a in with_refs:
        for url in a.references:
            cited_by.setdefault(url, []).append(a.article_id)
        docs = []
        for url in a.references:
            if status.get(url) != KEPT:
                continue
            o = outcomes[url]
            docs.append(KeptReference(a.article_id, url, o["archive_url"], o.get("redirects") or None))
        if not docs:
            rejections.append(
                {
                    "kind": "article",
                    "article_id": a.article_id,
                    "title": a.title,
                    "reason": "no_usable_document",
                }
            )
            continue
        kept_refs.extend(docs)
        examples.append(
            Example(
                article_id=a.article_id,
                question=a.title,
                answer=a.answer or "",
                related_document_urls_wayback_snapshots=tuple(dict.fromkeys(d.archive_url for d in docs)),
                category=(
                    category_root.top_of(a.categories, parents)
                    if category_root is not None
                    else top_category(a.categories, parents)
                ),
                extra={
                    "categories": list(a.categories),
                    "created": created.get(a.article_id),
                    "modified": a.modified,
                },
            )
        )
    for url, o in outcomes.items():
        if status[url] == KEPT:
            continue
        row = {"kind": "reference", "url": url, "reason": status[url], "cited_by": cited_by.get(url, [])}
        detail = o.get("detail")
        if o["status"] == FETCHED:
            doc = parsed.get(o["archive_url"]) or {}
            reason = doc.get("rejection")
            detail = doc.get("detail") if reason == status[url] else f"{reason}: {doc.get('detail')}"
        for key, value in (
            ("detail", detail),
            ("archive_url", o.get("archive_url")),
            ("failed_at", o.get("failed_at")),
            ("redirects", o.get("redirects")),
        ):
            if value is not None:
                row[key] = value
        rejections.append(row)
    values = list(status.values())
    # A lookup that failed before any capture was chosen never found a snapshot; one that failed at
    # playback did, and lost it.
    failed_lookup = sum(
        1 for o in outcomes.values() if o["status"] in UNANSWERED and o.get("failed_at") in ("cdx", "memento")
    )
    found = len(values) - sum(values.count(r) for r in NOT_FOUND) - failed_lookup
    unanswered = sum(values.count(r) for r in UNANSWERED)
    fetched = found - (unanswered - failed_lookup) - sum(values.count(r) for r in NOT_CONFIRMED)
    non_empty = fetched - values.count(EMPTY_BODY)
    html = non_empty - values.count(NON_HTML)
    kept = values.count(KEPT)
    funnel = {
        "articles": {
            "seen": len(seen),
            "with_summary": len(with_summary),
            "with_references": len(with_refs),
            "with_usable_document": len(examples),
        },
        "references": {
            "citations": sum(len(a.references) for a in with_refs),
            "unique_urls": len(outcomes),
            "snapshot_found": found,
            "fetched": fetched,
            "non_empty": non_empty,
            "html": html,
            "kept": kept,
        },
        "rejections": {
            "article_no_summary": len(seen) - len(with_summary),
            "article_no_references": len(with_summary) - len(with_refs),
            "article_no_usable_document": len(with_refs) - len(examples),
            **{f"reference_{reason}": values.count(reason) for reason in REFERENCE_REJECTIONS},
        },
    }
    return examples, kept_refs, funnel, rejections
