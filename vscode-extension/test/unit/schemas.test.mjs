import { test } from "node:test";
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";

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
