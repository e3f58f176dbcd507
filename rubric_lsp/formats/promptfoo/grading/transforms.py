"""The output each assertion of a promptfoo test reads, transformed as promptfoo 0.123.1 transforms it.

Read from ``dist/src/evaluator-*.js``: ``transformRunEvalResponse`` applies the test's ``options.transform`` (else
``options.postprocess``; defaultTest's options merged under the test's, a scenario config entry's between) to the
provider's output before any assertion runs, and that is the output the results file records; then
``runAssertionInternal`` applies an assertion's own ``transform`` to it before the handler — every handler,
model-graded ones included (``llm-rubric`` judges ``outputString``, the transformed output as text, through
``coerceString``: a string as is, anything else ``JSON.stringify``-ed). Inline transforms run in the V8 sandbox
(``javascript``): one that throws or returns nothing errors the test in promptfoo (an ERROR here), one reaching what
the sandbox has not is not run here; a ``file://`` transform (promptfoo loads or runs the file) is not run here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.promptfoo.grading.checked import Declined, Errored
from rubric_lsp.formats.promptfoo.grading.javascript import run_js

# Test options that hand the assertions another output than the provider's (the first set wins).
OUTPUT_TRANSFORMS = ("transform", "postprocess")


@dataclass(frozen=True)
class Transformed:
    """The output a test's assertions read: ``text`` (None: not known here, ``declined`` or ``errored`` says why);
    ``is_text`` False when the transform made an object (a javascript assertion or an assertion's transform gets
    the object itself in promptfoo, not ``text``)."""

    text: str | None
    is_text: bool = True
    declined: str | None = None
    errored: str | None = None


def transformed_output(code: Any, response: str, test_vars: dict[str, Any], recorded: bool) -> Transformed:
    """What test-level ``code`` (options.transform / postprocess, None: none) makes of ``response``; ``recorded``: the
    response is a results file's, already transformed by promptfoo."""
    if recorded or code is None:
        return Transformed(response)
    if not isinstance(code, str) or code.startswith("file://"):
        return Transformed(None, declined="the test's options.transform is a file promptfoo loads, not run here")
    try:
        text, is_text = run_js(lambda js: js.transformed_value(code, response, test_vars))
    except Declined as declined:
        return Transformed(None, declined=f"the test's options.transform is not run here: {declined}")
    except Errored as errored:
        return Transformed(None, errored=str(errored))
    return Transformed(text, is_text)


def transform_code(option: Any) -> Any:
    """The test's transform code (``options.transform || options.postprocess``; None: none), ``option(key)`` giving
    the test's merged options."""
    for key in OUTPUT_TRANSFORMS:
        code = option(key)
        if code:
            return code
    return None


def assertion_output(assertion: Any, base: Transformed, test_vars: dict[str, Any]) -> str:
    """The text a model-graded ``assertion`` judges: ``base`` through the assertion's own inline ``transform``.

    Raises ``Declined`` (not run here) or ``Errored`` (promptfoo errors the test)."""
    if base.errored is not None:
        raise Errored(base.errored)
    if base.text is None:
        raise Declined(base.declined or "the output is not known here")
    node = assertion.field("transform")
    code = None if node is None else to_plain(node)
    if code is None or code == "":
        return base.text
    if not isinstance(code, str) or code.startswith("file://"):
        raise Declined("its transform is a file promptfoo loads, not run here")
    if not base.is_text:
        raise Declined("promptfoo hands its transform the object the test's transform made, not its text")
    text = base.text
    return str(run_js(lambda js: js.transformed(code, text, test_vars)))
