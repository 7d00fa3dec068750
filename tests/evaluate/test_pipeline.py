"""The evaluate stage end to end: files in, per-question scores, report files, CLI, demo step."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.records import Document, Example, Prediction
from wikihowqa.dataset.folder import write_dataset_folder
from wikihowqa.dataset.writers import write_predictions
from wikihowqa.evaluate import pipeline, report, rouge
from wikihowqa.evaluate.bertscore import BertScoreResult
from wikihowqa.evaluate.grounding import GroundingConfig, GroundingScorer
from wikihowqa.evaluate.pipeline import EvaluationSettings, evaluate

from .test_grounding import BagOfWords

TOPICS = ["figs", "fences", "floors", "bread", "roses", "bikes", "tents", "shoes"]


def _dataset(root: Path) -> Path:
    examples, documents = [], []
    for i, topic in enumerate(TOPICS):
        split = "test" if i < 5 else "train"
        answer = f"To care for {topic}, clean the {topic} weekly. Keep the {topic} dry and out of the sun."
        examples.append(Example(100 + i, f"How to Care for {topic.title()}", answer, (f"a{i}",), split))
        documents.append(
            Document(
                100 + i,
                f"u{i}",
                f"a{i}",
                "",
                passages=(
                    f"Clean your {topic} every week with a damp cloth.",
                    f"Store {topic} somewhere dry.",
                ),
            )
        )
    return write_dataset_folder(root / "ds", examples, documents, {"kind": "test"}).path


def _predictions(path: Path, system: str, answers: dict[int, str]) -> Path:
    write_predictions(path, [Prediction(a, system, text) for a, text in answers.items()])
    return path


@pytest.fixture
def fast_models(monkeypatch):
    """Grounding with a bag-of-words encoder and a fake BERTScore: wiring, not model quality."""
    monkeypatch.setattr(GroundingScorer, "encoder", property(lambda self: BagOfWords()))

    class FakeBert:
        def __init__(self, config, idf_sentences=None):
            self.config = config
            self.metadata = {
                "model": "fake",
                "model_type": "fake",
                "num_layers": 1,
                "idf": False,
                "rescaled": False,
                "rescale_note": "raw",
                "hash": "fake_L1",
                "note": None,
            }

        def score(self, predictions, references):
            f = tuple(float(p == r) for p, r in zip(predictions, references, strict=True))
            return BertScoreResult(f, f, f, self.metadata)

    monkeypatch.setattr(pipeline, "BertScorer", FakeBert)


@pytest.fixture
def files(tmp_path):
    ds = _dataset(tmp_path)
    gold = {
        100 + i: f"To care for {t}, clean the {t} weekly. Keep the {t} dry and out of the sun."
        for i, t in enumerate(TOPICS[:5])
    }
    a = _predictions(tmp_path / "a.jsonl", "copy-gold", gold)
    b = _predictions(
        tmp_path / "b.jsonl", "short", {k: "Clean them weekly." for k in list(gold)[:4]} | {999: "x"}
    )
    return ds, a, b, gold


def test_scores_every_system_on_the_split_with_reference_rouge(files, fast_models, tmp_path):
    ds, a, b, gold = files
    result = evaluate(ds, [a, b], EvaluationSettings(grounding=GroundingConfig()), cache_dir=tmp_path / "out")
    assert [e.article_id for e in result.examples] == list(gold)
    by_name = {s.system: s for s in result.systems}
    assert by_name["copy-gold"].scores["rougeL_f"] == [1.0] * 5
    assert by_name["copy-gold"].scores["bertscore_f"] == [1.0] * 5
    short = by_name["short"]
    assert (short.missing, short.outside_split) == (1, 1)
    expected = rouge.score("Clean them weekly.", gold[100])
    assert short.scores["rouge1_p"][0] == expected["rouge1"]["precision"]
    assert short.scores["rougeLsum_f"][0] == expected["rougeLsum"]["fmeasure"]
    assert short.scores["rouge1_f"][4] == 0.0  # no prediction: scored as an empty answer
    assert short.answers[4] == ""
    assert result.gold_grounding is not None and len(result.gold_grounding.scores["grounding_support"]) == 5
    assert result.metadata["bertscore"]["hash"] == "fake_L1"


def test_an_interrupted_run_resumes_from_the_score_cache(files, fast_models, tmp_path, monkeypatch):
    ds, a, b, _ = files
    settings = EvaluationSettings(bertscore=None, grounding=None)
    first = evaluate(ds, [a, b], settings, cache_dir=tmp_path / "out")

    def must_not_run(*args, **kwargs):
        raise AssertionError("scores should come from the cache")

    monkeypatch.setattr(rouge, "score_pairs", must_not_run)
    again = evaluate(ds, [a, b], settings, cache_dir=tmp_path / "out")
    assert [s.scores for s in again.systems] == [s.scores for s in first.systems]


def test_a_resumed_run_reports_the_grounding_it_cached(files, fast_models, tmp_path, monkeypatch):
    """``per_question.jsonl``'s grounding (what ``wikihowqa view`` highlights) survives a resume."""
    ds, a, b, _ = files
    settings = EvaluationSettings(bertscore=None, grounding=GroundingConfig())
    first = evaluate(ds, [a, b], settings, cache_dir=tmp_path / "out")

    def must_not_run(*args, **kwargs):
        raise AssertionError("grounding should come from the cache")

    monkeypatch.setattr(GroundingScorer, "score_many", must_not_run)
    again = evaluate(ds, [a, b], settings, cache_dir=tmp_path / "out")
    before, after = [*first.systems, first.gold_grounding], [*again.systems, again.gold_grounding]
    for old, new in zip(before, after, strict=True):
        assert new.grounding_details == old.grounding_details
        assert all("sentences" in d for d in new.grounding_details)  # none is {"from_cache": True}


