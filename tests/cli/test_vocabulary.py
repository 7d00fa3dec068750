"""One vocabulary across the commands (issue 36): ``--out`` for every output, ``--overwrite`` for a finished
one, ``--fresh`` to restart a resumable run, one meaning per option name, inputs found where the commands
write them, and terminal tables whose first column stays readable at 80 columns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from rich.console import Console

import wikihowqa.cli.answer as answer_cli
import wikihowqa.generate.seq2seq as seq2seq
import wikihowqa.parse.stage as parse_stage
from tests.cli.test_metaeval import simulated_study  # noqa: F401  a fixture: a study with judgments
from tests.evaluate import judge_servers
from tests.evaluate.judge_servers import ScriptedServer
from tests.evaluate.test_judge import three_questions
from wikihowqa.cli import app
from wikihowqa.core.errors import WikihowqaError
from wikihowqa.core.records import Prediction
from wikihowqa.dataset.writers import write_predictions
from wikihowqa.evaluate.pipeline import LEADERBOARD
from wikihowqa.generate.seq2seq import TrainResult
from wikihowqa.release.importer import import_release
from wikihowqa.schema.files import read_generator_settings
from wikihowqa.schema.settings import GeneratorConfig

COMMANDS = typer.main.get_command(app).commands  # type: ignore[attr-defined]


def _option(command: str, name: str):
    return next((p for p in COMMANDS[command].params if name in getattr(p, "opts", ())), None)


# --- names: one meaning each; an old name works for one release and says what replaces it -------------------

#: (command, old name, new name) of every option renamed by issue 36.
RENAMED = [
    ("build", "--timeout", "--http-timeout"),
    ("hydrate", "--timeout", "--http-timeout"),
    ("parse", "--timeout", "--page-timeout"),
    ("export-lm-eval", "--max-gen-toks", "--max-new-tokens"),
    ("view", "--study", "--meta-evaluation"),
    ("train", "--output-dir", "--out"),
]


@pytest.mark.parametrize(("command", "old", "new"), RENAMED)
def test_a_renamed_option_keeps_its_old_name_as_a_deprecated_alias(command, old, new):
    assert _option(command, new) is not None
    alias = _option(command, old)
    assert alias is not None and alias.help == f"Deprecated (removed in the next release): use {new}."


def test_timeout_no_longer_means_two_things():
    """build's --timeout was one HTTP response (30 s), parse's one page's parse (60 s): now two names."""
    for command in COMMANDS:
        option = _option(command, "--timeout")
        assert option is None or option.help.startswith("Deprecated"), command
    assert "HTTP response" in _option("build", "--http-timeout").help
    assert "HTTP response" in _option("hydrate", "--http-timeout").help
    assert "one page's parse" in _option("parse", "--page-timeout").help


def test_max_new_tokens_is_the_one_name_for_the_longest_answer():
    assert _option("answer", "--max-new-tokens") and _option("export-lm-eval", "--max-new-tokens")
    assert all(_option(c, "--max-gen-toks") is None or c == "export-lm-eval" for c in COMMANDS)


def test_every_port_has_one_default_and_says_what_0_means():
    found = {c: _option(c, "--port") for c in COMMANDS if _option(c, "--port")}
    assert set(found) == {"demo", "replay-site", "serve", "view"}
    for command, option in found.items():
        assert option.default == 8000 and "0: any free port" in option.help, command


def test_every_command_that_writes_an_output_takes_out():
    writers = {
        "analyze", "answer", "demo", "deteriorate", "evaluate", "export-hub", "export-judgments",
        "export-lm-eval", "hydrate", "meta-evaluate", "simulate-judgments", "stats", "study-predictions",
        "tasks", "train", "view",
    }  # fmt: skip
    for command in writers:
        option = _option(command, "--out")
        assert option is not None and "(default: " in option.help, command


def test_every_command_whose_finished_output_could_be_replaced_takes_overwrite():
    for command in (
        "stats",
        "analyze",
        "meta-evaluate",
        "study-predictions",
        "export-hub",
        "export-lm-eval",
        "view",
        "tasks",
        "deteriorate",
        "simulate-judgments",
        "export-judgments",
        "import",
    ):
        option = _option(command, "--overwrite")
        assert option is not None and option.default is False, command


