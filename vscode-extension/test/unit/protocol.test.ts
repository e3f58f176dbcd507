import { test } from "node:test";
import * as assert from "node:assert/strict";
import {
  GRADING_COMMANDS,
  GradeTarget,
  cancelMessage,
  cancelledProgress,
  disagreementLabel,
  disagreementsOf,
  needsResponseOf,
  responseRequestOf,
  responseToast,
  sentArgument,
  messageOf,
  needsTargetOf,
  nextProgress,
  progressLabel,
  selectionArgs,
  targetItems,
  userErrorOf,
  verdictsByUri,
  verdictsOf,
  wasCancelled,
  wasGraded,
} from "../../src/protocol";

test("the Calibrate lens calls the judge: gated on workspace trust and run with progress, as gradings are", () => {
  assert.equal(GRADING_COMMANDS.has("rubric-lsp.calibrate"), true);
  assert.equal(GRADING_COMMANDS.has("rubric-lsp.review"), true); // calls the judge: gated on trust
  assert.equal(GRADING_COMMANDS.has("rubric-lsp.showDisagreements"), false);
});

const range = (line: number) => ({ start: { line, character: 2 }, end: { line, character: 9 } });

test("verdicts: every kind kept, malformed entries dropped, never guessed", () => {
  const result = {
    score: 0.5,
    verdicts: [{ name: "greets", verdict: "MET", range: range(1) }], // the engine's, for the CLI: not read
    shown: [
      { uri: "file:///r.yaml", range: range(1), kind: "met", label: "✓ MET" },
      { uri: "file:///r.yaml", range: range(2), kind: "penalty-applied", label: "−12 invented_policy", detail: "made up a policy" },
      { uri: "file:///r.yaml", range: range(3), kind: "expectation-failed", label: "✗ expected UNMET", example: "strict" },
      { uri: "file:///r.yaml", range: range(4), kind: "MET", label: "wrong case" },
      { uri: "file:///r.yaml", range: { start: { line: -1, character: 0 }, end: { line: 0, character: 0 } }, kind: "met", label: "bad range" },
      { uri: 7, range: range(5), kind: "met", label: "bad uri" },
      "nonsense",
    ],
  };
  const vs = verdictsOf(result);
  assert.deepEqual(vs.map((v) => v.kind), ["met", "penalty-applied", "expectation-failed"]);
  assert.equal(vs[1].detail, "made up a policy");
  assert.equal(vs[2].example, "strict");
  assert.deepEqual(verdictsOf({ shown: "x" }), []);
  assert.deepEqual(verdictsOf({ verdicts: [{ uri: "file:///r.yaml", range: range(1), kind: "met", label: "✓ MET" }] }), []);
  assert.deepEqual(verdictsOf(null), []);
  assert.deepEqual(verdictsOf([]), []);
});

test("verdicts are grouped per document, one entry per example", () => {
  const vs = verdictsOf({
    shown: [
      { uri: "file:///a", range: range(1), kind: "met", label: "polite ✓", example: "polite" },
      { uri: "file:///a", range: range(1), kind: "unmet", label: "strict ✗", example: "strict" },
      { uri: "file:///b", range: range(0), kind: "error", label: "judge error" },
    ],
  });
  const by = verdictsByUri(vs);
  assert.equal(by.get("file:///a")?.length, 2);
  assert.equal(by.get("file:///b")?.[0].kind, "error");
});

test("needsTarget, message and cancelled answers", () => {
  const targets = [{ label: "refund test", uri: "file:///p.yaml", format: "promptfoo", test: 2 }, { label: "no uri" }];
  assert.deepEqual(needsTargetOf({ needsTarget: true, targets }), [targets[0]]);
  assert.equal(needsTargetOf({ needsTarget: false, targets }), undefined);
  assert.equal(needsTargetOf({ verdicts: [] }), undefined);
  assert.equal(messageOf({ message: "data.yaml has nothing to grade" }), "data.yaml has nothing to grade");
  assert.equal(messageOf({ message: "  " }), undefined);
  assert.equal(wasCancelled({ cancelled: true }), true);
  assert.equal(wasCancelled({ cancelled: "yes" }), false);
});

