"""Load and validate the hand-written YAML sources into typed records.

Every problem is reported as ``file: field: problem`` and all of them are collected before failing, so an
author fixes a whole batch of mistakes in one pass instead of one per run.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from wikihowqa.core.records import WIKIHOW_TOP_CATEGORIES

TOP_CATEGORIES: tuple[str, ...] = WIKIHOW_TOP_CATEGORIES
THEMES = (
    "news",
    "blog",
    "recipe",
    "forum",
    "gov",
    "shop",
    "magazine",
    "qa",
    "edu",
    "health",
    "legacy",
    "docs",
)
ENCODINGS = ("utf-8", "windows-1252", "iso-8859-1", "shift_jis", "euc-jp")
CHARSET_DECLARED = ("header", "meta", "both", "none")
FATES = ("ok", "never_archived", "empty", "pdf", "image", "js_shell", "only_error")
CASES = ("ok", "no_summary", "no_references", "all_references_fail")
NAMESPACE_PREFIX = {1: "Talk:", 2: "User:", 4: "wikiHow:"}
PAGE_BREAK = "<!-- page -->"
MIN_ANSWER_WORDS, MAX_ANSWER_WORDS = 60, 120

_ARTICLE_FIELDS = {
    "pageid",
    "title",
    "ns",
    "redirect",
    "category_path",
    "revisions",
    "summary",
    "case",
    "wikitext",
}
_PAGE_FIELDS = {
    "url",
    "theme",
    "title",
    "author",
    "published",
    "encoding",
    "charset_declared",
    "body",
    "comments",
    "pages",
    "view_all",
    "captures",
    "fate",
    "site_name",
    "lang",
}
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_TIMESTAMP = re.compile(r"^\d{14}$")


class SourceError(Exception):
    """The sources are inconsistent; ``problems`` holds one ``file: field: problem`` line each."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class Summary:
    content: str
    last_sentence: str
    position: str = "bottom"

    @property
    def answer(self) -> str:
        return f"{self.content} {self.last_sentence}"


@dataclass(frozen=True)
class Article:
    source: Path
    pageid: int
    title: str
    ns: int
    redirect: str | None
    category_path: tuple[str, ...]
    revisions: tuple[datetime, ...]
    summary: Summary | None
    case: str | None
    wikitext: str

    @property
    def is_content(self) -> bool:
        """A content article: main namespace and not a redirect (what ``articles.seen`` counts)."""
        return self.ns == 0 and self.redirect is None


@dataclass(frozen=True)
class Comment:
    author: str
    date: date
    text: str
    replies: tuple[Comment, ...] = ()


@dataclass(frozen=True)
class Capture:
    timestamp: str
    status: int = 200
    location: str | None = None
    update: str | None = None

    @property
    def when(self) -> datetime:
        return datetime.strptime(self.timestamp, "%Y%m%d%H%M%S")


@dataclass(frozen=True)
class Page:
    source: Path
    slug: str
    url: str
    theme: str | None
    title: str
    author: str | None
    published: date | None
    encoding: str
    charset_declared: str
    body: str
    comments: tuple[Comment, ...]
    pages: int
    view_all: bool
    captures: tuple[Capture, ...]
    fate: str
    site_name: str | None
    lang: str

    def parts(self) -> list[str]:
        """The body cut at page breaks: one markdown text per paginated page."""
        return [part.strip() for part in self.body.split(PAGE_BREAK)]


@dataclass(frozen=True)
class Sources:
    articles: tuple[Article, ...]
    pages: tuple[Page, ...]


# --------------------------------------------------------------------------- helpers


