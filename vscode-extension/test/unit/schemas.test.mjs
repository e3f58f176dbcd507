import { test } from "node:test";
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { stripSchema } from "../../scripts/schema-strip.mjs";

test("completion-only schema keeps names, docs and values but cannot fail validation", () => {
  const src = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    required: ["criteria"],
    additionalProperties: false,
    properties: {
      required: { type: "boolean", description: "a property literally named required" },
      criteria: {
        type: "array",
        minItems: 1,
        items: { $ref: "#/$defs/Criterion" },
      },
      scale: { enum: ["binary", "ordinal"], description: "scale" },
      kind: { const: "rubric" },
    },
    $defs: {
      Criterion: {
        type: "object",
        properties: { weight: { type: "number", minimum: 0, default: 1 } },
        oneOf: [{ required: ["requirement"] }, { required: ["options"] }],
        additionalProperties: { type: "string" },
      },
    },
  };
  const out = stripSchema(src);
  assert.deepEqual(Object.keys(out).sort(), ["$defs", "$schema", "properties"]);
  assert.deepEqual(out.properties.required, { description: "a property literally named required" });
  assert.deepEqual(out.properties.criteria, { items: { $ref: "#/$defs/Criterion" } });
  assert.deepEqual(out.properties.scale, { examples: ["binary", "ordinal"], description: "scale" });
  assert.deepEqual(out.properties.kind, { examples: ["rubric"] });
  const crit = out.$defs.Criterion;
  assert.deepEqual(crit.properties.weight, { default: 1 });
  assert.deepEqual(crit.anyOf, [{}, {}]);
  assert.equal("oneOf" in crit, false);
  assert.deepEqual(crit.additionalProperties, {});
  assert.equal(JSON.stringify(out).includes('"type"'), false);
});

test("a discriminator's then/else stay as alternatives; its condition goes", () => {
  const item = { if: { required: ["$ref"] }, then: { $ref: "#/$defs/Ref" }, else: { if: { required: ["type"] }, then: { $ref: "#/$defs/Set" }, else: { $ref: "#/$defs/Assertion" } } };
  assert.deepEqual(stripSchema(item), { anyOf: [{ $ref: "#/$defs/Ref" }, { anyOf: [{ $ref: "#/$defs/Set" }, { $ref: "#/$defs/Assertion" }] }] });
  assert.deepEqual(stripSchema({ anyOf: [{ const: "a" }], else: { const: "b" } }), { anyOf: [{ examples: ["a"] }, { examples: ["b"] }] });
});

test("package.json contributes only unambiguous file patterns, with existing schema names", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  const names = new Set([
    "autorubric-rubric.schema.json", "autorubric-dataset.schema.json", "promptfoo-config.schema.json",
    "northstar-eval-run-request.schema.json", "northstar-eval-cases.schema.json", "rubrics-task.schema.json",
  ]);
  for (const c of [...pkg.contributes.yamlValidation, ...pkg.contributes.jsonValidation]) {
    assert.ok(names.has(c.url.replace("./schemas/", "")), c.url);
    for (const m of c.fileMatch) assert.ok(!/^\*\.(ya?ml|json)$/.test(m), `too broad: ${m}`);
  }
  assert.equal(pkg.extensionDependencies, undefined);
  const restricted = pkg.capabilities.untrustedWorkspaces.restrictedConfigurations;
  for (const key of ["rubric.server.path", "rubric.server.interpreter", "rubric.judge.apiBase", "rubric.gradeOnSave"]) assert.ok(restricted.includes(key), key);
  for (const lang of ["yaml", "json", "jsonc", "jsonl"]) assert.ok(pkg.activationEvents.includes(`onLanguage:${lang}`), lang);
  assert.ok(pkg.activationEvents.some((e) => e.startsWith("workspaceContains:**/promptfooconfig*")));
  for (const id of ["rubric.gradeSelection", "rubric.gradeExamples", "rubric.clearVerdicts", "rubric.setApiKey", "rubric.restartServer", "rubric.showOutput"]) {
    assert.ok(pkg.contributes.commands.some((c) => c.command === id), id);
  }
  for (const key of ["judge.model", "judge.apiBase", "judge.concurrency", "judge.timeoutSeconds", "gradeOnSave", "cache.enabled", "lint.select", "lint.ignore", "server.path", "server.interpreter"]) {
    const p = pkg.contributes.configuration.properties[`rubric.${key}`];
    assert.ok(p, key);
    assert.ok((p.description ?? p.markdownDescription).length > 20, `${key} is described`);
  }
});