def test_stats_refuses_to_replace_a_report_without_overwrite(cli, tmp_path):
    ds, _ = three_questions(tmp_path)
    first = cli("stats", ds, "--no-audit", "--workers", "1")
    assert first.exit_code == 0, first.output
    report = ds / "stats" / "stats.md"
    report.write_text("an earlier report")
    again = cli("stats", ds, "--no-audit", "--workers", "1")
    assert again.exit_code == 2 and again.lines == [
        f"error: {report}: exists (use --overwrite to replace it)"
    ]
    assert report.read_text() == "an earlier report"
    replaced = cli("stats", ds, "--no-audit", "--workers", "1", "--overwrite")
    assert replaced.exit_code == 0 and report.read_text() != "an earlier report"


def test_every_resumable_command_restarts_with_fresh():
    for command in ("build", "hydrate", "parse", "answer", "evaluate", "train"):
        option = _option(command, "--fresh")
        assert option is not None and option.default is False, command


def test_parse_with_the_old_timeout_warns_and_gives_its_value_to_the_page_limit(cli, tmp_path, monkeypatch):
    seen = []

    class Stop(WikihowqaError):
        pass

    def reparse(folder, source, settings, **kwargs):
        seen.append((settings.timeout_s, (Path(folder) / parse_stage.PROGRESS_FILE).exists()))
        raise Stop("stopped")

    monkeypatch.setattr(parse_stage, "reparse_folder", reparse)
    ds, _ = three_questions(tmp_path)
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "index.jsonl").write_text("")
    old = cli("parse", ds, "--raw", raw, "--timeout", "7")
    assert old.lines == [
        "warning: --timeout is deprecated and will be removed in the next release; use --page-timeout",
        "error: stopped",
    ]
    new = cli("parse", ds, "--raw", raw, "--page-timeout", "9")
    default = cli("parse", ds, "--raw", raw)
    assert new.lines == default.lines == ["error: stopped"]
    assert [s for s, _ in seen] == [7.0, 9.0, 60.0]
    # --fresh: the progress file of an interrupted parse is forgotten before the parse starts
    (ds / parse_stage.PROGRESS_FILE).write_text("")
    cli("parse", ds, "--raw", raw)
    cli("parse", ds, "--raw", raw, "--fresh")
    assert [existed for _, existed in seen[-2:]] == [True, False]


def test_the_old_system_name_llm_qonly_warns_and_runs_as_llm_question_only(cli, tmp_path):
    ds, _ = three_questions(tmp_path)
    result = cli("answer", ds, "-s", "llm-qonly", "--set", "llm.openai.modle=x")
    assert result.exit_code == 2
    assert result.lines[0] == (
        "warning: system llm-qonly is now called llm-question-only; the old name will be removed in the next "
        "release"
    )
    assert "modle" in result.lines[1]


def test_export_lm_eval_writes_into_the_dataset_and_takes_the_old_positional_out_with_a_warning(
    cli, small_dataset, tmp_path
):
    made = cli("export-lm-eval", small_dataset, "--question-only", "--max-gen-toks", "7", "--no-grounding")
    assert made.exit_code == 0, made.output
    assert "max_gen_toks: 7" in (small_dataset / "lm-eval" / "wikihowqa.yaml").read_text()
    assert made.lines[0].startswith("warning: --max-gen-toks is deprecated")
    old = cli("export-hub", small_dataset, tmp_path / "hub")
    assert old.exit_code == 0, old.output
    assert old.lines[0] == (
        "warning: OUT as a positional argument is deprecated and will be removed in the next release; use "
        "--out OUT"
    )
    assert (tmp_path / "hub" / "README.md").is_file()


# --- study-predictions: --out, and never a silent rewrite ---------------------------------------------------


