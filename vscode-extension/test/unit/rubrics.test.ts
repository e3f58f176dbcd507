import { test } from "node:test";
import * as assert from "node:assert/strict";
import { RUBRIC_GLOB, chooseRubric, globToRegExp, gradeTextArgs, looksLikeRubric } from "../../src/rubrics";

test("rubric recognition by name, schema and content", () => {
  assert.equal(looksLikeRubric("/w/essay.rubric.yaml", "yaml", ""), true);
  // The server's patterns only (src/patterns.generated.ts): a "rubric*" name alone is no rubric to the linter.
  assert.equal(looksLikeRubric("/w/rubric_v2.yml", "yaml", ""), false);
  assert.equal(looksLikeRubric("/w/rubric_v2.yml", "yaml", "- name: x\n  requirement: Is it clear?\n"), true);
  assert.equal(looksLikeRubric("C:\\w\\x.rubric.json", "json", ""), true);
  assert.equal(looksLikeRubric("/w/a.yaml", "yaml", "# yaml-language-server: $schema=../schemas/autorubric-rubric.schema.json\n"), true);
  assert.equal(looksLikeRubric("/w/a.yaml", "yaml", "- name: x\n  weight: 1\n  requirement: Is it clear?\n"), true);
  assert.equal(looksLikeRubric("/w/a.json", "json", '[{"name":"x","requirement":"y"}]'), true);
  assert.equal(looksLikeRubric("/w/promptfooconfig.yaml", "yaml", "prompts: []\n"), false);
  assert.equal(looksLikeRubric("/w/a.json", "json", '{"graders": [{"requirement": "x"}]}'), false);
  assert.equal(looksLikeRubric("/w/notes.md", "markdown", "requirement: x"), false);
  assert.equal(looksLikeRubric("/w/a.yaml", "yaml", "key: value\n"), false);
});

test("choosing the rubric: active, then remembered, else pick", () => {
  assert.deepEqual(chooseRubric({ activeUri: "file:///a.rubric.yaml", activeIsRubric: true, remembered: "file:///r", rememberedExists: true }), {
    kind: "active",
    uri: "file:///a.rubric.yaml",
  });
  assert.deepEqual(chooseRubric({ activeUri: "file:///resp.md", activeIsRubric: false, remembered: "file:///r", rememberedExists: true }), {
    kind: "remembered",
    uri: "file:///r",
  });
  assert.deepEqual(chooseRubric({ activeUri: "file:///resp.md", activeIsRubric: false, remembered: "file:///r", rememberedExists: false }), { kind: "pick" });
  assert.deepEqual(chooseRubric({ activeUri: "file:///resp.md", activeIsRubric: false, rememberedExists: false }), { kind: "pick" });
  assert.deepEqual(
    chooseRubric({ activeUri: "file:///a.rubric.yaml", activeIsRubric: true, remembered: "file:///r", rememberedExists: true, forcePick: true }),
    { kind: "pick" },
  );
});

test("gradeText arguments: one object, query only when given", () => {
  assert.deepEqual(gradeTextArgs("file:///r.rubric.yaml", "hello"), { uri: "file:///r.rubric.yaml", text: "hello" });
  assert.deepEqual(gradeTextArgs("u", "t", "q"), { uri: "u", text: "t", query: "q" });
  assert.deepEqual(gradeTextArgs("u", "t", "  "), { uri: "u", text: "t" });
});

test("the picker's glob and name patterns come from the generated file patterns", () => {
  assert.equal(RUBRIC_GLOB, "**/{*.rubric.yaml,*.rubric.yml,*.rubric.json}");
  assert.equal(globToRegExp("*.rubric.yaml").test("Essay.RUBRIC.yaml"), true);
  assert.equal(globToRegExp("*.rubric.yaml").test("essay.rubricXyaml"), false);
  assert.equal(globToRegExp("promptfooconfig*.json").test("promptfooconfig.prod.json"), true);
  assert.equal(globToRegExp("*.rubric.yaml").test("dir/essay.rubric.yaml"), false);
});