def test_grounding_cached_without_its_details_is_scored_again(files, fast_models, tmp_path):
    """A cache from before details were kept: its grounding is scored again, so the report has them."""
    ds, a, b, _ = files
    settings = EvaluationSettings(bertscore=None, grounding=GroundingConfig())
    first = evaluate(ds, [a, b], settings, cache_dir=tmp_path / "out")
    cache = tmp_path / "out" / pipeline.CACHE_FILE
    lines = cache.read_text().splitlines(keepends=True)
    cache.write_text("".join(line for line in lines if '"details"' not in line))
    again = evaluate(ds, [a, b], settings, cache_dir=tmp_path / "out")
    for old, new in zip(first.systems, again.systems, strict=True):
        assert new.grounding_details == old.grounding_details
        assert new.scores == old.scores


def test_a_system_answering_a_question_twice_is_an_error(files, tmp_path):
    ds, a, _, _ = files
    twice = _predictions(tmp_path / "twice.jsonl", "copy-gold", {100: "again"})
    with pytest.raises(DatasetError, match="answers article_id 100 twice"):
        evaluate(ds, [a, twice], EvaluationSettings(bertscore=None, grounding=None))


def test_lower_bounds_are_scored_as_systems(files, fast_models):
    ds, a, _, _ = files
    result = evaluate(ds, [a], EvaluationSettings(bertscore=None, lower_bounds=True))
    names = [s.system for s in result.systems]
    assert names == ["copy-gold", "lower-bound-copy-passages", "lower-bound-random-train-answer"]
    copied = result.systems[1]
    assert copied.answers[0].startswith("Clean your figs") or copied.answers[0].startswith("Store figs")


