"""PF100's "did you mean" for an unknown assertion type: what its writer most likely meant.

A near spelling is not a near meaning: `contains-text` is one letter-run from `contains-xml`, yet it
means `contains`; `is-yml` is one letter from `is-xml`. So a hint comes from, in order:

1. ``MEANT``: names people write for a check promptfoo spells otherwise (`contains-text`, `json`,
   `rubric`), each with the type(s) it means; ``NO_SUCH_CHECK``: checks promptfoo does not have
   (`not-empty`, `ends-with`) with how to write them. Looked up with case and `_`/space folded to `-`,
   and under `not-` as the inverted type.
2. A misspelling of a known type: written with the same `-`/`:` segments, each within one edit
   (two for a segment of eight letters or more) of the known one, where a segment of three letters
   or fewer (`sql`, `xml`, `dot`) may gain, lose or swap a letter but not change one (`yml` is not
   `xml`); or the same letters without separators (`geval`). The
   nearest such type is the hint; two equally near ones (`pleu`: `bleu`, `gleu`) are both named,
   with no fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rubric_lsp.formats.promptfoo.assertion_types import BASE_ASSERTION_TYPES, known_assertion_types


@dataclass(frozen=True)
class TypeHint:
    text: str  # the sentence PF100 appends to its message
    fix: str | None  # the type to rename to (an unsafe fix), when one is meant


_CONTAINS = ("contains", "icontains")
_IS_JSON = ("is-json",)
_LLM_RUBRIC = ("llm-rubric",)

# name (folded) -> the types it means, most likely first.
MEANT: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        (
            "contains-text", "contains-string", "contains-str", "contains-substring", "contains-word",
            "text-contains", "string-contains", "includes", "include", "has-text", "substring", "has-substring",
        ),
        _CONTAINS,
    ),
    **dict.fromkeys(
        ("icontains-text", "contains-ignore-case", "contains-case-insensitive", "contains-insensitive", "contains-nocase"),
        ("icontains",),
    ),
    **dict.fromkeys(("contains-all-text", "contains-every", "includes-all"), ("contains-all", "icontains-all")),
    **dict.fromkeys(("contains-any-text", "contains-one-of", "includes-any"), ("contains-any", "icontains-any")),
    **dict.fromkeys(
        ("equal", "equals-text", "exact", "exact-match", "exactly", "is-equal", "string-equals", "equals-string"),
        ("equals",),
    ),
    **dict.fromkeys(("match", "matches", "regexp", "regex-match", "matches-regex", "pattern", "re"), ("regex",)),
    **dict.fromkeys(("begins-with", "start-with", "starts", "prefix", "starts-with-text"), ("starts-with",)),
    **dict.fromkeys(
        ("json", "valid-json", "is-valid-json", "json-valid", "json-parse", "parseable-json", "is-json-valid"),
        _IS_JSON,
    ),
    "contains-valid-json": ("contains-json",),
    **dict.fromkeys(("xml", "valid-xml", "is-valid-xml"), ("is-xml",)),
    **dict.fromkeys(("html", "valid-html", "is-valid-html"), ("is-html",)),
    **dict.fromkeys(("sql", "valid-sql", "is-valid-sql"), ("is-sql",)),
    **dict.fromkeys(
        (
            "rubric", "llm", "llm-judge", "llm-as-judge", "llm-as-a-judge", "judge", "model-graded",
            "model-graded-rubric", "llm-grader", "llm-graded", "llm-eval", "ai-rubric", "rubric-llm", "llm-check",
        ),
        _LLM_RUBRIC,
    ),
    **dict.fromkeys(
        ("similarity", "semantic-similarity", "embedding-similarity", "cosine", "cosine-similarity", "similar-to"),
        ("similar",),
    ),
    **dict.fromkeys(("js", "script", "javascript-function", "expression"), ("javascript",)),
    **dict.fromkeys(("py", "python-script"), ("python",)),
    "rb": ("ruby",),
    **dict.fromkeys(("refusal", "refused", "is-refused", "refuses"), ("is-refusal",)),
    **dict.fromkeys(("factual", "fact-check", "factually-correct", "factuality-check"), ("factuality",)),
    **dict.fromkeys(("relevance", "relevancy", "answer-relevancy"), ("answer-relevance",)),
    **dict.fromkeys(("faithfulness", "faithful"), ("context-faithfulness",)),
    **dict.fromkeys(("closedqa", "closed-qa", "model-graded-closed-qa"), ("model-graded-closedqa",)),
    **dict.fromkeys(("rouge", "rouge-score"), ("rouge-n",)),
    "bleu-score": ("bleu",),
    **dict.fromkeys(("levenshtein-distance", "edit-distance"), ("levenshtein",)),
    **dict.fromkeys(("max-cost", "cost-below"), ("cost",)),
    **dict.fromkeys(("max-latency", "latency-ms", "response-time"), ("latency",)),
    **dict.fromkeys(("function-call", "is-function-call", "valid-function-call"), ("is-valid-function-call",)),
    **dict.fromkeys(("skill", "skills-used", "uses-skill", "used-skill"), ("skill-used",)),
    **dict.fromkeys(("assertion-set", "assert-all", "assertions"), ("assert-set",)),
}  # fmt: skip

# Differences worth naming when a name means more than one type.
_GLOSS = {
    "icontains": "ignores case",
    "icontains-all": "ignores case",
    "icontains-any": "ignores case",
}

_LENGTH = "Use 'javascript' with value 'output.length {op} N'."
# name (folded) -> how to write a check promptfoo does not have.
NO_SUCH_CHECK: dict[str, str] = {
    **dict.fromkeys(
        ("not-empty", "non-empty", "nonempty", "is-not-empty", "has-output"),
        "Use 'javascript' with value 'output.length > 0'.",
    ),
    "is-empty": "Use 'javascript' with value 'output.length === 0'.",
    **dict.fromkeys(("min-length", "min-chars"), _LENGTH.format(op=">=")),
    **dict.fromkeys(("max-length", "max-chars"), _LENGTH.format(op="<=")),
    **dict.fromkeys(("length", "char-count", "character-count"), "Use 'javascript' with value 'output.length === N'."),
    "is-valid-video": "There is no video assertion; check the output with 'javascript'.",
    "json-schema-valid": "Use 'is-json' (or 'contains-json') with the JSON Schema as value.",
    "contains-json-property": "Use 'is-json' with a JSON Schema listing the property as required, or 'javascript'.",
    **dict.fromkeys(
        ("ends-with", "endswith", "ends", "suffix", "end-with"),
        "promptfoo has no 'ends-with': use 'javascript' with value 'output.trimEnd().endsWith(\"…\")'.",
    ),
    **dict.fromkeys(
        ("yaml", "is-yaml", "is-yml", "valid-yaml", "contains-yaml"),
        "promptfoo has no YAML check (is-xml checks XML): parse the output in 'javascript'.",
    ),
    **dict.fromkeys(
        ("rouge-l", "rougel", "rouge-1", "rouge1", "rouge-2"),
        "promptfoo scores ROUGE-N only ('rouge-n'); another ROUGE variant needs 'python'.",
    ),
}


def type_hint(kind: str) -> TypeHint | None:
    """The hint for the unknown assertion type ``kind``; None when nothing fits."""
    name = fold(kind)
    if name in NO_SUCH_CHECK:
        return TypeHint(NO_SUCH_CHECK[name], None)
    if name in MEANT:
        return _meant(MEANT[name])
    base = name.removeprefix("not-")
    if base != name and base in MEANT:
        inverted = tuple(f"not-{t}" for t in MEANT[base] if t in BASE_ASSERTION_TYPES)
        return _meant(inverted) if inverted else None
    return _misspelt(name)


def fold(kind: str) -> str:
    return re.sub(r"[\s_]+", "-", kind.strip().lower())


def _meant(types: tuple[str, ...]) -> TypeHint:
    first, *others = types
    if not others:
        return TypeHint(f"Did you mean '{first}'?", first)
    glossed = [
        f"'{t}'" + (f", which {_GLOSS[t.removeprefix('not-')]}" if t.removeprefix("not-") in _GLOSS else "")
        for t in others
    ]
    return TypeHint(f"Did you mean '{first}' (or {' or '.join(glossed)})?", first)


def _misspelt(name: str) -> TypeHint | None:
    scored = [(d, known) for known in known_assertion_types() if (d := _distance(name, known)) is not None]
    if not scored:
        return None
    best = min(d for d, _ in scored)
    nearest = sorted(known for d, known in scored if d == best)
    if len(nearest) == 1:
        return TypeHint(f"Did you mean '{nearest[0]}'?", nearest[0])
    return TypeHint("Did you mean " + " or ".join(f"'{k}'" for k in nearest) + "?", None)


_SEGMENTS = re.compile(r"[-:]")


def _distance(name: str, known: str) -> int | None:
    """How far ``name`` is from the known type ``known`` as a misspelling of it; None if it is not one."""
    if _SEGMENTS.sub("", name) == _SEGMENTS.sub("", known):
        return 0
    mine, theirs = _SEGMENTS.split(name), _SEGMENTS.split(known)
    if len(mine) != len(theirs) or _SEGMENTS.findall(name) != _SEGMENTS.findall(known):
        return None
    total = 0
    for a, b in zip(mine, theirs, strict=True):
        d = _osa(a, b, 1 if len(b) < 8 else 2)
        if d > (1 if len(b) < 8 else 2) or (d and len(b) <= 3 and len(a) == len(b) and sorted(a) != sorted(b)):
            return None  # a short segment's changed letter is another word (yml, sql), not a typo
        total += d
    return total


def _osa(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance (an adjacent swap is one edit), or ``limit + 1`` when above it."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            value = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                value = min(value, previous2[j - 2] + 1)
            row.append(value)
        previous2, previous = previous, row
    return min(previous[-1], limit + 1)
