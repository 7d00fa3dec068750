"""The error taxonomy of the ``errors`` study part: what an assessor may call an error span.

Adapted from Scarecrow (Dou et al., 2022; the paper's named future work) to grounded how-to answers:
Scarecrow's types that apply to a how-to answer, the passage-grounded types of span-level hallucination
corpora (RAGTruth: conflicts with the passages, baseless information), and how-to types (unsafe step,
wrong step order, missing step). A settings file (YAML, TOML or JSON) may replace the default whole; the
taxonomy in force is recorded in ``study.json`` (``error_taxonomy``), so the page, the Label Studio
configuration and the analysis all read the same list. Each type says which deterioration edit types
it is the right name for (``planted``), which is how type accuracy on planted edits is scored and how
real errors the deteriorations do not cover are found (types with no ``planted``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from wikihowqa.core.errors import SettingsError

#: How bad a span is; one of these per span (Scarecrow rates severity 1-3).
SEVERITIES: tuple[str, ...] = ("minor", "major", "critical")
SEVERITY_DEFINITIONS: Mapping[str, str] = {
    "minor": "A reader notices it but is not misled and can still do the task.",
    "major": "A reader is misled, or the task goes wrong, if this part is followed.",
    "critical": "Following it could hurt someone, damage something, or make the task fail entirely.",
}
#: Where an antecedent span may lie: elsewhere in the answer, or in a shown passage (trial B only).
ANTECEDENT_SOURCES: tuple[str, ...] = ("answer", "passage")
#: The deterioration edit types a ``planted`` list may name (deteriorate/edits.py's REVIEW_TYPES).
PLANTED_TYPES: tuple[str, ...] = (
    "negation",
    "number",
    "unit",
    "antonym",
    "swap",
    "order",
    "unsupported",
    "other",
)
#: ``shown``: every task, only with passages (trial B), only without them (trial A).
SHOWN: tuple[str, ...] = ("always", "with_passages", "without_passages")

_ONE_LINE = 200


class ErrorType(BaseModel):
    """One type: an id, what the page shows (label, one-line definition and example), whether a span of
    it needs an antecedent and where that may lie, when it is offered, which planted edits it names."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")
    label: str = Field(min_length=1, max_length=60)
    group: Literal["scarecrow", "grounding", "howto", "other"] = "other"
    definition: str = Field(min_length=1, max_length=_ONE_LINE)
    example: str = Field(min_length=1, max_length=_ONE_LINE)
    antecedent: Literal["required", "optional", "none"] = "none"
    antecedent_in: tuple[Literal["answer", "passage"], ...] = ANTECEDENT_SOURCES  # type: ignore[assignment]
    shown: Literal["always", "with_passages", "without_passages"] = "always"
    planted: tuple[str, ...] = ()

    @field_validator("definition", "example", "label")
    @classmethod
    def _one_line(cls, value: str) -> str:
        if "\n" in value or "\r" in value:
            raise ValueError("must be one line")
        return value.strip()

    @field_validator("planted")
    @classmethod
    def _planted(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [v for v in value if v not in PLANTED_TYPES]
        if unknown:
            raise ValueError(f"unknown edit type(s) {unknown} (known: {', '.join(PLANTED_TYPES)})")
        return value

    @model_validator(mode="after")
    def _antecedent_place(self) -> ErrorType:
        if self.antecedent != "none" and not self.antecedent_in:
            raise ValueError("antecedent_in must name 'answer' and/or 'passage' when an antecedent is asked")
        if (
            self.shown == "without_passages"
            and self.antecedent_in == ("passage",)
            and self.antecedent == "required"
        ):
            raise ValueError("a type shown without passages cannot require an antecedent in a passage")
        return self

    def offered(self, passages: bool) -> bool:
        """Whether a task with (or without) passages offers this type."""
        return self.shown == "always" or (self.shown == "with_passages") == passages

    def antecedent_sources(self, passages: bool) -> tuple[str, ...]:
        """Where this type's antecedent may lie in a task with (or without) passages."""
        return tuple(s for s in self.antecedent_in if s == "answer" or passages)


class Taxonomy(BaseModel):
    """The list of error types in force, with a name so a study says which one it used."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=80)
    types: tuple[ErrorType, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> Taxonomy:
        names = [t.name for t in self.types]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"error type(s) named twice: {', '.join(twice)}")
        for passages in (False, True):
            if not any(t.offered(passages) for t in self.types):
                raise ValueError(f"no error type is offered {'with' if passages else 'without'} passages")
        return self

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.types)

    def get(self, name: str) -> ErrorType | None:
        return next((t for t in self.types if t.name == name), None)

    def offered(self, passages: bool) -> tuple[ErrorType, ...]:
        """The types a task with (or without) passages offers, in taxonomy order."""
        return tuple(t for t in self.types if t.offered(passages))

    def names_for_edit(self, edit_type: str, passages: bool) -> tuple[str, ...]:
        """The offered types that are a right name for a planted edit of ``edit_type`` (type accuracy)."""
        return tuple(t.name for t in self.offered(passages) if edit_type in t.planted)

    def uncovered(self) -> tuple[str, ...]:
        """Types no deterioration plants: real errors the positive controls cannot test."""
        return tuple(t.name for t in self.types if not t.planted)

    def to_dict(self) -> dict[str, Any]:
        """What ``study.json`` records under ``error_taxonomy`` (with the severities' definitions)."""
        return {
            **self.model_dump(mode="json"),
            "severities": [{"name": s, "definition": SEVERITY_DEFINITIONS[s]} for s in SEVERITIES],
        }


def _t(name: str, label: str, group: str, definition: str, example: str, **kw: Any) -> ErrorType:
    return ErrorType(name=name, label=label, group=group, definition=definition, example=example, **kw)


#: The default taxonomy. Scarecrow's "needs Google" becomes "unverifiable" without passages and gives way
#: to the grounded types with them; Scarecrow's severity is the span's ``severity``, its explanation the
#: ``note``. RAGTruth's evident/subtle split is left to severity.
DEFAULT_TAXONOMY = Taxonomy(
    name="wikihowqa-scarecrow-howto-1",
    types=(
        _t(
            "grammar_usage",
            "Grammar and usage",
            "scarecrow",
            "Missing, extra or wrong words or punctuation that make the text hard to read.",
            "Let the figs dries in the the oven.",
        ),
        _t(
            "off_prompt",
            "Off-prompt",
            "scarecrow",
            "The span does not help answer this question, or answers a different one.",
            "How to dry figs: ... Tennis balls keep their bounce longer in a sealed can.",
            planted=("unsupported",),
        ),
        _t(
            "redundant",
            "Redundant",
            "scarecrow",
            "Repeats what the answer already said without adding anything; mark the earlier text.",
            "Wash the figs. ... Rinse the figs in water to wash them.",
            antecedent="required",
            antecedent_in=("answer",),
        ),
        _t(
            "self_contradiction",
            "Self-contradiction",
            "scarecrow",
            "Contradicts another part of the same answer; mark that part as antecedent.",
            "Dry the figs in the sun. ... Never put the figs in the sun.",
            antecedent="required",
            antecedent_in=("answer",),
        ),
        _t(
            "incoherent",
            "Incoherent",
            "scarecrow",
            "Does not make sense or does not follow from what comes before, though it is no contradiction.",
            "Slice the figs, because the oven is a kind of weather.",
            planted=("swap",),
        ),
        _t(
            "technical_jargon",
            "Technical jargon",
            "scarecrow",
            "Uses a specialised term a general reader would not know, without explaining it.",
            "Bring the figs to a water activity below 0.6 aw.",
        ),
        _t(
            "bad_math",
            "Bad math",
            "scarecrow",
            "A wrong calculation, count, quantity or unit conversion.",
            "Dry 2 trays of 6 figs each, 10 figs in all.",
            planted=("number", "unit"),
        ),
        _t(
            "encyclopedic",
            "Wrong fact",
            "scarecrow",
            "States a fact about the world that is wrong (not about how to do the task).",
            "Figs grow on pine trees.",
            planted=("negation", "antonym", "number", "unit"),
        ),
        _t(
            "commonsense",
            "Against common sense",
            "scarecrow",
            "Goes against everyday knowledge of how things work.",
            "Dry the figs in the oven for up to 36 days.",
            planted=("negation", "antonym", "number", "unit", "swap"),
        ),
        _t(
            "unverifiable",
            "Needs checking",
            "scarecrow",
            "A specific claim you cannot judge without looking it up (no passages shown).",
            "Figs dried this way keep 47% of their vitamin C.",
            shown="without_passages",
            planted=("unsupported",),
        ),
        _t(
            "contradicts_passages",
            "Contradicts the passages",
            "grounding",
            "Says the opposite of, or something at odds with, the passages; mark the passage text.",
            "Answer: dry for 36 days. Passage: dry for 24 to 36 hours.",
            antecedent="required",
            antecedent_in=("passage",),
            shown="with_passages",
            planted=("negation", "antonym", "number", "unit", "swap", "order"),
        ),
        _t(
            "not_in_passages",
            "Not in the passages",
            "grounding",
            "A claim none of the shown passages supports or implies (baseless information).",
            "Answer: add lemon juice first. No passage mentions lemon juice.",
            shown="with_passages",
            planted=("unsupported",),
        ),
        _t(
            "unsafe_step",
            "Unsafe or harmful step",
            "howto",
            "A step that could hurt a person or animal, or damage property, if followed.",
            "Leave the oven on overnight with the door open and the gas unlit.",
        ),
        _t(
            "step_order",
            "Step order wrong",
            "howto",
            "A step comes before what it depends on, or after it is needed; mark that other step.",
            "Put the figs in the oven. ... Before that, preheat the oven.",
            antecedent="optional",
            antecedent_in=("answer",),
            planted=("order",),
        ),
        _t(
            "missing_step",
            "Missing essential step",
            "howto",
            "An essential step is left out; mark the step that cannot work without it.",
            "Store the figs in a jar. (Nothing says to let them cool and dry first.)",
        ),
    ),
)


def read_taxonomy(path: Path | str | None) -> Taxonomy:
    """The taxonomy of a settings file (``name`` and ``types``), or the default for ``None``."""
    if path is None:
        return DEFAULT_TAXONOMY
    from wikihowqa.schema.files import read_settings

    return taxonomy_from(read_settings(path), str(path))


def taxonomy_from(data: Mapping[str, Any], where: str = "error taxonomy") -> Taxonomy:
    """A taxonomy from its mapping (a settings file's, or ``study.json``'s ``error_taxonomy``)."""
    data = {k: v for k, v in data.items() if k != "severities"}
    try:
        return Taxonomy.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        at = ".".join(str(p) for p in err["loc"])
        raise SettingsError(f"{where}: {at + ': ' if at else ''}{err['msg']}") from None


def study_taxonomy(manifest: Mapping[str, Any]) -> Taxonomy:
    """The taxonomy a study recorded (the default for a study without an ``errors`` part)."""
    recorded = manifest.get("error_taxonomy")
    return DEFAULT_TAXONOMY if recorded is None else taxonomy_from(recorded, "study.json: error_taxonomy")


def offered_names(taxonomy: Taxonomy, passages: bool) -> list[str]:
    return [t.name for t in taxonomy.offered(passages)]


__all__ = [
    "ANTECEDENT_SOURCES",
    "DEFAULT_TAXONOMY",
    "PLANTED_TYPES",
    "SEVERITIES",
    "SEVERITY_DEFINITIONS",
    "SHOWN",
    "ErrorType",
    "Taxonomy",
    "offered_names",
    "read_taxonomy",
    "study_taxonomy",
    "taxonomy_from",
]
