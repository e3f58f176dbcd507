"""Rubric-level pitfalls: weights as a whole, guidelines, ignored lists, unknown keys, examples."""

from __future__ import annotations

import math
from typing import Any

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.autorubric import DATASET, RUBRIC
from rubric_lsp.formats.autorubric.constraints import VERDICTS
from rubric_lsp.formats.autorubric.edits import anchor, remove_pair, scalar_text
from rubric_lsp.formats.autorubric.shapes import MODELS
from rubric_lsp.formats.autorubric.view import RubricView
from rubric_lsp.formats.errors import describe_type, error_span, place_errors
from rubric_lsp.formats.shapes import validated
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.suggest import closest, did_you_mean, suggest
from rubric_lsp.rules.unknown_keys import RENAME_SAFETY, VALUE_RENAME_SAFETY, rename_fix, unknown_key

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FORMATS = (RUBRIC, DATASET)

# Share of the positive weight above which one criterion is reported by AR020.
DOMINANT_SHARE = 0.5

NO_POSITIVE_WEIGHT = rule(
    "AR014",
    "no-positive-weight",
    W,
    "No criterion has a positive weight.",
    "autorubric normalises by the total positive weight. Without one, the score becomes "
    "`1 + (sum of triggered penalties) / (total penalty weight)` — a response that triggers no "
    "penalty scores 1.0 whatever its quality — or, when every weight is 0, always 0.0.",
    bad="- requirement: Contains factual errors\n  weight: -10",
    good="- requirement: Answers the question\n  weight: 10\n- requirement: Contains factual errors\n  weight: -10",
    formats=FORMATS,
)
BLANK_GUIDELINES = rule(
    "AR016",
    "blank-guidelines",
    W,
    "`guidelines` is empty or only spaces.",
    "autorubric treats blank guidelines as none, so the judge gets no extra instructions; usually "
    "the text was lost or is still to be written.",
    bad="guidelines: ''\ncriteria:\n  - requirement: Cites a source",
    good="guidelines: Judge only the final answer.\ncriteria:\n  - requirement: Cites a source",
    fix="remove the blank key (same meaning)",
    fix_safety="Safe: a blank `guidelines` means the same as none.",
    formats=FORMATS,
)
IGNORED_LIST = rule(
    "AR017",
    "ignored-criteria-list",
    W,
    "A rubric mapping has two criteria lists; the one with lower precedence is ignored.",
    "autorubric reads `rubric` first, then `sections`, then `criteria`, and silently ignores the "
    "others, so criteria written in the ignored list are never graded.",
    bad="sections:\n  - criteria:\n      - requirement: Is polite\ncriteria:\n  - requirement: Cites a source",
    good="sections:\n  - criteria:\n      - requirement: Is polite\n  - criteria:\n      - requirement: Cites a source",
    formats=FORMATS,
)
DOMINANT_CRITERION = rule(
    "AR020",
    "dominant-criterion",
    I,
    "One criterion carries more than half of the rubric's positive weight.",
    "Under autorubric's default CANNOT_ASSESS strategy `skip`, criteria the judge cannot assess leave "
    "the score entirely. When the other criteria abstain, meeting this one alone scores 1.0; and even "
    "when every other criterion is UNMET, this one alone gives more than 0.5. Reported for a rubric "
    "with at least two positive-weight criteria when one criterion's weight exceeds 50% of their total.",
    bad="- requirement: Answers the question\n  weight: 30\n- requirement: Cites a source\n  weight: 5\n- requirement: Is concise\n  weight: 5",
    good="- requirement: Answers the question\n  weight: 10\n- requirement: Cites a source\n  weight: 5\n- requirement: Is concise\n  weight: 5",
    formats=FORMATS,
)
UNKNOWN_KEY = rule(
    "AR021",
    "unknown-key",
    W,
    "A rubric or dataset mapping has a key autorubric does not read; it is ignored.",
    "autorubric only reads known keys (rubric, sections, criteria, guidelines in a rubric; name, "
    "prompt, rubric, reference_submission, items in a dataset; submission, description, "
    "ground_truth, ground_truth_reasons, rubric, prompt, reference_submission in an item). A typo "
    "such as `guideline:` is dropped without a word.",
    bad="guideline: Judge only the final answer.\ncriteria:\n  - requirement: Cites a source",
    good="guidelines: Judge only the final answer.\ncriteria:\n  - requirement: Cites a source",
    fix="rename the key to the nearest known one",
    fix_safety=RENAME_SAFETY,
    formats=FORMATS,
)
INVALID_EXAMPLE = rule(
    "AR022",
    "invalid-example",
    W,
    "An entry of `examples` (rubric-lsp's graded examples) is malformed.",
    "`examples` is a rubric-lsp extension that autorubric ignores: each entry is "
    "`{name, query?, response, expect?: {min_score?, verdicts?}}`. A malformed entry cannot be "
    "graded from the editor.",
    bad="criteria:\n  - requirement: Cites a source\nexamples:\n  - name: good answer\n    answer: Paris",
    good="criteria:\n  - requirement: Cites a source\nexamples:\n  - name: good answer\n    response: Paris",
    fix="rename a misspelt example key to the nearest known one",
    fix_safety=RENAME_SAFETY,
    formats=(RUBRIC,),
)
EXAMPLE_EXPECTATION = rule(
    "AR023",
    "impossible-example-expectation",
    W,
    "An example's `expect` can never match: wrong number of verdicts, an unknown criterion name, a verdict the criterion cannot give, or `min_score` outside [0, 1].",
    "Expected verdicts name, in order or by criterion name, MET/UNMET/CANNOT_ASSESS for binary "
    "criteria and an option label for multi-choice ones; scores lie in [0, 1].",
    bad=(
        "criteria:\n"
        "  - requirement: Names the capital\n"
        "  - requirement: Cites a source\n"
        "examples:\n"
        "  - name: good answer\n"
        "    response: Paris, per the CIA World Factbook.\n"
        "    expect:\n"
        "      verdicts: [MET, PASS]\n"
    ),
    good=(
        "criteria:\n"
        "  - requirement: Names the capital\n"
        "  - requirement: Cites a source\n"
        "examples:\n"
        "  - name: good answer\n"
        "    response: Paris, per the CIA World Factbook.\n"
        "    expect:\n"
        "      verdicts: [MET, MET]\n"
    ),
    fix="rename a verdict key to the nearest criterion name",
    fix_safety=VALUE_RENAME_SAFETY,
    formats=(RUBRIC,),
)

