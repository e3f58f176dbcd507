// Turns a validating JSON Schema into a "completion-only" schema: property names,
// descriptions, defaults, examples and enum/const values stay (so Red Hat YAML and
// VS Code's JSON service offer completion and hover), while every keyword that can make
// validation fail is removed. The rubric-lsp server is then the only source of
// problems for these files, and nothing is reported twice.

const SCHEMA_KEYS = ["items", "additionalProperties", "additionalItems", "unevaluatedProperties", "unevaluatedItems", "contains"];
const SCHEMA_MAP_KEYS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SCHEMA_LIST_KEYS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const DROP = new Set([
  "type", "required", "minLength", "maxLength", "pattern", "format", "minimum", "maximum",
  "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems",
  "minProperties", "maxProperties", "minContains", "maxContains", "propertyNames", "dependentRequired",
  "dependencies", "not", "if", "deprecated", "deprecationMessage", "errorMessage",
  "patternErrorMessage", "unevaluatedProperties", "unevaluatedItems", "additionalItems", "contains",
]);

export function stripSchema(schema) {
  if (Array.isArray(schema)) return schema.map(stripSchema);
  if (schema === null || typeof schema !== "object") return schema; // boolean schemas stay
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROP.has(key)) continue;
    if (key === "enum" || key === "const") {
      // keep the values as completion proposals without validating them
      const values = key === "enum" ? (Array.isArray(value) ? value : []) : [value];
      out.examples = [...(Array.isArray(schema.examples) ? schema.examples : []), ...(out.examples ?? []), ...values]
        .filter((v, i, a) => a.findIndex((w) => JSON.stringify(w) === JSON.stringify(v)) === i);
      continue;
    }
    if (key === "examples") {
      out.examples = [...(out.examples ?? []), ...(Array.isArray(value) ? value : [])]
        .filter((v, i, a) => a.findIndex((w) => JSON.stringify(w) === JSON.stringify(v)) === i);
      continue;
    }
    if (key === "additionalProperties" && value === false) continue;
    if (key === "then" || key === "else") {
      // a discriminator's outcomes (promptfoo's assertion items): both stay, as alternatives
      out.anyOf = [...(out.anyOf ?? []), stripSchema(value)];
      continue;
    }
    if (SCHEMA_KEYS.includes(key)) {
      out[key] = stripSchema(value);
    } else if (SCHEMA_MAP_KEYS.includes(key) && value && typeof value === "object") {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stripSchema(v)]));
    } else if (SCHEMA_LIST_KEYS.includes(key) && Array.isArray(value)) {
      // oneOf fails when several branches match, which stripped branches always do
      const name = key === "oneOf" ? "anyOf" : key;
      out[name] = [...(out[name] ?? []), ...value.map(stripSchema)];
    } else {
      out[key] = value;
    }
  }
  return out;
}
