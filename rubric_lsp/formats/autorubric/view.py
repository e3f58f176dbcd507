"""Read an autorubric rubric out of the node tree exactly as autorubric 1.6.1 does.

The result (a :class:`RubricView`) is the format model the rules, the grading engine
and the server's hover share. Where autorubric would raise, a :class:`Problem` says
what and where; the rules layer decides how to report it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rubric_lsp.document import Node
from rubric_lsp.document.nodes import scalar_value, to_plain
from rubric_lsp.formats.autorubric.fields import CriterionValues, plain_criterion
from rubric_lsp.formats.errors import Problem, describe_type, place_errors

PROBLEM_KINDS = (
    "guidelines-type",
    "guidelines-twice",
    "no-criteria-key",
    "not-a-list",
    "no-criteria",
    "item-not-mapping",
    "section-criteria-not-list",
    "criterion-not-mapping",
    "nested-section",
    "criterion-invalid",
    "criterion-key-not-string",
)


@dataclass
class CriterionEntry:
    index: int  # position in the flattened rubric (what verdict lists and ground truth align to)
    node: Node  # the criterion's mapping (or whatever stands in its place)
    criterion: CriterionValues | None  # None when autorubric would reject it
    section: Node | None = None  # the section mapping it belongs to, if any

    @property
    def label(self) -> str:
        if self.criterion is not None and self.criterion.name:
            return self.criterion.name
        # An invalid criterion is still called by the name the user gave it, if it has one.
        name = self.node.get("name") if self.node.is_map else None
        if name is not None and name.is_scalar and isinstance(name.value, str) and name.value.strip():
            return name.value
        return f"criterion {self.index + 1}"


@dataclass
class RubricView:
    root: Node
    container: Node | None = None  # the list autorubric reads criteria from
    entries: list[CriterionEntry] = field(default_factory=list)
    guidelines: str | None = None
    problems: list[Problem] = field(default_factory=list)
    ignored: list[tuple[Node, Node, str]] = field(default_factory=list)  # (key, winner key, why)

    @property
    def valid(self) -> bool:
        return not self.problems and bool(self.entries)

    @property
    def criteria(self) -> list[CriterionValues]:
        return [e.criterion for e in self.entries if e.criterion is not None]


def read_rubric(root: Node) -> RubricView:
    view = RubricView(root)
    _guidelines(root, view)
    data: Node | None = root
    if root.is_map:
        rubric_key = root.key_node("rubric")
        if rubric_key is not None:
            for other in ("sections", "criteria"):
                other_key = root.key_node(other)
                if other_key is not None:
                    view.ignored.append((other_key, rubric_key, f"'rubric' is present, so '{other}' is ignored"))
            data = root.get("rubric")
            if data is not None and data.is_map:
                data = _entries(
                    data,
                    view,
                    "'rubric' must be a list of criteria, or a mapping with a 'sections' or 'criteria' key; autorubric refuses the rubric.",
                )
        else:
            data = _entries(
                root,
                view,
                "A rubric mapping needs a 'rubric', 'sections' or 'criteria' key holding the criteria; autorubric refuses the rubric.",
            )
    if data is None:
        return view
    if not data.is_seq:
        view.problems.append(
            Problem(
                "not-a-list",
                data,
                f"Expected a list of criteria here, got {describe_type(to_plain(data))}; autorubric refuses the rubric. Write the criteria as a list ('- requirement: ...').",
            )
        )
        return view
    view.container = data
    if not data.value:
        view.problems.append(
            Problem(
                "no-criteria",
                data,
                "The rubric has no criteria; autorubric refuses the rubric ('No criteria found'). Add at least one criterion with a 'requirement'.",
            )
        )
        return view
    flattened: list[tuple[Node, Node | None]] = []
    for item in data.value:
        if not item.is_map:
            view.problems.append(
                Problem(
                    "item-not-mapping",
                    item,
                    f"Each rubric entry must be a mapping (a criterion with a 'requirement', or a section with 'criteria'), got {describe_type(to_plain(item))}; autorubric refuses the rubric.",
                )
            )
            continue
        inner = item.get("criteria")
        if item.has("criteria"):
            if inner is None or not inner.is_seq:
                view.problems.append(
                    Problem(
                        "section-criteria-not-list",
                        inner or item,
                        f"A section's 'criteria' must be a list of criteria, got {describe_type(to_plain(inner))}; autorubric refuses the rubric.",
                        key_node=item.key_node("criteria"),
                    )
                )
                continue
            flattened.extend((child, item) for child in inner.value)
        else:
            flattened.append((item, None))
    if not flattened and not view.problems:
        view.problems.append(
            Problem(
                "no-criteria",
                data,
                "The rubric's sections contain no criteria; autorubric refuses the rubric ('No criteria found'). Add criteria to a section.",
            )
        )
    for index, (node, section) in enumerate(flattened):
        view.entries.append(CriterionEntry(index, node, _criterion(node, section, view), section))
    return view


def _guidelines(root: Node, view: RubricView) -> None:
    if not root.is_map:
        return
    outer = _guidelines_value(root, view)
    inner_map = root.get("rubric")
    if inner_map is not None and inner_map.is_map:
        inner = _guidelines_value(inner_map, view)
        # autorubric treats blank guidelines as none before it compares the two.
        if not _blank(inner) and not _blank(outer):
            view.problems.append(
                Problem(
                    "guidelines-twice",
                    _present_key(inner_map, "guidelines"),
                    "'guidelines' is given both beside and inside 'rubric'; autorubric refuses the file. Keep one.",
                    related=[(_present_key(root, "guidelines"), "the other 'guidelines'")],
                )
            )
        view.guidelines = inner if inner is not None else outer
    else:
        view.guidelines = outer


def _present_key(mapping: Node, key: str) -> Node:
    """The key node of ``key``, which the caller has already seen in ``mapping``."""
    node = mapping.key_node(key)
    assert node is not None, f"{key!r} was checked present"
    return node


def _blank(text: str | None) -> bool:
    return text is None or not text.strip()


def _guidelines_value(mapping: Node, view: RubricView) -> str | None:
    node = mapping.get("guidelines")
    if node is None:
        return None
    value = to_plain(node, binary=True)  # PyYAML's value: a !!binary scalar is bytes, which autorubric refuses
    if node.is_scalar and (value is None or isinstance(value, str)):
        return value
    view.problems.append(
        Problem(
            "guidelines-type",
            node,
            f"'guidelines' must be text (or null), got {describe_type(value)}; autorubric refuses the rubric. Quote the value.",
        )
    )
    return None


def _entries(mapping: Node, view: RubricView, missing: str) -> Node | None:
    for key in ("sections", "criteria"):
        if mapping.has(key):
            if key == "sections" and mapping.has("criteria"):
                view.ignored.append(
                    (
                        _present_key(mapping, "criteria"),
                        _present_key(mapping, "sections"),
                        "'sections' is present, so 'criteria' is ignored",
                    )
                )
            value = mapping.get(key)
            if value is None or not value.is_seq:
                view.problems.append(
                    Problem(
                        "not-a-list",
                        value if value is not None else _present_key(mapping, key),
                        f"'{key}' must be a list, got {describe_type(to_plain(value))}; autorubric refuses the rubric. Write its entries as a list ('- ...').",
                        key_node=mapping.key_node(key),
                    )
                )
                return None
            return value
    view.problems.append(Problem("no-criteria-key", mapping, missing))
    return None


def _criterion(node: Node, section: Node | None, view: RubricView) -> CriterionValues | None:
    if not node.is_map:
        view.problems.append(
            Problem(
                "criterion-not-mapping",
                node,
                f"A criterion must be a mapping with at least a 'requirement', got {describe_type(to_plain(node))}; autorubric refuses the rubric. Write it as 'requirement: ...'.",
            )
        )
        return None
    if section is not None and node.has("criteria") and not node.has("requirement"):
        view.problems.append(
            Problem(
                "nested-section",
                _present_key(node, "criteria"),
                "Sections nest one level only: this section inside a section is read as a criterion without a 'requirement', and autorubric refuses the rubric. Move it to the top level.",
            )
        )
        return None
    # The values autorubric validates are PyYAML's: a !!binary scalar is bytes (a weight of
    # !!binary MQ== is b"1", which pydantic reads as 1.0; a !!binary key is not text).
    data: Any = to_plain(node, binary=True)
    for key_node, _value in node.pairs():
        key = scalar_value(key_node, True) if key_node.is_scalar else to_plain(key_node)
        if not isinstance(key, str):
            # autorubric builds the criterion with Criterion(**data), which refuses such keys
            # ("Failed to create criterion at index N: keywords must be strings").
            view.problems.append(
                Problem(
                    "criterion-key-not-string",
                    key_node,
                    f"Criterion keys must be text, got {describe_type(key)}; autorubric refuses the criterion "
                    "(keywords must be strings). Quote the key or remove it.",
                )
            )
            return None
    plain = plain_criterion(data)
    if plain is not None:  # (almost every criterion: pydantic is not imported)
        return plain
    from pydantic import ValidationError  # what the fast path cannot vouch for: pydantic decides and words it

    from rubric_lsp.formats.autorubric.model import Criterion

    try:
        return CriterionValues.of_model(Criterion.model_validate(data))
    except ValidationError as exc:
        for placed in place_errors(exc.errors(include_url=False), node):
            view.problems.append(
                Problem("criterion-invalid", placed.node, placed.message, key_node=placed.key_node, error=placed)
            )
        return None