_EXAMPLE_FIELDS = {
    "name": "text",
    "query": "text",
    "response": "text",
    "expect": "a mapping {min_score?, verdicts?}",
    "min_score": "a number in [0, 1]",
    "verdicts": "a list (one verdict per criterion, in order) or a mapping from criterion name to verdict, all text",
}

RUBRIC_FILE_KEYS = ("rubric", "sections", "criteria", "guidelines", "examples", "$schema")
RUBRIC_MAPPING_KEYS = ("sections", "criteria", "guidelines")


def check_rubric_level(ctx: CheckContext, view: RubricView) -> None:
    for key_node, winner, why in view.ignored:
        ctx.report(
            IGNORED_LIST,
            key_node,
            f"{why}: autorubric never grades the criteria listed here. Move them into '{winner.value}' or delete this list.",
            related=[(winner, "the list autorubric reads")],
        )
    _blank_guidelines(ctx, view.root)
    _section_keys(ctx, view)
    criteria = [(entry, entry.criterion) for entry in view.entries if entry.criterion is not None]
    if not criteria or len(criteria) != len(view.entries):
        return
    weights = [c.weight for _, c in criteria]
    if any(not math.isfinite(w) for w in weights):
        return  # AR013 already says the score is NaN
    if all(w <= 0 for w in weights):
        where = view.container if view.container is not None else view.root
        if all(w == 0 for w in weights):
            message = "Every weight is 0: autorubric scores every response 0.0. Give the criteria that reward good responses positive weights."
        else:
            message = (
                "No criterion has a positive weight: autorubric then scores 1 + (triggered penalties) / (total penalty weight), "
                "so any response that triggers no penalty scores 1.0 whatever its quality. Add at least one positive-weight criterion."
            )
        ctx.report(NO_POSITIVE_WEIGHT, ctx.line_span(where), message)
        return
    positive = [(entry, c) for entry, c in criteria if c.weight > 0]
    total = sum(c.weight for _, c in positive)
    if len(positive) >= 2 and ctx.enabled(DOMINANT_CRITERION):
        entry, heaviest = max(positive, key=lambda pair: pair[1].weight)
        share = heaviest.weight / total
        if share > DOMINANT_SHARE:
            weight_node = entry.node.get("weight")
            ctx.report(
                DOMINANT_CRITERION,
                weight_node if weight_node is not None else anchor(ctx, entry.node),
                f"{_which(entry)} carries {share:.0%} of the positive weight. Under the default CANNOT_ASSESS strategy 'skip', "
                f"if the judge cannot assess the other criteria, meeting this one alone scores 1.0; even with every other criterion "
                f"UNMET it alone gives {share:.2f}. Consider balancing the weights or splitting this criterion.",
            )


# Criterion fields that mean nothing on a section (its 'name' is documentation, so it is fine).
_CRITERION_ONLY_KEYS = ("requirement", "weight", "options", "scale_type", "aggregation")


