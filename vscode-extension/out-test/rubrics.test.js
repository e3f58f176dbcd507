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
  assert.deepEqual(chooseRubric({ activeUri: "file:///resp.md", activeIsRubric: false }), { kind: "pick" });
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
//# sourceMappingURL=data:application/json;base64,ewogICJ2ZXJzaW9uIjogMywKICAic291cmNlcyI6IFsiLi4vdGVzdC91bml0L3J1YnJpY3MudGVzdC50cyIsICIuLi9zcmMvcnVicmljcy50cyJdLAogICJzb3VyY2VzQ29udGVudCI6IFsiaW1wb3J0IHsgdGVzdCB9IGZyb20gXCJub2RlOnRlc3RcIjtcbmltcG9ydCAqIGFzIGFzc2VydCBmcm9tIFwibm9kZTphc3NlcnQvc3RyaWN0XCI7XG5pbXBvcnQgeyBjaG9vc2VSdWJyaWMsIGdyYWRlVGV4dEFyZ3MsIGxvb2tzTGlrZVJ1YnJpYyB9IGZyb20gXCIuLi8uLi9zcmMvcnVicmljc1wiO1xuXG50ZXN0KFwicnVicmljIHJlY29nbml0aW9uIGJ5IG5hbWUsIHNjaGVtYSBhbmQgY29udGVudFwiLCAoKSA9PiB7XG4gIGFzc2VydC5lcXVhbChsb29rc0xpa2VSdWJyaWMoXCIvdy9lc3NheS5ydWJyaWMueWFtbFwiLCBcInlhbWxcIiwgXCJcIiksIHRydWUpO1xuICBhc3NlcnQuZXF1YWwobG9va3NMaWtlUnVicmljKFwiL3cvcnVicmljX3YyLnltbFwiLCBcInlhbWxcIiwgXCJcIiksIHRydWUpO1xuICBhc3NlcnQuZXF1YWwobG9va3NMaWtlUnVicmljKFwiQzpcXFxcd1xcXFx4LnJ1YnJpYy5qc29uXCIsIFwianNvblwiLCBcIlwiKSwgdHJ1ZSk7XG4gIGFzc2VydC5lcXVhbChsb29rc0xpa2VSdWJyaWMoXCIvdy9hLnlhbWxcIiwgXCJ5YW1sXCIsIFwiIyB5YW1sLWxhbmd1YWdlLXNlcnZlcjogJHNjaGVtYT0uLi9zY2hlbWFzL2F1dG9ydWJyaWMtcnVicmljLnNjaGVtYS5qc29uXFxuXCIpLCB0cnVlKTtcbiAgYXNzZXJ0LmVxdWFsKGxvb2tzTGlrZVJ1YnJpYyhcIi93L2EueWFtbFwiLCBcInlhbWxcIiwgXCItIG5hbWU6IHhcXG4gIHdlaWdodDogMVxcbiAgcmVxdWlyZW1lbnQ6IElzIGl0IGNsZWFyP1xcblwiKSwgdHJ1ZSk7XG4gIGFzc2VydC5lcXVhbChsb29rc0xpa2VSdWJyaWMoXCIvdy9hLmpzb25cIiwgXCJqc29uXCIsICdbe1wibmFtZVwiOlwieFwiLFwicmVxdWlyZW1lbnRcIjpcInlcIn1dJyksIHRydWUpO1xuICBhc3NlcnQuZXF1YWwobG9va3NMaWtlUnVicmljKFwiL3cvcHJvbXB0Zm9vY29uZmlnLnlhbWxcIiwgXCJ5YW1sXCIsIFwicHJvbXB0czogW11cXG5cIiksIGZhbHNlKTtcbiAgYXNzZXJ0LmVxdWFsKGxvb2tzTGlrZVJ1YnJpYyhcIi93L2EuanNvblwiLCBcImpzb25cIiwgJ3tcImdyYWRlcnNcIjogW3tcInJlcXVpcmVtZW50XCI6IFwieFwifV19JyksIGZhbHNlKTtcbiAgYXNzZXJ0LmVxdWFsKGxvb2tzTGlrZVJ1YnJpYyhcIi93L25vdGVzLm1kXCIsIFwibWFya2Rvd25cIiwgXCJyZXF1aXJlbWVudDogeFwiKSwgZmFsc2UpO1xuICBhc3NlcnQuZXF1YWwobG9va3NMaWtlUnVicmljKFwiL3cvYS55YW1sXCIsIFwieWFtbFwiLCBcImtleTogdmFsdWVcXG5cIiksIGZhbHNlKTtcbn0pO1xuXG50ZXN0KFwiY2hvb3NpbmcgdGhlIHJ1YnJpYzogYWN0aXZlLCB0aGVuIHJlbWVtYmVyZWQsIGVsc2UgcGlja1wiLCAoKSA9PiB7XG4gIGFzc2VydC5kZWVwRXF1YWwoY2hvb3NlUnVicmljKHsgYWN0aXZlVXJpOiBcImZpbGU6Ly8vYS5ydWJyaWMueWFtbFwiLCBhY3RpdmVJc1J1YnJpYzogdHJ1ZSwgcmVtZW1iZXJlZDogXCJmaWxlOi8vL3JcIiwgcmVtZW1iZXJlZEV4aXN0czogdHJ1ZSB9KSwge1xuICAgIGtpbmQ6IFwiYWN0aXZlXCIsXG4gICAgdXJpOiBcImZpbGU6Ly8vYS5ydWJyaWMueWFtbFwiLFxuICB9KTtcbiAgYXNzZXJ0LmRlZXBFcXVhbChjaG9vc2VSdWJyaWMoeyBhY3RpdmVVcmk6IFwiZmlsZTovLy9yZXNwLm1kXCIsIGFjdGl2ZUlzUnVicmljOiBmYWxzZSwgcmVtZW1iZXJlZDogXCJmaWxlOi8vL3JcIiwgcmVtZW1iZXJlZEV4aXN0czogdHJ1ZSB9KSwge1xuICAgIGtpbmQ6IFwicmVtZW1iZXJlZFwiLFxuICAgIHVyaTogXCJmaWxlOi8vL3JcIixcbiAgfSk7XG4gIGFzc2VydC5kZWVwRXF1YWwoY2hvb3NlUnVicmljKHsgYWN0aXZlVXJpOiBcImZpbGU6Ly8vcmVzcC5tZFwiLCBhY3RpdmVJc1J1YnJpYzogZmFsc2UsIHJlbWVtYmVyZWQ6IFwiZmlsZTovLy9yXCIsIHJlbWVtYmVyZWRFeGlzdHM6IGZhbHNlIH0pLCB7IGtpbmQ6IFwicGlja1wiIH0pO1xuICBhc3NlcnQuZGVlcEVxdWFsKGNob29zZVJ1YnJpYyh7IGFjdGl2ZVVyaTogXCJmaWxlOi8vL3Jlc3AubWRcIiwgYWN0aXZlSXNSdWJyaWM6IGZhbHNlIH0pLCB7IGtpbmQ6IFwicGlja1wiIH0gYXMgbmV2ZXIpO1xuICBhc3NlcnQuZGVlcEVxdWFsKFxuICAgIGNob29zZVJ1YnJpYyh7IGFjdGl2ZVVyaTogXCJmaWxlOi8vL2EucnVicmljLnlhbWxcIiwgYWN0aXZlSXNSdWJyaWM6IHRydWUsIHJlbWVtYmVyZWQ6IFwiZmlsZTovLy9yXCIsIHJlbWVtYmVyZWRFeGlzdHM6IHRydWUsIGZvcmNlUGljazogdHJ1ZSB9KSxcbiAgICB7IGtpbmQ6IFwicGlja1wiIH0sXG4gICk7XG59KTtcblxudGVzdChcImdyYWRlVGV4dCBhcmd1bWVudHM6IG9uZSBvYmplY3QsIHF1ZXJ5IG9ubHkgd2hlbiBnaXZlblwiLCAoKSA9PiB7XG4gIGFzc2VydC5kZWVwRXF1YWwoZ3JhZGVUZXh0QXJncyhcImZpbGU6Ly8vci5ydWJyaWMueWFtbFwiLCBcImhlbGxvXCIpLCB7IHVyaTogXCJmaWxlOi8vL3IucnVicmljLnlhbWxcIiwgdGV4dDogXCJoZWxsb1wiIH0pO1xuICBhc3NlcnQuZGVlcEVxdWFsKGdyYWRlVGV4dEFyZ3MoXCJ1XCIsIFwidFwiLCBcInFcIiksIHsgdXJpOiBcInVcIiwgdGV4dDogXCJ0XCIsIHF1ZXJ5OiBcInFcIiB9KTtcbiAgYXNzZXJ0LmRlZXBFcXVhbChncmFkZVRleHRBcmdzKFwidVwiLCBcInRcIiwgXCIgIFwiKSwgeyB1cmk6IFwidVwiLCB0ZXh0OiBcInRcIiB9KTtcbn0pO1xuIiwgIi8qKiBQdXJlIGhlbHBlcnMgdG8gcmVjb2duaXNlIHJ1YnJpYyBmaWxlcyBhbmQgcGljayB0aGUgcnVicmljIHRvIGdyYWRlIGFnYWluc3QuICovXG5cbi8qKiBHbG9iIHVzZWQgdG8gbGlzdCB0aGUgd29ya3NwYWNlJ3MgcnVicmljIGZpbGVzIGZvciB0aGUgcGlja2VyLiAqL1xuZXhwb3J0IGNvbnN0IFJVQlJJQ19HTE9CID0gXCIqKi97Ki5ydWJyaWMueWFtbCwqLnJ1YnJpYy55bWwsKi5ydWJyaWMuanNvbixydWJyaWMqLnlhbWwscnVicmljKi55bWwscnVicmljKi5qc29ufVwiO1xuZXhwb3J0IGNvbnN0IEVYQ0xVREVfR0xPQiA9IFwiKiove25vZGVfbW9kdWxlcywuZ2l0LC52ZW52LHZlbnYsX19weWNhY2hlX199LyoqXCI7XG5cbmNvbnN0IE5BTUVfUkUgPSAvKFxcLnJ1YnJpY1xcLih5YT9tbHxqc29uKSQpfChecnVicmljW14vXFxcXF0qXFwuKHlhP21sfGpzb24pJCkvaTtcbmNvbnN0IFNDSEVNQV9SRSA9IC9hdXRvcnVicmljLXJ1YnJpY1xcLnNjaGVtYVxcLmpzb24vO1xuXG5leHBvcnQgZnVuY3Rpb24gYmFzZU5hbWUocDogc3RyaW5nKTogc3RyaW5nIHtcbiAgY29uc3QgaSA9IE1hdGgubWF4KHAubGFzdEluZGV4T2YoXCIvXCIpLCBwLmxhc3RJbmRleE9mKFwiXFxcXFwiKSk7XG4gIHJldHVybiBpID49IDAgPyBwLnNsaWNlKGkgKyAxKSA6IHA7XG59XG5cbi8qKlxuICogRG9lcyB0aGlzIGRvY3VtZW50IGxvb2sgbGlrZSBhbiBhdXRvcnVicmljIHJ1YnJpYz8gQnkgZmlsZSBuYW1lLCBieSBhIGAkc2NoZW1hYCAvXG4gKiB5YW1sLWxhbmd1YWdlLXNlcnZlciBtb2RlbGluZSBwb2ludGluZyB0byBvdXIgcnVicmljIHNjaGVtYSwgb3IgYnkgY29udGVudDogY3JpdGVyaWFcbiAqIHdpdGggYSBgcmVxdWlyZW1lbnRgICh0aGUgc2VydmVyIGhhcyB0aGUgZmluYWwgd29yZDsgdGhpcyBvbmx5IGRyaXZlcyB0aGUgcGlja2VyKS5cbiAqL1xuZXhwb3J0IGZ1bmN0aW9uIGxvb2tzTGlrZVJ1YnJpYyhmaWxlTmFtZTogc3RyaW5nLCBsYW5ndWFnZUlkOiBzdHJpbmcsIHRleHQ6IHN0cmluZyk6IGJvb2xlYW4ge1xuICBpZiAoIVtcInlhbWxcIiwgXCJqc29uXCIsIFwianNvbmNcIl0uaW5jbHVkZXMobGFuZ3VhZ2VJZCkpIHJldHVybiBmYWxzZTtcbiAgaWYgKE5BTUVfUkUudGVzdChiYXNlTmFtZShmaWxlTmFtZSkpKSByZXR1cm4gdHJ1ZTtcbiAgY29uc3QgaGVhZCA9IHRleHQuc2xpY2UoMCwgNDAwMCk7XG4gIGlmIChTQ0hFTUFfUkUudGVzdChoZWFkKSkgcmV0dXJuIHRydWU7XG4gIGlmICgvYXV0b3J1YnJpYy1kYXRhc2V0XFwuc2NoZW1hXFwuanNvbnxwcm9tcHRmb298XCJncmFkZXJzXCJcXHMqOi8udGVzdChoZWFkKSkgcmV0dXJuIGZhbHNlO1xuICByZXR1cm4gL1wicmVxdWlyZW1lbnRcIlxccyo6fChefFxcbilcXHMqKC1cXHMqKT9yZXF1aXJlbWVudFxccyo6Ly50ZXN0KHRleHQuc2xpY2UoMCwgMjAwMDApKTtcbn1cblxuZXhwb3J0IGludGVyZmFjZSBSdWJyaWNDaG9pY2Uge1xuICBraW5kOiBcImFjdGl2ZVwiIHwgXCJyZW1lbWJlcmVkXCIgfCBcInBpY2tcIjtcbiAgdXJpPzogc3RyaW5nO1xufVxuXG4vKipcbiAqIFdoaWNoIHJ1YnJpYyB0byBncmFkZSBhZ2FpbnN0OiB0aGUgYWN0aXZlIGRvY3VtZW50IHdoZW4gaXQgaXMgYSBydWJyaWM7IG90aGVyd2lzZSB0aGVcbiAqIHJlbWVtYmVyZWQgY2hvaWNlIHdoZW4gaXQgc3RpbGwgZXhpc3RzOyBvdGhlcndpc2UgYXNrIHRoZSB1c2VyIChgcGlja2ApLlxuICovXG5leHBvcnQgZnVuY3Rpb24gY2hvb3NlUnVicmljKG9wdHM6IHtcbiAgYWN0aXZlVXJpOiBzdHJpbmc7XG4gIGFjdGl2ZUlzUnVicmljOiBib29sZWFuO1xuICByZW1lbWJlcmVkPzogc3RyaW5nO1xuICByZW1lbWJlcmVkRXhpc3RzOiBib29sZWFuO1xuICBmb3JjZVBpY2s/OiBib29sZWFuO1xufSk6IFJ1YnJpY0Nob2ljZSB7XG4gIGlmIChvcHRzLmFjdGl2ZUlzUnVicmljICYmICFvcHRzLmZvcmNlUGljaykgcmV0dXJuIHsga2luZDogXCJhY3RpdmVcIiwgdXJpOiBvcHRzLmFjdGl2ZVVyaSB9O1xuICBpZiAob3B0cy5yZW1lbWJlcmVkICYmIG9wdHMucmVtZW1iZXJlZEV4aXN0cyAmJiAhb3B0cy5mb3JjZVBpY2spIHJldHVybiB7IGtpbmQ6IFwicmVtZW1iZXJlZFwiLCB1cmk6IG9wdHMucmVtZW1iZXJlZCB9O1xuICByZXR1cm4geyBraW5kOiBcInBpY2tcIiB9O1xufVxuXG4vKiogQXJndW1lbnRzIGZvciB0aGUgc2VydmVyJ3MgYHJ1YnJpYy1sc3AuZ3JhZGVUZXh0YCBjb21tYW5kLiAqL1xuZXhwb3J0IGZ1bmN0aW9uIGdyYWRlVGV4dEFyZ3MocnVicmljVXJpOiBzdHJpbmcsIHRleHQ6IHN0cmluZywgcXVlcnk/OiBzdHJpbmcpOiB7IHVyaTogc3RyaW5nOyB0ZXh0OiBzdHJpbmc7IHF1ZXJ5Pzogc3RyaW5nIH0ge1xuICBjb25zdCBhcmdzOiB7IHVyaTogc3RyaW5nOyB0ZXh0OiBzdHJpbmc7IHF1ZXJ5Pzogc3RyaW5nIH0gPSB7IHVyaTogcnVicmljVXJpLCB0ZXh0IH07XG4gIGlmIChxdWVyeSAhPT0gdW5kZWZpbmVkICYmIHF1ZXJ5LnRyaW0oKSAhPT0gXCJcIikgYXJncy5xdWVyeSA9IHF1ZXJ5O1xuICByZXR1cm4gYXJncztcbn1cbiJdLAogICJtYXBwaW5ncyI6ICI7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7QUFBQSx1QkFBcUI7QUFDckIsYUFBd0I7OztBQ0t4QixJQUFNLFVBQVU7QUFDaEIsSUFBTSxZQUFZO0FBRVgsU0FBUyxTQUFTLEdBQW1CO0FBQzFDLFFBQU0sSUFBSSxLQUFLLElBQUksRUFBRSxZQUFZLEdBQUcsR0FBRyxFQUFFLFlBQVksSUFBSSxDQUFDO0FBQzFELFNBQU8sS0FBSyxJQUFJLEVBQUUsTUFBTSxJQUFJLENBQUMsSUFBSTtBQUNuQztBQU9PLFNBQVMsZ0JBQWdCLFVBQWtCLFlBQW9CLE1BQXVCO0FBQzNGLE1BQUksQ0FBQyxDQUFDLFFBQVEsUUFBUSxPQUFPLEVBQUUsU0FBUyxVQUFVLEVBQUcsUUFBTztBQUM1RCxNQUFJLFFBQVEsS0FBSyxTQUFTLFFBQVEsQ0FBQyxFQUFHLFFBQU87QUFDN0MsUUFBTSxPQUFPLEtBQUssTUFBTSxHQUFHLEdBQUk7QUFDL0IsTUFBSSxVQUFVLEtBQUssSUFBSSxFQUFHLFFBQU87QUFDakMsTUFBSSwyREFBMkQsS0FBSyxJQUFJLEVBQUcsUUFBTztBQUNsRixTQUFPLG9EQUFvRCxLQUFLLEtBQUssTUFBTSxHQUFHLEdBQUssQ0FBQztBQUN0RjtBQVdPLFNBQVMsYUFBYSxNQU1aO0FBQ2YsTUFBSSxLQUFLLGtCQUFrQixDQUFDLEtBQUssVUFBVyxRQUFPLEVBQUUsTUFBTSxVQUFVLEtBQUssS0FBSyxVQUFVO0FBQ3pGLE1BQUksS0FBSyxjQUFjLEtBQUssb0JBQW9CLENBQUMsS0FBSyxVQUFXLFFBQU8sRUFBRSxNQUFNLGNBQWMsS0FBSyxLQUFLLFdBQVc7QUFDbkgsU0FBTyxFQUFFLE1BQU0sT0FBTztBQUN4QjtBQUdPLFNBQVMsY0FBYyxXQUFtQixNQUFjLE9BQStEO0FBQzVILFFBQU0sT0FBc0QsRUFBRSxLQUFLLFdBQVcsS0FBSztBQUNuRixNQUFJLFVBQVUsVUFBYSxNQUFNLEtBQUssTUFBTSxHQUFJLE1BQUssUUFBUTtBQUM3RCxTQUFPO0FBQ1Q7OztJRGxEQSx1QkFBSyxrREFBa0QsTUFBTTtBQUMzRCxFQUFPLGFBQU0sZ0JBQWdCLHdCQUF3QixRQUFRLEVBQUUsR0FBRyxJQUFJO0FBQ3RFLEVBQU8sYUFBTSxnQkFBZ0Isb0JBQW9CLFFBQVEsRUFBRSxHQUFHLElBQUk7QUFDbEUsRUFBTyxhQUFNLGdCQUFnQix3QkFBd0IsUUFBUSxFQUFFLEdBQUcsSUFBSTtBQUN0RSxFQUFPLGFBQU0sZ0JBQWdCLGFBQWEsUUFBUSw0RUFBNEUsR0FBRyxJQUFJO0FBQ3JJLEVBQU8sYUFBTSxnQkFBZ0IsYUFBYSxRQUFRLHVEQUF1RCxHQUFHLElBQUk7QUFDaEgsRUFBTyxhQUFNLGdCQUFnQixhQUFhLFFBQVEsa0NBQWtDLEdBQUcsSUFBSTtBQUMzRixFQUFPLGFBQU0sZ0JBQWdCLDJCQUEyQixRQUFRLGVBQWUsR0FBRyxLQUFLO0FBQ3ZGLEVBQU8sYUFBTSxnQkFBZ0IsYUFBYSxRQUFRLHFDQUFxQyxHQUFHLEtBQUs7QUFDL0YsRUFBTyxhQUFNLGdCQUFnQixlQUFlLFlBQVksZ0JBQWdCLEdBQUcsS0FBSztBQUNoRixFQUFPLGFBQU0sZ0JBQWdCLGFBQWEsUUFBUSxjQUFjLEdBQUcsS0FBSztBQUMxRSxDQUFDO0FBQUEsSUFFRCx1QkFBSywyREFBMkQsTUFBTTtBQUNwRSxFQUFPLGlCQUFVLGFBQWEsRUFBRSxXQUFXLHlCQUF5QixnQkFBZ0IsTUFBTSxZQUFZLGFBQWEsa0JBQWtCLEtBQUssQ0FBQyxHQUFHO0FBQUEsSUFDNUksTUFBTTtBQUFBLElBQ04sS0FBSztBQUFBLEVBQ1AsQ0FBQztBQUNELEVBQU8saUJBQVUsYUFBYSxFQUFFLFdBQVcsbUJBQW1CLGdCQUFnQixPQUFPLFlBQVksYUFBYSxrQkFBa0IsS0FBSyxDQUFDLEdBQUc7QUFBQSxJQUN2SSxNQUFNO0FBQUEsSUFDTixLQUFLO0FBQUEsRUFDUCxDQUFDO0FBQ0QsRUFBTyxpQkFBVSxhQUFhLEVBQUUsV0FBVyxtQkFBbUIsZ0JBQWdCLE9BQU8sWUFBWSxhQUFhLGtCQUFrQixNQUFNLENBQUMsR0FBRyxFQUFFLE1BQU0sT0FBTyxDQUFDO0FBQzFKLEVBQU8saUJBQVUsYUFBYSxFQUFFLFdBQVcsbUJBQW1CLGdCQUFnQixNQUFNLENBQUMsR0FBRyxFQUFFLE1BQU0sT0FBTyxDQUFVO0FBQ2pILEVBQU87QUFBQSxJQUNMLGFBQWEsRUFBRSxXQUFXLHlCQUF5QixnQkFBZ0IsTUFBTSxZQUFZLGFBQWEsa0JBQWtCLE1BQU0sV0FBVyxLQUFLLENBQUM7QUFBQSxJQUMzSSxFQUFFLE1BQU0sT0FBTztBQUFBLEVBQ2pCO0FBQ0YsQ0FBQztBQUFBLElBRUQsdUJBQUssMERBQTBELE1BQU07QUFDbkUsRUFBTyxpQkFBVSxjQUFjLHlCQUF5QixPQUFPLEdBQUcsRUFBRSxLQUFLLHlCQUF5QixNQUFNLFFBQVEsQ0FBQztBQUNqSCxFQUFPLGlCQUFVLGNBQWMsS0FBSyxLQUFLLEdBQUcsR0FBRyxFQUFFLEtBQUssS0FBSyxNQUFNLEtBQUssT0FBTyxJQUFJLENBQUM7QUFDbEYsRUFBTyxpQkFBVSxjQUFjLEtBQUssS0FBSyxJQUFJLEdBQUcsRUFBRSxLQUFLLEtBQUssTUFBTSxJQUFJLENBQUM7QUFDekUsQ0FBQzsiLAogICJuYW1lcyI6IFtdCn0K
