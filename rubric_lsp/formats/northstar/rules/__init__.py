"""Checks for NorthStar judge configs (EvalRunRequest) and eval-case datasets.

One module per theme, each holding its rules next to their checks: ``request`` (run
configuration errors and the request checker), ``judges`` (judge warnings), ``cases``
(dataset errors and the cases checker); ``common`` holds what they share.
"""

from rubric_lsp.formats.northstar.rules import cases, request

__all__ = ["cases", "request"]
