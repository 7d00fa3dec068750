"""The site on disk: every page carries the strict CSP and no inline script or style, the data files are
JSON handed to one callback, and they hold what the stages wrote (grounding's passages, unchanged)."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from wikihowqa.errors import DatasetError, SettingsError
from wikihowqa.view import build_site
from wikihowqa.view.markdown import markdown_tree
from wikihowqa.view.pages import CSP, PAGES
from wikihowqa.view.shards import CALLBACK

from .conftest import per_question_rows

#: The fixtures evaluate a small dataset (grounding loads MiniLM) and meta-evaluate a planted study.
pytestmark = pytest.mark.slow

_CALL = re.compile(rf'^{CALLBACK}\(("(?:[^"\\]|\\.)*"),("(?:[^"\\]|\\.)*")\);\n$', re.S)


def read_data(site: Path, name: str):
    """A data file's value, checked to be exactly one callback call with a name and a JSON string."""
    text = (site / "data" / f"{name}.js").read_text(encoding="utf-8")
    match = _CALL.match(text)
    assert match, text[:200]
    assert json.loads(match.group(1)) == name
    return json.loads(json.loads(match.group(2)))


def test_every_page_has_the_strict_csp_and_no_inline_script_or_style(explorer_site):
    for name in PAGES:
        html = (explorer_site / name).read_text(encoding="utf-8")
        metas = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html)
        assert [unescape(m) for m in metas] == [CSP], name
        assert "'unsafe-inline'" not in CSP and "'unsafe-eval'" not in CSP and "script-src 'self'" in CSP
        scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S)
        assert scripts and all('src="assets/' in attrs and not body.strip() for attrs, body in scripts), name
        assert not re.search(r"\sstyle=|\son[a-z]+=", html), name


def test_the_scripts_never_make_markup_from_text():
    static = Path(__file__).parents[2] / "src" / "wikihowqa" / "view" / "static"
    for path in static.glob("*.js"):
        source = path.read_text(encoding="utf-8")
        assert not re.search(
            r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function", source
        ), path


def test_question_shards_hold_every_answer_with_the_passages_grounding_reported(
    explorer_site, explorer_inputs
):
    site = read_data(explorer_site, "site")
    rows = per_question_rows(explorer_inputs["report"])
    assert site["systems"] and set(site["systems"]) == {r["system"] for r in rows} - {"gold answer (human)"}
    for row in rows:
        record = read_data(explorer_site, f"q/{row['article_id'] % site['shards']}")[str(row["article_id"])]
        if row["system"] == "gold answer (human)":
            sentences = record["gold"]["s"]
        else:
            answer = next(a for a in record["answers"] if a["system"] == row["system"])
            assert answer["text"] == row["answer"]
            sentences = answer["s"]
        expected = [[p["id"] for p in s["passages"]] for s in row["grounding"]["sentences"]]
        assert [[pid for pid, _ in s[3]] for s in sentences] == expected
        assert [s[0] for s in sentences] == [s["sentence"] for s in row["grounding"]["sentences"]]


def test_documents_are_cut_into_their_passages_in_place(explorer_site, explorer_inputs):
    from wikihowqa.io import DatasetFolder

    site = read_data(explorer_site, "site")
    for article, docs in DatasetFolder(explorer_inputs["dataset"]).documents_by_article().items():
        record = read_data(explorer_site, f"q/{article % site['shards']}")[str(article)]
        for doc, shown in zip(docs, record["docs"], strict=True):
            pieces = shown["pieces"]
            assert "".join(p if isinstance(p, str) else p[1] for p in pieces) == doc.parsed_text
            assert [p[1] for p in pieces if not isinstance(p, str)] == list(doc.passages)


