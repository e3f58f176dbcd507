"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// test/unit/rubrics.test.ts
var import_node_test = require("node:test");
var assert = __toESM(require("node:assert/strict"));

// src/rubrics.ts
var NAME_RE = /(\.rubric\.(ya?ml|json)$)|(^rubric[^/\\]*\.(ya?ml|json)$)/i;
var SCHEMA_RE = /autorubric-rubric\.schema\.json/;
function baseName(p) {
  const i = Math.max(p.lastIndexOf("/"), p.lastIndexOf("\\"));
  return i >= 0 ? p.slice(i + 1) : p;
}
function looksLikeRubric(fileName, languageId, text) {
  if (!["yaml", "json", "jsonc"].includes(languageId)) return false;
  if (NAME_RE.test(baseName(fileName))) return true;
  const head = text.slice(0, 4e3);
  if (SCHEMA_RE.test(head)) return true;
  if (/autorubric-dataset\.schema\.json|promptfoo|"graders"\s*:/.test(head)) return false;
  return /"requirement"\s*:|(^|\n)\s*(-\s*)?requirement\s*:/.test(text.slice(0, 2e4));
}
function chooseRubric(opts) {
  if (opts.activeIsRubric && !opts.forcePick) return { kind: "active", uri: opts.activeUri };
  if (opts.remembered && opts.rememberedExists && !opts.forcePick) return { kind: "remembered", uri: opts.remembered };
  return { kind: "pick" };
}
function gradeTextArgs(rubricUri, text, query) {
  const args = { uri: rubricUri, text };
  if (query !== void 0 && query.trim() !== "") args.query = query;
  return args;
}

