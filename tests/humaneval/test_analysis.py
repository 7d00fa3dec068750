"""Statistics against hand-worked values and the reference packages (scipy, sklearn, krippendorff)."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

import wikihowqa.humaneval.analysis as analysis_module
from wikihowqa.humaneval.analysis import (
    analyze,
    cohen_kappa,
    krippendorff_alpha,
    markdown_report,
    mean_pairwise_kappa,
    overlap_coefficient,
    screen,
    sign_test,
    student_t,
    wilson_interval,
)
from wikihowqa.humaneval.tasks import Study

TEXT = "Use cold water. Bake for 2 hours."
COLD = (TEXT.index("cold"), TEXT.index("cold") + 4)
TWO = (TEXT.index("2 "), TEXT.index("2 ") + 1)
CLEAN = "Use warm water. Bake for 3 hours."


def _answer_task(task_id: str, part: str, text: str, article_id: int) -> dict:
    return {
        "task_id": task_id,
        "part": part,
        "type": "answer",
        "article_id": article_id,
        "question": "How to bake",
        "attention_check": {"prompt": "?", "options": ["Health", "Travel", "Youth", "Food and Entertaining"]},
        "answer": {"text": text, "sentences": [{"start": 0, "end": 15}, {"start": 16, "end": len(text)}]},
        "passages": None if part == "trial_a" else [],
    }


def _edit(kind: str, span: tuple[int, int], old: str, new: str) -> dict:
    return {
        "type": kind,
        "start": span[0],
        "end": span[1],
        "old": old,
        "new": new,
        "original_start": span[0],
        "original_end": span[1],
    }


@pytest.fixture
def tiny() -> Study:
    tasks, key = [], []
    for part in ("trial_a", "trial_b"):
        tasks += [_answer_task(f"{part}:1", part, TEXT, 1), _answer_task(f"{part}:2", part, CLEAN, 2)]
        key += [
            {
                "task_id": f"{part}:1",
                "part": part,
                "article_id": 1,
                "attention_answer": "Food and Entertaining",
                "deteriorated": True,
                "edits": [_edit("antonym", COLD, "warm", "cold"), _edit("number", TWO, "3", "2")],
            },
            {
                "task_id": f"{part}:2",
                "part": part,
                "article_id": 2,
                "attention_answer": "Food and Entertaining",
                "deteriorated": False,
                "edits": [],
            },
        ]
    return Study({"study_id": "tiny"}, tasks, key, [])


def _j(task: str, assessor: str, spans=(), attention="Food and Entertaining", **extra) -> dict:
    return {
        "format_version": 1,
        "judgment_id": f"{task}/{assessor}",
        "task_id": task,
        "assessor_id": assessor,
        "duration_ms": 1000,
        "attention": attention,
        "familiarity": 4,
        "usefulness": 3,
        "spans": [{"start": s, "end": e, "label": "misleading"} for s, e in spans],
        "events": [],
        **extra,
    }


def test_idr_false_positives_and_t_test_match_a_hand_worked_example(tiny):
    judgments = [
        _j("trial_a:1", "a1", [(0, 8)]),  # covers "cold" only -> 1/2
        _j("trial_a:1", "a2"),  # nothing -> 0
        _j("trial_a:2", "a1", [(0, 3)]),  # intact answer marked misleading -> false positive
        _j("trial_b:1", "b1", [(4, 8), (24, 33)]),  # both -> 1
        _j("trial_b:1", "b2", [(6, 7)]),  # a character inside "cold" -> 1/2
        _j("trial_b:2", "b1"),
    ]
    r = analyze(tiny, judgments)
    a, b = r["trials"]["trial_a"], r["trials"]["trial_b"]
    assert a["idr"]["mean"] == pytest.approx(0.25) and b["idr"]["mean"] == pytest.approx(0.75)
    assert a["by_type"]["antonym"]["mean"] == pytest.approx(0.5) and b["by_type"]["antonym"]["mean"] == 1.0
    assert a["by_type"]["number"]["mean"] == 0.0 and b["by_type"]["number"]["mean"] == pytest.approx(0.5)
    assert a["false_positives"]["count"] == 1 and a["false_positives"]["n"] == 1
    assert b["false_positives"]["count"] == 0
    # hand: pooled variance 0.125, t = 0.5 / sqrt(0.125) = sqrt(2), df 2, p = 2(1 - F(t)) = 1 - 1/sqrt(2)
    test = r["trials"]["t_test_b_vs_a"]["idr"]
    assert test["t"] == pytest.approx(math.sqrt(2)) and test["df"] == 2
    assert test["p"] == pytest.approx(1 - 1 / math.sqrt(2))


def test_screen_rejects_inattentive_invalid_duplicate_and_cross_trial_judgments(tiny):
    judgments = [
        _j("trial_a:1", "a1"),
        _j("trial_a:1", "a1"),  # duplicate
        _j("trial_a:2", "a2", attention="Travel"),  # inattentive
        _j("trial_a:2", "a3", [(0, 99)]),  # span outside the text
        _j("nope", "a4"),  # unknown task
        _j("trial_a:2", "a5", usefulness=9),  # out of range
        _j("trial_b:1", "a1"),  # a1 already in trial A
    ]
    accepted, rejected = screen(judgments, tiny)
    assert [j["assessor_id"] for j in accepted] == ["a1"]
    reasons = [r.reason.split(":")[0] for r in rejected]
    assert reasons == ["duplicate", "inattentive", "invalid", "invalid", "invalid", "exclusive"]


def test_cohen_kappa_matches_hand_value_and_sklearn():
    # hand: p_o = 3/4, p_e = .5*.25 + .5*.75 = .5, kappa = .5
    ratings = {i: {"x": x, "y": y} for i, (x, y) in enumerate(zip([0, 1, 1, 0], [0, 1, 0, 0], strict=True))}
    assert mean_pairwise_kappa(ratings) == (pytest.approx(0.5), 1)
    rng = np.random.default_rng(0)
    r = rng.integers(0, 5, size=(3, 30))
    ratings = {i: {"p": int(r[0, i]), "q": int(r[1, i]), "s": int(r[2, i])} for i in range(30)}
    expected = np.mean([cohen_kappa_score(r[a], r[b]) for a, b in [(0, 1), (0, 2), (1, 2)]])
    value, pairs = mean_pairwise_kappa(ratings)
    assert pairs == 3 and value == pytest.approx(expected)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_equals_sklearn_on_random_ratings(weights):
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(2, 40))
        a, b = rng.integers(0, 5, n), rng.integers(1, 4, n)
        with np.errstate(all="ignore"):
            expected = cohen_kappa_score(a, b, weights=weights)
        got = cohen_kappa(a, b, weights)
        assert (np.isnan(expected) and np.isnan(got)) or got == pytest.approx(expected)


def test_krippendorff_alpha_matches_hand_value_and_the_package():
    # hand (nominal): o11=4, o22=2, o12=o21=1; D_o = 2/8, D_e = 2*5*3/(8*7); alpha = 1 - D_o/D_e = 8/15
    ratings = {i: {"c1": a, "c2": b} for i, (a, b) in enumerate(zip([1, 1, 2, 2], [1, 1, 2, 1], strict=True))}
    assert krippendorff_alpha(ratings, "nominal") == pytest.approx(8 / 15)
    rng = np.random.default_rng(1)
    matrix = rng.integers(0, 5, size=(4, 25)).astype(float)
    matrix[rng.random(matrix.shape) < 0.3] = np.nan
    ratings = {
        j: {f"r{i}": int(matrix[i, j]) for i in range(4) if not np.isnan(matrix[i, j])} for j in range(25)
    }
    keep = [j for j in range(25) if len(ratings[j]) >= 2]
    expected = krippendorff.alpha(
        reliability_data=matrix[:, keep], level_of_measurement="ordinal", value_domain=list(range(5))
    )
    assert krippendorff_alpha(ratings, "ordinal", range(5)) == pytest.approx(expected)


def test_overlap_wilson_sign_and_student_t_match_hand_and_scipy():
    assert overlap_coefficient({"a", "b", "c"}, {"b", "c", "d", "e"}) == pytest.approx(2 / 3)
    assert overlap_coefficient(set(), {"a"}) is None
    z = stats.norm.ppf(0.975)
    k, n = 8, 10
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert wilson_interval(k, n) == (pytest.approx(centre - half), pytest.approx(centre + half))
    assert sign_test(8, 2) == pytest.approx(2 * (45 + 10 + 1) / 1024)
    a, b = [0.1, 0.4, 0.3, 0.2], [0.5, 0.6, 0.9]
    ref = stats.ttest_ind(b, a, equal_var=True)
    assert student_t(a, b) == {"t": pytest.approx(ref.statistic), "p": pytest.approx(ref.pvalue), "df": 5}
    assert student_t([0.1], b) is None


def _add_preference_task(study: Study, task_id: str, article_id: int, gold_side: str, system: str) -> dict:
    task = {
        "task_id": task_id,
        "part": "preference",
        "type": "preference",
        "article_id": article_id,
        "question": "q",
        "attention_check": None,
        "answers": {s: {"text": "A b.", "sentences": [{"start": 0, "end": 4}]} for s in "AB"},
        "passages": {"A": [], "B": []},
    }
    study.tasks.append(task)
    study.key.append(
        {
            "task_id": task_id,
            "part": "preference",
            "article_id": article_id,
            "attention_answer": None,
            "gold_side": gold_side,
            "system": system,
        }
    )
    return task


def test_preference_shares_and_passage_opens_are_counted(tiny):
    task = _add_preference_task(tiny, "preference:1:sys", 1, "B", "sys")
    choices = ["A", "A", "B", "tie", "A"]
    events = [[{"kind": "sentence_open", "sentence": 0, "side": "A"}], [], None, [], []]
    judgments = [
        {
            "format_version": 1,
            "task_id": task["task_id"],
            "assessor_id": f"p{i}",
            "choice": c,
            "duration_ms": 60_000,
            "events": e,
        }
        for i, (c, e) in enumerate(zip(choices, events, strict=True))
    ]
    r = analyze(tiny, judgments)
    pref = r["preference"]["sys"]
    assert (pref["model"]["count"], pref["gold"]["count"], pref["tie"]["count"]) == (3, 1, 1)
    assert pref["sign_test_p"] == pytest.approx(stats.binomtest(3, 4).pvalue)
    use = r["passages"]["preference"]
    assert use["judgments_with_log"] == 4 and use["opened_any"]["count"] == 1
    assert r["time_s"]["preference"]["median"] == 60.0


DOC = "Water the plant. Keep the pot in bright light, and water it again in spring."


def _add_relevance_task(study: Study, text: str = DOC, article_id: int = 1) -> str:
    study.tasks.append(
        {
            "task_id": "relevance:1:0",
            "part": "relevance",
            "type": "relevance",
            "article_id": article_id,
            "question": "How to grow a plant",
            "attention_check": None,
            "answer": {"text": "Water it.", "sentences": [{"start": 0, "end": 9}]},
            "document": {"doc_index": 0, "title": "", "url": "http://x", "text": text},
        }
    )
    study.key.append(
        {"task_id": "relevance:1:0", "part": "relevance", "article_id": article_id, "attention_answer": None}
    )
    return "relevance:1:0"


def _rel(assessor: str, highlights=(), relevance=3) -> dict:
    return {
        "format_version": 1,
        "judgment_id": f"rel/{assessor}",
        "task_id": "relevance:1:0",
        "assessor_id": assessor,
        "duration_ms": 1000,
        "attention": None,
        "relevance": relevance,
        "highlights": [{"start": s, "end": e} for s, e in highlights],
        "events": [],
    }


@pytest.mark.parametrize("order", [("relevance", "trial_a", "trial_b"), ("trial_b", "relevance", "trial_a")])
def test_an_assessor_in_both_trials_is_rejected_whatever_part_came_first(tiny, order):
    """Merged Label Studio exports give one annotator the same id in every project: a relevance
    judgment first must not hide that the same person then judged trial A and trial B."""
    _add_relevance_task(tiny, article_id=3)  # another article: only the trials rule is at stake
    by_part = {
        "relevance": _rel("same"),
        "trial_a": _j("trial_a:1", "same"),
        "trial_b": _j("trial_b:1", "same"),
    }
    accepted, rejected = screen([by_part[p] for p in order], tiny)
    later = [p for p in order if p != "relevance"][1]
    assert [r.task_id for r in rejected] == [f"{later}:1"]
    earlier = "trial_a" if later == "trial_b" else "trial_b"
    assert rejected[0].reason == f"exclusive: the assessor already judged {earlier}"
    assert sorted(j["task_id"] for j in accepted) == sorted(["relevance:1:0", f"{earlier}:1"])


def test_a_trial_or_ab_judgment_after_another_task_of_its_article_is_rejected_as_contaminated(tiny):
    """Merged Label Studio projects give one annotator one id: after relevance (which shows article 1's
    gold answer) their trial judgment of article 1 could be a diff; an A/B judgment after a trial task of
    the article knows which side is gold. The later judgment goes; a relevance task, which hides
    nothing, may come after a trial task; other articles are not affected."""
    _add_relevance_task(tiny, article_id=1)
    _add_preference_task(tiny, "preference:2:abc", 2, "A", "s")
    ab = {
        "format_version": 1,
        "task_id": "preference:2:abc",
        "choice": "A",
        "duration_ms": 1,
        "events": [],
    }
    judgments = [
        _rel("r1"),
        _j("trial_a:1", "r1"),  # gold of article 1 seen in relevance: contaminated
        _j("trial_a:2", "r1"),  # another article: fine
        _j("trial_b:1", "t1"),
        _rel("t1"),  # relevance after the trial: it hides nothing, so fine
        _j("trial_b:2", "t1"),
        {**ab, "assessor_id": "t1", "judgment_id": "ab-t1"},  # after trial B of article 2: contaminated
        {**ab, "assessor_id": "p1", "judgment_id": "ab-p1"},
    ]
    accepted, rejected = screen(judgments, tiny)
    assert [(r.task_id, r.assessor_id) for r in rejected] == [
        ("trial_a:1", "r1"),
        ("preference:2:abc", "t1"),
    ]
    assert rejected[0].reason.startswith("contaminated: the assessor judged article 1 before (relevance:1:0)")
    assert rejected[1].reason.startswith("contaminated: the assessor judged article 2 before (trial_b:2)")
    assert len(accepted) == 6
    assert analyze(tiny, judgments)["judgments"]["rejected_by_reason"] == {"contaminated": 2}


def test_a_page_clock_far_from_the_servers_is_flagged_and_the_servers_time_is_used(tiny):
    """``wikihowqa serve`` stores its own measure as duration_ms and the page's as client_duration_ms:
    7 days claimed for a 3 ms task is flagged; 2 s off a minute is network time, not flagged; a judgment
    without the page's measure (Label Studio, older files) is not checked."""
    week = 7 * 24 * 3600 * 1000
    judgments = [
        _j("trial_a:1", "a1", duration_ms=3, client_duration_ms=week),
        _j("trial_a:2", "a2", duration_ms=60_000, client_duration_ms=58_000),
        _j("trial_b:1", "b1", duration_ms=120_000, client_duration_ms=10_000),  # 110 s short
        _j("trial_b:2", "b2", duration_ms=5_000),
    ]
    result = analyze(tiny, judgments)
    clock = result["clock_check"]
    assert clock["checked"] == 3 and clock["disagreeing"]["count"] == 2
    assert [f["judgment_id"] for f in clock["flagged"]] == ["trial_a:1/a1", "trial_b:1/b1"]
    assert clock["flagged"][0]["client_duration_ms"] == week and clock["flagged"][0]["duration_ms"] == 3
    assert result["time_s"]["trial_a"]["n"] == 2 and result["time_s"]["trial_a"]["mean"] == pytest.approx(
        (0.003 + 60) / 2
    )
    report = markdown_report(result)
    assert "Clock check: in 2 of 3 judgments" in report and "trial_a:1/a1, trial_b:1/b1" in report


