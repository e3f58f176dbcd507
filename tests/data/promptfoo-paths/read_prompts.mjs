// promptfoo's own prompt-path decision, for tests/test_promptfoo_bare_refs.py.
// usage: node read_prompts.mjs PROMPTFOO_DIST BASE CASES_JSON
// Prints one JSON line: for each raw prompt, maybeFilePath, glob's hasMagic and what
// readPrompts([raw], BASE) did ("inline": the text itself, "loaded", or "error: <message>").
// The functions live in hashed chunks of dist/src: found by their names and export aliases.
import fs from "node:fs";
import path from "node:path";

const [dist, base, casesFile] = process.argv.slice(2);
const exported = (name) => {
  for (const file of fs.readdirSync(dist)) {
    if (!file.endsWith(".js") || file === "index.js" || file === "main.js") continue;
    const text = fs.readFileSync(path.join(dist, file), "utf8");
    const alias = text.includes(`function ${name}(`) && text.match(new RegExp(`\\b${name} as (\\w+)`));
    if (alias) return import(path.join(dist, file)).then((module) => module[alias[1]]);
  }
  throw new Error(`${name} not found in ${dist}`);
};
const readPrompts = await exported("readPrompts");
const maybeFilePath = await exported("maybeFilePath");
const { hasMagic } = await import(path.resolve(dist, "../../../glob/dist/esm/index.js"));
const out = [];
for (const raw of JSON.parse(fs.readFileSync(casesFile, "utf8"))) {
  let outcome;
  try {
    const prompts = await readPrompts([raw], base);
    outcome = prompts.length === 1 && prompts[0].raw === raw && !prompts[0].function ? "inline" : "loaded";
  } catch (err) {
    outcome = "error: " + String(err.message).split("\n")[0];
  }
  out.push({ raw, maybeFilePath: maybeFilePath(raw), hasMagic: hasMagic(raw), outcome });
}
console.log(JSON.stringify(out));
process.exit(0);
