"""The judge's part of the evaluation report: what judging cost (tokens and price, per system), how much
its verdicts vary (with ``--judge-samples`` above 1), and the pairwise comparison (``--judge-pairwise``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wikihowqa.evaluate import pairwise
from wikihowqa.evaluate.judge import CRITERIA
from wikihowqa.evaluate.judge_cost import Tokens, total
from wikihowqa.evaluate.judge_spread import Spread
from wikihowqa.evaluate.pipeline import Evaluation


@dataclass(frozen=True)
class JudgeSummary:
    """Tokens per system (and per compared pair) with their price, spreads, and pairwise results."""

    samples: int
    price: tuple[float, float] | None  # USD per million input, output tokens
    requests_sent: int  # HTTP requests in this run, retries included; the rest came from the caches
    response_cache: str | None
    tokens: dict[str, Tokens]  # system -> every judge call behind its verdicts
    too_large: dict[str, list[int]]  # system -> article ids whose reply was too large to read
    spread: dict[str, dict[str, Spread]]  # system -> criterion -> spread (samples > 1)
    pairwise: list[pairwise.PairwiseSummary]

    @property
    def total(self) -> Tokens:
        return total([*self.tokens.values(), *(p.tokens for p in self.pairwise)])

    def to_dict(self) -> dict[str, Any]:
        return {
            "samples": self.samples,
            "price_per_million_tokens": list(self.price) if self.price else None,
            "requests_sent": self.requests_sent,
            "response_cache": self.response_cache,
            "tokens": {name: t.to_dict(self.price) for name, t in self.tokens.items()},
            "replies_too_large": self.too_large,
            "total": self.total.to_dict(self.price),
            "spread": {
                name: {c: s.to_dict() for c, s in by.items()} for name, by in self.spread.items()
            },
            "pairwise": [p.to_dict() for p in self.pairwise],
        }


def build(evaluation: Evaluation) -> JudgeSummary | None:
    s, judge = evaluation.settings, evaluation.metadata.get("judge")
    if s.judge is None or judge is None:
        return None
    results = [*evaluation.systems, *([evaluation.gold_grounding] if evaluation.gold_grounding else [])]
    return JudgeSummary(
        samples=s.judge.samples,
        price=s.judge.price,
        requests_sent=judge.get("requests_sent", 0),
        response_cache=judge.get("response_cache"),
        tokens={r.system: r.judge_tokens for r in results if r.judge_tokens is not None},
        too_large={r.system: r.judge_too_large for r in results if r.judge_too_large},
        spread={r.system: r.judge_spread for r in results if r.judge_spread},
        pairwise=[
            pairwise.summarise(
                p, confidence=s.confidence, resamples=s.resamples, seed=s.seed, price=s.judge.price
            )
            for p in evaluation.pairwise
        ],
    )


# --------------------------------------------------------------------------- Markdown


def _price(tokens: Tokens, price: tuple[float, float] | None) -> str:
    usd = tokens.price(price)
    return "–" if usd is None else f"${usd:.4f}"


def _rate(interval: Any) -> str:
    if interval is None:
        return "–"
    return f"{100 * interval.mean:.1f}% [{100 * interval.low:.1f}, {100 * interval.high:.1f}]"


def markdown(summary: JudgeSummary, pct: int) -> list[str]:
    """The report's judge sections (Markdown lines)."""
    lines: list[str] = []
    for p in summary.pairwise:
        lines += [
            "",
            f"## Pairwise judge: {p.a} vs {p.b}",
            "",
            f"Each question's two answers shown to the judge in both orders; a pair judged differently in"
            f" the two orders is a tie and position-inconsistent. Rates over the {p.judged} of"
            f" {p.questions} pairs with a verdict in both orders ({p.not_sent} not sent: an empty answer;"
            f" {p.unparsed} with an unparseable reply), with {pct}% bootstrap CIs.",
            "",
            f"| {p.a} wins | tie | {p.b} wins | position-inconsistent |",
            "|---:|---:|---:|---:|",
            "| " + " | ".join(_rate(p.rates[k]) for k in ("win", "tie", "loss", "inconsistent")) + " |",
        ]
    if summary.spread:
        lines += [
            "",
            f"## Judge variance ({summary.samples} samples per answer)",
            "",
            "Per criterion: the mean over questions of the per-question standard deviation (n − 1) of the"
            " parsed samples, and the share of questions whose samples disagree. The leaderboard's judge"
            " scores are each question's mean over its samples.",
            "",
            "| System | " + " | ".join(f"{c}: mean SD | {c}: disagree" for c in CRITERIA) + " |",
            "|---|" + "---:|---:|" * len(CRITERIA),
        ]
        for name, by in summary.spread.items():
            cells = []
            for c in CRITERIA:
                sp = by[c]
                cells.append("–" if sp.mean_sd is None else f"{sp.mean_sd:.2f}")
                cells.append("–" if sp.disagree_share is None else f"{100 * sp.disagree_share:.0f}%")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    price = summary.price
    priced = f"at ${price[0]:g} / ${price[1]:g} per million input / output tokens" if price else "not set"
    lines += [
        "",
        "## What judging cost",
        "",
        "Every judge call behind the verdicts: tokens from the server's `usage` (estimated calls: ~4"
        f" characters a token, or the local model's tokenizer); price {priced} (--judge-price)."
        f" HTTP requests sent in this run: {summary.requests_sent}, retries included (calls not sent came"
        f" from the response cache {summary.response_cache or '(none: local model)'} or the score cache)."
        " A reply too large to read was sent and paid for: its prompt is estimated, its reply counted at"
        " the bytes read before the cap, and it scores nothing.",
        "",
        "| Judged | calls | estimated | prompt tokens | completion tokens | price (USD) | too large |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    rows = [*summary.tokens.items(), *((f"pairwise {p.a} vs {p.b}", p.tokens) for p in summary.pairwise)]
    for name, t in [*rows, ("**total**", summary.total)]:
        lines.append(
            f"| {name} | {t.calls} | {t.estimated} | {t.prompt} | {t.completion} | {_price(t, price)}"
            f" | {t.oversized} |"
        )
    if summary.too_large:
        lines += ["", "Replies too large to read (article ids): " + _too_large(summary.too_large) + "."]
    return lines


def _too_large(by_system: dict[str, list[int]]) -> str:
    return "; ".join(f"{name}: {', '.join(str(i) for i in ids)}" for name, ids in by_system.items())


def judge_lines(summary: JudgeSummary) -> list[str]:
    """What a terminal shows under the leaderboard: each pairwise result, and the judge's tokens."""
    lines = []
    for p in summary.pairwise:
        rates = ", ".join(
            f"{label} {_rate(p.rates[key])}"
            for key, label in (("win", f"{p.a} wins"), ("tie", "tie"), ("loss", f"{p.b} wins"))
        )
        lines.append(
            f"pairwise judge, {p.judged} of {p.questions} pairs: {rates};"
            f" position-inconsistent {_rate(p.rates['inconsistent'])}"
        )
    t = summary.total
    usd = t.price(summary.price)
    lines.append(
        f"judge: {t.calls} calls ({summary.requests_sent} sent now), {t.prompt} prompt + {t.completion}"
        f" completion tokens" + ("" if usd is None else f", ~${usd:.4f}")
        + (f" ({t.estimated} calls estimated: no usable usage from the server)" if t.estimated else "")
    )
    if t.oversized:
        named = f" ({_too_large(summary.too_large)})" if summary.too_large else ""
        lines.append(f"judge: {t.oversized} replies too large to read, scored nothing{named}")
    return lines