test("target picker: labelled as the server wrote them, last used first", () => {
  const targets: GradeTarget[] = [
    { label: "refund.rubric.yaml", uri: "file:///w/refund.rubric.yaml", format: "autorubric" },
    { label: "Refund within 30 days", detail: "test 2", uri: "file:///w/promptfooconfig.yaml", format: "promptfoo", test: 2 },
    { label: "tone_grader", uri: "file:///w/judge.json", format: "northstar", grader: "tone_grader" },
  ];
  const rel = (u: string) => u.replace("file:///w/", "");
  const items = targetItems(targets, { label: "old label", uri: "file:///w/judge.json", grader: "tone_grader" }, rel);
  assert.deepEqual(items.map((i) => i.label), ["tone_grader", "refund.rubric.yaml", "Refund within 30 days"]);
  assert.equal(items[0].description, "northstar · last used");
  assert.equal(items[2].detail, "test 2 — promptfooconfig.yaml");
  assert.equal(items[1].detail, "refund.rubric.yaml");
  // another test of the same file is another target
  const other = targetItems(targets, { label: "x", uri: "file:///w/promptfooconfig.yaml", test: 1 }, rel);
  assert.deepEqual(other.map((i) => i.label), ["refund.rubric.yaml", "Refund within 30 days", "tone_grader"]);
  assert.ok(other.every((i) => !/last used/.test(i.description ?? "")));
});

test("Grade Selection arguments: a range, never the text of a synced document", () => {
  const r = range(3);
  assert.deepEqual(selectionArgs({ uri: "file:///p.yaml", range: r }), { uri: "file:///p.yaml", range: r });
  const t = { label: "x", uri: "file:///r.yaml" };
  assert.deepEqual(selectionArgs({ uri: "file:///a.md", range: r, target: t, text: "Paris." }), { uri: "file:///a.md", range: r, target: t, text: "Paris." });
});

test("no-key / no-model errors: the server's words and the buttons", () => {
  const noKey = userErrorOf({ kind: "no-key", model: "openai/gpt-4o-mini", message: "No API key for openai/gpt-4o-mini: Set API Key" });
  assert.deepEqual(noKey, { kind: "no-key", model: "openai/gpt-4o-mini", message: "No API key for openai/gpt-4o-mini: Set API Key", actions: ["Set API Key", "Choose judge model"] });
  assert.deepEqual(userErrorOf({ kind: "no-model" })?.actions, ["Choose judge model", "Set API Key"]);
  assert.equal(userErrorOf({ kind: "no-model" })?.message, "No judge model is set.");
  assert.equal(userErrorOf({ kind: "other", message: "x" }), undefined);
  assert.equal(userErrorOf(undefined), undefined);
  assert.equal(userErrorOf("no-key"), undefined);
});

test("progress: n/N from the server's messages, its note while loading, the cancel message", () => {
  let s = nextProgress({}, { kind: "begin", title: "Grading response" });
  assert.equal(progressLabel(s), "Grading…");
  s = nextProgress(s, { kind: "report", message: "loading the grading engine…" });
  assert.equal(progressLabel(s), "Grading: loading the grading engine…");
  s = nextProgress(s, { kind: "report", message: "3/7 criteria", percentage: 42 });
  assert.equal(progressLabel(s), "Grading 3/7");
  assert.equal(cancelMessage(s), "Grading cancelled (3/7 done)");
  s = nextProgress(s, { kind: "report", percentage: 50 });
  assert.equal(progressLabel(s), "Grading 3/7");
  s = nextProgress(s, { kind: "end", message: "Done" });
  assert.equal(progressLabel(s), "Grading 3/7");
  assert.equal(cancelMessage({}), "Grading cancelled");
  // a cancel before anything was counted: no "(0/0 done)"
  assert.equal(cancelMessage(cancelledProgress({ cancelled: true, done: 0, total: 0 }, {})), "Grading cancelled");
});

