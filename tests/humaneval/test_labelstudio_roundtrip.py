"""The documented Label Studio path end to end: the study's own import files (``labelstudio/<part>.json``,
written by ``write_study``) are annotated as Label Studio would store it, exported (one JSON project per
part), read back by ``wikihowqa analyze``, and every statistic checked against values computed here
from the planted annotations with the reference packages (scipy, sklearn, krippendorff)."""

from __future__ import annotations

import itertools
import json
import random
from collections import defaultdict

import krippendorff
import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from typer.testing import CliRunner

from wikihowqa.cli import app
from wikihowqa.humaneval.deteriorate import DeteriorationSettings, deteriorate_examples
from wikihowqa.humaneval.rank import BM25Ranker
from wikihowqa.humaneval.tasks import StudySettings, build_study, write_study

LEAD_TIME_S = 30.0


def _choice(n: int, name: str, to: str, value: str) -> dict:
    return {
        "id": f"{name}{n}",
        "from_name": name,
        "to_name": to,
        "type": "choices",
        "value": {"choices": [value]},
    }


def _region(n: int, name: str, to: str, text: str, start: int, end: int, label: str) -> dict:
    value = {"start": start, "end": end, "text": text[start:end], "labels": [label]}
    return {"id": f"{name}{n}-{start}", "from_name": name, "to_name": to, "type": "labels", "value": value}


def _annotation(n: int, annotator: int, result: list[dict]) -> dict:
    return {
        "id": n,
        "completed_by": annotator,
        "result": result,
        "was_cancelled": False,
        "created_at": f"2024-03-01T10:{n // 60:02d}:{n % 60:02d}.000000Z",
        "lead_time": LEAD_TIME_S,
    }


@pytest.fixture(scope="module")
def roundtrip(dataset, predictions, tmp_path_factory):
    """A four-part study, annotated in Label Studio's export format; returns the analysis and the plan."""
    examples, documents = dataset
    answers = deteriorate_examples(examples, DeteriorationSettings(seed=2))
    settings = StudySettings(relevance_questions=6, preference_questions=8, seed=2)
    study = build_study(answers, examples, documents, predictions, BM25Ranker(), settings, study_id="rt")
    folder = write_study(study, tmp_path_factory.mktemp("rt") / "study")
    key = study.key_by_id()
    rng = random.Random(7)
    n = 0
    plan: dict = {
        "trial": defaultdict(list),
        "relevance": defaultdict(dict),
        "preference": [],
        "inattentive": 0,
    }
    exports = []
    for part in ("relevance", "trial_a", "trial_b", "preference"):
        ls_tasks = json.loads((folder / "labelstudio" / f"{part}.json").read_text())
        assert ls_tasks, part
        rows = []
        for t, ls_task in enumerate(ls_tasks):
            data = ls_task["data"]
            k = key[data["task_id"]]
            anns = []
            annotators = [1, 2, 3] if part == "relevance" else [10_000 + n + i for i in range(2)]
            for annotator in annotators:
                n += 1
                attentive = part == "relevance" or n % 11 != 0  # every 11th trial/A-B annotation: wrong
                category = k["attention_answer"] if attentive else "Not the category"
                result = [_choice(n, "category", "question", category)]
                if part == "relevance":
                    rating = rng.randint(0, 4)
                    result.append(_choice(n, "relevance", "document", str(rating)))
                    plan["relevance"][data["task_id"]][annotator] = rating
                elif part == "preference":
                    choice = rng.choice(["A", "B", "tie"])
                    result.append(_choice(n, "choice", "question", choice))
                    if attentive:
                        outcome = (
                            "tie" if choice == "tie" else ("gold" if choice == k["gold_side"] else "model")
                        )
                        plan["preference"].append((k["system"], outcome))
                else:
                    familiarity, usefulness = rng.randint(1, 5), rng.randint(1, 5)
                    result += [
                        _choice(n, "familiarity", "question", str(familiarity)),
                        _choice(n, "usefulness", "answer", str(usefulness)),
                    ]
                    text = data["answer"]
                    found = [e for e in k["edits"] if rng.random() < (0.4 if part == "trial_a" else 0.8)]
                    spans = [(e["start"], e["end"]) for e in found]
                    if not k["deteriorated"] and rng.random() < 0.3:
                        spans.append((0, text.index(" ")))  # a false positive
                    result += [_region(n, "spans", "answer", text, s, e, "misleading") for s, e in spans]
                    if attentive:
                        plan["trial"][part].append(
                            {
                                "edits": k["edits"],
                                "found": found,
                                "marked": bool(spans),
                                "familiarity": familiarity,
                                "usefulness": usefulness,
                            }
                        )
                plan["inattentive"] += not attentive
                anns.append(_annotation(n, annotator, result))
            rows.append({"id": t, "data": data, "annotations": anns, "predictions": []})
        path = folder / f"export-{part}.json"
        path.write_text(json.dumps(rows))
        exports.append(str(path))
    out = folder / "report"
    r = CliRunner().invoke(app, ["analyze", *exports, "--study", str(folder), "--out", str(out)])
    assert r.exit_code == 0, r.output
    return json.loads((out / "analysis.json").read_text()), plan, n


