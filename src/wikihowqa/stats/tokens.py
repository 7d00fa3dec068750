"""The reference tokenizers, exact and fast: spaCy's English rules (Newsroom) and NLTK's tok-tok (Multi-News).

Both reference tokenizers work on whitespace-delimited chunks whose tokens depend only on the chunk and
on the kind of whitespace around it, so each distinct chunk is tokenized once by the reference library
itself and cached. Tokens are identical to the libraries' (property-tested against them on random text);
on web pages, where the same few thousand chunks make up most of the text, this is 3–5x faster than
``spacy.blank("en").tokenizer.pipe`` on paragraphs and ~10x faster than calling tok-tok per sentence
(measured on the three real WikiHowNFQA instances; benchmarks/stats.py measures the whole pipeline).

Sentences come from the project's splitter (``wikihowqa.core.sentences``: nupunkt, a Punkt implementation; the
Multi-News scripts called NLTK's Punkt ``sent_tokenize``, whose trained model cannot be downloaded here).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from itertools import accumulate, chain
from typing import Any

import numpy as np

# ``\s`` in Python's ``re`` is exactly ``str.isspace``, which both reference tokenizers split on.

#: Cached chunks per tokenizer before the cache is dropped (bounded memory on web-scale vocabularies).
MAX_CACHE = 1_000_000


@cache
def _spacy_tokenizer() -> Any:
    import spacy

    return spacy.blank("en").tokenizer


@cache
def _toktok() -> Any:
    from nltk.tokenize import ToktokTokenizer

    return ToktokTokenizer()


def spacy_version() -> str:
    import spacy

    return spacy.__version__


class _Cache(dict):
    """A dict that fills itself: ``cache[key]`` computes a missing value with ``compute(key)``."""

    def __init__(self, compute: Any) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, key: Any) -> Any:
        if len(self) >= MAX_CACHE:
            self.clear()
        value = self[key] = self._compute(key)
        return value


#: Every lowercased token seen, numbered from 1: the statistics compare tokens as integers.
_VOCAB: dict[str, int] = {}


def _ids(tokens: Sequence[str]) -> tuple[int, ...]:
    vocab = _VOCAB
    return tuple([vocab.setdefault(t, len(vocab) + 1) for t in (t.lower() for t in tokens)])


def token_id(token: str) -> int:
    """The integer that stands for ``token`` (lowercased) in the id arrays of this module."""
    return _ids([token])[0]


# --------------------------------------------------------------------------- spaCy (Newsroom)


def _spacy_chunk(chunk: str) -> tuple[str, ...]:
    """Tokens of one whitespace or non-whitespace run as spaCy makes them in mid-text.

    spaCy attaches one ``' '`` after a token to that token and makes a token of any other
    whitespace, so in mid-text a whitespace run that starts with ``' '`` loses that space.
    """
    if chunk[0] == " ":
        chunk = chunk[1:]
        if not chunk:
            return ()
    return tuple(t.text for t in _spacy_tokenizer()(chunk))


_spacy_cache = _Cache(_spacy_chunk)
_spacy_lower_cache = _Cache(lambda chunk: tuple(t.lower() for t in _spacy_cache[chunk]))
_spacy_id_cache = _Cache(lambda chunk: _ids(_spacy_cache[chunk]))
#: Between the chunks of one batch: a whitespace token no special case can match across.
_SPACY_GAP = " \n "
_BATCH = 20_000


def _fill_spacy(chunks: set[str]) -> None:
    """Cache many new chunks with one tokenizer call per batch (a call costs ~30x a chunk's tokens)."""
    if len(_spacy_cache) + len(chunks) >= MAX_CACHE:
        _spacy_cache.clear()
        _spacy_lower_cache.clear()
        _spacy_id_cache.clear()
    words = [c for c in chunks if not c[0].isspace()]
    for c in chunks:
        if c[0].isspace():
            _spacy_cache[c] = _spacy_chunk(c)
    for start in range(0, len(words), _BATCH):
        part = words[start : start + _BATCH]
        groups: list[list[str]] = [[]]
        for token in _spacy_tokenizer()(_SPACY_GAP.join(part)):
            if token.text == _SPACY_GAP[1:]:
                groups.append([])
            else:
                groups[-1].append(token.text)
        if len(groups) != len(part):  # cannot happen: every chunk yields tokens; be exact anyway
            groups = [list(_spacy_chunk(c)) for c in part]
        for chunk, tokens in zip(part, groups, strict=True):
            _spacy_cache[chunk] = tuple(tokens)


#: The runs that make tokens: non-space runs, and whitespace runs other than one single space
#: (which spaCy attaches to the token before it); a leading run is handled apart.
_TOKEN_RUNS = re.compile(r"\S+|\s\s+|[^\S ]")
_LEADING_SPACE = re.compile(r"\s+")


def _spacy_parts(texts: Sequence[str], table: _Cache) -> list[list[Any]]:
    """Per text, the cached token tuples of its runs (leading whitespace first), new runs filled in."""
    out: list[list[Any]] = []
    gaps: list[tuple[list[Any], list[str]]] = []
    for text in texts:
        parts: list[Any] = []
        leading = _LEADING_SPACE.match(text)
        if leading:  # leading whitespace keeps its first space
            head = tuple(t.text for t in _spacy_tokenizer()(leading.group()))
            parts.append(_ids(head) if table is _spacy_id_cache else head)
            if table is _spacy_lower_cache:
                parts[0] = tuple(t.lower() for t in head)
            text = text[leading.end() :]
        runs = _TOKEN_RUNS.findall(text)
        found = list(map(table.get, runs))
        if None in found:
            gaps.append((found, runs))
        parts.append(found)
        out.append(parts)
    if gaps:
        holes = [(found, runs, _holes(found)) for found, runs in gaps]
        new = {runs[i] for _, runs, where in holes for i in where if runs[i] not in _spacy_cache}
        if new:
            _fill_spacy(new)
        for found, runs, where in holes:
            for i in where:
                found[i] = table[runs[i]]
    return out


def _holes(values: list[Any]) -> list[int]:
    """Positions of ``None`` in ``values``, found by ``list.index`` (a C loop) rather than a Python one."""
    found: list[int] = []
    i = -1
    try:
        while True:
            i = values.index(None, i + 1)
            found.append(i)
    except ValueError:
        return found


def _flat(parts: list[Any]) -> Any:
    """The tokens of ``_spacy_parts``: the head tuple (if any), then the runs' tuples."""
    *head, runs = parts
    return chain(*head, chain.from_iterable(runs))


def spacy_tokens_many(texts: Sequence[str], *, lower: bool = False) -> list[list[str]]:
    """``spacy_tokens`` of several texts; the chunks new to the cache are tokenized in one batch."""
    table = _spacy_lower_cache if lower else _spacy_cache
    return [list(_flat(parts)) for parts in _spacy_parts(texts, table)]


def spacy_ids_many(texts: Sequence[str]) -> list[np.ndarray]:
    """The lowercased spaCy tokens of several texts as arrays of ``token_id``s."""
    return [np.fromiter(_flat(parts), dtype=np.int64) for parts in _spacy_parts(texts, _spacy_id_cache)]


def spacy_tokens(text: str, *, lower: bool = False) -> list[str]:
    """``[t.text for t in spacy.blank("en").tokenizer(text)]`` (lowercased if asked), computed per chunk."""
    return spacy_tokens_many([text], lower=lower)[0]


# --------------------------------------------------------------------------- tok-tok (Multi-News)

# What tok-tok's rules can see of the whitespace next to a chunk is only whether it is a space
# (``\xa0`` becomes one first), other whitespace, or the string's edge; tabs become ``&#9;`` tokens.
# A chunk is cached under a key that spells its context: " " or "\n" or "" on either side.
_KIND = {" ": " ", "\xa0": " "}


def _toktok_chunk(key: str) -> tuple[str, ...]:
    if not key[-1].isspace():  # the sentence's last chunk: tok-tok sees the true end of the string
        return tuple(_toktok().tokenize(key))
    tokens = _toktok().tokenize(key + "x")
    if not tokens or tokens[-1] != "x":  # tok-tok's rules never merge across whitespace
        raise AssertionError(f"tok-tok merged a chunk with the text after it: {key!r}")
    return tuple(tokens[:-1])


_toktok_cache = _Cache(_toktok_chunk)
#: A sentence-final chunk that is one closing quote lets tok-tok split the period before it.
_FINAL_QUOTES = frozenset("\"'’»›”")
#: Whitespace other than single spaces between chunks.
_ODD_SPACE = re.compile(r"[^\S ]|  ")
_SPACES = re.compile(r"\s+")


#: Ends each chunk of a tok-tok batch: a character no tok-tok rule touches, as its own token.
_SENTINEL = "\ue000"


def _at_end(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """A chunk's mid-text tokens turned into its sentence-final tokens.

    At the end of the string tok-tok's last two rules split a final period off its word, also when a
    closing quote follows; a final ``&`` is the only other difference (never sent here).
    """
    if not tokens:
        return tokens
    last = tokens[-1]
    if last.endswith(".") and not last.endswith("..") and len(last) > 1:
        return (*tokens[:-1], last[:-1], ".")
    if len(tokens) > 1 and last in _FINAL_QUOTES:
        before = tokens[-2]
        if before.endswith(".") and not before.endswith("..") and len(before) > 1:
            return (*tokens[:-2], before[:-1], ".", last)
    return tokens


def _fill_toktok(keys: set[str]) -> None:
    """Cache many new chunks with one tok-tok call (its 24 regex passes cost ~50x per call).

    A sentence-final chunk is tokenized as in mid-text and then given tok-tok's end-of-string rules.
    """
    if len(_toktok_cache) + len(keys) >= MAX_CACHE:
        for table in (_toktok_cache, _toktok_mid, _toktok_id_cache, _toktok_mid_ids):
            table.clear()
    final = [k for k in keys if not k[-1].isspace() and not k.endswith("&") and _SENTINEL not in k]
    batch = {k for k in keys if k[-1].isspace() and _SENTINEL not in k}
    batch.update(k + " " for k in final if k + " " not in _toktok_cache)
    for key in keys.difference(batch).difference(final):  # "&" at the end, or the sentinel in the text
        _toktok_cache[key] = _toktok_chunk(key)
    part_list = list(batch)
    for start in range(0, len(part_list), _BATCH):
        part = part_list[start : start + _BATCH]
        # A chunk at the start of its sentence sees the same as after a newline.
        text = "".join(("" if k[0].isspace() else "\n") + k + _SENTINEL for k in part)
        groups: list[list[str]] = [[]]
        for token in _toktok().tokenize(text):
            if token == _SENTINEL:
                groups.append([])
            else:
                groups[-1].append(token)
        if len(groups) != len(part) + 1 or groups[-1]:  # cannot happen; be exact anyway
            groups = [list(_toktok_chunk(k)) for k in part] + [[]]
        for key, tokens in zip(part, groups, strict=False):
            _toktok_cache[key] = tuple(tokens)
    for key in final:
        _toktok_cache[key] = _at_end(_toktok_cache[key + " "])


def _plan(sentence: str) -> list[str] | None:
    """The cache keys whose tokens make up ``sentence``; ``None`` when tok-tok must see it whole.

    Keys spell the chunk's context: "" (the sentence's edge), " " or "\n" on either side.
    """
    if not sentence or sentence[0].isspace() or sentence[-1].isspace():
        return None
    if _ODD_SPACE.search(sentence) is None:  # the common case: chunks separated by single spaces
        chunks = sentence.split(" ")
        if len(chunks) == 1:
            return [sentence]
        if chunks[-1] in _FINAL_QUOTES:
            return None
        return [chunks[0] + " ", *(" " + c + " " for c in chunks[1:-1]), " " + chunks[-1]]
    chunks = sentence.split()
    if chunks[-1] in _FINAL_QUOTES or "\t" in sentence:
        return None
    seps = [_KIND.get(run[0], "\n") + _KIND.get(run[-1], "\n") for run in _SPACES.findall(sentence)]
    return [
        (seps[i - 1][1] if i else "") + chunk + (seps[i][0] if i < len(seps) else "")
        for i, chunk in enumerate(chunks)
    ]


def toktok_sentences(sentences: Sequence[str]) -> list[list[str]]:
    """``[ToktokTokenizer().tokenize(s) for s in sentences]``, computed per chunk.

    Tok-tok is meant for one sentence per call: only a sentence-final period (also before a closing
    quote) depends on the end of the string, so the last chunk is cached apart, and the rare
    sentence that ends in a lone quote, or has a tab or whitespace at either end, goes to tok-tok whole.
    """
    plans = [_plan(s) for s in sentences]
    new = {k for k in set(chain.from_iterable(p for p in plans if p)) if k not in _toktok_cache}
    if new:
        _fill_toktok(new)
    get = _toktok_cache.__getitem__
    return [
        list(chain.from_iterable(map(get, plan))) if plan is not None else _toktok().tokenize(sentence)
        for sentence, plan in zip(sentences, plans, strict=True)
    ]


def toktok_tokens(sentence: str) -> list[str]:
    """``nltk.tokenize.ToktokTokenizer().tokenize(sentence)``, computed per chunk."""
    return toktok_sentences([sentence])[0]


_toktok_mid = _Cache(lambda chunk: _toktok_cache[" " + chunk + " "])
_toktok_id_cache = _Cache(lambda key: _ids(_toktok_cache[key]))
_toktok_mid_ids = _Cache(lambda chunk: _toktok_id_cache[" " + chunk + " "])


def _simple(sentence: str) -> bool:
    """Chunks separated by single spaces, no whitespace at the edges, no lone closing quote at the end."""
    return (
        not sentence[0].isspace()
        and not sentence[-1].isspace()
        and _ODD_SPACE.search(sentence) is None
        and not (sentence[-1] in _FINAL_QUOTES and len(sentence) > 1 and sentence[-2] == " ")
    )


#: In sentences joined by NUL: other whitespace than single inner spaces, an empty sentence, or a
#: sentence ending in a lone closing quote. Where nothing matches, every sentence is simple.
_NOT_SIMPLE = re.compile("[^\\S ]|  |^ | $| \x00|\x00 |^\x00|\x00$|\x00\x00| [\"'’»›”](?:\x00|$)")


def _runs(sentences: Sequence[str]) -> list[list[str] | str]:
    """Consecutive simple sentences grouped in lists; any other sentence stands alone as a string."""
    joined = "\x00".join(sentences)
    if joined and _NOT_SIMPLE.search(joined) is None:
        return [list(sentences)]  # the common case, checked for the whole document at once
    items: list[list[str] | str] = []
    run: list[str] = []
    for sentence in sentences:
        if sentence and _simple(sentence):
            run.append(sentence)
            continue
        if run:
            items.append(run)
            run = []
        items.append(sentence)
    if run:
        items.append(run)
    return items


def _run_chunks(run: list[str]) -> tuple[list[str], list[tuple[int, str]]]:
    """The chunks of a run of simple sentences, and (index, cache key) of each sentence's edge chunks."""
    chunks = " ".join(run).split(" ")
    counts = [s.count(" ") + 1 for s in run]
    ends = list(accumulate(counts))
    if 1 in counts:  # a one-chunk sentence is both first and last
        edges = []
        for end, count in zip(ends, counts, strict=True):
            if count == 1:
                edges.append((end - 1, chunks[end - 1]))
            else:
                edges.append((end - count, chunks[end - count] + " "))
                edges.append((end - 1, " " + chunks[end - 1]))
        return chunks, edges
    firsts = [(end - count, chunks[end - count] + " ") for end, count in zip(ends, counts, strict=True)]
    return chunks, firsts + [(end - 1, " " + chunks[end - 1]) for end in ends]


def _toktok_parts(documents: Sequence[Sequence[str]], *, ids: bool) -> list[list[list[Any]]]:
    """Per document, lists of token tuples (strings, or ids of the lowercased tokens) to chain, in order.

    Tokens come from the cache, a run of sentences at a time; the chunks it lacks, from all documents,
    are then tokenized in one batch and filled in.
    """
    if ids:
        table, mid_table, whole = _toktok_id_cache, _toktok_mid_ids, _ids
    else:
        table, mid_table, whole = _toktok_cache, _toktok_mid, tuple
    out: list[list[list[Any]]] = []
    gaps: list[tuple[list[Any], Any]] = []  # parts with holes, and how to find each part's cache key
    for sentences in documents:
        parts: list[list[Any]] = []
        for item in _runs(sentences):
            if isinstance(item, list):
                chunks, edges = _run_chunks(item)
                run = list(map(mid_table.get, chunks))
                for i, key in edges:
                    run[i] = table.get(key)
                if None in run:
                    gaps.append((run, (chunks, edges)))
            else:
                plan = _plan(item)
                if plan is None:
                    run = [whole(_toktok().tokenize(item))]
                else:
                    run = list(map(table.get, plan))
                    if None in run:
                        gaps.append((run, plan))
            parts.append(run)
        out.append(parts)
    if gaps:
        holes: list[tuple[list[Any], int, str, str | None]] = []  # run, index, cache key, mid-text chunk
        for run, how in gaps:
            missing = _holes(run)
            if isinstance(how, tuple):
                chunks, edges = how
                edge_keys = dict(edges)
                for i in missing:
                    key = edge_keys.get(i)
                    holes.append((run, i, key, None) if key else (run, i, " " + chunks[i] + " ", chunks[i]))
            else:
                holes.extend((run, i, how[i], None) for i in missing)
        new = {key for _, _, key, _ in holes if key not in _toktok_cache}
        if new:
            _fill_toktok(new)
        for run, i, key, chunk in holes:
            run[i] = table[key] if chunk is None else mid_table[chunk]
    return out


def toktok_documents(documents: Sequence[Sequence[str]]) -> list[list[str]]:
    """For each document (a list of sentences), ``[t for s in it for t in ToktokTokenizer().tokenize(s)]``."""
    return [list(chain.from_iterable(chain.from_iterable(p))) for p in _toktok_parts(documents, ids=False)]


def toktok_ids_many(documents: Sequence[Sequence[str]]) -> list[np.ndarray]:
    """For each document (a list of sentences), its lowercased tok-tok tokens as ``token_id``s."""
    return [
        np.fromiter(chain.from_iterable(chain.from_iterable(parts)), dtype=np.int64)
        for parts in _toktok_parts(documents, ids=True)
    ]


def toktok_document(sentences: Sequence[str]) -> list[str]:
    """``[t for s in sentences for t in ToktokTokenizer().tokenize(s)]``: one document's tokens."""
    return toktok_documents([sentences])[0]

