"""The paper-scale benchmark's corpus: generated articles and documents served in real page chrome.

The text comes from the paper-scale generator (``wikihowqa.synthetic.dataset.generate_corpus``: questions,
summaries, documents of realistic lengths, about 14 passages each); this module writes it as a replay
corpus (the format of ``wikihowqa.synthetic.corpus`` and ``docs/demo-corpus.md``) that ``wikihowqa build``
collects through the replay site. Each cited page is a real page of the web-extraction dev set (median
≈ 139 KB) whose main text block — the element holding most paragraph text — is replaced by the generated
document, so the parser meets real navigation, scripts, styles, sidebars and footers at their real size.

The writer streams: one article file and one snapshot file at a time, so it holds one page, not the corpus.
"""

from __future__ import annotations

import gzip
import html
import json
import random
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path

from lxml import etree
from lxml import html as lxml_html

#: The real pages whose chrome the generated documents are served in.
CHROME_DIR = Path("/work/shared/data/web-extraction-dev/html")
_BODY = "WIKIHOWQA-PAPER-SCALE-BODY"
_TITLE = "WIKIHOWQA-PAPER-SCALE-TITLE"
_TOPS = {
    "Arts and Entertainment": [],
    "Cars & Other Vehicles": [],
    "Computers and Electronics": [],
    "Education and Communications": [],
    "Family Life": [],
    "Finance and Business": [],
    "Food and Entertaining": [],
    "Health": [],
    "Hobbies and Crafts": [],
    "Holidays and Traditions": [],
    "Home and Garden": [],
    "Personal Care and Style": [],
    "Pets and Animals": [],
    "Philosophy and Religion": [],
    "Relationships": [],
    "Sports and Fitness": [],
    "Travel": [],
    "Work World": [],
    "Youth": [],
}


@dataclass(frozen=True)
class CorpusInfo:
    """What was written: counts and the served pages' sizes (bytes)."""

    questions: int
    documents: int
    distinct_urls: int
    templates: int
    page_bytes_median: int
    page_bytes_mean: int
    snapshot_bytes: int

    def to_dict(self) -> dict:
        return asdict(self)


def _main_block(root: etree._Element) -> etree._Element | None:
    """The element whose ``<p>`` children hold most text: where a page keeps its main text."""
    weight: dict[etree._Element, int] = {}
    for p in root.iter("p"):
        parent = p.getparent()
        if parent is not None:
            weight[parent] = weight.get(parent, 0) + len(p.text_content())
    if not weight:
        return None
    return max(weight, key=weight.__getitem__)


def chrome_template(page: bytes) -> str | None:
    """A real page with its main text block and title replaced by markers (``None`` if it has no
    paragraphs); charset declarations are dropped, since the page is served as UTF-8."""
    try:
        root = lxml_html.fromstring(page)
    except (etree.ParserError, ValueError):
        return None
    block = _main_block(root)
    if block is None:
        return None
    for child in list(block):
        block.remove(child)
    block.text = _BODY
    for meta in root.xpath("//meta[@charset or @http-equiv]"):
        meta.getparent().remove(meta)
    titles = root.xpath("//title")
    if titles:
        for child in list(titles[0]):
            titles[0].remove(child)
        titles[0].text = _TITLE
    text = lxml_html.tostring(root, encoding="unicode", doctype="<!DOCTYPE html>")
    return text if _BODY in text else None


def load_templates(limit: int, seed: int, folder: Path = CHROME_DIR) -> list[str]:
    """Up to ``limit`` page templates from a seeded sample of the real pages."""
    files = sorted(folder.glob("*.html.gz"))
    if not files:
        raise SystemExit(f"{folder}: no *.html.gz pages to take page chrome from")
    random.Random(seed).shuffle(files)
    templates: list[str] = []
    for path in files:
        template = chrome_template(gzip.decompress(path.read_bytes()))
        if template is not None:
            templates.append(template)
        if len(templates) >= limit:
            break
    return templates


def _render(paragraphs: tuple[str, ...] | list[str], title: str) -> str:
    """A document's paragraphs as HTML: a paragraph's first line is a heading when it has a second."""
    parts = [f"<h1>{html.escape(title)}</h1>"]
    for paragraph in paragraphs:
        head, sep, rest = paragraph.partition("\n")
        if sep:
            parts.append(f"<h2>{html.escape(head)}</h2>")
            paragraph = rest
        parts.append(f"<p>{html.escape(paragraph)}</p>")
    return "\n".join(parts)


