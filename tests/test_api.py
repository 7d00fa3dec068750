"""The public Python API (``import wikihowqa``): a small lazy surface a researcher can use as a library."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import wikihowqa

SRC = Path(wikihowqa.__file__).parents[1]
TOPICS = ("How to Train a Puppy", "How to Tie a Tie", "How to Bake Bread", "How to Plant Tomatoes",
          "How to Change a Tire", "How to Write a Resume", "How to Knit a Scarf", "How to Clean an Oven",
          "How to Learn Chess")  # fmt: skip


def run_python(code: str) -> str:
    env = {"PYTHONPATH": str(SRC)}
    command = [sys.executable, "-c", code]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_every_name_of_the_api_resolves_and_none_is_private():
    names = wikihowqa.__all__
    for expected in ("Example", "Document", "Passage", "Prediction", "WikihowqaError", "open_dataset",
                     "import_release", "hydrate", "build", "parse_dataset", "split_dataset", "describe",
                     "answer_split", "evaluate_predictions", "deteriorate_dataset", "build_study_folder",
                     "analyze_files", "simulate_to", "meta_evaluate_folders", "build_site", "export_hub",
                     "export_lm_eval", "__version__"):  # fmt: skip
        assert expected in names
    for name in names:
        assert not name.startswith("_") or name == "__version__"
        assert getattr(wikihowqa, name) is not None
    with pytest.raises(AttributeError):
        _ = wikihowqa.no_such_name


def test_importing_the_package_and_reading_a_dataset_loads_no_torch(real_examples_dir):
    out = run_python(
        "import sys, wikihowqa\n"
        "print(sorted(wikihowqa.__all__)[:3])\n"
        f"folder = wikihowqa.open_dataset({str(real_examples_dir)!r})\n"
        "print(len(folder.examples()), len(folder.documents()))\n"
        "print('torch' in sys.modules, 'numpy' in sys.modules)\n"
    )
    lines = out.splitlines()
    assert lines[1] == "3 9" or lines[1].startswith("3 ")
    assert lines[2] == "False False"


def test_every_stage_package_is_a_face_naming_its_api():
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(wikihowqa.__path__):
        if not info.ispkg or info.name == "cli":
            continue
        package = importlib.import_module(f"wikihowqa.{info.name}")
        init = Path(package.__file__)
        assert hasattr(package, "__all__"), f"wikihowqa.{info.name} names no public API"
        lines = init.read_text().splitlines()
        body = [line for line in lines if line.startswith(("def ", "class ")) and "def __" not in line]
        assert not body, f"{init}: code in a face: {body}"
        submodules = {m.name for m in pkgutil.iter_modules(package.__path__)}
        for name in package.__all__:
            # a name that is also a submodule's would be replaced by the module once that is imported
            assert name not in submodules, f"wikihowqa.{info.name}.{name} is also a submodule"
            assert getattr(package, name) is not None, f"wikihowqa.{info.name}.{name}"


def test_the_package_root_holds_at_most_three_loose_modules_and_no_module_is_over_600_lines():
    root = Path(wikihowqa.__file__).parent
    loose = sorted(p.name for p in root.glob("*.py") if p.name not in {"__init__.py", "__main__.py"})
    assert len(loose) <= 3, loose
    sizes = {p.relative_to(root): len(p.read_text().splitlines()) for p in root.rglob("*.py")}
    long = [f"{path}: {n} lines" for path, n in sizes.items() if n > 600]
    assert not long, long


def release_files(real_examples_dir: Path, out: Path) -> tuple[Path, Path]:
    """Twelve questions: the three real instances and nine other how-to titles, each given the documents
    and answer of one real instance (enough distinct questions for a test split)."""
    qa = [json.loads(line) for line in (real_examples_dir / "qa.jsonl").read_text().splitlines()]
    docs = [json.loads(line) for line in (real_examples_dir / "documents.jsonl").read_text().splitlines()]
    qa_rows, doc_rows = [], []
    titles = [row["question"] for row in qa] + list(TOPICS)
    for n, title in enumerate(titles):
        row = {k: v for k, v in qa[n % len(qa)].items() if k not in {"split", "cluster"}}
        article = int(row["article_id"]) * 100 + n
        qa_rows.append({**row, "article_id": article, "question": title})
        same = [d for d in docs if str(d["article_id"]) == str(row["article_id"])]
        doc_rows += [{**d, "article_id": article} for d in same]
    out.mkdir()
    (out / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in qa_rows))
    (out / "documents.jsonl").write_text("".join(json.dumps(r) + "\n" for r in doc_rows))
    return out / "qa.jsonl", out / "documents.jsonl"


@pytest.mark.slow
def test_a_researcher_runs_import_split_describe_answer_evaluate_and_view_through_the_api(
    real_examples_dir, tmp_path
):
    from wikihowqa.evaluate import EvaluationSettings
    from wikihowqa.split import SplitSettings

    qa, documents = release_files(real_examples_dir, tmp_path / "release")
    folder, _manifest = wikihowqa.import_release([qa], [documents], tmp_path / "ds")
    assert len(folder.examples()) == 12

    split = wikihowqa.split_dataset(folder, SplitSettings(test_size=0.25, validation_size=0.0))
    assert sum(split.counts.values()) == 12 and split.counts["test"] > 0

    stats = wikihowqa.describe(wikihowqa.open_dataset(folder.path), tmp_path / "stats", audit=False)
    assert stats.table1["all"]["questions"] == 12

    answered = wikihowqa.answer_split(folder, "bm25+lead", split="test")
    predictions = wikihowqa.read_predictions(answered.out)
    assert len(predictions) == split.counts["test"] and all(p.answer for p in predictions)

    report = wikihowqa.evaluate_predictions(
        folder.path, [answered.out], EvaluationSettings(bertscore=None, grounding=None)
    )
    assert [row.system for row in report.leaderboard] == ["bm25+lead"]
    assert (folder.path / "report" / "evaluation.json").is_file()

    site = wikihowqa.build_site(
        folder.path, tmp_path / "site", report=folder.path / "report", predictions=[answered.out]
    )
    assert (tmp_path / "site" / "index.html").is_file() and site is not None
