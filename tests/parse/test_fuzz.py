"""Fuzzing: whatever bytes arrive, parse_html returns a page or a rejection and never raises."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wikihowqa.parse import ParsedPage, parse_html
from wikihowqa.parse.page import REJECTIONS

TAGS = [
    "div",
    "p",
    "span",
    "article",
    "ul",
    "ol",
    "li",
    "table",
    "tr",
    "td",
    "th",
    "h1",
    "h2",
    "a",
    "nav",
    "footer",
    "script",
    "style",
    "noscript",
    "blockquote",
    "pre",
    "br",
    "img",
    "section",
    "main",
    "meta",
]
ATTRS = [
    'class="comments"',
    'class="article-body"',
    'id="respond"',
    'rel="next"',
    'href="?page=2"',
    'href="javascript:void(0)"',
    'class="share social"',
    'itemprop="articleBody"',
    'charset="shift_jis"',
    'role="navigation"',
    'href="//x"',
    'class="category-comments"',
    'style="display:none"',
]
WORDS = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


def _element(children):
    return st.builds(
        lambda tag, attrs, kids, close: (
            f"<{tag} {' '.join(attrs)}>{''.join(kids)}" + (f"</{tag}>" if close else "")
        ),
        st.sampled_from(TAGS),
        st.lists(st.sampled_from(ATTRS), max_size=3),
        st.lists(children, max_size=4),
        st.booleans(),
    )


MARKUP = st.recursive(
    WORDS | st.sampled_from(["Next page", "View all", "3 Comments", "&amp;", "&#0;", "<!--", "]]>"]),
    _element,
    max_leaves=40,
)
HEADERS = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {
            "Content-Type": st.sampled_from(
                [
                    "text/html",
                    "text/html; charset=utf-8",
                    "text/html; charset=shift_jis",
                    "text/html; charset=bogus",
                    "application/xhtml+xml",
                    "image/png",
                    "",
                    "text/html; charset=",
                ]
            )
        }
    ),
)
ENCODINGS = st.sampled_from(["utf-8", "cp1252", "shift_jis", "utf-16", "latin-1"])


def check(page: object) -> None:
    assert isinstance(page, ParsedPage)
    assert page.rejection is None or page.rejection in REJECTIONS
    assert page.rejection != "parse_error", page.detail  # a parse_error is a bug of ours made harmless
    if page.rejection is None:
        assert page.text and all(page.text[s.start : s.end] == s.text for s in page.spans)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=3000), HEADERS)
def test_random_bytes_never_raise(body, headers):
    check(parse_html(body, "https://fuzz.example/a", headers))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MARKUP, HEADERS, ENCODINGS, st.integers(min_value=0, max_value=100))
def test_random_markup_never_raises(markup, headers, encoding, cut):
    html = f"<html><head><title>x</title></head><body>{markup}</body></html>"
    body = html.encode(encoding, "replace")
    body = body[: max(1, len(body) * cut // 100)] if cut < 100 else body
    check(parse_html(body, "https://fuzz.example/a?page=1", headers))


@settings(max_examples=60, deadline=None)
@given(
    st.text(max_size=2000), st.sampled_from(["", "not a url", "https://x.example/", "ftp://x", "http://[::1"])
)
def test_random_text_and_odd_urls_never_raise(text, url):
    check(parse_html(text, url))


# Pathological pages of 1-5 MB through the stage's own workers, under its limits.
STAGE_FUZZ = """
import json, random, resource, sys
from wikihowqa.parse import ParseSettings
from wikihowqa.parse.stage import RawSnapshot, parse_snapshots

rng = random.Random(int(sys.argv[1]))
MB = 1024 * 1024


def sized(unit, lo=1, hi=5):
    return unit * (rng.randint(lo * MB, hi * MB) // len(unit))


pages = {
    "deep nesting": "<div>" * (rng.randint(MB, 2 * MB) // 5),
    "deep inline nesting": "<span><b>" * (rng.randint(MB, 2 * MB) // 9) + "text",
    "unclosed scripts": "<p>hi</p>" + sized("<script>x"),
    "unclosed comments": "<p>hi</p>" + sized("<!--x"),
    "flat list": "<ul>" + sized("<li>an item of the list</li>") + "</ul>",
    "paragraphs": sized("<p>x</p>"),
    "line breaks": sized("x<br>"),
    "table cells": "<table>" + sized("<tr><td>a</td><td>b</td></tr>") + "</table>",
}
items = [
    RawSnapshot(name, "https://fuzz.example/" + str(i), "", f"<html><body>{body}</body></html>".encode())
    for i, (name, body) in enumerate(pages.items())
]
settings = ParseSettings(timeout_s=float(sys.argv[2]), max_memory_mb=int(sys.argv[3]))
parsed = parse_snapshots(items, settings, workers=2, chunk_size=1)
out = {key: [page.rejection, len(page.text), page.truncated] for key, page in parsed}
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024  # kB on Linux
print(json.dumps({"pages": out, "sizes": {k: len(v) for k, v in pages.items()}, "peak_mb": peak}))
"""


def test_pathological_pages_of_megabytes_end_in_a_result_or_a_rejection_within_the_stage_limits():
    import json
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    import wikihowqa

    timeout_s, memory_mb = 60, 1536
    env = {**os.environ, "PYTHONPATH": str(Path(wikihowqa.__file__).parents[1])}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", STAGE_FUZZ, "20261201", str(timeout_s), str(memory_mb)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert all(size >= 1024 * 1024 for size in report["sizes"].values())
    for name, (rejection, words, _) in report["pages"].items():
        assert rejection is None or rejection in REJECTIONS, name
        assert rejection != "parse_error", name
        assert rejection is not None or words > 0, name
    # A worker's peak resident memory stays under the cap it runs with (the address-space cap is larger
    # than what is resident, so this is the stricter check), and no page held a worker past the timeout.
    assert report["peak_mb"] < memory_mb, report
    assert time.monotonic() - started < len(report["pages"]) * timeout_s / 2