// test/unit/rubrics.test.ts
(0, import_node_test.test)("rubric recognition by name, schema and content", () => {
  assert.equal(looksLikeRubric("/w/essay.rubric.yaml", "yaml", ""), true);
  assert.equal(looksLikeRubric("/w/rubric_v2.yml", "yaml", ""), true);
  assert.equal(looksLikeRubric("C:\\w\\x.rubric.json", "json", ""), true);
  assert.equal(looksLikeRubric("/w/a.yaml", "yaml", "# yaml-language-server: $schema=../schemas/autorubric-rubric.schema.json\n"), true);
  assert.equal(looksLikeRubric("/w/a.yaml", "yaml", "- name: x\n  weight: 1\n  requirement: Is it clear?\n"), true);
  assert.equal(looksLikeRubric("/w/a.json", "json", '[{"name":"x","requirement":"y"}]'), true);
  assert.equal(looksLikeRubric("/w/promptfooconfig.yaml", "yaml", "prompts: []\n"), false);
  assert.equal(looksLikeRubric("/w/a.json", "json", '{"graders": [{"requirement": "x"}]}'), false);
  assert.equal(looksLikeRubric("/w/notes.md", "markdown", "requirement: x"), false);
  assert.equal(looksLikeRubric("/w/a.yaml", "yaml", "key: value\n"), false);
});
(0, import_node_test.test)("choosing the rubric: active, then remembered, else pick", () => {
  assert.deepEqual(chooseRubric({ activeUri: "file:///a.rubric.yaml", activeIsRubric: true, remembered: "file:///r", rememberedExists: true }), {
    kind: "active",
    uri: "file:///a.rubric.yaml"
  });
  assert.deepEqual(chooseRubric({ activeUri: "file:///resp.md", activeIsRubric: false, remembered: "file:///r", rememberedExists: true }), {
    kind: "remembered",
    uri: "file:///r"
  });
  assert.deepEqual(chooseRubric({ activeUri: "file:///resp.md", activeIsRubric: false, remembered: "file:///r", rememberedExists: false }), { kind: "pick" });
  assert.deepEqual(chooseRubric({ activeUri: "file:///resp.md", activeIsRubric: false, rememberedExists: false }), { kind: "pick" });
  assert.deepEqual(
    chooseRubric({ activeUri: "file:///a.rubric.yaml", activeIsRubric: true, remembered: "file:///r", rememberedExists: true, forcePick: true }),
    { kind: "pick" }
  );
});
(0, import_node_test.test)("gradeText arguments: one object, query only when given", () => {
  assert.deepEqual(gradeTextArgs("file:///r.rubric.yaml", "hello"), { uri: "file:///r.rubric.yaml", text: "hello" });
  assert.deepEqual(gradeTextArgs("u", "t", "q"), { uri: "u", text: "t", query: "q" });
  assert.deepEqual(gradeTextArgs("u", "t", "  "), { uri: "u", text: "t" });
});
//# sourceMappingURL=data:application/json;base64,ewogICJ2ZXJzaW9uIjogMywKICAic291cmNlcyI6IFsiLi4vdGVzdC91bml0L3J1YnJpY3MudGVzdC50cyIsICIuLi9zcmMvcnVicmljcy50cyJdLAogICJzb3VyY2VzQ29udGVudCI6IFsiaW1wb3J0IHsgdGVzdCB9IGZyb20gXCJub2RlOnRlc3RcIjtcbmltcG9ydCAqIGFzIGFzc2VydCBmcm9tIFwibm9kZTphc3NlcnQvc3RyaWN0XCI7XG5pbXBvcnQgeyBjaG9vc2VSdWJyaWMsIGdyYWRlVGV4dEFyZ3MsIGxvb2tzTGlrZVJ1YnJpYyB9IGZyb20gXCIuLi8uLi9zcmMvcnVicmljc1wiO1xuXG50ZXN0KFwicnVicmljIHJlY29nbml0aW9uIGJ5IG5hbWUsIHNjaGVtYSBhbmQgY29udGVudFwiLCAoKSA9PiB7XG4gIGFzc2VydC5lcXVhbChsb29rc0xpa2VSdWJyaWMoXCIvdy9lc3NheS5ydWJyaWMueWFtbFwiLCBcInlhbWxcIiwgXCJcIiksIHRydWUpO1xuICBhc3NlcnQuZXF1YWwobG9va3NMaWtlUnVicmljKFwiL3cvcnVicmljX3YyLnltbFwiLCBcInlhbWxcIiwgXCJcIiksIHRydWUpO1xuICBhc3NlcnQuZXF1YWwobG9va3NMaWtlUnVicmljKFwiQzpcXFxcd1xcXFx4LnJ1YnJpYy5qc29uXCIsIFwianNvblwiLCBcIlwiKSwgdHJ1ZSk7XG4gIGFzc2VydC5lcXVhbChsb29rc0xpa2VSdWJyaWMoXCIvdy9hLnlhbWxcIiwgXCJ5YW1sXCIsIFwiIyB5YW1sLWxhbmd1YWdlLXNlcnZlcjogJHNjaGVtYT0uLi9zY2hlbWFzL2F1dG9ydWJyaWMtcnVicmljLnNjaGVtYS5qc29uXFxuXCIpLCB0cnVlKTtcbiAgYXNzZXJ0LmVxdWFsKGxvb2tzTGlrZVJ1YnJpYyhcIi93L2EueWFtbFwiLCBcInlhbWxcIiwgXCItIG5hbWU6IHhcXG4gIHdlaWdodDogMVxcbiAgcmVxdWlyZW1lbnQ6IElzIGl0IGNsZWFyP1xcblwiKSwgdHJ1ZSk7XG4gIGFzc2VydC5lcXVhbChsb29rc0xpa2VSdWJyaWMoXCIvdy9hLmpzb25cIiwgXCJqc29uXCIsICdbe1wibmFtZVwiOlwieFwiLFwicmVxdWlyZW1lbnRcIjpcInlcIn1dJyksIHRydWUpO1xuICBhc3NlcnQuZXF1YWwobG9va3NMaWtlUnVicmljKFwiL3cvcHJvbXB0Zm9vY29uZmlnLnlhbWxcIiwgXCJ5YW1sXCIsIFwicHJvbXB0czogW11cXG5cIiksIGZhbHNlKTtcbiAgYXNzZXJ0LmVxdWFsKGxvb2tzTGlrZVJ1YnJpYyhcIi93L2EuanNvblwiLCBcImpzb25cIiwgJ3tcImdyYWRlcnNcIjogW3tcInJlcXVpcmVtZW50XCI6IFwieFwifV19JyksIGZhbHNlKTtcbiAgYXNzZXJ0LmVxdWFsKGxvb2tzTGlrZVJ1YnJpYyhcIi93L25vdGVzLm1kXCIsIFwibWFya2Rvd25cIiwgXCJyZXF1aXJlbWVudDogeFwiKSwgZmFsc2UpO1xuICBhc3NlcnQuZXF1YWwobG9va3NMaWtlUnVicmljKFwiL3cvYS55YW1sXCIsIFwieWFtbFwiLCBcImtleTogdmFsdWVcXG5cIiksIGZhbHNlKTtcbn0pO1xuXG50ZXN0KFwiY2hvb3NpbmcgdGhlIHJ1YnJpYzogYWN0aXZlLCB0aGVuIHJlbWVtYmVyZWQsIGVsc2UgcGlja1wiLCAoKSA9PiB7XG4gIGFzc2VydC5kZWVwRXF1YWwoY2hvb3NlUnVicmljKHsgYWN0aXZlVXJpOiBcImZpbGU6Ly8vYS5ydWJyaWMueWFtbFwiLCBhY3RpdmVJc1J1YnJpYzogdHJ1ZSwgcmVtZW1iZXJlZDogXCJmaWxlOi8vL3JcIiwgcmVtZW1iZXJlZEV4aXN0czogdHJ1ZSB9KSwge1xuICAgIGtpbmQ6IFwiYWN0aXZlXCIsXG4gICAgdXJpOiBcImZpbGU6Ly8vYS5ydWJyaWMueWFtbFwiLFxuICB9KTtcbiAgYXNzZXJ0LmRlZXBFcXVhbChjaG9vc2VSdWJyaWMoeyBhY3RpdmVVcmk6IFwiZmlsZTovLy9yZXNwLm1kXCIsIGFjdGl2ZUlzUnVicmljOiBmYWxzZSwgcmVtZW1iZXJlZDogXCJmaWxlOi8vL3JcIiwgcmVtZW1iZXJlZEV4aXN0czogdHJ1ZSB9KSwge1xuICAgIGtpbmQ6IFwicmVtZW1iZXJlZFwiLFxuICAgIHVyaTogXCJmaWxlOi8vL3JcIixcbiAgfSk7XG4gIGFzc2VydC5kZWVwRXF1YWwoY2hvb3NlUnVicmljKHsgYWN0aXZlVXJpOiBcImZpbGU6Ly8vcmVzcC5tZFwiLCBhY3RpdmVJc1J1YnJpYzogZmFsc2UsIHJlbWVtYmVyZWQ6IFwiZmlsZTovLy9yXCIsIHJlbWVtYmVyZWRFeGlzdHM6IGZhbHNlIH0pLCB7IGtpbmQ6IFwicGlja1wiIH0pO1xuICBhc3NlcnQuZGVlcEVxdWFsKGNob29zZVJ1YnJpYyh7IGFjdGl2ZVVyaTogXCJmaWxlOi8vL3Jlc3AubWRcIiwgYWN0aXZlSXNSdWJyaWM6IGZhbHNlLCByZW1lbWJlcmVkRXhpc3RzOiBmYWxzZSB9KSwgeyBraW5kOiBcInBpY2tcIiB9KTtcbiAgYXNzZXJ0LmRlZXBFcXVhbChcbiAgICBjaG9vc2VSdWJyaWMoeyBhY3RpdmVVcmk6IFwiZmlsZTovLy9hLnJ1YnJpYy55YW1sXCIsIGFjdGl2ZUlzUnVicmljOiB0cnVlLCByZW1lbWJlcmVkOiBcImZpbGU6Ly8vclwiLCByZW1lbWJlcmVkRXhpc3RzOiB0cnVlLCBmb3JjZVBpY2s6IHRydWUgfSksXG4gICAgeyBraW5kOiBcInBpY2tcIiB9LFxuICApO1xufSk7XG5cbnRlc3QoXCJncmFkZVRleHQgYXJndW1lbnRzOiBvbmUgb2JqZWN0LCBxdWVyeSBvbmx5IHdoZW4gZ2l2ZW5cIiwgKCkgPT4ge1xuICBhc3NlcnQuZGVlcEVxdWFsKGdyYWRlVGV4dEFyZ3MoXCJmaWxlOi8vL3IucnVicmljLnlhbWxcIiwgXCJoZWxsb1wiKSwgeyB1cmk6IFwiZmlsZTovLy9yLnJ1YnJpYy55YW1sXCIsIHRleHQ6IFwiaGVsbG9cIiB9KTtcbiAgYXNzZXJ0LmRlZXBFcXVhbChncmFkZVRleHRBcmdzKFwidVwiLCBcInRcIiwgXCJxXCIpLCB7IHVyaTogXCJ1XCIsIHRleHQ6IFwidFwiLCBxdWVyeTogXCJxXCIgfSk7XG4gIGFzc2VydC5kZWVwRXF1YWwoZ3JhZGVUZXh0QXJncyhcInVcIiwgXCJ0XCIsIFwiICBcIiksIHsgdXJpOiBcInVcIiwgdGV4dDogXCJ0XCIgfSk7XG59KTtcbiIsICIvKiogUHVyZSBoZWxwZXJzIHRvIHJlY29nbmlzZSBydWJyaWMgZmlsZXMgYW5kIHBpY2sgdGhlIHJ1YnJpYyB0byBncmFkZSBhZ2FpbnN0LiAqL1xuXG4vKiogR2xvYiB1c2VkIHRvIGxpc3QgdGhlIHdvcmtzcGFjZSdzIHJ1YnJpYyBmaWxlcyBmb3IgdGhlIHBpY2tlci4gKi9cbmV4cG9ydCBjb25zdCBSVUJSSUNfR0xPQiA9IFwiKioveyoucnVicmljLnlhbWwsKi5ydWJyaWMueW1sLCoucnVicmljLmpzb24scnVicmljKi55YW1sLHJ1YnJpYyoueW1sLHJ1YnJpYyouanNvbn1cIjtcbmV4cG9ydCBjb25zdCBFWENMVURFX0dMT0IgPSBcIioqL3tub2RlX21vZHVsZXMsLmdpdCwudmVudix2ZW52LF9fcHljYWNoZV9ffS8qKlwiO1xuXG5jb25zdCBOQU1FX1JFID0gLyhcXC5ydWJyaWNcXC4oeWE/bWx8anNvbikkKXwoXnJ1YnJpY1teL1xcXFxdKlxcLih5YT9tbHxqc29uKSQpL2k7XG5jb25zdCBTQ0hFTUFfUkUgPSAvYXV0b3J1YnJpYy1ydWJyaWNcXC5zY2hlbWFcXC5qc29uLztcblxuZXhwb3J0IGZ1bmN0aW9uIGJhc2VOYW1lKHA6IHN0cmluZyk6IHN0cmluZyB7XG4gIGNvbnN0IGkgPSBNYXRoLm1heChwLmxhc3RJbmRleE9mKFwiL1wiKSwgcC5sYXN0SW5kZXhPZihcIlxcXFxcIikpO1xuICByZXR1cm4gaSA+PSAwID8gcC5zbGljZShpICsgMSkgOiBwO1xufVxuXG4vKipcbiAqIERvZXMgdGhpcyBkb2N1bWVudCBsb29rIGxpa2UgYW4gYXV0b3J1YnJpYyBydWJyaWM/IEJ5IGZpbGUgbmFtZSwgYnkgYSBgJHNjaGVtYWAgL1xuICogeWFtbC1sYW5ndWFnZS1zZXJ2ZXIgbW9kZWxpbmUgcG9pbnRpbmcgdG8gb3VyIHJ1YnJpYyBzY2hlbWEsIG9yIGJ5IGNvbnRlbnQ6IGNyaXRlcmlhXG4gKiB3aXRoIGEgYHJlcXVpcmVtZW50YCAodGhlIHNlcnZlciBoYXMgdGhlIGZpbmFsIHdvcmQ7IHRoaXMgb25seSBkcml2ZXMgdGhlIHBpY2tlcikuXG4gKi9cbmV4cG9ydCBmdW5jdGlvbiBsb29rc0xpa2VSdWJyaWMoZmlsZU5hbWU6IHN0cmluZywgbGFuZ3VhZ2VJZDogc3RyaW5nLCB0ZXh0OiBzdHJpbmcpOiBib29sZWFuIHtcbiAgaWYgKCFbXCJ5YW1sXCIsIFwianNvblwiLCBcImpzb25jXCJdLmluY2x1ZGVzKGxhbmd1YWdlSWQpKSByZXR1cm4gZmFsc2U7XG4gIGlmIChOQU1FX1JFLnRlc3QoYmFzZU5hbWUoZmlsZU5hbWUpKSkgcmV0dXJuIHRydWU7XG4gIGNvbnN0IGhlYWQgPSB0ZXh0LnNsaWNlKDAsIDQwMDApO1xuICBpZiAoU0NIRU1BX1JFLnRlc3QoaGVhZCkpIHJldHVybiB0cnVlO1xuICBpZiAoL2F1dG9ydWJyaWMtZGF0YXNldFxcLnNjaGVtYVxcLmpzb258cHJvbXB0Zm9vfFwiZ3JhZGVyc1wiXFxzKjovLnRlc3QoaGVhZCkpIHJldHVybiBmYWxzZTtcbiAgcmV0dXJuIC9cInJlcXVpcmVtZW50XCJcXHMqOnwoXnxcXG4pXFxzKigtXFxzKik/cmVxdWlyZW1lbnRcXHMqOi8udGVzdCh0ZXh0LnNsaWNlKDAsIDIwMDAwKSk7XG59XG5cbmV4cG9ydCBpbnRlcmZhY2UgUnVicmljQ2hvaWNlIHtcbiAga2luZDogXCJhY3RpdmVcIiB8IFwicmVtZW1iZXJlZFwiIHwgXCJwaWNrXCI7XG4gIHVyaT86IHN0cmluZztcbn1cblxuLyoqXG4gKiBXaGljaCBydWJyaWMgdG8gZ3JhZGUgYWdhaW5zdDogdGhlIGFjdGl2ZSBkb2N1bWVudCB3aGVuIGl0IGlzIGEgcnVicmljOyBvdGhlcndpc2UgdGhlXG4gKiByZW1lbWJlcmVkIGNob2ljZSB3aGVuIGl0IHN0aWxsIGV4aXN0czsgb3RoZXJ3aXNlIGFzayB0aGUgdXNlciAoYHBpY2tgKS5cbiAqL1xuZXhwb3J0IGZ1bmN0aW9uIGNob29zZVJ1YnJpYyhvcHRzOiB7XG4gIGFjdGl2ZVVyaTogc3RyaW5nO1xuICBhY3RpdmVJc1J1YnJpYzogYm9vbGVhbjtcbiAgcmVtZW1iZXJlZD86IHN0cmluZztcbiAgcmVtZW1iZXJlZEV4aXN0czogYm9vbGVhbjtcbiAgZm9yY2VQaWNrPzogYm9vbGVhbjtcbn0pOiBSdWJyaWNDaG9pY2Uge1xuICBpZiAob3B0cy5hY3RpdmVJc1J1YnJpYyAmJiAhb3B0cy5mb3JjZVBpY2spIHJldHVybiB7IGtpbmQ6IFwiYWN0aXZlXCIsIHVyaTogb3B0cy5hY3RpdmVVcmkgfTtcbiAgaWYgKG9wdHMucmVtZW1iZXJlZCAmJiBvcHRzLnJlbWVtYmVyZWRFeGlzdHMgJiYgIW9wdHMuZm9yY2VQaWNrKSByZXR1cm4geyBraW5kOiBcInJlbWVtYmVyZWRcIiwgdXJpOiBvcHRzLnJlbWVtYmVyZWQgfTtcbiAgcmV0dXJuIHsga2luZDogXCJwaWNrXCIgfTtcbn1cblxuLyoqIEFyZ3VtZW50cyBmb3IgdGhlIHNlcnZlcidzIGBydWJyaWMtbHNwLmdyYWRlVGV4dGAgY29tbWFuZC4gKi9cbmV4cG9ydCBmdW5jdGlvbiBncmFkZVRleHRBcmdzKHJ1YnJpY1VyaTogc3RyaW5nLCB0ZXh0OiBzdHJpbmcsIHF1ZXJ5Pzogc3RyaW5nKTogeyB1cmk6IHN0cmluZzsgdGV4dDogc3RyaW5nOyBxdWVyeT86IHN0cmluZyB9IHtcbiAgY29uc3QgYXJnczogeyB1cmk6IHN0cmluZzsgdGV4dDogc3RyaW5nOyBxdWVyeT86IHN0cmluZyB9ID0geyB1cmk6IHJ1YnJpY1VyaSwgdGV4dCB9O1xuICBpZiAocXVlcnkgIT09IHVuZGVmaW5lZCAmJiBxdWVyeS50cmltKCkgIT09IFwiXCIpIGFyZ3MucXVlcnkgPSBxdWVyeTtcbiAgcmV0dXJuIGFyZ3M7XG59XG4iXSwKICAibWFwcGluZ3MiOiAiOzs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7O0FBQUEsdUJBQXFCO0FBQ3JCLGFBQXdCOzs7QUNLeEIsSUFBTSxVQUFVO0FBQ2hCLElBQU0sWUFBWTtBQUVYLFNBQVMsU0FBUyxHQUFtQjtBQUMxQyxRQUFNLElBQUksS0FBSyxJQUFJLEVBQUUsWUFBWSxHQUFHLEdBQUcsRUFBRSxZQUFZLElBQUksQ0FBQztBQUMxRCxTQUFPLEtBQUssSUFBSSxFQUFFLE1BQU0sSUFBSSxDQUFDLElBQUk7QUFDbkM7QUFPTyxTQUFTLGdCQUFnQixVQUFrQixZQUFvQixNQUF1QjtBQUMzRixNQUFJLENBQUMsQ0FBQyxRQUFRLFFBQVEsT0FBTyxFQUFFLFNBQVMsVUFBVSxFQUFHLFFBQU87QUFDNUQsTUFBSSxRQUFRLEtBQUssU0FBUyxRQUFRLENBQUMsRUFBRyxRQUFPO0FBQzdDLFFBQU0sT0FBTyxLQUFLLE1BQU0sR0FBRyxHQUFJO0FBQy9CLE1BQUksVUFBVSxLQUFLLElBQUksRUFBRyxRQUFPO0FBQ2pDLE1BQUksMkRBQTJELEtBQUssSUFBSSxFQUFHLFFBQU87QUFDbEYsU0FBTyxvREFBb0QsS0FBSyxLQUFLLE1BQU0sR0FBRyxHQUFLLENBQUM7QUFDdEY7QUFXTyxTQUFTLGFBQWEsTUFNWjtBQUNmLE1BQUksS0FBSyxrQkFBa0IsQ0FBQyxLQUFLLFVBQVcsUUFBTyxFQUFFLE1BQU0sVUFBVSxLQUFLLEtBQUssVUFBVTtBQUN6RixNQUFJLEtBQUssY0FBYyxLQUFLLG9CQUFvQixDQUFDLEtBQUssVUFBVyxRQUFPLEVBQUUsTUFBTSxjQUFjLEtBQUssS0FBSyxXQUFXO0FBQ25ILFNBQU8sRUFBRSxNQUFNLE9BQU87QUFDeEI7QUFHTyxTQUFTLGNBQWMsV0FBbUIsTUFBYyxPQUErRDtBQUM1SCxRQUFNLE9BQXNELEVBQUUsS0FBSyxXQUFXLEtBQUs7QUFDbkYsTUFBSSxVQUFVLFVBQWEsTUFBTSxLQUFLLE1BQU0sR0FBSSxNQUFLLFFBQVE7QUFDN0QsU0FBTztBQUNUOzs7SURsREEsdUJBQUssa0RBQWtELE1BQU07QUFDM0QsRUFBTyxhQUFNLGdCQUFnQix3QkFBd0IsUUFBUSxFQUFFLEdBQUcsSUFBSTtBQUN0RSxFQUFPLGFBQU0sZ0JBQWdCLG9CQUFvQixRQUFRLEVBQUUsR0FBRyxJQUFJO0FBQ2xFLEVBQU8sYUFBTSxnQkFBZ0Isd0JBQXdCLFFBQVEsRUFBRSxHQUFHLElBQUk7QUFDdEUsRUFBTyxhQUFNLGdCQUFnQixhQUFhLFFBQVEsNEVBQTRFLEdBQUcsSUFBSTtBQUNySSxFQUFPLGFBQU0sZ0JBQWdCLGFBQWEsUUFBUSx1REFBdUQsR0FBRyxJQUFJO0FBQ2hILEVBQU8sYUFBTSxnQkFBZ0IsYUFBYSxRQUFRLGtDQUFrQyxHQUFHLElBQUk7QUFDM0YsRUFBTyxhQUFNLGdCQUFnQiwyQkFBMkIsUUFBUSxlQUFlLEdBQUcsS0FBSztBQUN2RixFQUFPLGFBQU0sZ0JBQWdCLGFBQWEsUUFBUSxxQ0FBcUMsR0FBRyxLQUFLO0FBQy9GLEVBQU8sYUFBTSxnQkFBZ0IsZUFBZSxZQUFZLGdCQUFnQixHQUFHLEtBQUs7QUFDaEYsRUFBTyxhQUFNLGdCQUFnQixhQUFhLFFBQVEsY0FBYyxHQUFHLEtBQUs7QUFDMUUsQ0FBQztBQUFBLElBRUQsdUJBQUssMkRBQTJELE1BQU07QUFDcEUsRUFBTyxpQkFBVSxhQUFhLEVBQUUsV0FBVyx5QkFBeUIsZ0JBQWdCLE1BQU0sWUFBWSxhQUFhLGtCQUFrQixLQUFLLENBQUMsR0FBRztBQUFBLElBQzVJLE1BQU07QUFBQSxJQUNOLEtBQUs7QUFBQSxFQUNQLENBQUM7QUFDRCxFQUFPLGlCQUFVLGFBQWEsRUFBRSxXQUFXLG1CQUFtQixnQkFBZ0IsT0FBTyxZQUFZLGFBQWEsa0JBQWtCLEtBQUssQ0FBQyxHQUFHO0FBQUEsSUFDdkksTUFBTTtBQUFBLElBQ04sS0FBSztBQUFBLEVBQ1AsQ0FBQztBQUNELEVBQU8saUJBQVUsYUFBYSxFQUFFLFdBQVcsbUJBQW1CLGdCQUFnQixPQUFPLFlBQVksYUFBYSxrQkFBa0IsTUFBTSxDQUFDLEdBQUcsRUFBRSxNQUFNLE9BQU8sQ0FBQztBQUMxSixFQUFPLGlCQUFVLGFBQWEsRUFBRSxXQUFXLG1CQUFtQixnQkFBZ0IsT0FBTyxrQkFBa0IsTUFBTSxDQUFDLEdBQUcsRUFBRSxNQUFNLE9BQU8sQ0FBQztBQUNqSSxFQUFPO0FBQUEsSUFDTCxhQUFhLEVBQUUsV0FBVyx5QkFBeUIsZ0JBQWdCLE1BQU0sWUFBWSxhQUFhLGtCQUFrQixNQUFNLFdBQVcsS0FBSyxDQUFDO0FBQUEsSUFDM0ksRUFBRSxNQUFNLE9BQU87QUFBQSxFQUNqQjtBQUNGLENBQUM7QUFBQSxJQUVELHVCQUFLLDBEQUEwRCxNQUFNO0FBQ25FLEVBQU8saUJBQVUsY0FBYyx5QkFBeUIsT0FBTyxHQUFHLEVBQUUsS0FBSyx5QkFBeUIsTUFBTSxRQUFRLENBQUM7QUFDakgsRUFBTyxpQkFBVSxjQUFjLEtBQUssS0FBSyxHQUFHLEdBQUcsRUFBRSxLQUFLLEtBQUssTUFBTSxLQUFLLE9BQU8sSUFBSSxDQUFDO0FBQ2xGLEVBQU8saUJBQVUsY0FBYyxLQUFLLEtBQUssSUFBSSxHQUFHLEVBQUUsS0FBSyxLQUFLLE1BQU0sSUFBSSxDQUFDO0FBQ3pFLENBQUM7IiwKICAibmFtZXMiOiBbXQp9Cg==
