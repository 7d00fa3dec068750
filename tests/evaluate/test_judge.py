"""The LLM judge: its prompt, strict parsing of replies, the round trip through a stub OpenAI-compatible
server, and its columns in the evaluation (an unparseable reply is recorded, never scored)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from wikihowqa.core.errors import SettingsError
from wikihowqa.core.records import Passage
from wikihowqa.evaluate.judge import (
    MAX_REPLY_CHARS,
    Judge,
    JudgeConfig,
    evidence,
    judge_messages,
    parse_verdict,
)

from ..generate.test_llm import ScriptedServer, ok

PASSAGES = [
    Passage(1, 0, 0, "Cookies and newsletters: sign up for our weekly mail."),
    Passage(1, 0, 1, "Dry the figs in the oven at 60 degrees for 36 hours, turning them twice."),
    Passage(1, 1, 0, "Sun-drying figs takes two to three days in hot weather."),
]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("consistency: 4\nusefulness: 5", (4, 5)),
        ("  Consistency : 1\n\nUSEFULNESS: 3  ", (1, 3)),
        ("usefulness: 2\nconsistency: 5", (5, 2)),
        ('{"consistency": 3, "usefulness": 4}', (3, 4)),
        ('```json\n{"consistency": 2, "usefulness": 2}\n```', (2, 2)),
    ],
)
def test_replies_in_the_asked_format_parse(reply, expected):
    verdict = parse_verdict(reply)
    assert verdict.parsed and (verdict.consistency, verdict.usefulness) == expected


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("", "empty reply"),
        ("The answer is good. consistency: 4\nusefulness: 5", "unexpected line"),
        ("consistency: 4", "no usefulness line"),
        ("consistency: 4\nusefulness: 4\nconsistency: 2", "given twice"),
        ("consistency: 7\nusefulness: 4", "outside 1–5"),
        ("consistency: 4.5\nusefulness: 4", "not a whole number"),
        ("consistency: four\nusefulness: 4", "not a whole number"),
        ("consistency: 4\nusefulness: 5\nBecause it cites the passages.", "unexpected line"),
        ('{"consistency": "4", "usefulness": 5}', "not a whole number"),
        ('{"consistency": true, "usefulness": 5}', "not a whole number"),
        ('{"consistency": 4, "usefulness": 5, "why": "ok"}', "exactly the fields"),
        ("{consistency: 4}", "invalid JSON"),
        ("I rate it 4 and 5.", "unexpected line"),  # numbers in free text are never guessed
    ],
)
def test_anything_else_is_unparseable_with_a_reason(reply, problem):
    verdict = parse_verdict(reply)
    assert not verdict.parsed and verdict.consistency is None and verdict.usefulness is None
    assert problem in verdict.problem
    assert verdict.to_dict()["status"] == "unparseable" and verdict.to_dict()["reply"] == reply


def test_prompt_holds_the_question_the_answer_and_the_passages_the_answer_needs():
    config = JudgeConfig(model="m", max_passages=1)
    answer = "Dry the figs in the oven for 36 hours."
    assert evidence(answer, PASSAGES, config) == [PASSAGES[1]]
    messages = judge_messages("How to Dry Figs", answer, PASSAGES, config)
    assert messages[0]["role"] == "system"
    user = messages[1]["content"]
    assert "Question: How to Dry Figs" in user and answer in user and "[1] Dry the figs" in user
    assert "newsletter" not in user and "consistency: <1-5>" in user
    # whole passages only, within the character budget; none when nothing fits
    assert evidence(answer, PASSAGES, JudgeConfig(model="m", max_passage_chars=20)) == []
    with pytest.raises(SettingsError):
        JudgeConfig(model="m", user_prompt="no placeholders")
    with pytest.raises(SettingsError):
        JudgeConfig(model="m", backend="vllm")


def test_round_trip_through_a_stub_server_caches_and_records_malformed_replies(tmp_path):
    replies = iter(
        [
            "consistency: 5\nusefulness: 4",
            "Sure! Here is my rating: 4/5",
            '{"consistency": 2, "usefulness": 1}',
        ]
    )
    with ScriptedServer(default=lambda body: ok(next(replies))) as server:
        config = JudgeConfig(model="judge-1", base_url=server.url, requests_per_minute=None)
        items = [
            ("How to Dry Figs", "Dry the figs in the oven for 36 hours.", PASSAGES),
            ("How to Dry Figs", "Dry them in the freezer.", PASSAGES),
            ("How to Dry Figs", "Figs cannot be dried.", PASSAGES),
            ("How to Dry Figs", "   ", PASSAGES),  # an empty answer is not sent
        ]
        judge = Judge(config, cache_path=tmp_path / "judge.sqlite")
        verdicts = judge.judge_many(items)
        sent = [body for body, _ in server.requests]
        again = Judge(config, cache_path=tmp_path / "judge.sqlite").judge_many(items[:3])
        assert len(server.requests) == 3  # the second run came from the cache
    assert [v.parsed for v in verdicts] == [True, False, True, False]
    assert (verdicts[0].consistency, verdicts[0].usefulness) == (5, 4)
    assert verdicts[1].reply == "Sure! Here is my rating: 4/5" and "unexpected line" in verdicts[1].problem
    assert "empty answer" in verdicts[3].problem
    assert [v.to_dict() for v in again] == [v.to_dict() for v in verdicts[:3]]
    assert all(b["model"] == "judge-1" and b["temperature"] == 0.0 for b in sent)
    assert "Dry them in the freezer." in sent[1]["messages"][-1]["content"]


def three_questions(tmp_path):
    """A dataset of three test questions and a predictions file answering each."""
    from wikihowqa.core.records import Document, Example, Prediction
    from wikihowqa.dataset.folder import write_dataset_folder
    from wikihowqa.dataset.writers import write_predictions

    examples = [
        Example(i, f"How to Do {i}", f"Do thing {i} carefully.", (f"a{i}",), "test") for i in range(3)
    ]
    documents = [
        Document(i, f"u{i}", f"a{i}", "", passages=(f"Do thing {i} carefully and slowly.",)) for i in range(3)
    ]
    ds = write_dataset_folder(tmp_path / "ds", examples, documents, {"kind": "test"}).path
    preds = tmp_path / "p.jsonl"
    write_predictions(preds, [Prediction(i, "sys", f"Thing {i}.") for i in range(3)])
    return ds, preds


def test_the_evaluation_reports_the_judge_beside_the_other_metrics(tmp_path, monkeypatch):
    """--judge in evaluate: columns per answer (NaN where unparseable), the leaderboard's means over
    parsed replies, the share parsed, and the verdicts in per_question.jsonl; a rerun asks nothing."""
    from wikihowqa.evaluate.pipeline import EvaluationSettings, evaluate
    from wikihowqa.evaluate.report import write_report

    ds, preds = three_questions(tmp_path)

    def reply(body):
        answer = body["messages"][-1]["content"].split("Answer to grade:\n")[1].split("\n")[0]
        return ok("nonsense" if answer == "Thing 1." else "consistency: 2\nusefulness: 3")

    with ScriptedServer(default=reply) as server:
        judge = JudgeConfig(model="j", base_url=server.url, requests_per_minute=None)
        settings = EvaluationSettings(split="test", bertscore=None, grounding=None, judge=judge)
        evaluation = evaluate(ds, [preds], settings, cache_dir=tmp_path / "report")
        asked = len(server.requests)
        evaluate(ds, [preds], settings, cache_dir=tmp_path / "report")
        assert len(server.requests) == asked == 6  # 3 system answers + 3 gold; the rerun is cached
    system = evaluation.systems[0]
    assert system.scores["judge_consistency"][0] == 2.0 and math.isnan(system.scores["judge_consistency"][1])
    assert system.scores["judge_parsed"] == [1.0, 0.0, 1.0]
    report = write_report(evaluation, tmp_path / "report")
    row = report.leaderboard[0].metrics
    assert row["Judge: consistency"].mean == pytest.approx(2.0) and row["Judge: consistency"].scored == 2
    assert row["Judge parsed"].mean == pytest.approx(100 * 2 / 3)
    assert report.gold_grounding["Judge: usefulness"].mean == pytest.approx(3.0)
    lines = [json.loads(x) for x in (tmp_path / "report" / "per_question.jsonl").read_text().splitlines()]
    bad = next(x for x in lines if x["system"] == "sys" and x["article_id"] == 1)
    assert bad["scores"]["judge_consistency"] is None and bad["judge"]["status"] == "unparseable"
    assert "Judge parsed" in (tmp_path / "report" / "evaluation.md").read_text()


# --------------------------------------------------------------------------- what a judge's reply may cost


def test_a_judge_answering_megabytes_is_read_only_up_to_the_cap_and_recorded_as_unparseable(tmp_path):
    """A server that ignores max_tokens (4 MB per reply to a request for 32 tokens): each reply is read
    up to the cap, asked once, stored nowhere, and its record says why it scored nothing."""
    from wikihowqa.evaluate.pipeline import EvaluationSettings, evaluate
    from wikihowqa.evaluate.report import write_report
    from wikihowqa.generate.endpoint import reply_limit

    ds, preds = three_questions(tmp_path)
    flood = ok("consistency: 5\n" * 250_000)  # 4 MB of content in a well-formed reply
    with ScriptedServer(default=lambda body: flood) as server:
        judge = JudgeConfig(model="j", base_url=server.url, requests_per_minute=None)
        settings = EvaluationSettings(split="test", bertscore=None, grounding=None, judge=judge)
        evaluation = evaluate(ds, [preds], settings, cache_dir=tmp_path / "report")
        assert len(server.requests) == 6  # 3 answers + 3 gold, each once: no retry fetches it again
    write_report(evaluation, tmp_path / "report")
    lines = [json.loads(x) for x in (tmp_path / "report" / "per_question.jsonl").read_text().splitlines()]
    for line in lines:
        verdict = line["judge"]
        assert verdict["status"] == "unparseable" and line["scores"]["judge_consistency"] is None
        assert (
            f"exceeds {reply_limit(32)} bytes" in verdict["problem"]
            and "not read further" in verdict["problem"]
        )
        assert len(verdict["reply"]) <= 200  # the reply's start, for the record
    assert (tmp_path / "report" / "per_question.jsonl").stat().st_size < 20_000
    assert (Path(ds) / "cache" / "judge-responses.sqlite").stat().st_size < 100_000  # the dataset's cache


def test_a_reply_longer_than_the_two_lines_is_kept_in_the_record_only_in_part():
    reply = "consistency: 5\nusefulness: 4\n" + "Let me explain my grades. " * 400
    verdict = parse_verdict(reply)
    assert not verdict.parsed and len(verdict.reply) == MAX_REPLY_CHARS
    assert verdict.problem == (
        f"a reply of {len(reply)} characters, not the two lines asked for"
        f" (its first {MAX_REPLY_CHARS} kept here)"
    )


# --------------------------------------------------------------------------- the judge's address and budget


@pytest.mark.parametrize("url", ["not a url", "ftp://example.org/v1", "localhost:8080/v1", "http://"])
def test_a_judge_address_that_is_no_http_url_is_refused_before_any_request(url):
    with pytest.raises(SettingsError, match=f"--judge-base-url: '{re.escape(url)}' is not"):
        JudgeConfig(model="j", base_url=url)


def test_a_judge_nobody_answers_at_names_the_judge_s_address_option():
    from wikihowqa.generate.llm import ServiceUnavailable

    from ..generate.test_llm import closed_port_url

    judge = Judge(JudgeConfig(model="j", base_url=closed_port_url(), requests_per_minute=None))
    with pytest.raises(ServiceUnavailable, match=r"cannot connect to .*\(address: --judge-base-url\)$"):
        judge.judge_many([("How to Dry Figs", "Dry them.", PASSAGES)])


def test_a_judge_address_from_the_environment_is_named_as_such(monkeypatch):
    from wikihowqa.generate.llm import ServiceUnavailable

    from ..generate.test_llm import closed_port_url

    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())
    judge = Judge(JudgeConfig(model="j", requests_per_minute=None))
    with pytest.raises(
        ServiceUnavailable, match=r"address: \$OPENAI_BASE_URL; --judge-base-url overrides it"
    ):
        judge.judge_many([("How to Dry Figs", "Dry them.", PASSAGES)])


def test_a_judge_context_overflow_advises_the_judge_s_own_prompt_budget():
    from wikihowqa.generate.llm import PromptTooLong

    from ..generate.test_llm import LLAMA_CPP_OVERFLOW

    with ScriptedServer(default=lambda body: (400, {}, json.dumps(LLAMA_CPP_OVERFLOW).encode())) as server:
        judge = Judge(JudgeConfig(model="j", base_url=server.url, requests_per_minute=None))
        with pytest.raises(PromptTooLong) as raised:
            judge.judge_many([("How to Dry Figs", "Dry them.", PASSAGES)])
        assert len(server.requests) == 1  # not retried
    message = str(raised.value)
    assert "exceeds the available context size" in message  # the server's reason
    # 2100 prompt + 32 reply tokens in 2048: 84 too many, at 4 characters a token and a quarter more
    assert "lower --judge-chars (now 3000) or --judge-passages (now 6)" in message
    assert f"e.g. --judge-chars {3000 - math.ceil(84 * 4 * 1.25)} for the model's 2048 tokens" in message
    assert "llm.prompt.max_context_tokens" not in message


# --------------------------------------------------------------------------- the local backend, for real


def test_the_local_judge_loads_a_model_given_by_path_and_records_its_greedy_reply(tmp_path):
    """--judge-backend local --judge FOLDER with a real model (a tiny Llama built from a config, saved
    where a user's model would be): loaded offline by that name, its greedy reply to the rubric
    prompt is what the verdict records (a random model's reply: unparseable, never scored)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tests.generate.tiny_models import tiny_llama
    from wikihowqa.evaluate.judge import USER_PROMPT

    items = [
        ("How to Dry Figs", "Dry the figs in the oven for 36 hours.", PASSAGES),
        ("How to Dry Figs", "Dry them in the sun.", PASSAGES),
    ]
    path = tiny_llama(
        tmp_path / "judge", [USER_PROMPT, *(p.text for p in PASSAGES), *(a for _, a, _ in items)]
    )
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.chat_template = "{% for m in messages %}{{ m['content'] }} {% endfor %}consistency :"
    tokenizer.save_pretrained(path)

    judge = Judge(JudgeConfig(model=str(path), backend="local", max_tokens=5))
    verdicts = judge.judge_many(items)
    assert judge.model_name == str(path)

    model = AutoModelForCausalLM.from_pretrained(path).eval()
    for item, verdict in zip(items, verdicts, strict=True):
        messages = judge_messages(*item, judge.config)
        prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        enc = tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
        with torch.no_grad():
            out = model.generate(
                **enc,
                max_new_tokens=5,
                do_sample=False,
                repetition_penalty=1.1,
                pad_token_id=tokenizer.pad_token_id,
            )
        expected = tokenizer.decode(out[0, enc["input_ids"].shape[1] :], skip_special_tokens=True).strip()
        assert expected and verdict.reply == expected
        assert verdict.to_dict() == parse_verdict(expected).to_dict()


def test_a_local_judge_model_without_a_chat_template_is_refused_in_one_line(tmp_path):
    """A base model cannot take the rubric's chat messages: said when it loads, naming it, not as
    transformers' traceback at the first answer."""
    from tests.generate.tiny_models import tiny_llama

    path = tiny_llama(tmp_path / "base", ["dry the figs in the oven"])
    judge = Judge(JudgeConfig(model=str(path), backend="local", max_tokens=3))
    with pytest.raises(SettingsError, match=f"local LLM '{re.escape(str(path))}': its tokenizer has no chat"):
        judge.judge_many([("How to Dry Figs", "Dry them.", PASSAGES)])


def test_a_changed_prompt_or_model_never_reuses_old_verdicts(tmp_path):
    """The dataset's response cache is keyed by the model, the prompt's text and the inputs: a changed
    template or model asks again, the first setting again asks nothing (each run writes a new report
    folder, so its score cache cannot answer)."""
    from wikihowqa.evaluate.judge import SYSTEM_PROMPT, USER_PROMPT
    from wikihowqa.evaluate.pipeline import EvaluationSettings, evaluate

    from . import judge_servers

    ds, predictions = judge_servers.dataset(tmp_path)

    runs = iter(range(10))

    def run(url, **changed):
        judge = JudgeConfig(**{"model": "j", "base_url": url, "requests_per_minute": None, **changed})
        settings = EvaluationSettings(split="test", bertscore=None, grounding=None, judge=judge)
        evaluate(ds, [predictions], settings, cache_dir=tmp_path / f"report-{next(runs)}")

    with ScriptedServer(default=lambda body: judge_servers.answered(judge_servers.POINTWISE, body)) as server:
        run(server.url)
        assert len(server.requests) == 15
        run(server.url, user_prompt=USER_PROMPT.replace("Grade the answer", "Grade strictly the answer"))
        assert len(server.requests) == 30
        assert all("Grade strictly" in b["messages"][-1]["content"] for b, _ in server.requests[15:])
        run(server.url, system_prompt=SYSTEM_PROMPT + " Be terse.")
        assert len(server.requests) == 45
        run(server.url, model="another-judge")
        assert len(server.requests) == 60
        run(server.url)
        assert len(server.requests) == 60  # the first setting's verdicts are all still there
