"""JavaScript where promptfoo 0.123.1 runs JavaScript: ``regex``, ``javascript`` and inline ``transform``.

promptfoo runs these in Node, so their verdicts follow V8: ``new RegExp(value).test(output)`` (no
flags, Annex B syntax: ``\\Z`` and ``{,3}`` are literals, ``(?P<n>…)`` is refused) and ``new
Function('output', 'context', 'process', body)`` for a javascript value. They run here in V8 too,
through ``mini-racer`` (the ``[grade]`` extra), never in Python's ``re``:

- **the sandbox**: a bare V8 isolate has no file, network or process access (no ``require``,
  ``fetch``, ``process``); every global Node adds (``Buffer``, ``fetch``, ``URL``, …), the ``process``
  argument and what rubric grade does not know of the run (``context.prompt``, ``context.test``,
  ``context.provider``, ``context.logProbs``, a provider response's fields besides ``output``) are
  traps: a script that touches one is *declined* (``NotHere``: the assertion is not run), never
  given a guessed value;
- **bounds**: ``TIME_LIMIT`` seconds and ``MEMORY_LIMIT`` bytes of V8 heap per call; a script or
  pattern past either raises ``Runaway`` (an ERROR verdict, never a pass and never a hang);
- **fidelity**: promptfoo's own wrapping runs in V8 (``buildFunctionBody``, ``validateResult``,
  ``normalizeJavascriptAssertionResult``, ``transform``; ported from ``dist/src/evaluator-*.js``
  and ``transform-*.js``), so trimming, truthiness and the reasons are JavaScript's;
- **isolation**: each script gets a fresh isolate (a script cannot leave anything for the next);
  patterns share one, since no user code runs in it.

Without mini-racer (``EngineMissing``) every such assertion is declined, as before.
Start-up (measured on the 2-core machine): ~0.1 s to import, ~0.05–0.2 s for the first isolate,
~10 ms for each further one; ~60 MB of resident memory once loaded.
"""

from __future__ import annotations

import atexit
import json
import math
import queue
import sys
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from rubric_lsp.formats.promptfoo.grading.checked import Declined, Errored

# Per call: V8 has no other bound, and promptfoo none at all (a runaway script hangs its eval).
TIME_LIMIT = 5.0
MEMORY_LIMIT = 256 * 1024 * 1024

# Globals Node gives a `new Function` body that a bare V8 isolate has not (read from Node's
# globalThis), and V8 globals no Node LTS has: touching one declines the script.
_GLOBAL_NAMES = (
    "AbortController AbortSignal Blob BroadcastChannel Buffer ByteLengthQueuingStrategy CompressionStream "
    "CountQueuingStrategy Crypto CryptoKey CustomEvent DOMException DecompressionStream Event EventTarget File "
    "FormData Headers MessageChannel MessageEvent MessagePort Navigator Performance PerformanceEntry PerformanceMark "
    "PerformanceMeasure PerformanceObserver PerformanceObserverEntryList PerformanceResourceTiming "
    "ReadableByteStreamController ReadableStream ReadableStreamBYOBReader ReadableStreamBYOBRequest "
    "ReadableStreamDefaultController ReadableStreamDefaultReader Request Response SubtleCrypto TextDecoder "
    "TextDecoderStream TextEncoder TextEncoderStream TransformStream TransformStreamDefaultController URL "
    "URLSearchParams WebSocket WritableStream WritableStreamDefaultController WritableStreamDefaultWriter atob btoa "
    "clearImmediate clearInterval crypto fetch global navigator performance process queueMicrotask setImmediate "
    "setInterval structuredClone require module exports __dirname __filename "
    "Temporal Float16Array DisposableStack AsyncDisposableStack SuppressedError"
)
_NOT_HERE_GLOBALS = tuple(_GLOBAL_NAMES.split())

