// Which assertion values promptfoo's handlers refuse, found by running them; and promptfoo's assertion types.
//
// Usage: node tools/promptfoo_value_invariants.mjs NODE_MODULES OUT.json (promptfoo logs to stdout)
// (tools/gen_promptfoo_tables.py runs this and writes rubric_lsp/formats/promptfoo/value_invariants.py
// and rubric_lsp/formats/promptfoo/assertion_type_names.py.)
//
// 1. The handler table ASSERTION_HANDLERS in promptfoo's dist/src/index.js names each assertion
//    type's handler. A handler checks its value when its source (or a helper it hands the value to,
//    or the lazily imported chunk an inline entry loads) checks it with invariant(...), or throws on
//    a line that reads the value (`if (typeof renderedValue !== "string") throw new Error(...)`).
// 2. Each of them is run through promptfoo's own exported assertions.runAssertion with one value of
//    each kind below (a grader that answers at once stands in for any model, so nothing leaves the
//    machine). A kind is refused when the run ends in "Invariant failed: ..." (thrown, or returned
//    as a failing result's reason), or throws one of the value checks' own messages (found in the
//    source above) that some other kind does not: a message every kind gets is not about the value.
//    A run still going after 3 s (webhook: a request to the value as a URL) is not a refusal.
// 3. The assertion types promptfoo's config schema accepts (BaseAssertionTypesSchema and
//    SpecialAssertionTypesSchema, exported by dist/src/index.js) are recorded beside the handlers.
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
  // An inline entry loads its handler from a chunk: `meteor: async (params) => { const { handleMeteorAssertion } = await import("./meteor-….js"); …`
  for (const match of body.matchAll(/^\t(?:"([^"]+)"|([\w-]+)): async \(params\) => \{\n\t\ttry \{\n\t\t\tconst \{ (\w+) \} = await import\("\.\/([\w.-]+)"\)/gm))
    table[match[1] ?? match[2]] = { name: match[3], chunk: match[4] };
  return table;
}

function functionSource(text, name) {
  const opening = new RegExp(`^(?:const ${name} = |(?:async )?function ${name}\\()`, "m").exec(text);
  if (!opening) return null;
  return { text: text.slice(opening.index, text.indexOf("\n}", opening.index)), line: text.slice(0, opening.index).split("\n").length };
}

// The handler's source, and the sources of the helpers in the same file it hands its value to.
function handlerSource(entry) {
  const file = typeof entry === "string" ? "index.js" : entry.chunk;
  const text = file === "index.js" ? source : readFileSync(join(root, "dist", "src", file), "utf8");
  const name = typeof entry === "string" ? entry : entry.name;
  const found = functionSource(text, name);
  if (!found) return { own: "", helpers: "", where: name };
  const helpers = [...found.text.matchAll(/\b(\w+)\((?:params\.)?renderedValue\b/g)]
    .map((m) => m[1])
    .filter((helper) => helper !== name)
    .map((helper) => functionSource(text, helper)?.text ?? "");
  return { own: found.text, helpers: helpers.join("\n"), where: `${name} (dist/src/${file}:${found.line})` };
}

const INVARIANT = "Invariant failed:";
const VALUE_INVARIANT = /invariant\([^;]*\b(?:renderedValue|value|valueFromScript)\b[^;]*\)/;
// A line that reads the value and throws (`if (typeof renderedValue !== "string") throw new Error(...)`).
const VALUE_THROW = /^[^\n]*\b(?:renderedValue|value)\b[^\n]*throw new Error\(/m;
const LITERAL = String.raw`("(?:[^"\\]|\\.)*"|\x60(?:[^\x60\\]|\\.)*\x60)`;
const CHECKS = new RegExp(String.raw`(?:throw new Error\(|invariant\([^;]*?,\s*)` + LITERAL + String.raw`\)`, "g");

// The messages the checks in ``text`` fail with, as patterns (a template's ${…} matches anything).
function checkMessages(text) {
  return [...text.matchAll(CHECKS)].map(([, literal]) => {
    const body = literal.slice(1, -1).replace(/\\(.)/g, "$1");
    const parts = body.split(/\$\{[^}]*\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    return new RegExp(`^${parts.join(".*")}$`);
  });
}
const answers = JSON.stringify({ pass: true, score: 1, reason: "ok" });
const grader = {
  id: () => "stand-in-grader",
  callApi: async () => ({ output: answers }),
  callEmbeddingApi: async () => ({ embedding: [1, 0, 0] }),
  callClassificationApi: async () => ({ classification: { a: 1 } }),
};

const { assertions, BaseAssertionTypesSchema, SpecialAssertionTypesSchema } = await import(pathToFileURL(indexPath).href);

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
    return reason.includes(INVARIANT) ? { invariant: firstLine(reason.slice(reason.indexOf(INVARIANT))) } : null;
  } catch (error) {
    const message = firstLine(String(error?.message ?? error));
    return message.startsWith(INVARIANT) ? { invariant: message } : { thrown: message };
  }
}

const out = {};
const timedOut = [];
for (const [type, entry] of Object.entries(handlerTable())) {
  const found = handlerSource(entry);
  const scanned = `${found.own}\n${found.helpers}`;
  if (!VALUE_INVARIANT.test(scanned) && !VALUE_THROW.test(found.own) && !found.helpers.includes("throw new Error(")) continue;
  const checks = checkMessages(scanned);
  const runs = {};
  for (const kind of Object.keys(KINDS)) runs[kind] = await outcome(type, kind);
  const checked = (message) => {
    const text = message?.startsWith(INVARIANT) ? message.slice(INVARIANT.length).trimStart() : message;
    return text !== undefined && checks.some((check) => check.test(text));
  };
  // A plain throw is the value's fault only where another value gets past the checks (it runs, or
  // fails for another reason: no API key for search-rubric's web search); else nothing tells it
  // from the stand-in grader's fault (agent-rubric's "requires an agentic grading provider").
  const past = Object.values(runs).some((run) => !checked(run?.invariant ?? run?.thrown));
  const refused = {};
  for (const [kind, run] of Object.entries(runs)) {
    const message = run?.invariant ?? (past ? run?.thrown : undefined);
    if (checked(message)) refused[kind] = message;
  }
  out[type] = { handler: found.where, refused };
}
const assertionTypes = { base: BaseAssertionTypesSchema.options, special: SpecialAssertionTypesSchema.options };
writeFileSync(process.argv[3], JSON.stringify({ promptfoo: pkg.version, kinds: Object.keys(KINDS), types: out, assertionTypes }, null, 1));
if (timedOut.length) process.stderr.write(`timed out (not refused): ${timedOut.join(", ")}\n`);
process.exit(0);