def test_report_files_hold_leaderboard_intervals_tests_and_per_question_rows(files, fast_models, tmp_path):
    ds, a, b, _ = files
    result = evaluate(ds, [a, b], EvaluationSettings(resamples=200))
    data = report.write_report(result, tmp_path / "report")
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == sorted(report.FILES)
    saved = json.loads((tmp_path / "report" / "evaluation.json").read_text())
    assert saved["leaderboard"][0]["system"] == "copy-gold"  # sorted by ROUGE-L
    r_l = saved["leaderboard"][1]["metrics"]["R-L"]
    short = next(s for s in result.systems if s.system == "short")
    assert r_l["mean"] == pytest.approx(100 * sum(short.scores["rougeL_f"]) / 5)
    assert r_l["low"] <= r_l["mean"] <= r_l["high"]
    assert {c["metric"] for c in saved["comparisons"]} == set(data.scales)
    assert data.to_dict() == saved  # the typed report is what the file says
    markdown = (tmp_path / "report" / "evaluation.md").read_text()
    assert "| copy-gold | 100.0 [100.0, 100.0]" in markdown
    assert "gold answer (human)" in markdown and "bert-score hash `fake_L1`" in markdown
    csv_lines = (tmp_path / "report" / "per_question.csv").read_text().splitlines()
    assert len(csv_lines) == 1 + 2 * 5 and csv_lines[0].startswith("article_id,system,rouge1_p")
    rows = [
        json.loads(line) for line in (tmp_path / "report" / "per_question.jsonl").read_text().splitlines()
    ]
    assert len(rows) == 3 * 5  # two systems and the gold answers' grounding
    assert rows[0]["grounding"]["sentences"][0]["passages"][0]["id"].startswith("100:")
    assert (tmp_path / "report" / "evaluation.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_writes_the_report_and_prints_the_leaderboard(files, tmp_path):
    from typer.testing import CliRunner

    from wikihowqa.cli import app

    ds, a, b, _ = files
    out = tmp_path / "cli-report"
    result = CliRunner().invoke(
        app,
        [
            "evaluate",
            str(ds),
            str(a),
            str(b),
            "--no-bertscore",
            "--no-grounding",
            "--out",
            str(out),
            "--resamples",
            "200",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "copy-gold" in result.output and "R-Lsum" in result.output
    assert (out / "evaluation.md").is_file()


def test_cli_help_quotes_the_grounding_threshold_the_score_uses():
    import typer.main

    from wikihowqa.cli import app

    command = typer.main.get_command(app).commands["evaluate"]
    (option,) = [p for p in command.params if "--grounding-threshold" in p.opts]
    assert option.default is None  # not given: GroundingConfig's own default applies
    assert f"(default {GroundingConfig().threshold:g})" in option.help


def test_cli_reports_user_errors_in_one_line(tmp_path):
    ds = _dataset(tmp_path)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "wikihowqa",
            "evaluate",
            str(ds),
            str(tmp_path / "missing.jsonl"),
            "--no-bertscore",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2
    assert "missing.jsonl: no such file" in run.stderr and "Traceback" not in run.stderr


def test_demo_step_evaluates_predictions_and_lower_bounds(fast_models, tmp_path, capsys):
    from wikihowqa.demo.run import DemoContext, import_real_examples

    ctx = DemoContext(out=tmp_path / "demo")
    ctx.out.mkdir()
    import_real_examples(ctx)
    dataset = ctx.out / "real-examples"  # the dataset the demo stands in with when none was built
    (dataset / "predictions").mkdir()
    _predictions(dataset / "predictions" / "echo.jsonl", "question-echo", {1366001: "How To Dry Figs"})
    from wikihowqa.demo.run import evaluate_predictions

    evaluate_predictions(ctx)
    saved = json.loads((dataset / "report" / "evaluation.json").read_text())
    assert {r["system"] for r in saved["leaderboard"]} == {
        "question-echo",
        "lower-bound-copy-passages",
        "lower-bound-random-train-answer",
    }
    assert ctx.produced[-1][0].startswith("evaluation report")
    assert pipeline.GOLD_SYSTEM in (dataset / "report" / "evaluation.md").read_text()
    # The leaderboard is printed: every system, in order, whole (80 columns: the columns that do not fit
    # beside the names go into a second table, which names the systems again), with its computed means.
    printed = capsys.readouterr().out
    rows = [ln for ln in printed.splitlines() if ln.startswith("│") and ln.split("│")[2].strip()]
    cells_of: dict[str, list[str]] = {}
    for line in rows:
        cells = [c.strip() for c in line.split("│")[1:-1]]
        cells_of.setdefault(cells[0], []).extend(cells[1:])
    assert list(cells_of) == [row["system"] for row in saved["leaderboard"]]
    for row in saved["leaderboard"]:
        assert cells_of[row["system"]] == [
            f"{row['metrics'][label]['mean']:.{3 if label in {'BERTScore', 'Grounding'} else 1}f}"
            for label in saved["scales"]
        ]


def test_the_demo_ends_with_the_evaluation_report_then_its_explorer():
    from wikihowqa.demo.run import STEPS

    assert STEPS[-2][0].startswith("evaluate the predictions")
    assert STEPS[-1][0].startswith("write the results explorer")


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "wikihowqa", "evaluate", *map(str, args), "--no-bertscore", "--no-grounding",
         "--resamples", "100"],
        capture_output=True, text=True, check=False, env={**os.environ, "COLUMNS": "300"},
    )  # fmt: skip


def test_split_all_scores_every_question_of_the_dataset(files, tmp_path):
    ds, a, _, _ = files
    run = _cli(ds, a, "--split", "all", "--out", tmp_path / "all")
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    saved = json.loads((tmp_path / "all" / "evaluation.json").read_text())
    assert (saved["split"], saved["questions"]) == ("all", len(TOPICS))


def test_predictions_that_answer_no_question_of_the_split_are_an_error_naming_their_split(files, tmp_path):
    ds, _, _, _ = files
    train_only = _predictions(tmp_path / "train.jsonl", "trained", {105: "x", 106: "y", 4242: "z"})
    with pytest.raises(DatasetError, match="none of the 3 predictions of system 'trained' answers a"):
        evaluate(ds, [train_only], EvaluationSettings(bertscore=None, grounding=None))
    run = _cli(ds, train_only, "--out", tmp_path / "rep")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.strip() == (
        f"error: {train_only}: none of the 3 predictions of system 'trained' answers a question of the test"
        " split (5 questions); their questions: 2 train, 1 not in the dataset; use --split train or"
        " --split all"
    )
    assert not (tmp_path / "rep" / "evaluation.json").exists()


def test_predictions_covering_the_split_in_part_are_scored_with_a_loud_warning(files, tmp_path):
    ds, a, b, _ = files
    run = _cli(ds, a, b, "--out", tmp_path / "rep")
    assert run.returncode == 0, run.stderr
    warnings = [line for line in run.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: system 'short' ({b}): 1 of 5 test questions have no prediction (scored as empty answers,"
        " which lowers every score); 1 predictions answer questions outside the split (ignored)"
    ]


@pytest.mark.parametrize(("flag", "scored"), [("--bertscore", True), ("--no-bertscore", False), (None, True)])
def test_bertscore_is_switched_like_grounding(files, fast_models, tmp_path, flag, scored):
    from typer.testing import CliRunner

    from wikihowqa.cli import app

    ds, a, _, _ = files
    out = tmp_path / "rep"
    args = ["evaluate", str(ds), str(a), "--no-grounding", "--resamples", "100", "--out", str(out)]
    result = CliRunner().invoke(app, args + ([flag] if flag else []))
    assert result.exit_code == 0, result.output
    saved = json.loads((out / "evaluation.json").read_text())
    assert ("bertscore" in saved["metrics"]) is scored and ("BERTScore" in saved["scales"]) is scored


def test_an_unknown_split_is_one_line_naming_it(files, tmp_path):
    ds, a, _, _ = files
    run = _cli(ds, a, "--split", "nope", "--out", tmp_path / "rep")
    assert run.returncode == 2
    assert run.stderr == "error: --split nope: unknown split 'nope' (known: train, validation, test, all)\n"
    assert not (tmp_path / "rep").exists()


# --------------------------------------------------------------------------- each passage embedded once


class CountingEncoder:
    """Stands in for every sentence encoder the project loads (``encoders.embed``'s loaders): a fixed unit
    vector per text, and a count of every text it was given."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()

    def encode(self, texts, **_):
        self.seen.update(texts)
        rows = [
            np.random.default_rng(int(hashlib.sha1(t.encode()).hexdigest()[:8], 16)).normal(size=16)
            for t in texts
        ]
        return np.stack([r / np.linalg.norm(r) for r in rows]).astype(np.float32)


def test_answer_then_evaluate_embed_each_passage_at_most_once(tmp_path, real_examples_dir, monkeypatch):
    import wikihowqa.encoders.embed
    from wikihowqa.answer import answer_split
    from wikihowqa.release.importer import import_release

    encoder = CountingEncoder()
    import wikihowqa.runtime.executor

    # models load once per process: an earlier test's encoder must not stand in for the counting one
    monkeypatch.setattr(wikihowqa.runtime.executor, "MODELS", {})
    monkeypatch.setattr(wikihowqa.encoders.embed, "_load", lambda *_: encoder)
    monkeypatch.setattr(wikihowqa.encoders.embed, "_load_openvino", lambda *_: encoder)
    folder, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "ds"
    )
    passages = {p for d in folder.documents() for p in d.passages}
    dense = answer_split(folder, "dense+lead", split="test").out
    embedded = {t for t in encoder.seen if t in passages}
    assert embedded and all(encoder.seen[t] == 1 for t in embedded)  # answer embedded the test passages

    settings = EvaluationSettings(split="test", bertscore=None, lower_bounds=True)
    result = evaluate(folder.path, [dense], settings, cache_dir=tmp_path / "report")
    assert {t: n for t, n in encoder.seen.items() if t in passages and n > 1} == {}
    assert {t for t in encoder.seen if t in passages} == embedded  # grounding read them all from the cache
    assert all(r.scores["grounding_support"][0] > 0 for r in [*result.systems, result.gold_grounding])


def test_grounding_and_dense_retrieval_key_their_vectors_alike_whatever_the_cpu(monkeypatch):
    """One passage precision for both (float32: bf16 moved a grounding support by more than 0.01), so the
    key grounding reads is the one ``answer``'s dense retrieval wrote, on a CPU with BF16 or without."""
    import wikihowqa.encoders.openvino_encoder as ov
    from wikihowqa.encoders.embed import PASSAGE_PRECISION
    from wikihowqa.retrieve.dense import EncoderSpec
    from wikihowqa.schema.settings import DenseOptions

    answer_default = DenseOptions().precision  # retrieval.dense.precision
    assert answer_default == PASSAGE_PRECISION == GroundingConfig().precision == "f32"
    for capabilities in (("FP32", "BF16"), ("FP32",)):
        monkeypatch.setattr(ov, "_capabilities", lambda c=capabilities: c)
        key = GroundingScorer(GroundingConfig(device="cpu"), encoder=BagOfWords()).encoder_key
        dense = EncoderSpec(device="cpu", precision=answer_default).resolved().key
        assert key == dense == "st:all-MiniLM-L6-v2:|@openvino-f32"