# The sandbox: promptfoo's wrapping (ported verbatim where it decides a verdict), the traps, and
# one entry point, __rubric.
_PRELUDE = r"""
(() => {
  let touched = null;
  const trap = (what) => { touched = touched || what; throw new Error(`${what} is not available in rubric grade's sandbox`); };
  for (const name of __GLOBALS__) {
    if (name in globalThis) delete globalThis[name];
    Object.defineProperty(globalThis, name, { get() { return trap(name); }, configurable: false });
  }
  const processShim = new Proxy({}, {
    get: () => trap('process'), has: () => trap('process'), ownKeys: () => trap('process'),
    getOwnPropertyDescriptor: () => trap('process'),
  });
  // What rubric grade knows of promptfoo's assertion context: vars, the assertion's config, the output.
  const known = (object, name, unknown) => new Proxy(object, {
    get(target, key) {
      if (typeof key === 'string' && !Object.prototype.hasOwnProperty.call(target, key) && unknown(key)) trap(`${name}.${key}`);
      return Reflect.get(target, key);
    },
    has(target, key) { if (typeof key === 'string' && unknown(key)) trap(`${name}.${key}`); return Reflect.has(target, key); },
    ownKeys() { return trap(`the keys of ${name}`); },
  });
  const CONTEXT_UNKNOWN = new Set(['prompt', 'test', 'logProbs', 'provider', 'metadata', 'trace']);
  const assertionContext = (output, vars, config) => {
    const context = { vars, providerResponse: known({ output }, 'context.providerResponse', () => true) };
    if (config !== undefined) context.config = config;
    return known(context, 'context', (key) => CONTEXT_UNKNOWN.has(key));
  };
  // src/assertions/javascript.ts
  const isCharEscaped = (code, index) => {
    let backslashCount = 0;
    let i = index - 1;
    while (i >= 0 && code[i] === '\\') { backslashCount++; i--; }
    return backslashCount % 2 === 1;
  };
  const findLastStatementSemicolon = (code) => {
    let inSingleQuote = false, inDoubleQuote = false, inTemplate = false, lastSemiIndex = -1;
    for (let i = 0; i < code.length; i++) {
      const char = code[i];
      if (!isCharEscaped(code, i)) {
        if (char === "'" && !inDoubleQuote && !inTemplate) inSingleQuote = !inSingleQuote;
        else if (char === '"' && !inSingleQuote && !inTemplate) inDoubleQuote = !inDoubleQuote;
        else if (char === '`' && !inSingleQuote && !inDoubleQuote) inTemplate = !inTemplate;
      }
      if (char === ';' && !inSingleQuote && !inDoubleQuote && !inTemplate) lastSemiIndex = i;
    }
    return lastSemiIndex;
  };
  const buildFunctionBody = (code) => {
    const trimmed = code.trim().replace(/;+\s*$/, '');
    if (/^(const|let|var)\s/.test(trimmed)) {
      const lastSemiIndex = findLastStatementSemicolon(trimmed);
      if (lastSemiIndex !== -1) {
        const statements = trimmed.slice(0, lastSemiIndex + 1);
        const expression = trimmed.slice(lastSemiIndex + 1).trim();
        if (expression) return `${statements} return ${expression}`;
      }
      return trimmed;
    }
    return `return ${trimmed}`;
  };
  const isGradingResult = (result) => typeof result === 'object' && result !== null && typeof result.pass === 'boolean'
    && typeof result.score === 'number' && typeof result.reason === 'string'
    && (typeof result.namedScores === 'undefined' || typeof result.namedScores === 'object')
    && (typeof result.namedScoreWeights === 'undefined' || typeof result.namedScoreWeights === 'object')
    && (typeof result.tokensUsed === 'undefined' || typeof result.tokensUsed === 'object')
    && (typeof result.componentResults === 'undefined' || Array.isArray(result.componentResults))
    && (typeof result.assertion === 'undefined' || result.assertion === null || typeof result.assertion === 'object')
    && (typeof result.comment === 'undefined' || typeof result.comment === 'string');
  const validateResult = async (result) => {
    result = await Promise.resolve(result);
    if (typeof result === 'boolean' || typeof result === 'number' || isGradingResult(result)) return result;
    throw new Error(`Custom function must return a boolean, number, or GradingResult object. Got type ${typeof result}: ${JSON.stringify(result)}`);
  };
  const appendRenderedValueToReason = (reason, renderedValue) =>
    typeof renderedValue === 'string' && renderedValue ? `${reason}\n${renderedValue}` : reason;
  const number = (n) => (Number.isFinite(n) ? n : String(n));  // JSON has no NaN or Infinity
  const normalize = (threshold, result, inverse, renderedValue) => {
    const failure = (rawPass) => appendRenderedValueToReason(`Custom function returned ${rawPass ? 'true' : 'false'}`, renderedValue);
    if (typeof result === 'boolean') {
      const pass = result !== inverse;
      return { pass, score: pass ? 1 : 0, reason: pass ? 'Assertion passed' : failure(result) };
    }
    if (typeof result === 'number') {
      const rawPass = threshold === undefined ? result > 0 : result >= threshold;
      const pass = rawPass !== inverse;
      return { pass, score: number(result), reason: pass ? 'Assertion passed' : failure(rawPass) };
    }
    const pass = result.pass !== inverse;
    const reason = pass === result.pass ? result.reason : pass ? 'Assertion passed' : `Custom function returned ${result.pass ? 'true' : 'false'}`;
    return { pass, score: number(result.score), reason };
  };
  // src/util/transform.ts: an inline transform, as the assertion's `transform` runs it.
  const transformLabel = (t) => {
    const singleLine = t.replace(/\s+/g, ' ').trim();
    return `[inline transform]: ${singleLine.length > 80 ? `${singleLine.slice(0, 79)}…` : singleLine}`;
  };
  const transform = async (code, output, vars) => {
    const fn = new Function('output', 'context', 'process', code.includes('\n') ? code : `return ${code}`);
    let ret;
    try {
      ret = await Promise.resolve(fn(output, known({ vars }, 'context', (key) => key === 'prompt' || key === 'metadata'), processShim));
    } catch (error) {
      if (error instanceof Error) throw new Error(`Transform failed (${transformLabel(code)}): ${error.message}`);
      throw error;
    }
    if (ret === null || ret === undefined) throw new Error(`Transform function did not return a value\n\n${transformLabel(code)}`);
    return ret;
  };
  const coerceString = (value) => (typeof value === 'string' ? value : JSON.stringify(value));
  // A script's result is kept until __rubric.poll() collects it: awaiting a promise from Python would
  // wait outside the time bound (the microtasks run between the calls).
  let settled = null;
  const settle = (run) => {
    touched = null;
    settled = null;
    const keep = (value) => { settled = JSON.stringify(touched ? { touched } : value); };
    (async () => run())().then(keep, (error) => keep({ error: String(error && error.message) }));
    return 'started';
  };
  globalThis.__rubric = {
    poll: () => settled,
    regex(pattern, output, flags) {
      let regex;
      try { regex = new RegExp(pattern, flags); } catch (error) { return JSON.stringify({ invalid: error.message }); }
      return JSON.stringify({ match: regex.test(output) });
    },
    transformed: (code, output, vars) => settle(async () => ({ output: coerceString(await transform(code, output, vars)) })),
    transformedValue: (code, output, vars) => settle(async () => {
      const value = await transform(code, output, vars);
      return { output: coerceString(value), text: typeof value === 'string' };
    }),
    assertion: (body, output, vars, config, threshold, inverse, transformCode) => settle(async () => {
      if (transformCode !== undefined) output = await transform(transformCode, output, vars);
      let renderedValue = body.trimEnd();
      try {
        const functionBody = renderedValue.includes('\n') ? renderedValue : buildFunctionBody(renderedValue);
        const customFunction = new Function('output', 'context', 'process', functionBody);
        const result = await validateResult(customFunction(output, assertionContext(output, vars, config), processShim));
        return normalize(threshold, result, inverse, renderedValue);
      } catch (err) {
        if (touched) throw err;
        return { pass: false, score: 0, reason: appendRenderedValueToReason(`Custom function threw error: ${err.message}\nStack Trace: ${err.stack}`, renderedValue) };
      }
    }),
  };
})();
""".replace("__GLOBALS__", json.dumps(_NOT_HERE_GLOBALS))


