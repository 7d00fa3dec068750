"""export-lm-eval: the task folder runs under lm-evaluation-harness (its dummy model, a tiny local
transformers model) and scores with this project's ROUGE and grounding."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from rouge_score import rouge_scorer

from wikihowqa.export.lm_eval import LmEvalSettings, export_lm_eval

LM_EVAL = Path(sys.executable).with_name("lm_eval")
REFERENCE = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)


def _utils(task_dir: Path):
    spec = importlib.util.spec_from_file_location("wikihowqa_task_utils", task_dir / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_lm_eval(task_dir: Path, out: Path, *model_args: str) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    command = [str(LM_EVAL), "run", "--include_path", str(task_dir), "--tasks", "wikihowqa", *model_args]
    command += ["--limit", "2", "--output_path", str(out), "--log_samples"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(next(out.rglob("results_*.json")).read_text())
    samples = [
        json.loads(line) for line in next(out.rglob("samples_wikihowqa_*.jsonl")).read_text().splitlines()
    ]
    return {"results": results["results"]["wikihowqa"], "samples": samples}


def test_the_task_folder_holds_yaml_prompts_and_the_projects_metrics(small_dataset, tmp_path):
    out = tmp_path / "task"
    summary = export_lm_eval(small_dataset, out, LmEvalSettings(split="train"))
    assert summary["questions"] == 3 and summary["mean_passages_in_prompt"] == 4
    config = yaml.load((out / "wikihowqa.yaml").read_text(), Loader=yaml.BaseLoader)  # !function is a tag
    assert config["task"] == "wikihowqa" and config["test_split"] == "train"
    assert [m["metric"] for m in config["metric_list"]] == [
        "rouge1",
        "rouge2",
        "rougeL",
        "rougeLsum",
        "grounding_support",
        "grounding_supported_share",
    ]
    rows = [json.loads(x) for x in (out / "wikihowqa_train.jsonl").read_text().splitlines()]
    assert "Clean your figs every week" in rows[0]["prompt"] and "How to Care for Figs" in rows[0]["prompt"]
    bare = export_lm_eval(small_dataset, tmp_path / "bare", LmEvalSettings(passages=False, grounding=False))
    assert bare["mean_passages_in_prompt"] == 0 and "grounding_support" not in bare["metrics"]
    # the metrics the task computes: rouge-score's F1 with stemming, and the grounding scorer's support
    utils = _utils(out)
    doc = rows[0]
    generated = "Clean the figs every week and keep them dry."
    scores = utils.process_results(doc, [generated])
    reference = REFERENCE.score(doc["answer"], generated)
    for name in ("rouge1", "rouge2", "rougeL"):
        assert scores[name] == pytest.approx(reference[name].fmeasure, abs=1e-12)
    assert 0 < scores["grounding_support"] <= 1
    assert utils.load()["train"].num_rows == 3


@pytest.mark.slow
def test_lm_eval_runs_the_task_with_its_dummy_model(small_dataset, tmp_path):
    task = tmp_path / "task"
    export_lm_eval(small_dataset, task)
    run = _run_lm_eval(task, tmp_path / "out", "--model", "dummy")
    for metric in ("rouge1", "rougeL", "rougeLsum", "grounding_support", "grounding_supported_share"):
        assert f"{metric},none" in run["results"]
    # the dummy answers "lol" to everything: per document, rouge-score's value of that answer
    for sample in run["samples"]:
        assert sample["filtered_resps"] == ["lol"]
        assert sample["rouge1"] == REFERENCE.score(sample["doc"]["answer"], "lol")["rouge1"].fmeasure


@pytest.mark.slow
def test_lm_eval_runs_the_task_with_a_tiny_local_model(small_dataset, tmp_path):
    from tests.generate.tiny_models import tiny_llama

    task = tmp_path / "task"
    export_lm_eval(small_dataset, task, LmEvalSettings(grounding=False, max_gen_toks=8))
    rows = [json.loads(x) for x in (task / "wikihowqa_test.jsonl").read_text().splitlines()]
    model = tiny_llama(tmp_path / "tiny", [r["prompt"] for r in rows] + [r["answer"] for r in rows])
    run = _run_lm_eval(
        task, tmp_path / "out", "--model", "hf", "--model_args", f"pretrained={model}", "--device", "cpu"
    )
    assert len(run["samples"]) == 2
    for sample in run["samples"]:
        generated = sample["filtered_resps"][0]
        assert sample["rougeL"] == pytest.approx(
            REFERENCE.score(sample["doc"]["answer"], generated)["rougeL"].fmeasure
        )
    assert "grounding_support,none" not in run["results"]


def test_the_export_holds_its_split_s_documents_not_the_corpus_s(tmp_path):
    """The same 15 test questions in a corpus of 45 and of 180 questions (synthetic, 10 documents each):
    the export's peak memory stays that of the split; reading every document at once grew with the corpus."""
    import dataclasses
    import tracemalloc

    from wikihowqa.dataset.folder import write_dataset_folder
    from wikihowqa.synthetic import generate_corpus

    examples, documents = generate_corpus(180, 1800, seed=3)
    examples = [dataclasses.replace(e, split="test" if i < 15 else "train") for i, e in enumerate(examples)]
    peaks = []
    for n in (45, 180):
        kept = {e.article_id for e in examples[:n]}
        docs = [d for d in documents if d.article_id in kept]
        folder = write_dataset_folder(tmp_path / f"ds{n}", examples[:n], docs, {"kind": "test"})
        tracemalloc.start()
        summary = export_lm_eval(folder.path, tmp_path / f"task{n}", LmEvalSettings(split="test"))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert summary["questions"] == 15
    assert peaks[1] < 1.25 * peaks[0], peaks
