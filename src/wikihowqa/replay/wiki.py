"""The wiki the corpus describes, indexed the way MediaWiki looks pages up.

Besides the pages the corpus lists, MediaWiki would hold two kinds of pages the corpus only implies,
and the site derives them so a client can read them like any other page:

* ``Summary:<title>`` (namespace 30) for each article with a Quick Summary, whose wikitext is
  ``{{#quicksummary:<position>|<last_sentence>|<content>}}``;
* ``Category:<name>`` (namespace 14) for every category named anywhere, whose own categories are its
  parents from ``site.json``, so a client can walk up to the top-level category.

Derived page ids and revision ids follow the largest ids in the corpus, in a fixed order, so they are
stable across runs.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace
from functools import cached_property

from wikihowqa.replay.corpus import Corpus, CorpusError, Revision, SiteInfo, WikiPage
from wikihowqa.replay.page_text import images

SUMMARY_NS = 30
CATEGORY_NS = 14
#: MediaWiki's tracking category for pages that show a file the wiki does not have (every file, here):
#: its message name, and its name in English. Real wikis add it by themselves; it is no topic.
BROKEN_FILE_MESSAGE = "broken-file-category"
BROKEN_FILE_CATEGORY = "Pages with broken file links"

#: id -> (local name, canonical name); 4/5 take the project name from the site.
_NAMESPACES: dict[int, tuple[str, str]] = {
    -2: ("Media", "Media"),
    -1: ("Special", "Special"),
    0: ("", ""),
    1: ("Talk", "Talk"),
    2: ("User", "User"),
    3: ("User talk", "User talk"),
    4: ("{project}", "Project"),
    5: ("{project} talk", "Project talk"),
    6: ("File", "File"),
    7: ("File talk", "File talk"),
    8: ("MediaWiki", "MediaWiki"),
    9: ("MediaWiki talk", "MediaWiki talk"),
    10: ("Template", "Template"),
    11: ("Template talk", "Template talk"),
    12: ("Help", "Help"),
    13: ("Help talk", "Help talk"),
    14: ("Category", "Category"),
    15: ("Category talk", "Category talk"),
    30: ("{summary}", "{summary}"),
    31: ("{summary} talk", "{summary} talk"),
}
NAMESPACE_ALIASES: dict[str, int] = {"Image": 6, "Image talk": 7}
_INVALID = re.compile(r"[<>\[\]{}|\x00-\x1f\x7f]")


class InvalidTitle(ValueError):
    """A title MediaWiki would reject; the message is MediaWiki's ``invalidreason``."""


@dataclass(frozen=True, slots=True)
class Title:
    ns: int
    text: str  # without namespace prefix, spaces not underscores
    prefixed: str

    @property
    def dbkey(self) -> str:
        return self.text.replace(" ", "_")

    @property
    def prefixed_dbkey(self) -> str:
        return self.prefixed.replace(" ", "_")


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def sort_bytes(key: str) -> bytes:
    """MediaWiki orders titles by the binary (UTF-8) value of their database key."""
    return key.encode("utf-8")


