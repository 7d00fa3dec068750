"""Render the demo corpus: ``python tools/democorpus/render.py [--sources DIR] [--out DIR]``.

Reads the YAML under ``articles/`` and ``pages/``, validates it (every problem reported as
``file: field: problem``), and writes the rendered corpus described in ``docs/demo-corpus.md``. The output
is a pure function of the sources: rerunning gives byte-identical files, which the tests check.
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from datetime import timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if __name__ == "__main__" and not __package__:  # run as a script: import the package it belongs to (PEP 366)
    sys.path.insert(0, str(HERE.parent))
    __package__ = "democorpus"
    import democorpus  # noqa: F401

from wikihowqa.core.files import atomic_folder  # noqa: E402

from .archive import build_archive  # noqa: E402
from .funnel import expected  # noqa: E402
from .sources import TOP_CATEGORIES, Article, SourceError, Sources, format_iso, load_sources  # noqa: E402

REPO = HERE.parent.parent
DEFAULT_OUT = REPO / "src" / "wikihowqa" / "demo" / "corpus"
SUMMARY_PAGEID_OFFSET = 50_000_000
MAX_REVISIONS = 20
EDITORS = (
    "DemoEditor",
    "Kestrel Ames",
    "Marisol V",
    "Tomas Quill",
    "Ingrid Holm",
    "Bao Tran",
    "Priya N",
    "Olu Adeyemi",
)
COMMENTS = (
    "Copyedit",
    "Added sources",
    "Quality review",
    "Updated steps",
    "Formatting",
    "Added tips",
    "Clarified method",
)


def site_info(sources: Sources) -> dict[str, Any]:
    parents: dict[str, set[str]] = {top: set() for top in TOP_CATEGORIES}
    for article in sources.articles:
        path = article.category_path
        for i, name in enumerate(path):
            parents.setdefault(name, set())
            if i:
                parents[name].add(path[i - 1])
    return {
        "sitename": "wikiHow (demo)",
        "generator": "MediaWiki 1.39.3",
        "lang": "en",
        "articlepath": "/wiki/$1",
        "top_categories": list(TOP_CATEGORIES),
        "category_parents": {name: sorted(parents[name]) for name in sorted(parents)},
    }


def article_record(article: Article) -> dict[str, Any]:
    revisions = []
    parent = 0
    for i, moment in enumerate(article.revisions):
        revid = 1_000_000 + (article.pageid - 100_000) * MAX_REVISIONS + i
        pick = zlib.crc32(f"{article.pageid}:{i}".encode())
        revisions.append(
            {
                "revid": revid,
                "parentid": parent,
                "timestamp": format_iso(moment),
                "user": EDITORS[pick % len(EDITORS)],
                "comment": "Created page" if i == 0 else COMMENTS[pick % len(COMMENTS)],
            }
        )
        parent = revid
    summary = None
    if article.summary is not None:
        summary = {
            "pageid": SUMMARY_PAGEID_OFFSET + article.pageid,
            "position": article.summary.position,
            "last_sentence": article.summary.last_sentence,
            "content": article.summary.content,
            "timestamp": format_iso(article.revisions[-1] + timedelta(minutes=1)),
        }
    return {
        "pageid": article.pageid,
        "ns": article.ns,
        "title": article.title,
        "redirect": article.redirect,
        "categories": list(article.category_path[-1:]),
        "revisions": revisions,
        "wikitext": article.wikitext,
        "summary": summary,
    }


def _json(obj: Any) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def render_files(sources: Sources) -> dict[str, bytes]:
    """Relative path → bytes of every file of the rendered corpus."""
    problems = [
        f"{a.source}: revisions: at most {MAX_REVISIONS} revisions "
        "(revision ids are derived from the page id)"
        for a in sources.articles
        if len(a.revisions) > MAX_REVISIONS
    ]
    if problems:
        raise SourceError(problems)
    funnel = expected(sources)
    archive = build_archive(sources.pages)
    files: dict[str, bytes] = {"site.json": _json(site_info(sources))}
    for article in sources.articles:
        files[f"articles/{article.pageid}.json"] = _json(article_record(article))
    files["archive/cdx.jsonl"] = "".join(
        json.dumps(r, ensure_ascii=False) + "\n" for r in archive.rows
    ).encode()
    for name, data in archive.files.items():
        files[f"archive/snapshots/{name}"] = data
    for name, truth in archive.truth.items():
        files[f"truth/{name}.json"] = _json(truth)
    files["expected.json"] = _json(funnel)
    return dict(sorted(files.items()))


def write_corpus(files: dict[str, bytes], out: Path) -> None:
    """Write into a staging folder beside ``out`` and swap it in, so a failure leaves ``out`` untouched."""
    with atomic_folder(out.resolve()) as staging:
        for rel, data in files.items():
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def render(sources_dir: Path = HERE, out: Path = DEFAULT_OUT) -> dict[str, bytes]:
    files = render_files(load_sources(sources_dir))
    write_corpus(files, out)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sources",
        type=Path,
        default=HERE,
        help="folder holding articles/ and pages/ (default: %(default)s)",
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="rendered corpus folder (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    try:
        files = render(args.sources, args.out)
    except SourceError as exc:
        for line in exc.problems:
            print(f"error: {line}", file=sys.stderr)
        print(f"{len(exc.problems)} problem(s); nothing written", file=sys.stderr)
        return 1
    size = sum(len(d) for d in files.values())
    print(f"wrote {len(files)} files ({size / 1e6:.2f} MB) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