def _section_keys(ctx: CheckContext, view: RubricView) -> None:
    if view.container is None or not ctx.enabled(UNKNOWN_KEY):
        return
    for section in view.container.elements():
        if not (section.is_map and section.has("criteria")):
            continue
        for key_node, _value in section.pairs():
            if key_node.value in _CRITERION_ONLY_KEYS:
                ctx.report(
                    UNKNOWN_KEY,
                    key_node,
                    f"'{key_node.value}' on a section is ignored: autorubric only reads a section's 'criteria'. "
                    f"Put '{key_node.value}' on the criteria themselves.",
                )


def _which(entry) -> str:
    return f"'{entry.criterion.name}'" if entry.criterion is not None and entry.criterion.name else "This criterion"


def _blank_guidelines(ctx: CheckContext, root: Node) -> None:
    if not root.is_map:
        return
    holders = [root]
    inner = root.get("rubric")
    if inner is not None and inner.is_map:
        holders.append(inner)
    for mapping in holders:
        node = mapping.get("guidelines")
        if node is not None and node.is_scalar and isinstance(node.value, str) and not node.value.strip():
            key_node = mapping.key_node("guidelines")
            assert key_node is not None  # get() found its value
            ctx.report(
                BLANK_GUIDELINES,
                key_node,
                "'guidelines' is blank: autorubric treats it as no guidelines, so the judge gets no extra instructions. Write them, or remove the key.",
                fix=remove_pair(ctx, mapping, key_node, node, "Remove the blank 'guidelines'"),
            )


def check_unknown_keys(ctx: CheckContext, mapping: Node, known: tuple[str, ...], what: str) -> None:
    if not ctx.enabled(UNKNOWN_KEY) or not mapping.is_map:
        return
    for key_node, _value in mapping.pairs():
        key = key_node.value
        if key in known:
            continue
        if not isinstance(key, str):
            ctx.report(
                UNKNOWN_KEY, key_node, f"{what} has a key that is not text ({scalar_text(key)}); autorubric ignores it."
            )
            continue
        found = unknown_key(ctx, mapping, key_node, known)
        message = f"Unknown key '{key}' in {what}: autorubric ignores it."
        fix = found.fix
        if fix is not None and found.suggestion is not None:
            message += did_you_mean(key, found.suggestion)
        else:
            message += f" Known keys: {', '.join(k for k in known if k != '$schema')}."
        ctx.report(UNKNOWN_KEY, key_node, message, fix=fix)


def check_rubric_file_keys(ctx: CheckContext, root: Node) -> None:
    check_unknown_keys(ctx, root, RUBRIC_FILE_KEYS, "the rubric file")
    inner = root.get("rubric")
    if inner is not None and inner.is_map:
        check_unknown_keys(ctx, inner, RUBRIC_MAPPING_KEYS, "'rubric'")


def _unknown_example_key(ctx: CheckContext, item: Node, placed, span) -> None:
    known = ("name", "query", "response", "expect") if len(placed.path) <= 1 else ("min_score", "verdicts")
    found = suggest(str(placed.path[-1]), known) if placed.path else None
    message = f"Unknown key '{placed.path[-1] if placed.path else '?'}' in an example; known keys: {', '.join(known)}."
    fix = None
    holder = item if len(placed.path) <= 1 else item.get(str(placed.path[0])) if item.is_map else None
    if found and placed.key_node is not None:
        message += did_you_mean(str(placed.path[-1]), found.name)
        # Never a rename onto a key the entry already has: that would be a duplicate key.
        if holder is None or not holder.is_map or not holder.has(found.name):
            fix = rename_fix(ctx, placed.key_node, found, f"Rename to '{found.name}'")
    ctx.report(INVALID_EXAMPLE, span, message, fix=fix)