def _wikitext(question: str, urls: list[str]) -> str:
    steps = "\n".join(
        f"# Step {k + 1} of {question}.<ref>[{url} Source {k}]</ref>" for k, url in enumerate(urls)
    )
    return (
        f"{question} is explained here.\n== Steps ==\n{steps}\n== Quick Summary ==\n"
        f"{{{{Summary:{question}}}}}\n== Sources and Citations ==\n{{{{reflist}}}}\n"
    )


def _split_answer(answer: str) -> tuple[str, str]:
    """The generated answer as a Quick Summary: its content and its last sentence."""
    head, sep, tail = answer.rstrip().rpartition(". ")
    return (head + ".", tail) if sep else ("", answer)


def write_paper_corpus(
    out: Path, questions: int, documents: int, seed: int = 0, templates: int = 300
) -> CorpusInfo:
    """Write the replay corpus under ``out`` (created): articles, one 200 capture per cited page."""
    from wikihowqa.synthetic.dataset import generate_corpus

    examples, docs = generate_corpus(questions, documents, seed)
    chrome = load_templates(templates, seed)
    rng = random.Random(seed)
    (out / "articles").mkdir(parents=True, exist_ok=True)
    snapshots = out / "archive" / "snapshots"
    snapshots.mkdir(parents=True, exist_ok=True)
    site = {
        "sitename": "wikiHow (paper-scale synthetic)",
        "generator": "MediaWiki 1.39.3",
        "lang": "en",
        "articlepath": "/wiki/$1",
        "top_categories": list(_TOPS),
        "category_parents": {},
    }
    (out / "site.json").write_text(json.dumps(site, indent=1), encoding="utf-8")
    by_article: dict[int, list] = {}
    for d in docs:
        by_article.setdefault(d.article_id, []).append(d)
    sizes: list[int] = []
    seen: set[str] = set()
    with (out / "archive" / "cdx.jsonl").open("w", encoding="utf-8") as cdx:
        for i, example in enumerate(examples):
            pageid = 200_000 + i
            cited = by_article[example.article_id]
            urls = [d.original_url for d in cited]
            modified = f"{2016 + i % 6}-06-15T12:00:00Z"
            content, last = _split_answer(example.answer)
            record = {
                "pageid": pageid,
                "ns": 0,
                "title": example.question,
                "redirect": None,
                "categories": [example.category],
                "revisions": [
                    {"revid": 10 * pageid, "parentid": 0, "timestamp": "2012-03-01T10:00:00Z", "user": "Gen"},
                    {"revid": 10 * pageid + 1, "parentid": 10 * pageid, "timestamp": modified, "user": "Gen"},
                ],
                "wikitext": _wikitext(example.question, urls),
                "summary": {
                    "pageid": 50_000_000 + pageid,
                    "position": "bottom",
                    "last_sentence": last,
                    "content": content,
                    "timestamp": modified,
                },
            }
            (out / "articles" / f"{pageid}.json").write_text(json.dumps(record), encoding="utf-8")
            for k, doc in enumerate(cited):
                if doc.original_url in seen:
                    continue
                seen.add(doc.original_url)
                page = (
                    rng.choice(chrome)
                    .replace(_TITLE, html.escape(doc.title))
                    .replace(_BODY, _render(doc.passages, doc.title))
                    .encode("utf-8")
                )
                name = f"p{pageid}-{k}.html"
                (snapshots / name).write_bytes(page)
                sizes.append(len(page))
                stamp = doc.archive_url.split("/web/", 1)[1].split("/", 1)[0]
                row = {
                    "url": doc.original_url,
                    "timestamp": stamp,
                    "statuscode": "200",
                    "mimetype": "text/html",
                    "headers": {"Content-Type": "text/html; charset=utf-8"},
                    "file": name,
                }
                cdx.write(json.dumps(row) + "\n")
    return CorpusInfo(
        questions=len(examples),
        documents=len(docs),
        distinct_urls=len(seen),
        templates=len(chrome),
        page_bytes_median=int(statistics.median(sizes)),
        page_bytes_mean=int(statistics.fmean(sizes)),
        snapshot_bytes=sum(sizes),
    )
