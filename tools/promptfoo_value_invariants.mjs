// Which assertion values promptfoo's handlers refuse with "Invariant failed", found by running them.
//
// Usage: node tools/promptfoo_value_invariants.mjs NODE_MODULES OUT.json (promptfoo logs to stdout)
// (tools/gen_promptfoo_tables.py runs this and writes rubric_lsp/formats/promptfoo/value_invariants.py.)
//
// 1. The handler table ASSERTION_HANDLERS in promptfoo's dist/src/index.js names each assertion
//    type's handler; the handlers whose source checks the assertion value with invariant(...)
//    (renderedValue / value / valueFromScript) are the ones this is about.
// 2. Each of them is run through promptfoo's own exported assertions.runAssertion with one value of
//    each kind below (a grader that answers at once stands in for any model, so nothing leaves the
//    machine), and the kinds that end in "Invariant failed: ..." (thrown, or returned as a failing
//    result's reason) are recorded with that message. A run still going after 3 s (webhook: a
//    request to the value as a URL) is not a refusal.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// No credential reaches a provider: the stand-in grader answers every model-graded call.
for (const name of Object.keys(process.env)) if (/API_KEY|TOKEN|SECRET/i.test(name)) delete process.env[name];
process.env.PROMPTFOO_DISABLE_TELEMETRY = "1";
process.env.PROMPTFOO_CACHE_ENABLED = "false";
process.env.PROMPTFOO_LOG_LEVEL = "error";
const root = join(process.argv[2], "promptfoo");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const indexPath = join(root, "dist", "src", "index.js");
const source = readFileSync(indexPath, "utf8");

export const KINDS = {
  missing: undefined,
  null: null,
  "empty string": "",
  "numeric string": "5",
  string: "hello",
  zero: 0,
  number: 5,
  true: true,
  false: false,
  "empty list": [],
  strings: ["a", "b"],
  numbers: [1, 2],
  "empty object": {},
  object: { a: 1 },
  "min-max object": { min: 1, max: 5 },
};

function handlerTable() {
  const start = source.indexOf("const ASSERTION_HANDLERS = {");
  const body = source.slice(start, source.indexOf("\n};\n", start));
  const table = {};
  for (const match of body.matchAll(/^\t(?:"([^"]+)"|([\w-]+)): (\w+),?$/gm)) table[match[1] ?? match[2]] = match[3];
  return table;
}

function handlerSource(name) {
  const opening = new RegExp(`^(?:const ${name} = |(?:async )?function ${name}\\()`, "m").exec(source);
  if (!opening) return { text: "", line: 0 };
  const end = source.indexOf("\n}", opening.index);
  return { text: source.slice(opening.index, end), line: source.slice(0, opening.index).split("\n").length };
}

const INVARIANT = "Invariant failed:";
const VALUE_INVARIANT = /invariant\([^;]*\b(?:renderedValue|value|valueFromScript)\b[^;]*\)/;
const answers = JSON.stringify({ pass: true, score: 1, reason: "ok" });
const grader = {
  id: () => "stand-in-grader",
  callApi: async () => ({ output: answers }),
  callEmbeddingApi: async () => ({ embedding: [1, 0, 0] }),
  callClassificationApi: async () => ({ classification: { a: 1 } }),
};

const { assertions } = await import(pathToFileURL(indexPath).href);

const firstLine = (text) => text.trim().split("\n")[0];

async function outcome(type, kind) {
  const assertion = { type };
  if (KINDS[kind] !== undefined) assertion.value = structuredClone(KINDS[kind]);
  const run = assertions.runAssertion({
    prompt: "Say hello",
    provider: grader,
    assertion,
    test: { vars: { query: "q", context: "c" }, options: { provider: grader } },
    providerResponse: { output: "hello world" },
  });
  const timeout = new Promise((resolve) => setTimeout(() => resolve("timeout"), 3000));
  try {
    const result = await Promise.race([run, timeout]);
    if (result === "timeout") timedOut.push(`${type} ${kind}`);
    // Some handlers catch the failure and return it as the (failing) result's reason.
    const reason = result?.pass === false && typeof result.reason === "string" ? result.reason : "";
    return reason.includes(INVARIANT) ? firstLine(reason.slice(reason.indexOf(INVARIANT) + INVARIANT.length)) : null;
  } catch (error) {
    const message = String(error?.message ?? error);
    return message.startsWith(INVARIANT) ? firstLine(message.slice(INVARIANT.length)) : null;
  }
}

const out = {};
const timedOut = [];
for (const [type, handler] of Object.entries(handlerTable())) {
  const found = handlerSource(handler);
  if (!VALUE_INVARIANT.test(found.text)) continue;
  const refused = {};
  for (const kind of Object.keys(KINDS)) {
    const message = await outcome(type, kind);
    if (message !== null) refused[kind] = message;
  }
  out[type] = { handler: `${handler} (dist/src/index.js:${found.line})`, refused };
}
writeFileSync(process.argv[3], JSON.stringify({ promptfoo: pkg.version, kinds: Object.keys(KINDS), types: out }, null, 1));
if (timedOut.length) process.stderr.write(`timed out (not refused): ${timedOut.join(", ")}\n`);
process.exit(0);
