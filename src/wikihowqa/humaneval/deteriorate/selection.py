"""Which edits an answer gets: every operator's candidates, a seeded type-diverse non-overlapping pick,
and the paper's protocol over a dataset (answers per category, how many deteriorated, edits each)."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from wikihowqa.core.errors import DatasetError, SettingsError
from wikihowqa.core.records import Example
from wikihowqa.humaneval.deteriorate.donors import Donor, donor_sentences, pick_donor, unsupported_candidates
from wikihowqa.humaneval.deteriorate.edits import (
    ANTONYM,
    EDIT_TYPES,
    NEGATION,
    NUMBER,
    ORDER,
    SWAP,
    UNIT,
    UNSUPPORTED,
    Candidate,
    Change,
    DeterioratedAnswer,
    Edit,
    apply_edits,
)
from wikihowqa.humaneval.deteriorate.language import _analyze
from wikihowqa.humaneval.deteriorate.polarity import antonym_candidates, negation_candidates, order_candidates
from wikihowqa.humaneval.deteriorate.quantities import number_candidates, unit_candidates
from wikihowqa.humaneval.deteriorate.swap import swap_candidates


def candidates(
    text: str, rng: random.Random, *, donor: Donor | None = None, types: Sequence[str] = EDIT_TYPES
) -> dict[str, list[Candidate]]:
    """Every candidate edit of each requested type, in original coordinates."""
    a = _analyze(text)
    makers: dict[str, Callable[[], list[Candidate]]] = {
        NEGATION: lambda: negation_candidates(a),
        NUMBER: lambda: number_candidates(a, rng),
        UNIT: lambda: unit_candidates(a, rng),
        ANTONYM: lambda: antonym_candidates(a),
        SWAP: lambda: swap_candidates(a, rng),
        ORDER: lambda: order_candidates(a),
        UNSUPPORTED: lambda: unsupported_candidates(a, donor),
    }
    found: dict[str, list[Candidate]] = {}
    for kind in types:
        seen: set[tuple[Change, ...]] = set()
        unique = []
        for c in makers[kind]():
            if c.changes not in seen and all(text[ch.start : ch.end] != ch.new for ch in c.changes):
                seen.add(c.changes)
                unique.append(c)
        found[kind] = unique
    return found


def _fits(candidate: Candidate, chosen: Sequence[Candidate]) -> bool:
    """No overlap or contact with chosen changes; one polarity flip per sentence; one insertion per answer."""
    for other in chosen:
        if candidate.type == other.type and candidate.type in {UNSUPPORTED} | (
            {NEGATION} if candidate.sentence == other.sentence else set()
        ):
            return False
        for c in candidate.changes:
            for o in other.changes:
                if c.start <= o.end and o.start <= c.end:  # touching counts: keep one character between
                    return False
    for i, c in enumerate(candidate.changes):  # a swap's own two changes must be apart too
        for o in candidate.changes[i + 1 :]:
            if c.start <= o.end and o.start <= c.end:
                return False
    return True


def select_edits(
    found: Mapping[str, Sequence[Candidate]], n_edits: int, rng: random.Random
) -> list[Candidate]:
    """Up to ``n_edits`` changes, cycling through the types in a shuffled order so answers mix types."""
    kinds = [k for k in found if found[k]]
    rng.shuffle(kinds)
    chosen: list[Candidate] = []
    count = 0
    while count < n_edits and kinds:
        for kind in list(kinds):
            pool = [c for c in found[kind] if _fits(c, chosen) and count + len(c.changes) <= n_edits]
            if not pool:
                kinds.remove(kind)
                continue
            pick = rng.choice(pool)
            chosen.append(pick)
            count += len(pick.changes)
            if count >= n_edits:
                break
    return chosen


def deteriorate_text(
    text: str,
    n_edits: int,
    rng: random.Random,
    *,
    donor: Donor | None = None,
    types: Sequence[str] = EDIT_TYPES,
) -> tuple[str, tuple[Edit, ...]]:
    """``text`` with up to ``n_edits`` factual errors, and the edits."""
    chosen = select_edits(candidates(text, rng, donor=donor, types=types), n_edits, rng)
    return apply_edits(text, chosen)


@dataclass(frozen=True)
class DeteriorationSettings:
    """The paper's protocol by default; ``edits_per_answer`` is a mean (4.5 → 4 or 5 with equal odds)."""

    per_category: int = 5
    deteriorated_per_category: int = 4
    edits_per_answer: float = 4.5
    types: tuple[str, ...] = EDIT_TYPES
    seed: int = 0

    def __post_init__(self) -> None:
        if self.per_category < 1:
            raise SettingsError("per_category must be at least 1")
        if not 0 <= self.deteriorated_per_category <= self.per_category:
            raise SettingsError("deteriorated_per_category must be between 0 and per_category")
        if self.edits_per_answer < 1:
            raise SettingsError("edits_per_answer must be at least 1")
        unknown = set(self.types) - set(EDIT_TYPES)
        if unknown or not self.types:
            raise SettingsError(
                f"unknown deterioration type(s) {sorted(unknown)} (known: {', '.join(EDIT_TYPES)})"
            )


UNCATEGORISED = "(uncategorised)"


def _edit_count(mean: float, rng: random.Random) -> int:
    base = int(mean)
    return base + (1 if rng.random() < mean - base else 0)


def deteriorate_examples(
    examples: Sequence[Example],
    settings: DeteriorationSettings = DeteriorationSettings(),
    *,
    donors_from: Sequence[Example] | None = None,
) -> list[DeterioratedAnswer]:
    """Pick ``per_category`` answers per category and deteriorate ``deteriorated_per_category`` of them.

    Examples without a category form one group. An answer chosen for deterioration that yields no edit
    trades places with an intact one that does, so each category keeps its share where it can.
    """
    usable = [e for e in examples if e.answer.strip()]
    if not usable:
        raise DatasetError("no examples with a non-empty answer to deteriorate")
    rng = random.Random(settings.seed)
    donors = donor_sentences(donors_from if donors_from is not None else usable)
    groups: dict[str, list[Example]] = defaultdict(list)
    for e in sorted(usable, key=lambda e: e.article_id):
        groups[e.category or UNCATEGORISED].append(e)
    results: list[DeterioratedAnswer] = []
    for name in sorted(groups):
        picked = rng.sample(groups[name], min(settings.per_category, len(groups[name])))
        order = list(range(len(picked)))
        rng.shuffle(order)
        want = round(settings.deteriorated_per_category * len(picked) / settings.per_category)
        made: dict[int, tuple[str, tuple[Edit, ...]]] = {}
        for k in order:
            if sum(1 for v in made.values() if v[1]) >= want:
                break
            ex = picked[k]
            item_rng = random.Random(f"{settings.seed}:{ex.article_id}")
            donor = pick_donor(ex.answer, ex.article_id, ex.category, donors, item_rng)
            made[k] = deteriorate_text(
                ex.answer,
                _edit_count(settings.edits_per_answer, item_rng),
                item_rng,
                donor=donor,
                types=settings.types,
            )
        for k, ex in enumerate(picked):
            text, edits = made.get(k, (ex.answer, ()))
            extra = {"split": ex.split} if ex.split else {}
            results.append(
                DeterioratedAnswer(ex.article_id, ex.question, ex.category, ex.answer, text, edits, extra)
            )
    return results