def check_examples(ctx: CheckContext, root: Node, view: RubricView) -> None:
    node = root.get("examples")
    if node is None or node.value is None:
        return
    if not node.is_seq:
        ctx.report(
            INVALID_EXAMPLE,
            ctx.line_span(node),
            "'examples' must be a list of {name, response, query?, expect?} entries; rubric-lsp cannot grade it.",
        )
        return
    names: dict[str, Node] = {}
    for item in node.elements():
        example, errors = validated(to_plain(item), "Example", MODELS, "rubric_lsp.formats.autorubric.model")
        if errors:
            placed_errors = place_errors(errors, item)
            paths = [placed.path for placed in placed_errors]
            for placed in placed_errors:
                if placed.type != "missing" and any(
                    len(other) > len(placed.path) and other[: len(placed.path)] == placed.path for other in paths
                ):
                    continue  # a union's other branch ("verdicts is not a mapping") when an entry is the problem
                span = error_span(placed, ctx.line_span)
                field = ".".join(str(p) for p in placed.path)
                if placed.type == "extra_forbidden":
                    _unknown_example_key(ctx, item, placed, span)
                elif placed.type == "missing":
                    ctx.report(
                        INVALID_EXAMPLE,
                        span,
                        f"This example has no '{placed.missing_key}'; rubric-lsp cannot grade it. Add it.",
                    )
                elif not placed.path:
                    ctx.report(
                        INVALID_EXAMPLE,
                        span,
                        f"Each example must be a mapping {{name, response, query?, expect?}}, got {describe_type(placed.input)}; rubric-lsp cannot grade it.",
                    )
                else:
                    meaning = _EXAMPLE_FIELDS.get(
                        str(placed.path[0] if len(placed.path) == 1 else placed.path[1]), "valid"
                    )
                    if len(placed.path) > 2:  # one entry of expect.verdicts
                        meaning = "text: MET, UNMET, CANNOT_ASSESS or an option label"
                    ctx.report(
                        INVALID_EXAMPLE,
                        span,
                        f"The example's '{field}' must be {meaning}, got {describe_type(placed.input)}; rubric-lsp cannot grade this example.",
                    )
            continue
        name_node = item.get("name")
        if example.name in names and name_node is not None:
            ctx.report(
                INVALID_EXAMPLE,
                name_node,
                f"Another example is already named '{example.name}': results are shown by name. Rename one.",
                related=[(names[example.name], "the first example with this name")],
            )
        elif name_node is not None:
            names[example.name] = name_node
        expect_node = item.get("expect")  # present: the example validated with an expectation
        if example.expect is not None and expect_node is not None and view.valid:
            _expectation(ctx, expect_node, example, view)


def _expectation(ctx: CheckContext, node: Node, example: Any, view: RubricView) -> None:
    expect = example.expect
    assert expect is not None
    min_node = node.get("min_score")
    if expect.min_score is not None and min_node is not None and not (0.0 <= expect.min_score <= 1.0):
        ctx.report(
            EXAMPLE_EXPECTATION,
            min_node,
            f"Scores lie between 0 and 1, so min_score {scalar_text(expect.min_score)} can never be met. Use a value in [0, 1].",
        )
    verdicts_node = node.get("verdicts")
    if expect.verdicts is None or verdicts_node is None:
        return
    entries = view.entries
    if isinstance(expect.verdicts, list):
        if len(expect.verdicts) != len(entries):
            ctx.report(
                EXAMPLE_EXPECTATION,
                ctx.line_span(verdicts_node),
                f"{len(expect.verdicts)} expected verdict{'' if len(expect.verdicts) == 1 else 's'} for {len(entries)} criteri{'on' if len(entries) == 1 else 'a'}: a list gives one verdict per criterion, in order. "
                "Make the lengths match, or use a mapping by criterion name.",
            )
            return
        pairs = list(zip(entries, expect.verdicts, verdicts_node.elements()))
    else:
        by_name = {entry.criterion.name: entry for entry in entries if entry.criterion and entry.criterion.name}
        pairs = []
        for key_node, value_node in verdicts_node.pairs():
            entry = by_name.get(key_node.value)
            if entry is None:
                found = suggest(str(key_node.value), list(by_name))
                suggestion = found.name if found else None
                ctx.report(
                    EXAMPLE_EXPECTATION,
                    key_node,
                    f"No criterion is named '{key_node.value}'."
                    + (
                        did_you_mean(str(key_node.value), suggestion)
                        if suggestion
                        else " Name criteria with 'name' to refer to them."
                    ),
                    fix=rename_fix(ctx, key_node, found, f"Rename to '{found.name}'") if found else None,
                )
                continue
            pairs.append((entry, value_node.value, value_node))
    for entry, verdict, value_node in pairs:
        criterion = entry.criterion
        if criterion is None:
            continue
        if criterion.options is None:
            if verdict not in VERDICTS:
                ctx.report(
                    EXAMPLE_EXPECTATION,
                    value_node,
                    f"'{entry.label}' is a binary criterion: its verdict is MET, UNMET or CANNOT_ASSESS, not '{verdict}'.",
                )
        else:
            labels = [o.label for o in criterion.options]
            if str(verdict).strip().lower() not in {label.strip().lower() for label in labels}:
                suggestion = closest(str(verdict), labels)
                ctx.report(
                    EXAMPLE_EXPECTATION,
                    value_node,
                    f"'{entry.label}' has no option labelled '{verdict}'. Options: {', '.join(labels)}."
                    + (f" Did you mean '{suggestion}'?" if suggestion else ""),
                )