test("needsResponse, the counts of a cancelled answer, and disagreeing dataset items", () => {
  assert.equal(needsResponseOf({ needsResponse: true, message: "Grade a response first" }), "Grade a response first");
  assert.match(needsResponseOf({ needsResponse: true }) ?? "", /select it in another document/);
  assert.equal(needsResponseOf({ message: "x" }), undefined);
  assert.deepEqual(cancelledProgress({ cancelled: true, done: 2, total: 6 }, { done: 1, total: 6 }), { done: 2, total: 6 });
  assert.deepEqual(cancelledProgress({ cancelled: true }, { done: 1, total: 6 }), { done: 1, total: 6 });
  const items = disagreementsOf({ items: [{ index: 4, range: range(9), truth: "MET", judged: "UNMET" }, { index: "x", range: range(1) }] });
  assert.equal(items.length, 1);
  assert.equal(disagreementLabel(items[0]), "item 5: labelled MET, judged UNMET");
  assert.deepEqual(disagreementsOf({ items: "none" }), []);
});

test("a finished grading offers a report; questions, messages, errors and cancels do not", () => {
  assert.equal(wasGraded({ score: 0.5, verdicts: [], shown: [] }), true);
  assert.equal(wasGraded({ examples: [] }), true);
  for (const answer of [null, "x", { message: "nothing to grade" }, { needsTarget: true, targets: [] },
    { needsResponse: true, message: "m" }, { error: "boom" }, { cancelled: true, done: 1, total: 2 }]) {
    assert.equal(wasGraded(answer), false, JSON.stringify(answer));
  }
});

test("needs a response: a short toast naming the response file, a button that grades the unit against it", () => {
  const answer = {
    needsResponse: true,
    message: "Grading this test needs a response: write it in promptfooconfig.yaml.response.md (opened beside it), then run … Neovim: :RubricGrade …; Emacs: M-x rubric-grade-with-response …",
    responseFile: "file:///ws/promptfooconfig.yaml.response.md",
    unit: "test 'polite refusal'",
    grade: { title: "▶ Grade against test 'polite refusal' (promptfooconfig.yaml)", command: "rubric-lsp.grade", arguments: [{ uri: "file:///ws/promptfooconfig.yaml", kind: "response", response: "file:///ws/promptfooconfig.yaml.response.md", test: 2 }] },
  };
  const request = responseRequestOf(answer)!;
  assert.equal(request.grade?.command, "rubric-lsp.grade");
  const toast = responseToast(request, (uri) => uri.split("/").pop()!);
  assert.equal(toast, "Rubric: grading test 'polite refusal' needs a response. Write it in promptfooconfig.yaml.response.md (opened), then Grade Response.");
  assert.ok(toast.length < 160, "short enough for a notification to show whole");
  // an older server's answer (no response file): its own message
  assert.equal(responseToast(responseRequestOf({ needsResponse: true, message: "m" })!, (u) => u), "Rubric: m");
  assert.equal(responseRequestOf({ needsResponse: true, message: "m", grade: { title: 1 } })!.grade, undefined);
  assert.equal(responseRequestOf({ passed: true }), undefined);
});

test("grading commands are sent with show: false (the extension shows the answer), others untouched", () => {
  assert.deepEqual(sentArgument("rubric-lsp.gradeSelection", { uri: "u" }), { uri: "u", show: false });
  assert.deepEqual(sentArgument("rubric-lsp.grade", undefined), { show: false });
  assert.deepEqual(sentArgument("rubric-lsp.gradeExamples", { uri: "u" }), { uri: "u", show: false });
  assert.deepEqual(sentArgument("rubric-lsp.calibrate", { uri: "u" }), { uri: "u" });
  assert.deepEqual(sentArgument("rubric-lsp.gradeText", { uri: "u" }), { uri: "u" }); // older servers' commands: as they were
});