def url_key(url: str) -> str:
    """Scheme- and ``www.``-insensitive key of a URL, as SURT canonicalisation treats them alike."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    host = host.removeprefix("www.")
    port = f":{parts.port}" if parts.port and parts.port not in (80, 443) else ""
    path = parts.path or "/"
    return f"{host}{port}{path}" + (f"?{parts.query}" if parts.query else "")


def format_iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _as_datetime(value: Any) -> datetime:
    """A UTC timestamp from YAML (parsed datetime or ISO string); naive UTC in, naive UTC out."""
    if isinstance(value, datetime):
        return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value
    if isinstance(value, str):
        text = value.strip()
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment
    raise ValueError(f"expected an ISO timestamp, got {type(value).__name__}")


def _as_date(value: Any) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        return date.fromisoformat(value.strip())
    raise ValueError(f"expected a date, got {type(value).__name__}")


def word_count(text: str) -> int:
    return len(text.split())


class _Checker:
    """Collects problems of one file so a single run reports all of them."""

    def __init__(self, path: Path, problems: list[str]):
        self.path = path
        self.problems = problems

    def fail(self, field: str, message: str) -> None:
        self.problems.append(f"{self.path}: {field}: {message}")

    def string(self, data: Mapping[str, Any], key: str, *, required: bool = True) -> str | None:
        value = data.get(key)
        if value is None:
            if required:
                self.fail(key, "missing")
            return None
        if not isinstance(value, str) or not value.strip():
            self.fail(key, f"must be a non-empty string, got {value!r:.60}")
            return None
        return value


def _load_yaml(path: Path, problems: list[str]) -> dict[str, Any] | None:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else "yaml"
        problems.append(f"{path}: {where}: invalid YAML ({getattr(exc, 'problem', exc)})")
        return None
    except UnicodeDecodeError as exc:
        problems.append(f"{path}: file: not valid UTF-8 ({exc.reason})")
        return None
    if not isinstance(data, dict):
        problems.append(f"{path}: file: expected a YAML mapping at the top level")
        return None
    return data


def _unknown_fields(check: _Checker, data: Mapping[str, Any], known: set[str]) -> None:
    for key in sorted(set(data) - known, key=str):
        check.fail(str(key), f"unknown field (known: {', '.join(sorted(known))})")


# --------------------------------------------------------------------------- articles


def _parse_summary(check: _Checker, value: Any) -> Summary | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        check.fail("summary", "must be a mapping with content and last_sentence, or null")
        return None
    for key in sorted(set(value) - {"content", "last_sentence", "position"}):
        check.fail(f"summary.{key}", "unknown field (known: content, last_sentence, position)")
    content = check.string(value, "content") if "content" in value else None
    last = check.string(value, "last_sentence") if "last_sentence" in value else None
    if content is None or last is None:
        if "content" not in value or "last_sentence" not in value:
            check.fail("summary", "needs both content and last_sentence")
        return None
    position = value.get("position", "bottom")
    if position not in ("bottom", "top"):
        check.fail("summary.position", f"must be bottom or top, got {position!r}")
    summary = Summary(" ".join(content.split()), " ".join(last.split()), position)
    words = word_count(summary.answer)
    if not MIN_ANSWER_WORDS <= words <= MAX_ANSWER_WORDS:
        check.fail(
            "summary",
            f"answer (content + last_sentence) has {words} words, "
            f"needs {MIN_ANSWER_WORDS}–{MAX_ANSWER_WORDS}",
        )
    for key, text in (("content", summary.content), ("last_sentence", summary.last_sentence)):
        if re.search(r"\[\[|\]\]|<ref|\{\{|'''", text):
            check.fail(f"summary.{key}", "must be plain text (no wiki markup)")
    return summary


def _parse_article(path: Path, data: dict[str, Any], problems: list[str]) -> Article | None:
    check = _Checker(path, problems)
    _unknown_fields(check, data, _ARTICLE_FIELDS)
    pageid = data.get("pageid")
    if not isinstance(pageid, int) or isinstance(pageid, bool) or not 100000 <= pageid <= 199999:
        check.fail("pageid", f"must be an integer in 100000–199999, got {pageid!r}")
        return None
    if not path.stem.startswith(f"{pageid}-"):
        check.fail("pageid", f"file name must start with '{pageid}-'")
    title = check.string(data, "title") or ""
    ns = data.get("ns", 0)
    if ns not in (0, *NAMESPACE_PREFIX):
        check.fail("ns", f"must be 0, 1 (Talk), 2 (User) or 4 (Project), got {ns!r}")
        ns = 0
    if ns and not title.startswith(NAMESPACE_PREFIX[ns]):
        check.fail("title", f"a namespace-{ns} title must start with {NAMESPACE_PREFIX[ns]!r}")
    redirect = check.string(data, "redirect", required=False)
    if redirect and ns != 0:
        check.fail("redirect", "only main-namespace pages can be redirects here")

    revisions: list[datetime] = []
    raw_revisions = data.get("revisions")
    if not isinstance(raw_revisions, list) or not raw_revisions:
        check.fail("revisions", "must be a non-empty list of ISO timestamps, oldest first")
    else:
        for i, value in enumerate(raw_revisions):
            try:
                revisions.append(_as_datetime(value))
            except ValueError as exc:
                check.fail(f"revisions[{i}]", str(exc))
        if any(b <= a for a, b in itertools.pairwise(revisions)):
            check.fail("revisions", "timestamps must be strictly increasing (oldest first)")

    content = ns == 0 and redirect is None
    category_path: tuple[str, ...] = ()
    raw_path = data.get("category_path")
    if raw_path is not None or content:
        if (
            not isinstance(raw_path, list)
            or not raw_path
            or not all(isinstance(c, str) and c for c in raw_path)
        ):
            check.fail("category_path", "must be a non-empty list of category names, top-level first")
        else:
            category_path = tuple(raw_path)
            if category_path[0] not in TOP_CATEGORIES:
                check.fail(
                    "category_path", f"{category_path[0]!r} is not one of wikiHow's 19 top-level categories"
                )
            if len(set(category_path)) != len(category_path):
                check.fail("category_path", "repeats a category")

    summary = _parse_summary(check, data.get("summary"))
    case = data.get("case")
    wikitext = data.get("wikitext") or ""
    if content:
        if case not in CASES:
            check.fail("case", f"must be one of {', '.join(CASES)}, got {case!r}")
        if not isinstance(wikitext, str) or not wikitext.strip():
            check.fail("wikitext", "missing")
            wikitext = ""
        marker = f"{{{{Summary:{title}}}}}"
        if summary is not None and not re.search(
            r"==\s*Quick Summary\s*==\s*\n\s*" + re.escape(marker), wikitext
        ):
            check.fail("wikitext", f"needs '== Quick Summary ==' followed by '{marker}' when summary is set")
        if summary is None and "{{Summary:" in wikitext:
            check.fail("wikitext", "transcludes a Summary: page but the article has no summary")
        if (case == "no_summary") != (summary is None):
            check.fail("case", "no_summary must be used exactly when summary is null")
    else:
        for key in ("case", "summary"):
            if data.get(key) is not None:
                check.fail(key, "only content articles (ns 0, not a redirect) have this field")
        if redirect:
            wikitext = f"#REDIRECT [[{redirect}]]"
        elif not isinstance(wikitext, str) or not wikitext.strip():
            check.fail("wikitext", "missing")
            wikitext = ""
    return Article(
        source=path,
        pageid=pageid,
        title=title,
        ns=ns,
        redirect=redirect,
        category_path=category_path,
        revisions=tuple(revisions),
        summary=summary,
        case=case if content else None,
        wikitext=wikitext.rstrip("\n") + "\n" if wikitext else "",
    )


# --------------------------------------------------------------------------- pages


def _parse_comments(check: _Checker, value: Any, field: str) -> tuple[Comment, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        check.fail(field, "must be a list of {author, date, text, replies}")
        return ()
    comments = []
    for i, item in enumerate(value):
        here = f"{field}[{i}]"
        if not isinstance(item, dict):
            check.fail(here, "must be a mapping with author, date, text")
            continue
        for key in sorted(set(item) - {"author", "date", "text", "replies"}):
            check.fail(f"{here}.{key}", "unknown field (known: author, date, text, replies)")
        author, text = item.get("author"), item.get("text")
        if not isinstance(author, str) or not isinstance(text, str) or not text.strip():
            check.fail(here, "needs a string author and a non-empty text")
            continue
        try:
            when = _as_date(item.get("date"))
        except ValueError as exc:
            check.fail(f"{here}.date", str(exc))
            continue
        replies = _parse_comments(check, item.get("replies"), f"{here}.replies")
        comments.append(Comment(author, when, " ".join(text.split()), replies))
    return tuple(comments)


def _parse_captures(check: _Checker, value: Any) -> tuple[Capture, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        check.fail("captures", "must be a list")
        return ()
    captures = []
    for i, item in enumerate(value):
        here = f"captures[{i}]"
        if not isinstance(item, dict):
            check.fail(here, "must be a mapping with a timestamp")
            continue
        for key in sorted(set(item) - {"timestamp", "status", "location", "update"}):
            check.fail(f"{here}.{key}", "unknown field (known: timestamp, status, location, update)")
        stamp = str(item.get("timestamp", ""))
        try:
            if not _TIMESTAMP.match(stamp):
                raise ValueError
            datetime.strptime(stamp, "%Y%m%d%H%M%S")
        except ValueError:
            check.fail(f"{here}.timestamp", f"must be a quoted 14-digit YYYYMMDDhhmmss string, got {stamp!r}")
            continue
        status = item.get("status", 200)
        if status not in (200, 301, 302, 404):
            check.fail(f"{here}.status", f"must be 200, 301, 302 or 404, got {status!r}")
            continue
        location = item.get("location")
        if status in (301, 302):
            if not isinstance(location, str) or not location.startswith(("http://", "https://")):
                check.fail(f"{here}.location", "a redirect capture needs an absolute http(s) location")
                continue
        elif location is not None:
            check.fail(f"{here}.location", "only 301/302 captures have a location")
        update = item.get("update")
        if update is not None and (status != 200 or not isinstance(update, str) or not update.strip()):
            check.fail(f"{here}.update", "must be non-empty text, and only on a status-200 capture")
            update = None
        captures.append(Capture(stamp, status, location, update.strip() if update else None))
    stamps = [c.timestamp for c in captures]
    if len(set(stamps)) != len(stamps):
        check.fail("captures", "two captures share a timestamp")
    return tuple(sorted(captures, key=lambda c: c.timestamp))


def _parse_page(path: Path, data: dict[str, Any], problems: list[str]) -> Page | None:
    check = _Checker(path, problems)
    _unknown_fields(check, data, _PAGE_FIELDS)
    if not _SLUG.match(path.stem):
        check.fail(
            "file", "page file names must be lowercase letters, digits and '-' (the name becomes the slug)"
        )
    url = check.string(data, "url")
    if url and (not url.startswith(("http://", "https://")) or not urlsplit(url).hostname):
        check.fail("url", f"must be an absolute http(s) URL, got {url!r}")
    fate = data.get("fate", "ok")
    if fate not in FATES:
        check.fail("fate", f"must be one of {', '.join(FATES)}, got {fate!r}")
    theme = data.get("theme")
    if theme is None and fate == "ok":
        check.fail("theme", f"missing (one of {', '.join(THEMES)})")
    elif theme is not None and theme not in THEMES:
        check.fail("theme", f"unknown theme {theme!r} (known: {', '.join(THEMES)})")
    title = check.string(data, "title") or ""
    author = check.string(data, "author", required=False)
    published = None
    if data.get("published") is not None:
        try:
            published = _as_date(data["published"])
        except ValueError as exc:
            check.fail("published", str(exc))
    encoding = data.get("encoding", "utf-8")
    if encoding not in ENCODINGS:
        check.fail("encoding", f"must be one of {', '.join(ENCODINGS)}, got {encoding!r}")
        encoding = "utf-8"
    declared = data.get("charset_declared", "both")
    if declared not in CHARSET_DECLARED:
        check.fail("charset_declared", f"must be one of {', '.join(CHARSET_DECLARED)}, got {declared!r}")
        declared = "both"
    body = data.get("body") or ""
    if not isinstance(body, str):
        check.fail("body", "must be text")
        body = ""
    if not body.strip() and fate in ("ok", "pdf"):
        check.fail("body", f"missing (a page with fate {fate} needs its text)")
    pages = data.get("pages", 1)
    if not isinstance(pages, int) or isinstance(pages, bool) or pages < 1:
        check.fail("pages", f"must be a positive integer, got {pages!r}")
        pages = 1
    breaks = body.count(PAGE_BREAK)
    if breaks != pages - 1:
        check.fail("body", f"has {breaks} '{PAGE_BREAK}' markers but pages is {pages} (needs {pages - 1})")
    view_all = data.get("view_all", False)
    if not isinstance(view_all, bool):
        check.fail("view_all", "must be true or false")
        view_all = False
    if view_all and pages < 2:
        check.fail("view_all", "only a paginated page (pages > 1) has a View all variant")
    if (pages > 1 or view_all) and url and urlsplit(url).query:
        check.fail("url", "a paginated page's URL must not have a query string (pages are url?page=N)")
    if pages > 1 and fate != "ok":
        check.fail("pages", "only pages with fate ok are paginated")
    comments = _parse_comments(check, data.get("comments"), "comments")
    captures = _parse_captures(check, data.get("captures"))
    ok_captures = [c for c in captures if c.status == 200]
    if fate == "never_archived" and captures:
        check.fail("captures", "a never_archived page has no captures")
    elif fate == "only_error" and (not captures or ok_captures):
        check.fail("captures", "an only_error page needs captures, none of them status 200")
    elif fate not in ("never_archived", "only_error") and not ok_captures:
        check.fail("captures", f"a page with fate {fate} needs at least one status-200 capture")
    if published is not None:
        for capture in captures:
            if capture.when.date() < published:
                check.fail("captures", f"capture {capture.timestamp} predates published {published}")
    if fate != "ok" and any(c.update for c in captures) and fate != "pdf":
        check.fail("captures", f"updates only apply to pages with fate ok or pdf, not {fate}")
    lang = data.get("lang", "en")
    if not isinstance(lang, str) or not re.match(r"^[a-z]{2}(-[A-Z]{2})?$", lang):
        check.fail("lang", f"must be a language tag such as en or ja, got {lang!r}")
        lang = "en"
    if url is None:
        return None
    return Page(
        source=path,
        slug=path.stem,
        url=url.strip(),
        theme=theme,
        title=title,
        author=author,
        published=published,
        encoding=encoding,
        charset_declared=declared,
        body=body,
        comments=comments,
        pages=pages,
        view_all=view_all,
        captures=captures,
        fate=fate,
        site_name=check.string(data, "site_name", required=False),
        lang=lang,
    )


# --------------------------------------------------------------------------- the whole set


def _yaml_files(folder: Path) -> Iterable[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml"))


def load_sources(root: Path) -> Sources:
    """Read ``root/articles`` and ``root/pages``; raise :class:`SourceError` listing every problem.

    Cross-file rules (unique ids, titles and URLs, redirect targets) are checked here; rules that need
    the archive model (references resolvable, declared cases and fates) are checked by :mod:`archive`.
    """
    problems: list[str] = []
    articles: list[Article] = []
    pages: list[Page] = []
    for path in _yaml_files(root / "articles"):
        data = _load_yaml(path, problems)
        if data is not None and (article := _parse_article(path, data, problems)) is not None:
            articles.append(article)
    for path in _yaml_files(root / "pages"):
        data = _load_yaml(path, problems)
        if data is not None and (page := _parse_page(path, data, problems)) is not None:
            pages.append(page)
    if not articles and not problems:
        problems.append(f"{root / 'articles'}: folder: no article YAML found")

    seen_ids: dict[int, Path] = {}
    seen_titles: dict[str, Path] = {}
    for article in articles:
        ids = [article.pageid] + ([50_000_000 + article.pageid] if article.summary else [])
        for pid in ids:
            if pid in seen_ids:
                problems.append(f"{article.source}: pageid: {pid} already used by {seen_ids[pid]}")
            seen_ids.setdefault(pid, article.source)
        if article.title in seen_titles:
            problems.append(
                f"{article.source}: title: {article.title!r} already used by {seen_titles[article.title]}"
            )
        seen_titles.setdefault(article.title, article.source)
    for article in articles:
        if article.redirect:
            target = next((a for a in articles if a.title == article.redirect), None)
            if target is None or not target.is_content:
                problems.append(
                    f"{article.source}: redirect: target {article.redirect!r} is not a content article"
                )
    seen_urls: dict[str, Path] = {}
    for page in pages:
        key = url_key(page.url)
        if key in seen_urls:
            problems.append(f"{page.source}: url: {page.url} is already the URL of {seen_urls[key]}")
        seen_urls.setdefault(key, page.source)
    if problems:
        raise SourceError(problems)
    return Sources(
        tuple(sorted(articles, key=lambda a: a.pageid)), tuple(sorted(pages, key=lambda p: p.slug))
    )