def test_highlight_overlap_is_the_mean_over_assessor_pairs_of_shared_words(tiny):
    """Three assessors' highlights on one document, by hand (words touched by a span, lower-cased, once):
    H1 "Water the plant" = {water, the, plant}; H2 "the pot in bright light" = {the, pot, in, bright,
    light}; H3 "ght, and water it" starts inside "light" = {light, and, water, it}. Overlap coefficients
    |H∩H'| / min(|H|, |H'|): H1-H2 {the} 1/3, H1-H3 {water} 1/3, H2-H3 {light} 1/4; mean 11/36. A fourth
    assessor without highlights forms no pair."""
    _add_relevance_task(tiny)

    def at(phrase: str, occurrence: int = 0) -> tuple[int, int]:
        start = -1
        for _ in range(occurrence + 1):
            start = DOC.index(phrase, start + 1)
        return start, start + len(phrase)

    judgments = [
        _rel("h1", [at("Water the plant")]),
        _rel("h2", [at("the pot"), at(" in bright light")]),  # two spans, one word set
        _rel("h3", [at("ght, and water it")]),
        _rel("h4", []),
    ]
    overlap = analyze(tiny, judgments)["relevance"]["highlight_overlap"]
    assert overlap["n"] == 3
    assert overlap["mean"] == pytest.approx(11 / 36)


def test_misleading_span_overlap_counts_only_misleading_spans(tiny):
    """On TEXT "Use cold water. Bake for 2 hours.": a1 marks "cold water" misleading and "Bake" useful,
    a2 marks "water. Bake" misleading: {cold, water} vs {water, bake}, 1/2 (the useful "Bake" of a1 would
    make it 1)."""
    a1 = _j("trial_a:1", "a1", [COLD, (TEXT.index("water"), TEXT.index("water") + 5)])
    a1["spans"].append({"start": TEXT.index("Bake"), "end": TEXT.index("Bake") + 4, "label": "useful"})
    a2 = _j("trial_a:1", "a2", [(TEXT.index("water"), TEXT.index("Bake") + 4)])
    result = analyze(tiny, [a1, a2])["trials"]["misleading_span_overlap"]["trial_a"]
    assert result["n"] == 1 and result["mean"] == pytest.approx(1 / 2)


def test_analyse_is_the_old_name_of_analyze():
    assert analysis_module.analyse is analyze