def test_study_predictions_writes_into_the_study_and_refuses_to_overwrite_without_overwrite(
    cli,
    simulated_study,  # noqa: F811
):
    _, study, root = simulated_study
    first = cli("study-predictions", study)
    assert first.exit_code == 0, first.output
    written = sorted((study / "predictions").glob("*.jsonl"))
    assert len(written) == 3
    stale = study / "predictions" / "an-earlier-system.jsonl"
    stale.write_text("")
    again = cli("study-predictions", study)
    assert again.exit_code == 2 and len(again.lines) == 1 and "--overwrite" in again.lines[0]
    assert stale.is_file()  # nothing touched
    replaced = cli("study-predictions", study, "--overwrite")
    assert replaced.exit_code == 0, replaced.output
    assert sorted((study / "predictions").glob("*.jsonl")) == written  # the stale system is gone
    old = cli("study-predictions", study, root / "old-form")
    assert old.exit_code == 0 and old.lines[0].startswith("warning: OUT as a positional argument")
    assert len(list((root / "old-form").glob("*.jsonl"))) == 3


# --- inputs found where the commands write them -------------------------------------------------------------


def _answered(tmp_path: Path) -> Path:
    ds, _ = three_questions(tmp_path)
    write_predictions(
        ds / "predictions" / "sys.jsonl", [Prediction(i, "sys", f"Thing {i}.") for i in range(3)]
    )
    write_predictions(
        ds / "predictions" / "sys.train.jsonl", [Prediction(9, "other-split", "Not a test answer.")]
    )
    return ds


QUICK = ("--no-bertscore", "--no-grounding", "--resamples", "100")