def test_scores_files_hold_the_leaderboard_values_per_question(explorer_site, explorer_inputs):
    site = read_data(explorer_site, "site")
    index = read_data(explorer_site, "index")
    rows = {(r["article_id"], r["system"]): r for r in per_question_rows(explorer_inputs["report"])}
    for k, metric in enumerate(site["metrics"]):
        scores = read_data(explorer_site, f"scores/{k}")
        assert scores["label"] == metric["label"]
        for s, system in enumerate(site["systems"]):
            for i, article in enumerate(index["ids"]):
                raw = rows[(article, system)]["scores"][metric["column"]]
                assert scores["values"][s][i] == pytest.approx(raw * metric["scale"], abs=1e-4)


def test_markdown_keeps_only_whitelisted_elements_and_http_links():
    tree = markdown_tree(
        "# Hi <b>x</b>\n\n[a](javascript:alert(1)) [b](https://x.org) [c](/up)\n\n<script>y</script>\n"
    )
    flat = json.dumps(tree)
    assert tree[0] == ["h1", "Hi <b>x</b>"]  # inline HTML stays text
    assert tree[1] == ["p", "[a](javascript:alert(1)) ", ["a", "https://x.org", "b"], " ", ["a", "", "c"]]
    assert "<script>y</script>" in flat  # as text, which the page shows as text


def test_an_existing_folder_even_a_site_is_replaced_only_with_overwrite(explorer_inputs, tmp_path):
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    with pytest.raises(SettingsError, match="already holds files"):
        build_site(explorer_inputs["dataset"], target)
    assert (target / "notes.txt").read_text() == "mine"
    build_site(explorer_inputs["dataset"], target, overwrite=True)
    assert (target / "site.json").is_file() and not (target / "notes.txt").exists()
    with pytest.raises(SettingsError, match="already holds an explorer site"):
        build_site(explorer_inputs["dataset"], target)
    build_site(explorer_inputs["dataset"], target, overwrite=True)


def test_a_report_of_another_dataset_is_one_error_naming_it(explorer_inputs, tmp_path):
    from wikihowqa.io import write_dataset_folder
    from wikihowqa.records import Document, Example

    other = write_dataset_folder(
        tmp_path / "other", [Example(1, "q", "a", ("u",))], [Document(1, "o", "u", "text")], {}
    ).path
    with pytest.raises(DatasetError, match=r"per_question\.jsonl: none of its answers"):
        build_site(other, tmp_path / "site", report=explorer_inputs["report"])
    with pytest.raises(DatasetError, match=r"no evaluation\.json"):
        build_site(other, tmp_path / "site", report=tmp_path)


def test_the_command_writes_the_site_and_says_what_it_wrote(cli, explorer_inputs, tmp_path):
    result = cli(
        "view", explorer_inputs["dataset"], "--report", explorer_inputs["report"],
        "--meta-evaluation", explorer_inputs["meta"], "--out", tmp_path / "site",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "3 questions, 2 systems" in result.stdout and (tmp_path / "site" / "index.html").is_file()
    missing = cli("view", explorer_inputs["dataset"], "--meta-evaluation", tmp_path, "--out", tmp_path / "s2")
    assert missing.exit_code == 2 and len(missing.lines) == 1 and "meta_evaluation.json" in missing.lines[0]


def test_the_overview_draws_a_flat_funnel_as_one_stage_and_a_staged_one_per_stage(explorer_inputs):
    from wikihowqa.view.pages import overview_context
    from wikihowqa.view.sources import read_sources

    sources = read_sources(explorer_inputs["dataset"])
    staged = overview_context(sources)["funnels"]
    assert [f["name"] for f in staged] == ["articles", "references"]
    assert [(b["label"], b["value"]) for b in staged[1]["chart"]["bars"]] == [("cited", 20), ("kept", 16)]
    sources.manifest = {"funnel": {"requested": 10, "hydrated": 7, "note": "text is skipped"}}
    flat = overview_context(sources)["funnels"][0]["chart"]["bars"]
    assert [(b["label"], b["value"]) for b in flat] == [("requested", 10), ("hydrated", 7)]