class EngineMissing(RuntimeError):
    """mini-racer (the ``[grade]`` extra) is not installed: JavaScript is not run here."""


class Runaway(RuntimeError):
    """A script or pattern went past the time or memory bound: an ERROR, never a verdict."""


class NotHere(RuntimeError):
    """The script reached what rubric grade does not have (Node's globals, ``process``, ``context.test``, …)."""


@dataclass(frozen=True)
class Scripted:
    """A javascript assertion's result as promptfoo's handler makes it."""

    passed: bool
    score: float
    reason: str


def _load() -> Any:
    try:
        import py_mini_racer
    except ImportError as missing:
        raise EngineMissing(
            "JavaScript is run with mini-racer (the [grade] extra), which is not installed"
        ) from missing
    if sys.unraisablehook is not _quiet_late_callbacks:
        _PREVIOUS_HOOK.append(sys.unraisablehook)
        sys.unraisablehook = _quiet_late_callbacks
    return py_mini_racer


_PREVIOUS_HOOK: list[Any] = []


def _quiet_late_callbacks(unraisable: Any) -> None:
    """Drop the one report mini-racer leaves on stderr after a stopped script's isolate is closed
    (V8's late answer finds the isolate's loop closed); every other one goes where it went before."""
    late = isinstance(unraisable.exc_value, RuntimeError) and str(unraisable.exc_value) == "Event loop is closed"
    if late and "mr_callback" in getattr(unraisable.object, "__qualname__", ""):
        return
    _PREVIOUS_HOOK[-1](unraisable)


