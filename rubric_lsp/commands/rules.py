"""``rubric rule CODE`` and the rule table."""

from __future__ import annotations

import sys

from rubric_lsp.rules.registry import all_rules, get_rule


def rule_table() -> str:
    rows = ["| Code | Name | Severity | Fix | What it catches |", "|---|---|---|---|---|"]
    for r in all_rules():
        rows.append(f"| {r.code} | `{r.name}` | {r.severity.label} | {'yes' if r.fixable else ''} | {r.summary} |")
    return "\n".join(rows)


def run_rule(args) -> int:
    if getattr(args, "table", False):
        print(rule_table())
        return 0
    if getattr(args, "all", False) or not args.code:
        if not args.code and not getattr(args, "all", False):
            print(rule_table())
            return 0
        print("\n\n".join(r.markdown() for r in all_rules()))
        return 0
    found = get_rule(args.code)
    if found is None:
        print(f"rubric: unknown rule code {args.code!r} (see rubric-lint --list-rules)", file=sys.stderr)
        return 2
    print(found.markdown())
    print(f"\nDocs: {found.docs_url}")
    return 0
