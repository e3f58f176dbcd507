// promptfoo's own tests-path decision, for tests/test_promptfoo_bare_refs.py.
// usage: node read_tests.mjs PROMPTFOO_DIST BASE CASES_JSON
// readTests and readTest are not exported: a copy of dist/src/index.js that also exports them
// is written to a temporary folder (its relative imports pointed back at dist/src, its package
// imports resolving through links to promptfoo's node_modules) and imported. Each case
// {kind, value} runs as `tests: value` (string), `tests: [value]` (item), `tests: {path: value}`
// (path) or `defaultTest: value` (default); prints what came back and what promptfoo logged.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [dist, base, casesFile] = process.argv.slice(2);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "promptfoo-read-tests-"));
fs.symlinkSync(path.resolve(dist, "../../.."), path.join(tmp, "node_modules"));
fs.mkdirSync(path.join(tmp, "p"));
fs.symlinkSync(path.resolve(dist, "../../node_modules"), path.join(tmp, "p", "node_modules"));
const source = fs
  .readFileSync(path.join(dist, "index.js"), "utf8")
  .replace(/(from\s+|import\s*\(\s*|import\s+)"\.\//g, (_m, lead) => `${lead}"${dist}/`);
const file = path.join(tmp, "p", "index.mjs");
fs.writeFileSync(file, `${source}\nexport { readTests as __readTests, readTest as __readTest };\n`);
const { __readTests: readTests, __readTest: readTest } = await import(file);

const print = process.stdout.write.bind(process.stdout);
let log = ""; // what promptfoo's logger printed for the case at hand
for (const stream of [process.stdout, process.stderr]) {
  stream.write = (chunk) => {
    log += String(chunk);
    return true;
  };
}
const out = [];
for (const { kind, value } of JSON.parse(fs.readFileSync(casesFile, "utf8"))) {
  log = "";
  let outcome;
  try {
    const input = kind === "item" ? [value] : kind === "path" ? { path: value } : value;
    const tests = kind === "default" ? [await readTest(value, base, true)] : await readTests(input, base);
    outcome = `loaded ${tests.length}`;
  } catch (err) {
    outcome = "error: " + String(err.message).split("\n")[0];
  }
  out.push({ kind, value, outcome, log });
}
fs.rmSync(tmp, { recursive: true, force: true });
print(JSON.stringify(out) + "\n");
process.exit(0);
