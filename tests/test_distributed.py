"""The distributed paths of generation give the local answers: checked without a cluster.

``Pickling`` is an executor that does to the work what a cluster does — every function, model spec and
batch is pickled on the way out, every result on the way back — but runs it in this process. The stages
on a real two-node Ray cluster are in ``test_cluster.py`` (parse, split, dense retrieval, evaluate).
"""

from __future__ import annotations

import pickle

import pytest

from tests.generate.tiny_models import tiny_bart, tiny_llama
from wikihowqa.answer import answer_split
from wikihowqa.executor import LocalExecutor, call_model
from wikihowqa.io import write_dataset_folder
from wikihowqa.records import Document, Example

QUESTIONS = [
    (aid, f"how to fix thing {aid}", f"answer number {aid} is here", [f"fix thing {aid} fast", "thing words"])
    for aid in range(1, 8)
]


def _roundtrip(value):
    return pickle.loads(pickle.dumps(value))


class Pickling(LocalExecutor):
    distributed = True
    gpus_available = 0.0

    def __init__(self) -> None:
        super().__init__(1)
        self.parallelism = 2  # two "workers": batches of two workers' worth
        self.sent = 0

    def map(self, fn, batches):
        for batch in batches:
            self.sent += 1
            yield _roundtrip(_roundtrip(fn)(_roundtrip(batch)))

    def map_model(self, spec, method, batches, *, gpus=0):
        for batch in batches:
            self.sent += 1
            yield _roundtrip(call_model(_roundtrip(spec), method, _roundtrip(batch)))


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("distributed")
    examples = [
        Example(a, q, ans, (f"http://a/{a}",), split="test", cluster=-1) for a, q, ans, _ in QUESTIONS
    ]
    documents = [
        Document(a, f"http://o/{a}", f"http://a/{a}", "\n".join(ps), passages=tuple(ps))
        for a, _, _, ps in QUESTIONS
    ]
    return write_dataset_folder(root / "ds", examples, documents, {}), root


def _texts() -> list[str]:
    return [t for _, q, a, ps in QUESTIONS for t in (q, a, *ps)] + ["answer :"]


def _both(folder, root, system: str, settings: dict) -> tuple[bytes, bytes, Pickling]:
    executor = Pickling()
    here = answer_split(folder, system, settings=settings, out=root / f"{system}-local.jsonl")
    there = answer_split(
        folder, system, settings=settings, out=root / f"{system}-pickled.jsonl", executor=executor
    )
    assert here.answered_now == there.answered_now == len(QUESTIONS)
    return here.out.read_bytes(), there.out.read_bytes(), executor


def test_seq2seq_answers_are_the_same_when_generated_by_workers(folder):
    dataset, root = folder
    model = tiny_bart(root / "bart", _texts())
    settings = {
        "generator": {
            "model": str(model),
            "max_input_tokens": 48,
            "generate": {"num_beams": 2, "max_new_tokens": 8, "no_repeat_ngram_size": 0, "batch_size": 2},
        }
    }
    local, remote, executor = _both(dataset, root, "seq2seq", settings)
    assert local == remote and executor.sent == 4  # 7 questions in batches of 2


def test_local_llm_answers_are_the_same_when_generated_by_workers(folder):
    from transformers import AutoTokenizer

    dataset, root = folder
    model = tiny_llama(root / "llama", _texts())
    tokenizer = AutoTokenizer.from_pretrained(model)
    tokenizer.chat_template = "{% for m in messages %}{{ m['content'] }} {% endfor %}answer :"
    tokenizer.save_pretrained(model)
    llm = {"backend": "local", "local": {"model": str(model), "max_new_tokens": 6, "batch_size": 3}}
    local, remote, executor = _both(dataset, root, "llm-question-only", {"llm": llm})
    assert local == remote and executor.sent == 3  # 7 questions in LocalChat's batches of 3
