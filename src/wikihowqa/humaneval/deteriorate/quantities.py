"""Operators that change how much and in what: numbers (digits, ranges, fractions, words) and units."""

from __future__ import annotations

import random
import re

from wikihowqa.humaneval import lexicon as lx
from wikihowqa.humaneval.deteriorate.edits import NUMBER, UNIT, Candidate
from wikihowqa.humaneval.deteriorate.language import _Analyzed, _plural, _single, _Token, _with_article
from wikihowqa.humaneval.text import match_case

_NUM = r"(?:\d+\s+\d+/\d+|\d+/\d+|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|[¼½¾⅓⅔])"
_LEFT = r"(?<![\w/.,:$£€-])"
_RIGHT = r"(?![\w/:]|[.,]\d)"
_RANGE = re.compile(rf"{_LEFT}(?P<a>\d+)(?P<sep>\s*(?:-|–|to)\s*)(?P<b>\d+){_RIGHT}")
_NUMBER = re.compile(rf"{_LEFT}\$?(?P<n>{_NUM}){_RIGHT}")


def _format_int(value: int, like: str) -> str:
    return f"{value:,}" if "," in like else str(value)


def _new_int(n: int, rng: random.Random) -> int | None:
    if n <= 0:
        return None
    if n >= 100:  # temperatures, weights: a plausible but wrong value, not a tripled one
        step = 25 if n >= 200 else 5
        return rng.choice(sorted({round(n * f / step) * step for f in (0.5, 0.75, 1.25, 1.5)} - {n}))
    options = {n * 2, n * 3, n + max(1, n // 2)}
    if n % 2 == 0 and n // 2 >= 2:
        options.add(n // 2)
    if n >= 10 and n % 10 == 0:
        options.add(n - 10 if n > 10 else 20)
    options.discard(n)
    options = {o for o in options if o >= 2} if n >= 2 else options
    return rng.choice(sorted(options)) if options else None


def _new_number(s: str, rng: random.Random) -> str | None:
    """A different value written like ``s``; never 1 where ``s`` is plural."""
    if s in lx.UNICODE_FRACTIONS:
        return lx.UNICODE_FRACTIONS[s]
    mixed = re.fullmatch(r"(\d+)(\s+)(\d+/\d+)", s)
    if mixed:
        whole = int(mixed.group(1))
        return f"{rng.choice([whole + 1, whole * 2 + 1])}{mixed.group(2)}{mixed.group(3)}"
    frac = re.fullmatch(r"(\d+)/(\d+)", s)
    if frac:
        num, den = int(frac.group(1)), int(frac.group(2))
        if num >= den or den == 0:
            return None
        return rng.choice([f for f in lx.COMMON_FRACTIONS if f != s])
    if "." in s:
        decimals = len(s.split(".")[1])
        value = float(s.replace(",", ""))
        new = rng.choice([value * 2, value + 1])
        text = f"{new:,.{decimals}f}" if "," in s else f"{new:.{decimals}f}"
        return text if text != s else None
    n = int(s.replace(",", ""))
    if 1900 <= n <= 2099 and "," not in s:
        return None  # a year, not a quantity
    new_int = _new_int(n, rng)
    return None if new_int is None else _format_int(new_int, s)


def _unit_index() -> dict[str, tuple[int, int, bool]]:
    index: dict[str, tuple[int, int, bool]] = {}
    for f, family in enumerate(lx.UNIT_FAMILIES):
        for p, (singular, plural) in enumerate(family):
            index.setdefault(plural, (f, p, True))
            index.setdefault(singular, (f, p, False))
    return index


_UNITS = _unit_index()
_CASELESS_UNITS = {k.lower(): v for k, v in _UNITS.items() if len(k) > 3}


def _unit_of(token: str) -> tuple[int, int, bool] | None:
    return _UNITS.get(token) or _CASELESS_UNITS.get(token.lower())


def number_candidates(a: _Analyzed, rng: random.Random) -> list[Candidate]:
    """Change quantities: digits, ranges (scaled together), fractions, number words, "twice", "in half"."""
    text, toks = a.text, a.tokens
    out: list[Candidate] = []
    taken: list[tuple[int, int]] = []
    for m in _RANGE.finditer(text):
        lo, hi = int(m.group("a")), int(m.group("b"))
        if not 0 < lo < hi or hi >= 1900:
            continue
        factor = rng.choice([2, 3])
        new = f"{lo * factor}{m.group('sep')}{hi * factor}"
        out.append(_single(NUMBER, a, m.start(), m.end(), new))
        taken.append(m.span())
    token_at = {t.start: i for i, t in enumerate(toks)}
    for m in _NUMBER.finditer(text):
        s, e = m.span("n")
        if any(x <= s < y for x, y in taken):
            continue
        raw = m.group("n")
        new = _new_number(raw, rng)
        if new is None:
            continue
        # "1 cup" -> "3 cups": a singular noun after a former 1 must agree
        if raw == "1":
            i = token_at.get(s)
            noun = toks[i + 1] if i is not None and i + 1 < len(toks) else None
            plural = _plural_unit_or_noun(noun.text) if noun and noun.is_word else None
            if plural is None:
                continue
            out.append(_single(NUMBER, a, s, noun.end, f"{new}{text[e : noun.start]}{plural}"))
            continue
        out.append(_single(NUMBER, a, s, e, new))
    for i, tok in enumerate(toks):
        low = tok.lower
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if low in lx.NUMBER_WORDS and (nxt is None or nxt.text != "-"):
            value = _new_int(lx.NUMBER_WORDS[low], rng)
            if value:
                word = lx.WORDS_FOR_NUMBERS.get(value, str(value))
                out.append(_single(NUMBER, a, tok.start, tok.end, match_case(tok.text, word)))
        elif low == "one" and nxt is not None and nxt.is_word and _unit_of(nxt.text):
            plural = _plural_unit_or_noun(nxt.text)
            if plural:
                word = match_case(tok.text, rng.choice(["two", "three"]))
                out.append(_single(NUMBER, a, tok.start, nxt.end, f"{word} {plural}"))
        elif low == "twice":
            out.append(_single(NUMBER, a, tok.start, tok.end, match_case(tok.text, "three times")))
        elif low == "half" and i > 0 and toks[i - 1].lower in {"in", "into"}:
            out.append(_single(NUMBER, a, tok.start, tok.end, rng.choice(["thirds", "quarters"])))
    return out


def _plural_unit_or_noun(word: str) -> str | None:
    unit = _unit_of(word)
    if unit is not None:
        f, p, plural = unit
        return None if plural else match_case(word, lx.UNIT_FAMILIES[f][p][1])
    return _plural(word)


_DEGREE = re.compile(r"°\s?[FC]\b")
_NUMERIC_TOKEN = re.compile(rf"{_NUM}|\d+(?:[.,]\d+)*")


def _is_quantity(tok: _Token) -> bool:
    return (
        bool(_NUMERIC_TOKEN.fullmatch(tok.text))
        or tok.lower in lx.NUMBER_WORDS
        or tok.lower in {"one", "half"}
    )


def unit_candidates(a: _Analyzed, rng: random.Random) -> list[Candidate]:
    """Change a unit after a quantity to a neighbour of its family (minutes ↔ hours, °F ↔ °C, cups ↔ …)."""
    text, toks = a.text, a.tokens
    out: list[Candidate] = []
    for m in _DEGREE.finditer(text):
        out.append(
            _single(
                UNIT,
                a,
                m.start(),
                m.end(),
                m.group().replace("F", "C") if "F" in m.group() else m.group().replace("C", "F"),
            )
        )
    for i, tok in enumerate(toks):
        unit = _unit_of(tok.text) if tok.is_word else None
        if unit is None or i == 0:
            continue
        prev = toks[i - 1]
        hyphenated = prev.text == "-" and i >= 2 and _is_quantity(toks[i - 2])
        after_degrees = prev.lower == "degrees" and unit[0] == lx.UNIT_FAMILIES.index(
            (("Fahrenheit", "Fahrenheit"), ("Celsius", "Celsius"))
        )
        article = prev.lower in {"a", "an"} and unit[0] == 0
        if not (_is_quantity(prev) or hyphenated or after_degrees or article):
            continue
        f, p, plural = unit
        family = lx.UNIT_FAMILIES[f]
        choices = [q for q in (p - 1, p + 1) if 0 <= q < len(family)]
        if not choices:
            continue
        replacement = family[rng.choice(choices)][1 if plural else 0]
        if article:
            out.append(_with_article(a, i, replacement, UNIT))
        else:
            out.append(
                _single(
                    UNIT,
                    a,
                    tok.start,
                    tok.end,
                    match_case(tok.text, replacement) if len(tok.text) > 3 else replacement,
                )
            )
    return out
