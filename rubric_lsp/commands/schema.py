"""``rubric schema``: export each format's JSON Schema into schemas/, and its completion-only copy into
schemas/completion/ (for an editor beside rubric-lsp: completion and hover, no second report of the lint)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rubric_lsp.formats.registry import formats, get_format
from rubric_lsp.formats.schema_export import completion_only, for_editors

COMPLETION = "completion"  # the folder of the completion-only schemas, inside the schemas folder


def rendered_schemas() -> dict[str, str]:
    """Each schema file's text by its path in the schemas folder: the validating one and its completion-only copy."""
    out = {}
    for fmt in formats():
        if fmt.json_schema is None or fmt.schema_file is None:
            continue
        schema = for_editors(fmt.json_schema())
        out[fmt.schema_file] = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
        out[f"{COMPLETION}/{fmt.schema_file}"] = (
            json.dumps(completion_only(schema), indent=2, ensure_ascii=False) + "\n"
        )
    return out


def run_schema(args) -> int:
    if args.kind:
        fmt = get_format(args.kind)
        if fmt is None or fmt.json_schema is None:
            print(f"rubric: no schema for kind {args.kind!r}", file=sys.stderr)
            return 2
        print(json.dumps(for_editors(fmt.json_schema()), indent=2, ensure_ascii=False))
        return 0
    folder: Path = args.dir
    stale = []
    for name, text in rendered_schemas().items():
        path = folder / name
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            stale.append(name)
            if args.write:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    if args.write:
        print(f"wrote {len(stale)} schema file(s) to {folder}" if stale else f"schemas in {folder} are up to date")
        return 0
    if args.check or not args.write:
        if stale:
            print(f"stale schema file(s) in {folder}: {', '.join(stale)} (run: rubric schema --write)", file=sys.stderr)
            return 1
        print(f"schemas in {folder} are up to date")
    return 0