@pytest.mark.parametrize("given", [["predictions/sys.jsonl"], ["predictions/sy?.jsonl"], []])
def test_evaluate_finds_predictions_inside_the_dataset_where_answer_writes_them(cli, tmp_path, given):
    """From another folder, `evaluate DATASET predictions/sys.jsonl` (the README's form), a pattern the
    shell left as it was, or no file at all (DATASET/predictions/ for the split) score what answer wrote."""
    ds = _answered(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = cli("evaluate", ds, *given, *QUICK, cwd=elsewhere)
    assert result.exit_code == 0, result.output
    systems = [
        row["system"] for row in json.loads((ds / "report" / "evaluation.json").read_text())["leaderboard"]
    ]
    assert systems == ["sys"]


def test_evaluate_with_no_predictions_anywhere_says_where_it_looked(cli, tmp_path):
    ds, _ = three_questions(tmp_path)
    result = cli("evaluate", ds, *QUICK)
    assert result.exit_code == 2 and len(result.lines) == 1
    assert str(ds / "predictions") in result.lines[0] and "wikihowqa answer" in result.lines[0]


def test_tasks_finds_the_review_file_deteriorate_wrote_and_writes_the_study_into_the_dataset(cli, tmp_path):
    from wikihowqa.demo.paths import real_examples_path

    src = real_examples_path()
    dataset, _ = import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "ds")
    assert cli("deteriorate", dataset.path, "--seed", "1").exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    made = cli(
        "tasks", dataset.path, "--deteriorated", "deteriorated.jsonl", "--review", "review.csv",
        "--allow-unreviewed", cwd=elsewhere,
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert (dataset.path / "study" / "tasks.jsonl").is_file()


# --- evaluate on the QA part alone --------------------------------------------------------------------------


def test_evaluate_without_documents_scores_rouge_and_bertscore_and_says_what_it_skipped(cli, tmp_path):
    ds, preds = three_questions(tmp_path)
    (ds / "documents.jsonl").unlink()
    result = cli("evaluate", ds, preds, "--bertscore-model", "minilm", "--resamples", "100")
    assert result.exit_code == 0, result.output
    notes = [line for line in result.lines if line.startswith("note:")]
    assert notes == [
        f"note: {ds} has no documents: scored ROUGE and BERTScore; skipped grounding, which needs them "
        f"(`wikihowqa hydrate {ds}` fetches them; --no-grounding silences this note)"
    ]
    board = json.loads((ds / "report" / "evaluation.json").read_text())["leaderboard"][0]["metrics"]
    assert "R-1" in board and "BERTScore" in board and "Grounding" not in board
    quiet = cli("evaluate", ds, preds, *QUICK, "--out", tmp_path / "r2")
    assert quiet.exit_code == 0 and not [line for line in quiet.lines if line.startswith("note:")]
    judged = cli("evaluate", ds, preds, *QUICK, "--judge", "j")
    assert judged.exit_code == 2 and len(judged.lines) == 1 and "hydrate" in judged.lines[0]


# --- answer and train ---------------------------------------------------------------------------------------


def test_answer_fresh_forgets_the_earlier_answers(cli, tmp_path):
    ds, _ = three_questions(tmp_path)
    first = cli("answer", ds, "-s", "bm25+lead", "--limit", "2")
    again = cli("answer", ds, "-s", "bm25+lead", "--limit", "2")
    fresh = cli("answer", ds, "-s", "bm25+lead", "--limit", "2", "--fresh")
    assert "2 answered now, 0 earlier" in first.stdout
    assert "0 answered now, 2 earlier" in again.stdout
    assert "2 answered now, 0 earlier" in fresh.stdout


def test_train_without_config_uses_the_example_that_ships_and_writes_into_the_dataset(
    cli, tmp_path, monkeypatch
):
    seen = []

    def fine_tune(dataset, config, **kwargs):
        seen.append(config)
        return TrainResult(Path(config.output_dir) / "final", None, 4, None, 2, 0)

    monkeypatch.setattr(seq2seq, "fine_tune", fine_tune)
    monkeypatch.setattr(answer_cli, "fine_tune", fine_tune, raising=False)
    ds, _ = three_questions(tmp_path)
    result = cli("train", ds)
    assert result.exit_code == 0, result.output
    assert seen[-1].model == "facebook/bart-base" and Path(seen[-1].output_dir) == ds / "generator"


def test_the_example_train_settings_are_valid_and_differ_from_the_defaults_only_where_they_say():
    from wikihowqa.cli.answer import EXAMPLE_TRAIN_SETTINGS

    settings = GeneratorConfig.from_settings(read_generator_settings(EXAMPLE_TRAIN_SETTINGS))
    defaults = GeneratorConfig()
    changed = {k for k, v in settings.model_dump().items() if v != defaults.model_dump()[k]}
    assert changed == {"model"}  # the file's comment: every key at its default except the model
    assert EXAMPLE_TRAIN_SETTINGS.name in _option("train", "--config").help


# --- terminal tables at 80 columns --------------------------------------------------------------------------


def _render(renderable, width: int = 80) -> list[str]:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text().splitlines()


def test_a_leaderboard_wider_than_the_terminal_keeps_every_system_name_whole():
    from wikihowqa.evaluate.terminal import NamedRows

    names = ["lower-bound-copy-passages", "lower-bound-random-train-answer", "bm25+lead", "gold answer"]
    columns = [(label, ["12.34"] * len(names)) for label, _, _ in LEADERBOARD]
    lines = _render(NamedRows("4 test questions", "system", names, columns))
    assert max(len(line) for line in lines) <= 80
    text = "\n".join(lines)
    for name in names:
        assert sum(name in line for line in lines) >= 1, name
    for label, _, _ in LEADERBOARD:
        assert label in text, label  # every column is shown, in a second table when it does not fit
    assert "(1 of 3)" in text and "(3 of 3)" in text  # 10 score columns beside a 31-character name
    wide = _render(NamedRows("t", "system", names, columns), width=200)
    assert "(1 of" not in "\n".join(wide)  # a terminal wide enough gets one table


def test_evaluate_with_the_judge_shows_the_system_names_at_80_columns(cli, tmp_path):
    """The CLI's console is 80 columns wide when it is not a terminal, as here."""
    ds, predictions = judge_servers.dataset(tmp_path)
    with ScriptedServer(default=judge_servers.longer) as server:
        run = cli(
            "evaluate", ds, predictions, "--no-bertscore", "--resamples", 100, "--lower-bounds",
            "--judge", "j", "--judge-base-url", server.url, "--judge-rpm", 0,
        )  # fmt: skip
    assert run.exit_code == 0, run.output
    lines = run.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    for name in ("verbose", "terse", "lower-bound-copy-passages"):
        assert any(name in line for line in lines), name
    assert "Judge: usefulness" in run.stdout