class Wiki:
    """Pages by id and by (namespace, title), plus category membership and namespace metadata."""

    def __init__(self, corpus: Corpus) -> None:
        self.site: SiteInfo = corpus.site
        names = {"project": self.site.project_namespace, "summary": self.site.summary_namespace}
        self.namespaces: dict[int, tuple[str, str]] = {
            ns: (name.format(**names), canonical.format(**names))
            for ns, (name, canonical) in _NAMESPACES.items()
        }
        self._ns_lookup: dict[str, int] = {}
        for ns, (name, canonical) in self.namespaces.items():
            if ns:
                self._ns_lookup[name.lower()] = ns
                self._ns_lookup[canonical.lower()] = ns
        for alias, ns in NAMESPACE_ALIASES.items():
            self._ns_lookup[alias.lower()] = ns

        self.hidden_categories = frozenset(self.normalise_part(c) for c in self.site.hidden_categories)
        self.category_parents: dict[str, tuple[str, ...]] = {
            self.normalise_part(k): tuple(self.normalise_part(p) for p in v)
            for k, v in self.site.category_parents.items()
        }
        self.by_id: dict[int, WikiPage] = {}
        self.by_key: dict[tuple[int, str], WikiPage] = {}
        self.titles: dict[int, Title] = {}
        for page in corpus.pages:
            if (
                page.ns != CATEGORY_NS
                and images(page.wikitext)
                and BROKEN_FILE_CATEGORY not in page.categories
            ):
                # Every file is missing here, so MediaWiki would track each page that shows one.
                page = replace(page, categories=(*page.categories, BROKEN_FILE_CATEGORY))
            self._add(page, where=f"page {page.pageid}")
        self._derive_summary_pages()
        self._derive_category_pages()

        self.members: dict[str, list[WikiPage]] = defaultdict(list)
        for page in self.by_id.values():
            for cat in page.categories:
                self.members[self.normalise_part(cat)].append(page)
        users: dict[str, int] = {}
        for page in sorted(self.by_id.values(), key=lambda p: p.pageid):
            for rev in page.revisions:
                users.setdefault(rev.user, len(users) + 1)
        self.user_ids = users

    # ------------------------------------------------------------------ building

    def _add(self, page: WikiPage, *, where: str) -> None:
        if page.ns not in self.namespaces:
            raise CorpusError(f"{where}: unknown namespace {page.ns}")
        try:
            title = self.parse_title(page.title, default_ns=page.ns)
        except InvalidTitle as exc:
            raise CorpusError(f"{where}: invalid title {page.title!r}: {exc}") from None
        if title.ns != page.ns:
            # "Talk:X" stored with ns 0 would be ambiguous; trust the namespace and keep the text.
            title = self._make(page.ns, _first_upper(page.title.replace("_", " ").strip()))
        if page.pageid in self.by_id:
            raise CorpusError(f"{where}: page id {page.pageid} is used twice")
        if (title.ns, title.text) in self.by_key:
            raise CorpusError(f"{where}: title {title.prefixed!r} is used twice")
        self.by_id[page.pageid] = page
        self.by_key[(title.ns, title.text)] = page
        self.titles[page.pageid] = title

    def _next_ids(self) -> tuple[int, int]:
        pageid = max(self.by_id, default=0) + 1
        revid = max((r.revid for p in self.by_id.values() for r in p.revisions), default=0) + 1
        return pageid, revid

    def _derive_summary_pages(self) -> None:
        _, revid = self._next_ids()
        for page in sorted(self.by_id.values(), key=lambda p: p.pageid):
            s = page.summary
            if s is None:
                continue
            text = self.titles[page.pageid].prefixed
            if (SUMMARY_NS, text) in self.by_key:
                continue  # the corpus wrote the Summary: page itself
            wikitext = f"{{{{#quicksummary:{s.position}|{s.last_sentence}|{s.content}}}}}"
            summary_title = f"{self.namespaces[SUMMARY_NS][0]}:{text}"
            rev = Revision(
                revid=revid,
                parentid=0,
                timestamp=s.timestamp,
                user=page.revisions[-1].user,
                comment="Quick Summary",
            )
            revid += 1
            self._add(
                WikiPage(
                    pageid=s.pageid,
                    ns=SUMMARY_NS,
                    title=summary_title,
                    wikitext=wikitext,
                    revisions=(rev,),
                ),
                where=f"summary of page {page.pageid}",
            )

    def _derive_category_pages(self) -> None:
        names: set[str] = set(self.site.top_categories)
        for child, parents in self.category_parents.items():
            names.add(child)
            names.update(parents)
        for page in self.by_id.values():
            names.update(c for c in page.categories if c != BROKEN_FILE_CATEGORY)  # a red link on real wikis
        first = min(
            (r.timestamp for p in self.by_id.values() for r in p.revisions), default="2006-01-01T00:00:00Z"
        )
        pageid, revid = self._next_ids()
        for name in sorted({self.normalise_part(n) for n in names}, key=sort_bytes):
            if (CATEGORY_NS, name) in self.by_key:
                continue
            parents = self.category_parents.get(name, ())
            wikitext = "\n".join(f"[[Category:{p}]]" for p in parents)
            rev = Revision(revid=revid, parentid=0, timestamp=first, user="MediaWiki default", comment="")
            self._add(
                WikiPage(
                    pageid=pageid,
                    ns=CATEGORY_NS,
                    title=f"Category:{name}",
                    wikitext=wikitext,
                    revisions=(rev,),
                    categories=parents,
                ),
                where=f"category {name!r}",
            )
            pageid += 1
            revid += 1

    # ------------------------------------------------------------------ titles

    def _make(self, ns: int, text: str) -> Title:
        name = self.namespaces[ns][0]
        return Title(ns, text, f"{name}:{text}" if ns else text)

    @staticmethod
    def normalise_part(text: str) -> str:
        """Title text as MediaWiki stores it: spaces, single, trimmed, first letter upper case."""
        return _first_upper(re.sub(r"[ _]+", " ", text).strip())

    def parse_title(self, raw: str, *, default_ns: int = 0) -> Title:
        text = re.sub(r"[ _\u00a0]+", " ", raw).strip()
        if "#" in text:
            text = text.split("#", 1)[0].strip()
        text = text.lstrip(":").strip() if text.startswith(":") else text
        bad = _INVALID.search(text)
        if bad:
            raise InvalidTitle(f'The requested page title contains invalid characters: "{bad.group(0)}".')
        ns = default_ns
        if ":" in text:
            prefix, rest = text.split(":", 1)
            found = self._ns_lookup.get(prefix.strip().lower())
            if found is not None:
                ns, text = found, rest.strip()
        if not text:
            raise InvalidTitle("The requested page title is empty or contains only the name of a namespace.")
        return self._make(ns, _first_upper(text))

    def namespace_of(self, name: str) -> int | None:
        return self._ns_lookup.get(name.lower()) if name else 0

    # ------------------------------------------------------------------ lookups

    def page(self, title: Title) -> WikiPage | None:
        return self.by_key.get((title.ns, title.text))

    def title_of(self, page: WikiPage) -> Title:
        return self.titles[page.pageid]

    def resolve_redirect(self, page: WikiPage) -> tuple[Title, WikiPage | None]:
        """Follow a redirect chain to its end (loops stop where they close)."""
        seen = {page.pageid}
        title = self.title_of(page)
        current: WikiPage | None = page
        while current is not None and current.redirect is not None:
            try:
                title = self.parse_title(current.redirect)
            except InvalidTitle:
                break
            current = self.page(title)
            if current is None or current.pageid in seen:
                break
            seen.add(current.pageid)
        return title, current

    def content(self, page: WikiPage, revision: Revision | None = None) -> str:
        if revision is not None and revision.wikitext is not None:
            return revision.wikitext
        return page.wikitext

    def is_hidden_category(self, name: str) -> bool:
        return self.normalise_part(name) in self.hidden_categories

    @cached_property
    def sorted_pages(self) -> dict[int, list[WikiPage]]:
        """Pages of each namespace in MediaWiki's ``allpages`` order."""
        out: dict[int, list[WikiPage]] = defaultdict(list)
        for page in self.by_id.values():
            out[page.ns].append(page)
        for pages in out.values():
            pages.sort(key=lambda p: sort_bytes(self.titles[p.pageid].dbkey))
        return out