# Every isolate is made, used and closed on one thread of ours, which has no event loop running:
# each isolate then starts a loop thread of its own (one made on the grading's loop would run
# there and refuse a time bound), and closing one on another thread crashes mini-racer 0.14. The
# thread is a daemon, so at exit (atexit runs before daemons stop, after a ThreadPoolExecutor's
# workers are gone) it still closes the shared isolate, which the interpreter could not.
_JOBS: queue.Queue[tuple[Any, tuple[Any, ...], Future[Any]]] = queue.Queue()
_SHARED: list[Any] = []  # the isolate patterns are tested in, once made (worker thread only)
_STARTED: list[threading.Thread] = []
_STARTING = threading.Lock()


def _serve() -> None:
    while True:
        job, args, done = _JOBS.get()
        try:
            done.set_result(job(*args))
        except BaseException as problem:  # handed to the caller, who raises it
            done.set_exception(problem)


def _on_worker(job: Any, *args: Any) -> Any:
    with _STARTING:
        if not _STARTED:
            worker = threading.Thread(target=_serve, name="rubric-js", daemon=True)
            worker.start()
            _STARTED.append(worker)
            atexit.register(_on_worker, _close_shared)
    done: Future[Any] = Future()
    _JOBS.put((job, args, done))
    return done.result()


def _close_shared() -> None:
    while _SHARED:
        _SHARED.pop().close()


def close_shared_isolate() -> None:
    """Close the isolate patterns are tested in (the next pattern makes a new one, ~20 ms).

    It is kept for the process's life on purpose (a pattern in it costs ~0.4 ms, in an isolate of its
    own ~18 ms), and each isolate holds an event loop of mini-racer's (an epoll and a socket pair) and
    its thread. For a caller that owns the process's life in parts, e.g. a test module's end."""
    if _STARTED:
        _on_worker(_close_shared)


def _isolate() -> Any:
    try:
        racer = _load().MiniRacer()
    except EngineMissing:
        raise
    except Exception as broken:  # installed, but V8 does not start here (a wheel for another platform, …)
        raise EngineMissing(f"mini-racer is installed but V8 does not start: {broken}") from broken
    try:
        racer.set_hard_memory_limit(MEMORY_LIMIT)
        racer.eval(_PRELUDE)
    except BaseException:
        racer.close()  # its event loop and thread, which nothing else would close
        raise
    return racer


def _eval(racer: Any, code: str, seconds: float, *, shared: bool) -> Any:
    module = _load()
    try:
        return racer.eval(code, timeout_sec=max(seconds, 0.001))
    except (module.JSTimeoutException, TimeoutError) as stopped:
        _retire(racer, shared)
        raise Runaway(f"it ran past the {TIME_LIMIT:g} s time limit and was stopped") from stopped
    except module.JSOOMException as stopped:
        _retire(racer, shared)
        raise Runaway(f"it used more than the {MEMORY_LIMIT // 2**20} MB memory limit and was stopped") from stopped


def _retire(racer: Any, shared: bool) -> None:
    # Stopped by a bound, an isolate left open would keep the interpreter from exiting.
    if shared and racer in _SHARED:
        _SHARED.remove(racer)
    racer.close()


class _Unset:
    """An argument JavaScript receives as ``undefined`` (JSON has no word for it)."""


UNSET = _Unset()


def _call(function: str, *args: Any) -> str:
    return f"__rubric.{function}({', '.join('undefined' if a is UNSET else json.dumps(a) for a in args)})"


