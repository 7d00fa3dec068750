"""The category graph above the articles, the site's category root, and each article's top-level category.

MediaWiki sites organise categories in one of two ways. Many hang every topic under one **root**
("Contents", "Main topic classifications"): a category in no category whose members are categories, and
the top-level categories are its children. wikiHow has no root: its top-level categories ("Arts and
Entertainment", … — the ones on its front page) are themselves in no category. Either way, stray
categories in no category (maintenance categories nobody filed, categories of a few pages) are no topic.

The root is found from the wiki (:func:`choose_root`): among its category pages in no category
(``Special:UncategorizedCategories``; hidden and tracking categories left out), the one with the most
subcategories is the root when it holds more subcategories than all the others together, more
subcategories than pages, and is above most of the articles. Otherwise there is no root, and the
top-level categories are the uncategorized categories that have subcategories (the wiki's category
trees). ``--root-category`` names the root instead; the manifest records which root was used and why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wikihowqa.collect.pool import chunks, run_pool
from wikihowqa.collect.store import StateStore
from wikihowqa.collect.wiki_queries import BATCH, CATEGORY_PREFIX, CategoryInfo, MediaWiki
from wikihowqa.core.errors import SettingsError

GIVEN = "--root-category"
LISTED = "Special:UncategorizedCategories"
GRAPH = "the articles' category graph"
#: At most this many top-level categories are named in the manifest (their number always is).
NAMED_TOPS = 100


@dataclass(frozen=True)
class CategoryRoot:
    """How top-level categories are told: right under ``root``, or (no root) the categories in
    ``tops``, or (``tops`` is ``None`` too) any category without a parent."""

    root: str | None
    tops: frozenset[str] | None
    found_by: str  # GIVEN, LISTED or GRAPH
    how: str  # the verdict in one sentence, with its numbers

    def top_of(self, categories: Sequence[str], parents: Mapping[str, Sequence[str]]) -> str | None:
        return top_category(categories, parents, root=self.root, tops=self.tops)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"root": self.root, "found_by": self.found_by, "how": self.how}
        if self.tops is not None:
            out["top_level_categories"] = len(self.tops)
            out["named"] = sorted(self.tops)[:NAMED_TOPS]
        return out


def _ancestors(categories: Iterable[str], parents: Mapping[str, Sequence[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(categories)
    while todo:
        c = todo.pop()
        if c not in seen:
            seen.add(c)
            todo.extend(parents.get(c, ()))
    return seen


def choose_root(
    parentless: Mapping[str, CategoryInfo],
    articles: Sequence[Sequence[str]],
    parents: Mapping[str, Sequence[str]],
    *,
    tracking: Iterable[str] = (),
    found_by: str = LISTED,
    may_find_root: bool = True,
) -> CategoryRoot:
    """The category root (or the top-level categories, without one) from the wiki's categories in no
    category and their member counts; ``articles``: each article's categories, for the check that a
    root is above most of them. ``may_find_root=False``: only the top-level categories are chosen (the
    candidates are not the whole wiki's, so a root cannot be told from a top-level category)."""
    skip = set(tracking)
    visible = {n: i for n, i in parentless.items() if not i.hidden and n not in skip}
    trees = {n: i for n, i in visible.items() if i.subcats > 0}
    if not trees:
        why = f"none of the {len(visible)} categories in no category has subcategories"
        return CategoryRoot(None, frozenset(visible) or None, found_by, f"no root: {why}; each is top-level")
    best = max(sorted(trees), key=lambda n: trees[n].subcats)
    info = trees[best]
    others = sum(i.subcats for n, i in trees.items() if n != best)
    filed = [cats for cats in articles if cats]
    above = sum(1 for cats in filed if best in _ancestors(cats, parents))
    if may_find_root and info.subcats > others and info.subcats > info.pages and 2 * above > len(filed):
        how = (
            f"{best!r} is the category root: {info.subcats} subcategories against {others} under the "
            f"{len(trees) - 1} other categories in no category, {info.pages} pages, above {above} of "
            f"{len(filed)} articles"
        )
        return CategoryRoot(best, None, found_by, how)
    if not may_find_root:
        why = (
            "and the articles are a part of the wiki (a root cannot be told from a top-level category "
            "there: pass --root-category if the site has one)"
        )
    elif info.subcats <= others:
        why = "and none holds most of their subcategories (wikiHow's layout)"
    elif info.subcats <= info.pages:
        why = f"the largest, {best!r}, holding more pages ({info.pages}) than subcategories"
    else:
        why = f"the largest, {best!r}, above only {above} of {len(filed)} articles"
    how = f"no root: {len(trees)} categories in no category have subcategories, {why}; they are top-level"
    return CategoryRoot(None, frozenset(trees), found_by, how)


async def find_root(
    wiki: MediaWiki,
    articles: Sequence[Sequence[str]],
    parents: Mapping[str, Sequence[str]],
    *,
    given: str | None = None,
    whole_wiki: bool = True,
) -> CategoryRoot:
    """The site's category root: ``given`` (``--root-category``, which must exist), else found from the
    wiki's list of categories in no category, else (a wiki that does not answer it) from the
    categories in no category above the articles — there a root is inferred only when the articles
    are the whole wiki's (``whole_wiki``)."""
    if given is not None:
        if not await wiki.exists(CATEGORY_PREFIX + given):
            raise SettingsError(
                f"--root-category {given!r}: {wiki.api_url} has no such category "
                f"(give its name as the site writes it, without '{CATEGORY_PREFIX}')"
            )
        return CategoryRoot(given, None, GIVEN, f"given: the top-level categories are those under {given!r}")
    listed = await wiki.uncategorized_categories()
    if listed is not None:
        return choose_root(listed, articles, parents, tracking=wiki.tracking, found_by=LISTED)
    sources = sorted(
        c for c in _ancestors((c for cats in articles for c in cats), parents) if not parents.get(c)
    )
    info: dict[str, CategoryInfo] = {}
    for names in chunks(sources, BATCH):
        info.update(await wiki.category_info(names))
    return choose_root(
        info, articles, parents, tracking=wiki.tracking, found_by=GRAPH, may_find_root=whole_wiki
    )


# --------------------------------------------------------------------------- the graph


async def category_parents(
    wiki: MediaWiki, store: StateStore, categories: Iterable[str], concurrency: int
) -> dict[str, list[str]]:
    """The category graph above ``categories``, read level by level (tracking categories left out:
    MediaWiki adds them by itself, and they are no topic)."""
    wanted = set(categories)
    parents: dict[str, list[str]] = store.results("category")
    while True:
        missing = sorted(ancestors_needed(wanted, parents))
        if not missing:
            break

        async def level(names: Sequence[str]) -> None:
            found = await wiki.category_parents(names)
            store.put_results("category", list(found.items()))
            parents.update(found)

        await run_pool(chunks(missing, BATCH), level, concurrency)
    return {name: [p for p in ps if p not in wiki.tracking] for name, ps in parents.items()}


def top_category(
    categories: Sequence[str],
    parents: Mapping[str, Sequence[str]],
    *,
    root: str | None = None,
    tops: Iterable[str] | None = None,
    max_depth: int = 50,
) -> str | None:
    """The top-level category above an article's categories: a breadth-first walk up the category
    graph from each direct category in turn (the first one that reaches a top wins). The top is the
    category right under ``root`` when the site has one, else one of ``tops``, else (neither given) a
    category with no parent. Cycles and missing entries are tolerated; tracking and hidden categories
    are expected to be left out of ``categories`` and ``parents`` already (they are not topics)."""
    top_set = None if tops is None else set(tops)

    def is_top(c: str) -> bool:
        if root is not None:
            return root in parents.get(c, ())
        if top_set is not None:
            return c in top_set
        return not parents.get(c)

    for start in categories:
        if start == root:
            continue
        seen = {start}
        frontier = [start]
        for _ in range(max_depth):
            found = [c for c in frontier if is_top(c)]
            if found:
                return found[0]
            nxt: list[str] = []
            for c in frontier:
                for p in parents.get(c, ()):
                    if p not in seen and p != root:
                        seen.add(p)
                        nxt.append(p)
            if not nxt:
                break
            frontier = nxt
    return None


def ancestors_needed(categories: Iterable[str], parents: Mapping[str, Sequence[str]]) -> set[str]:
    """Categories reachable from ``categories`` whose parents are not yet known."""
    todo = list(categories)
    seen: set[str] = set()
    missing: set[str] = set()
    while todo:
        c = todo.pop()
        if c in seen:
            continue
        seen.add(c)
        if c not in parents:
            missing.add(c)
        else:
            todo.extend(parents[c])
    return missing