def _mean(values):
    return float(np.mean(values)) if values else None


def test_every_annotation_comes_back_and_only_the_inattentive_ones_are_rejected(roundtrip):
    result, plan, total = roundtrip
    assert result["judgments"]["total"] == total
    assert result["judgments"]["rejected_by_reason"] == {"inattentive": plan["inattentive"]}
    assert result["judgments"]["accepted"] == total - plan["inattentive"]


def test_idr_false_positives_and_the_t_test_are_the_planted_ones(roundtrip):
    result, plan, _ = roundtrip
    idr = {}
    for part in ("trial_a", "trial_b"):
        rows = plan["trial"][part]
        bad = [x for x in rows if x["edits"]]
        idr[part] = [len(x["found"]) / len(x["edits"]) for x in bad]
        got = result["trials"][part]
        assert got["idr"]["n"] == len(bad)
        assert got["idr"]["mean"] == pytest.approx(_mean(idr[part]))
        found = sum(len(x["found"]) for x in bad)
        edits = sum(len(x["edits"]) for x in bad)
        assert (got["pooled"]["count"], got["pooled"]["n"]) == (found, edits)
        intact = [x for x in rows if not x["edits"]]
        fp = got["false_positives"]
        assert (fp["count"], fp["n"]) == (sum(x["marked"] for x in intact), len(intact))
        for kind in {e["type"] for x in bad for e in x["edits"]}:
            per = [
                sum(e["type"] == kind for e in x["found"]) / sum(e["type"] == kind for e in x["edits"])
                for x in bad
                if any(e["type"] == kind for e in x["edits"])
            ]
            assert got["by_type"][kind]["mean"] == pytest.approx(_mean(per)), kind
        useful = [x["usefulness"] for x in bad]
        assert got["usefulness"]["deteriorated"]["mean"] == pytest.approx(_mean(useful))
        assert got["familiarity"]["mean"] == pytest.approx(_mean([x["familiarity"] for x in rows]))
    test = stats.ttest_ind(idr["trial_b"], idr["trial_a"], equal_var=True)
    got = result["trials"]["t_test_b_vs_a"]["idr"]
    assert got["t"] == pytest.approx(test.statistic) and got["p"] == pytest.approx(test.pvalue)
    assert got["df"] == len(idr["trial_a"]) + len(idr["trial_b"]) - 2


def test_relevance_and_its_agreement_are_the_reference_packages_values(roundtrip):
    result, plan, _ = roundtrip
    ratings = plan["relevance"]
    values = [v for row in ratings.values() for v in row.values()]
    rel = result["relevance"]
    assert rel["rating"]["mean"] == pytest.approx(_mean(values))
    assert rel["distribution"] == {str(v): values.count(v) for v in range(5)}
    tasks = sorted(ratings)
    kappas = [
        cohen_kappa_score([ratings[t][x] for t in tasks], [ratings[t][y] for t in tasks])
        for x, y in itertools.combinations([1, 2, 3], 2)
    ]
    assert rel["cohen_kappa_pairs"] == 3
    assert rel["cohen_kappa"] == pytest.approx(float(np.mean(kappas)))
    matrix = np.array([[ratings[t][a] for t in tasks] for a in (1, 2, 3)], dtype=float)
    alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal", value_domain=range(5))
    assert rel["krippendorff_alpha_ordinal"] == pytest.approx(alpha)


def test_preference_shares_and_sign_tests_are_the_planted_choices(roundtrip):
    result, plan, _ = roundtrip
    by_system: dict = defaultdict(list)
    for system, outcome in plan["preference"]:
        by_system[system].append(outcome)
    assert set(result["preference"]) == set(by_system)
    for system, outcomes in by_system.items():
        got = result["preference"][system]
        assert got["n"] == len(outcomes)
        for o in ("model", "gold", "tie"):
            assert got[o]["count"] == outcomes.count(o)
            ci = stats.binomtest(outcomes.count(o), len(outcomes)).proportion_ci(method="wilson")
            assert got[o]["ci95"] == pytest.approx([ci.low, ci.high])
        wins, losses = outcomes.count("model"), outcomes.count("gold")
        expected = stats.binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else None
        assert got["sign_test_p"] == pytest.approx(expected)


def test_time_is_label_studio_s_lead_time(roundtrip):
    result, _, _ = roundtrip
    for part, summary in result["time_s"].items():
        assert summary["mean"] == pytest.approx(LEAD_TIME_S), part
