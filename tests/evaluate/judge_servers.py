"""Stub OpenAI-compatible judges on 127.0.0.1 (the ScriptedServer of the LLM client's tests) and a small
dataset with two systems whose answers differ in length: what the judge tests run evaluate on."""

from __future__ import annotations

import json
import re
from pathlib import Path

from wikihowqa.core.records import Document, Example, Prediction
from wikihowqa.dataset.folder import write_dataset_folder
from wikihowqa.dataset.writers import write_predictions

from ..generate.test_llm import ScriptedServer

__all__ = ["ScriptedServer", "answered", "dataset", "first_shown", "longer", "usage_of"]

TOPICS = ["figs", "fences", "floors", "bread", "roses"]
POINTWISE = "consistency: 3\nusefulness: 4"


def usage_of(body: dict) -> tuple[int, int]:
    """The tokens the stub reports for a request: one per 10 prompt characters, 3 per reply (made up,
    distinct per request, so a sum that counts a call twice or misses one cannot come out equal)."""
    return sum(len(m["content"]) for m in body["messages"]) // 10, 3


def answered(text: str, body: dict, *, usage: bool = True) -> tuple[int, dict, bytes]:
    reply: dict = {"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
    if usage:
        prompt, completion = usage_of(body)
        reply["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion}
    return 200, {"Content-Type": "application/json"}, json.dumps(reply).encode()


def _shown(body: dict) -> tuple[str, str] | None:
    user = body["messages"][-1]["content"]
    found = re.search(r"Answer A:\n(.*)\n\nAnswer B:\n(.*)\n\nThe better answer", user, re.S)
    return (found.group(1), found.group(2)) if found else None


def first_shown(body: dict) -> tuple[int, dict, bytes]:
    """A judge with pure position bias: always the answer shown first."""
    return answered(POINTWISE if _shown(body) is None else "better: A", body)


def longer(body: dict) -> tuple[int, dict, bytes]:
    """A judge with pure length bias: always the longer answer, whichever order it is shown in."""
    shown = _shown(body)
    if shown is None:
        return answered(POINTWISE, body)
    return answered("better: A" if len(shown[0]) > len(shown[1]) else "better: B", body)


def dataset(root: Path) -> tuple[Path, Path]:
    """(dataset folder, predictions file): five test questions; system ``terse`` answers in a few words,
    ``verbose`` at length (made once per ``root``)."""
    path = root / "predictions.jsonl"
    if path.is_file():
        return root / "ds", path
    examples, documents, predictions = [], [], []
    for i, topic in enumerate(TOPICS):
        question, gold = f"How to Care for {topic.title()}", f"Clean the {topic} weekly."
        examples.append(Example(100 + i, question, gold, (f"a{i}",), "test"))
        documents.append(
            Document(100 + i, f"u{i}", f"a{i}", "", passages=(f"Clean your {topic} every week.", "Keep dry."))
        )
        predictions.append(Prediction(100 + i, "terse", f"Clean {topic}."))
        verbose = f"Clean the {topic} every week with a damp cloth, then keep them dry."
        predictions.append(Prediction(100 + i, "verbose", verbose))
    folder = write_dataset_folder(root / "ds", examples, documents, {"kind": "test"}).path
    write_predictions(path, predictions)
    return folder, path
