// Copies the server's completion-only JSON Schemas (../schemas/completion, written by
// `rubric schema --write`: names, descriptions, defaults and allowed values, no keyword that
// can fail validation) into ./schemas. Missing files are tolerated: a placeholder schema
// (no validation, no completion) is written so the contributions still resolve.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const SCHEMA_FILES = [
  "autorubric-rubric.schema.json",
  "autorubric-dataset.schema.json",
  "promptfoo-config.schema.json",
  "northstar-eval-run-request.schema.json",
  "northstar-eval-cases.schema.json",
  "rubrics-task.schema.json",
];

const here = dirname(fileURLToPath(import.meta.url));
const src = join(process.env.RUBRIC_SCHEMAS_DIR ?? join(here, "..", "..", "schemas"), "completion");
const dst = join(here, "..", "schemas");
mkdirSync(dst, { recursive: true });
let copied = 0;
for (const name of SCHEMA_FILES) {
  const from = join(src, name);
  let schema;
  if (existsSync(from)) {
    schema = JSON.parse(readFileSync(from, "utf8"));
    copied++;
  } else {
    console.warn(`schemas: ${from} not found; writing a placeholder`);
    schema = { $schema: "http://json-schema.org/draft-07/schema#", title: name.replace(".schema.json", ""), description: "placeholder: the rubric-lsp schema was not available when this extension was built" };
  }
  writeFileSync(join(dst, name), JSON.stringify(schema, null, 1) + "\n");
}
console.log(`schemas: ${copied}/${SCHEMA_FILES.length} copied from ${src} (completion-only)`);
