"""The answer stage: systems by name → valid predictions files; resumable; clear errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from wikihowqa.answer import SYSTEMS, answer_split, partial_path
from wikihowqa.errors import DatasetError, SettingsError
from wikihowqa.importer import import_release
from wikihowqa.io import prediction_to_dict, read_predictions
from wikihowqa.records import Prediction

NO_MODEL_SYSTEMS = [
    "bm25+lead",
    "bm25+textrank",
    "bm25+lexrank",
    "oracle",
    "copy-top-passages",
    "random-train-answer",
]


@pytest.fixture
def folder(tmp_path, real_examples_dir):
    folder, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "ds"
    )
    return folder


def test_every_system_the_brief_names_is_registered():
    assert set(SYSTEMS) == {
        *NO_MODEL_SYSTEMS,
        "dense+lead",
        "hybrid+lead",
        "seq2seq",
        "llm-question-only",
        "llm-passages",
    }


@pytest.mark.parametrize("system", NO_MODEL_SYSTEMS)
def test_systems_without_a_model_write_valid_predictions(folder, system):
    report = answer_split(folder, system, split="train")
    assert report.out == folder.path / "predictions" / f"{system}.train.jsonl"
    predictions = read_predictions(report.out)  # validates every row
    documents = folder.documents_by_article()
    assert [p.article_id for p in predictions] == [704295, 930014]
    for p in predictions:
        assert p.system == system and p.answer.strip() and p.settings["split"] == "train"
        urls = {d.archive_url for d in documents[p.article_id]}
        for used in p.passages:
            doc = next(d for d in documents[p.article_id] if d.archive_url == used.archive_url)
            assert used.archive_url in urls and doc.passages[used.position] == used.text and used.rank >= 1


def test_retrieval_systems_record_rank_and_score_of_used_passages(folder):
    (p,) = read_predictions(answer_split(folder, "bm25+lead", split="test").out)
    assert p.settings["retrieval"]["retriever"] == "bm25" and p.settings["retrieval"]["mode"] == "supporting"
    assert [u.rank for u in p.passages] == sorted(u.rank for u in p.passages)
    assert all(u.score is not None for u in p.passages)
    assert p.passages[0].rank == 1  # the lead sentence of the best passage comes first
    assert p.answer.startswith(p.passages[0].text.split(".")[0][:20])


def test_answer_length_budget_defaults_to_the_mean_train_answer(folder):
    train = folder.examples("train")
    mean = round(sum(len(e.answer.split()) for e in train) / len(train))
    (p,) = read_predictions(answer_split(folder, "bm25+textrank", split="test").out)
    assert p.settings["max_words"] == mean
    assert len(p.answer.split()) <= mean or len(p.passages) == 1


def test_the_oracle_beats_lead_on_rouge(folder):
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2"], use_stemmer=True)
    gold = {e.article_id: e.answer for e in folder.examples("train")}
    scores = {}
    for system in ("oracle", "bm25+lead"):
        preds = read_predictions(answer_split(folder, system, split="train").out)
        scores[system] = sum(scorer.score(gold[p.article_id], p.answer)["rouge2"].fmeasure for p in preds)
    assert scores["oracle"] > scores["bm25+lead"]


def test_lower_bounds_are_evaluate_s_definitions_written_as_predictions(folder):
    from wikihowqa.generate import lower_bounds

    test = folder.examples("test")
    documents = folder.documents_by_article()
    (drawn,) = read_predictions(answer_split(folder, "random-train-answer", split="test").out)
    (expected,) = lower_bounds.random_train_answer(test, folder.examples("train"), seed=0)
    assert drawn.answer == expected.answer and drawn.settings["source_article_id"] != 1366001
    (copied,) = read_predictions(answer_split(folder, "copy-top-passages", split="test").out)
    reference = lower_bounds.copy_passages(test[0], documents[1366001])
    assert copied.answer == reference.answer and len(copied.answer.split()) == 100
    ranks = [u.rank for u in copied.passages]
    assert ranks == [u.rank for u in reference.passages] == list(range(1, len(ranks) + 1))


def test_split_all_answers_every_question(folder):
    report = answer_split(folder, "bm25+lead", split="all")
    assert report.out.name == "bm25+lead.all.jsonl"
    assert [p.article_id for p in read_predictions(report.out)] == [e.article_id for e in folder.examples()]


def test_open_mode_ranks_passages_of_the_whole_split(folder):
    (p,) = read_predictions(
        answer_split(
            folder, "bm25+lead", split="train", limit=1, settings={"retrieval": {"mode": "open"}}
        ).out
    )
    assert p.settings["retrieval"]["mode"] == "open"


def test_a_rerun_answers_only_what_is_missing(folder):
    first = answer_split(folder, "bm25+lead", split="train", limit=1)
    assert (first.answered_before, first.answered_now) == (0, 1)
    second = answer_split(folder, "bm25+lead", split="train")
    assert (second.answered_before, second.answered_now) == (1, 1)
    third = answer_split(folder, "bm25+lead", split="train")
    assert (third.answered_before, third.answered_now) == (2, 0)
    assert len(read_predictions(third.out)) == 2


def test_an_interrupted_run_resumes_from_its_partial_file_and_drops_a_torn_line(folder):
    out = folder.path / "predictions" / "bm25+lead.train.jsonl"
    out.parent.mkdir(parents=True)
    done = Prediction(704295, "bm25+lead", "kept from the interrupted run")
    partial_path(out).write_text(json.dumps(prediction_to_dict(done)) + "\n" + '{"article_id": 930014, "sys')
    report = answer_split(folder, "bm25+lead", split="train")
    assert (report.answered_before, report.answered_now) == (1, 1)
    predictions = read_predictions(out)
    assert predictions[0].answer == "kept from the interrupted run" and predictions[1].article_id == 930014
    assert not partial_path(out).exists()


def test_a_file_of_another_system_is_not_overwritten(folder, tmp_path):
    out = tmp_path / "mine.jsonl"
    answer_split(folder, "bm25+lead", split="train", out=out)
    with pytest.raises(DatasetError, match="holds predictions of system 'bm25\\+lead', not 'oracle'"):
        answer_split(folder, "oracle", split="train", out=out)


def test_user_mistakes_are_clear_errors(folder):
    with pytest.raises(SettingsError, match=r"unknown system 'bm26\+lead' \(known: bm25\+lead, "):
        answer_split(folder, "bm26+lead")
    with pytest.raises(SettingsError, match="seq2seq needs a model"):
        answer_split(folder, "seq2seq")
    with pytest.raises(DatasetError, match="no questions in the validation split"):
        answer_split(folder, "bm25+lead", split="validation")
    with pytest.raises(SettingsError, match="unknown split 'tset'"):
        answer_split(folder, "bm25+lead", split="tset")
    with pytest.raises(SettingsError, match="unknown setting"):
        answer_split(folder, "llm-question-only", settings={"llm": {"openai": {"modle": "x"}}})


def test_dense_and_hybrid_systems_cache_embeddings_in_the_dataset_folder(folder):
    report = answer_split(folder, "hybrid+lead", split="test")
    (p,) = read_predictions(report.out)
    assert p.settings["retrieval"]["retriever"] == "hybrid"
    assert (folder.path / "cache" / "embeddings.sqlite").is_file()
    (q,) = read_predictions(answer_split(folder, "dense+lead", split="test").out)
    assert q.answer.strip()


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "wikihowqa", *args], capture_output=True, text=True, timeout=300
    )


def test_cli_answer_prints_where_the_predictions_went(folder):
    result = run_cli("answer", str(folder.path), "--system", "bm25+lead", "--set", "extractive.max_words=30")
    assert result.returncode == 0, result.stderr
    out = folder.path / "predictions" / "bm25+lead.jsonl"
    assert str(out) in result.stdout.replace("\n", "")
    (p,) = read_predictions(out)
    assert p.settings["max_words"] == 30


def test_cli_errors_are_one_line(folder):
    result = run_cli("answer", str(folder.path), "--system", "nope")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "unknown system 'nope'" in result.stderr
    result = run_cli(
        "answer", str(folder.path), "--system", "bm25+lead", "--config", str(folder.path / "x.yaml")
    )
    assert result.returncode == 2 and "no such settings file" in result.stderr


def test_demo_step_answers_the_demo_dataset_into_the_predictions_folder(tmp_path, real_examples_dir):
    from wikihowqa.demo.run import DemoContext, answer_questions

    import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "dataset"
    )
    ctx = DemoContext(out=tmp_path, settings={"answer_llm": False})
    answer_questions(ctx)
    (p,) = read_predictions(tmp_path / "dataset" / "predictions" / "bm25+lead.jsonl")  # answer's default
    assert p.system == "bm25+lead" and p.answer
    assert ctx.produced == [("predictions: bm25+lead", "dataset/predictions/bm25+lead.jsonl", "1 answer(s)")]


# --------------------------------------------------------------------------- failures a script can see


def _llm_cli(folder, server_url, *extra, timeout=120):
    """``answer`` with llm-question-only against ``server_url``, unpaced (the SDK's retry backoff is real)."""
    return subprocess.run(
        [
            sys.executable, "-m", "wikihowqa", "answer", str(folder.path), "--system", "llm-question-only",
            "--split", "all", "--set", f"llm.openai.base_url={server_url}",
            "--set", "llm.openai.requests_per_minute=0", *extra,
        ],
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def _error_line(stderr: str) -> str:
    [line] = [x for x in stderr.splitlines() if x.startswith("error:")]
    assert "Traceback" not in stderr
    return line


def test_cli_answer_exits_1_and_says_how_many_questions_failed(folder):
    from tests.generate.test_llm import ScriptedServer, ok

    def reply(body):
        question = body["messages"][-1]["content"]
        return (503, {}, b"busy") if "Seal Concrete" in question else ok("fine")

    with ScriptedServer(default=reply) as server:
        result = _llm_cli(folder, server.url, "--set", "llm.openai.max_retries=1")
    assert result.returncode == 1
    line = _error_line(result.stderr)
    assert line.startswith("error: 1 of 3 questions failed and are left out: 704295: ")
    assert line.endswith("To fix: rerun the command to retry them")
    out = folder.path / "predictions" / "llm-question-only.all.jsonl"
    assert [p.article_id for p in read_predictions(out)] == [1366001, 930014]


def test_cli_answer_with_every_question_failing_writes_no_empty_file_and_exits_1(folder):
    from tests.generate.test_llm import ScriptedServer

    with ScriptedServer(default=lambda body: (500, {}, b"down")) as server:
        result = _llm_cli(folder, server.url, "--set", "llm.openai.max_retries=0")
    assert result.returncode == 1
    assert _error_line(result.stderr).startswith("error: 3 of 3 questions failed")
    assert "(no predictions file written)" in result.stdout
    assert not (folder.path / "predictions" / "llm-question-only.all.jsonl").exists()


def test_cli_answer_with_no_server_listening_fails_at_once_in_one_line(folder):
    """It took the full retry budget per question (7 attempts, about 49 s each; 3 minutes here)."""
    from tests.generate.test_llm import closed_port_url

    url = closed_port_url()
    # the default budget: 6 retries, backing off; 60 s: start-up alone takes 10-20 s on a loaded machine
    result = _llm_cli(folder, url, timeout=60)
    assert result.returncode == 2
    assert _error_line(result.stderr).startswith(f"error: cannot connect to {url} (connection refused);")
    assert not (folder.path / "predictions" / "llm-question-only.all.jsonl").exists()


def test_cli_answer_context_overflow_says_to_lower_the_prompt_budget_not_to_rerun(folder):
    from tests.generate.test_llm import LLAMA_CPP_OVERFLOW, ScriptedServer

    with ScriptedServer(default=lambda body: (400, {}, json.dumps(LLAMA_CPP_OVERFLOW).encode())) as server:
        result = _llm_cli(folder, server.url)
        assert len(server.requests) == 3  # one each: nothing retried
    assert result.returncode == 1
    line = _error_line(result.stderr)
    assert "lower llm.prompt.max_context_tokens (now 1500) or llm.openai.max_tokens (now 256)" in line
    assert "--set llm.prompt.max_context_tokens=1752" in line  # 2048 - 256 - 40 (a 2 % margin)
    assert "rerun the command to retry" not in line


def test_the_catalogue_the_command_line_lists_is_the_registry_s_table_of_systems():
    from wikihowqa.answer.catalogue import DESCRIPTIONS

    assert list(DESCRIPTIONS) == list(SYSTEMS)
    assert all(SYSTEMS[name].description == what for name, what in DESCRIPTIONS.items())


def test_listing_the_systems_loads_no_answerer():
    import subprocess
    import sys

    heavy = ("wikihowqa.answer.run", "wikihowqa.answer.systems", "numpy")
    code = f"import sys, wikihowqa.cli; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "[]"