def regex_test(pattern: str, output: str, flags: str = "") -> bool | str:
    """``new RegExp(pattern, flags).test(output)`` in V8: the match, or V8's message when it refuses the pattern."""
    _load()
    result = json.loads(_on_worker(_test_regex, pattern, output, flags))
    return bool(result["match"]) if "match" in result else str(result["invalid"])


def _test_regex(pattern: str, output: str, flags: str) -> Any:
    if not _SHARED:
        _SHARED.append(_isolate())
    return _eval(_SHARED[0], _call("regex", pattern, output, flags), TIME_LIMIT, shared=True)


def _script(function: str, *args: Any) -> dict[str, Any]:
    _load()
    result = json.loads(_on_worker(_settled, function, *args))
    if "touched" in result:
        raise NotHere(f"it uses {result['touched']}, which rubric grade does not have")
    return dict(result)


def _settled(function: str, *args: Any) -> str:
    """Run a script in a fresh isolate; its result once settled, all within the time bound."""
    racer = _isolate()
    try:
        deadline = time.monotonic() + TIME_LIMIT
        _eval(racer, _call(function, *args), TIME_LIMIT, shared=False)
        pause = 0.001
        while (settled := _eval(racer, "__rubric.poll()", deadline - time.monotonic(), shared=False)) is None:
            if time.monotonic() >= deadline:  # a promise that never settles
                raise Runaway(f"its promise did not settle within the {TIME_LIMIT:g} s time limit")
            time.sleep(pause)  # a timer it awaits (setTimeout) fires between the calls
            pause = min(pause * 2, 0.05)
    finally:
        racer.close()
    return str(settled)


def _js_json(value: Any) -> Any:
    """A value JSON can carry into V8 (what JSON.parse gives back there); NaN/Infinity as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _js_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_js_json(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


class TransformFailed(RuntimeError):
    """The transform threw or returned nothing: promptfoo errors the test with this message."""


def transformed(code: str, output: str, test_vars: dict[str, Any]) -> str:
    """The output an assertion's inline ``transform`` hands its handler (``coerceString`` of it)."""
    result = _script("transformed", code, output, _js_json(test_vars))
    if "error" in result:
        raise TransformFailed(result["error"])
    if not isinstance(result.get("output"), str):
        raise NotHere("the transform returned a value JSON cannot show (a function or a symbol)")
    return str(result["output"])


def transformed_value(code: str, output: str, test_vars: dict[str, Any]) -> tuple[str, bool]:
    """A test's ``options.transform`` of the output: its ``coerceString`` text, and whether it is text (a value that
    is not, an object, reaches a javascript assertion or an assertion's transform as itself, not as this text)."""
    result = _script("transformedValue", code, output, _js_json(test_vars))
    if "error" in result:
        raise TransformFailed(result["error"])
    if not isinstance(result.get("output"), str):
        raise NotHere("the transform returned a value JSON cannot show (a function or a symbol)")
    return str(result["output"]), bool(result.get("text"))


def javascript_assertion(
    body: str,
    output: str,
    test_vars: dict[str, Any],
    *,
    config: Any = UNSET,
    threshold: Any = UNSET,
    inverse: bool = False,
    transform: str | None = None,
) -> Scripted:
    """promptfoo's ``handleJavascript`` for an inline value: its pass, score and reason."""
    result = _script(
        "assertion",
        body,
        output,
        _js_json(test_vars),
        UNSET if config is UNSET else _js_json(config),
        UNSET if threshold is UNSET else _js_json(threshold),
        inverse,
        UNSET if transform is None else transform,
    )
    if "error" in result:
        raise TransformFailed(result["error"])
    score = result["score"]
    return Scripted(bool(result["pass"]), float(score), str(result["reason"]))


def run_js(run: Any) -> Any:
    """``run(this module)``: Declined without the engine or where a script reaches what is not here,
    Errored where it runs away or its transform fails (promptfoo errors the test)."""
    this = sys.modules[__name__]
    try:
        return run(this)
    except EngineMissing as missing:
        raise Declined(str(missing)) from None
    except NotHere as absent:
        raise Declined(f"promptfoo runs this JavaScript in Node, and {absent}") from None
    except Runaway as runaway:
        raise Errored(f"The JavaScript was stopped: {runaway} (promptfoo would hang or time out)") from None
    except TransformFailed as failed:
        raise Errored(f"promptfoo errors this test: {failed}") from None
