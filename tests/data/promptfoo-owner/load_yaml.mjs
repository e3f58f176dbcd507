// Plain scalars as promptfoo 0.123.1 reads them: its own loadYaml (src/util/yamlLoad.ts, bundled in
// dist/src/logger-*.js), called on "k: <raw>" (the value) and "<raw>: k" (the key) for each raw text.
// Usage: node load_yaml.mjs NODE_MODULES < raws.json > readings.json
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const dist = join(process.argv[2], "promptfoo", "dist", "src");
let loadYaml;
for (const name of readdirSync(dist)) {
  if (!name.endsWith(".js")) continue;
  const text = readFileSync(join(dist, name), "utf8");
  const exported = /function loadYaml\(/.test(text) && text.match(/\bloadYaml as (\w+)/);
  if (exported) {
    loadYaml = (await import(pathToFileURL(join(dist, name)).href))[exported[1]];
    break;
  }
}
if (typeof loadYaml !== "function") throw new Error("promptfoo's loadYaml not found in " + dist);

function describe(value) {
  if (value === null) return ["null"];
  if (typeof value === "number") return ["number", String(value)];
  if (typeof value === "boolean") return ["boolean", String(value)];
  if (typeof value === "string") return ["string", value];
  if (value instanceof Date) return ["date", isNaN(value) ? "Invalid Date" : value.toISOString()];
  return ["other", Object.prototype.toString.call(value)];
}

function attempt(read) {
  try {
    return read();
  } catch (error) {
    return ["error"];
  }
}

const raws = JSON.parse(readFileSync(0, "utf8"));
const out = raws.map((raw) => ({
  value: attempt(() => describe(loadYaml(`k: ${raw}\n`).k)),
  key: attempt(() => ["string", Object.keys(loadYaml(`${raw}: k\n`))[0]]),
}));
process.stdout.write(JSON.stringify(out));
