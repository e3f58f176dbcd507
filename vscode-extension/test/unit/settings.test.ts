import { test } from "node:test";
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  ConfigReader,
  DEFAULTS,
  answerConfigurationItem,
  expandPath,
  judgeLabel,
  needsRestart,
  readLaunchSettings,
  readServerSection,
} from "../../src/settings";

/** Fake of vscode.WorkspaceConfiguration for the `rubric` section. */
function cfg(values: Record<string, unknown>): ConfigReader {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

test("defaults when nothing is set", () => {
  const s = readServerSection(cfg({}), true);
  assert.deepEqual(s, {
    judge: { concurrency: 16, timeoutSeconds: 60, deadlineSeconds: 600 },
    gradeOnSave: false,
    cache: { enabled: true },
    lint: { select: [], ignore: [] },
    calibration: { repeat: 1, agreementThreshold: 0.8 },
  });
});

test("calibration.repeat: asks per item for Calibrate, 1 to 20 (rubric calibrate --repeat)", () => {
  assert.deepEqual(readServerSection(cfg({ "calibration.repeat": 3 }), true).calibration, { repeat: 3, agreementThreshold: 0.8 });
  assert.equal(readServerSection(cfg({ "calibration.repeat": 0 }), true).calibration.repeat, 1);
  assert.equal(readServerSection(cfg({ "calibration.repeat": 50 }), true).calibration.repeat, 20);
  assert.equal(readServerSection(cfg({ "calibration.repeat": "3" }), true).calibration.repeat, 1);
});

test("values are passed through, empty model/apiBase omitted, lists cleaned", () => {
  const s = readServerSection(
    cfg({
      "judge.model": " openai/gpt-4o-mini ",
      "judge.apiBase": "",
      "judge.concurrency": 8,
      "judge.timeoutSeconds": 12.5,
      gradeOnSave: true,
      "cache.enabled": false,
      "lint.select": ["AR1", " ", 3, "PF001"],
      "lint.ignore": "RL002",
    }),
    true,
  );
  assert.equal(s.judge.model, "openai/gpt-4o-mini");
  assert.equal("apiBase" in s.judge, false);
  assert.equal(s.judge.concurrency, 8);
  assert.equal(s.judge.timeoutSeconds, 12.5);
  assert.equal(s.gradeOnSave, true);
  assert.equal(s.cache.enabled, false);
  assert.deepEqual(s.lint, { select: ["AR1", "PF001"], ignore: [] });
});

test("out-of-range numbers are clamped or defaulted", () => {
  assert.equal(readServerSection(cfg({ "judge.concurrency": 0 }), true).judge.concurrency, 1);
  assert.equal(readServerSection(cfg({ "judge.concurrency": 1000 }), true).judge.concurrency, 64);
  assert.equal(readServerSection(cfg({ "judge.concurrency": "3" }), true).judge.concurrency, 16);
  assert.equal(readServerSection(cfg({ "judge.timeoutSeconds": -1 }), true).judge.timeoutSeconds, 60);
});

test("untrusted workspace: no grading on save, no judge endpoint or model", () => {
  const s = readServerSection(
    cfg({ gradeOnSave: true, "judge.model": "m", "judge.apiBase": "http://evil/v1", "lint.ignore": ["X1"] }),
    false,
  );
  assert.equal(s.gradeOnSave, false);
  assert.equal(s.judge.model, undefined);
  assert.equal(s.judge.apiBase, undefined);
  assert.deepEqual(s.lint.ignore, ["X1"]);
});

test("path expansion", () => {
  const ctx = { home: "/home/u", workspaceFolder: "/ws", env: { VENV: "/opt/v" } };
  assert.equal(expandPath("~/bin/rubric-lsp", ctx), "/home/u/bin/rubric-lsp");
  assert.equal(expandPath("${workspaceFolder}/.venv/bin/python", ctx), "/ws/.venv/bin/python");
  assert.equal(expandPath("${env:VENV}/bin/python", ctx), "/opt/v/bin/python");
  assert.equal(expandPath("${userHome}/x", ctx), "/home/u/x");
  assert.equal(expandPath("  /abs/python ", ctx), "/abs/python");
});

test("launch settings: empty strings are unset", () => {
  assert.deepEqual(readLaunchSettings(cfg({ "server.path": "  ", "server.interpreter": "" }), {}), {
    path: undefined,
    interpreter: undefined,
  });
  assert.deepEqual(readLaunchSettings(cfg({ "server.interpreter": "${workspaceFolder}/py" }), { workspaceFolder: "/w" }), {
    path: undefined,
    interpreter: "/w/py",
  });
});

test("workspace/configuration answers", () => {
  const s = readServerSection(cfg({ "judge.model": "m" }), true);
  assert.equal(answerConfigurationItem("rubric", s), s);
  assert.equal(answerConfigurationItem("rubric.judge.model", s), "m");
  assert.deepEqual(answerConfigurationItem("rubric.lint", s), { select: [], ignore: [] });
  assert.equal(answerConfigurationItem("rubric.nope", s), null);
  assert.equal(answerConfigurationItem("python", s), undefined);
  assert.equal(answerConfigurationItem(undefined, s), undefined);
  assert.equal(answerConfigurationItem("rubricx", s), undefined);
});

test("restart only for server launch settings", () => {
  assert.equal(needsRestart((k) => k === "rubric.server.path"), true);
  assert.equal(needsRestart((k) => k === "rubric.server.interpreter"), true);
  assert.equal(needsRestart((k) => k === "rubric.judge.model"), false);
});

test("status bar label", () => {
  assert.equal(judgeLabel(readServerSection(cfg({ "judge.model": "x/y" }), true)), "x/y");
  assert.equal(judgeLabel(readServerSection(cfg({}), true), "env/model"), "env/model");
  assert.equal(judgeLabel(readServerSection(cfg({}), true)), "default judge");
  const panel = readServerSection(cfg({ "judge.model": "a/1", "judge.models": ["b/2", " ", "a/1", "c/3"] }), true);
  assert.equal(judgeLabel(panel, "env/model"), "a/1 +2");
  assert.equal(judgeLabel(readServerSection(cfg({ "judge.models": ["b/2"] }), true), "env/model"), "b/2");
});

test("calibration.agreementThreshold: a share from 0 to 1 (rubric calibrate --agreement-threshold)", () => {
  assert.equal(readServerSection(cfg({ "calibration.agreementThreshold": 0.6 }), true).calibration.agreementThreshold, 0.6);
  assert.equal(readServerSection(cfg({ "calibration.agreementThreshold": 0 }), true).calibration.agreementThreshold, 0);
  assert.equal(readServerSection(cfg({ "calibration.agreementThreshold": 1.5 }), true).calibration.agreementThreshold, 0.8);
  assert.equal(readServerSection(cfg({ "calibration.agreementThreshold": "0.6" }), true).calibration.agreementThreshold, 0.8);
});

test("judge.models: a panel, sent only when set and the workspace is trusted", () => {
  assert.deepEqual(readServerSection(cfg({ "judge.models": [" b/2 ", 3, ""] }), true).judge.models, ["b/2"]);
  assert.equal("models" in readServerSection(cfg({ "judge.models": [] }), true).judge, false);
  assert.equal("models" in readServerSection(cfg({ "judge.models": "b/2" }), true).judge, false);
  assert.equal("models" in readServerSection(cfg({ "judge.models": ["b/2"] }), false).judge, false);
});

test("grading.cannotAssess is sent only when it is not the default (RUBRIC_CANNOT_ASSESS then applies)", () => {
  assert.deepEqual(readServerSection(cfg({ "grading.cannotAssess": "zero" }), true).grading, { cannotAssess: "zero" });
  assert.equal(readServerSection(cfg({ "grading.cannotAssess": "skip" }), true).grading, undefined);
  assert.equal(readServerSection(cfg({ "grading.cannotAssess": "bogus" }), true).grading, undefined);
  assert.equal(readServerSection(cfg({ "judge.deadlineSeconds": 30 }), true).judge.deadlineSeconds, 30);
});

test("package.json declares the defaults the extension sends when nothing is set", () => {
  const pkg = JSON.parse(readFileSync(`${__dirname}/../package.json`, "utf8"));
  const props = pkg.contributes.configuration.properties as Record<string, { default: unknown }>;
  const fromPackage = (key: string) => props[`rubric.${key}`].default;
  const s = readServerSection(cfg(Object.fromEntries(Object.keys(props).map((k) => [k.slice("rubric.".length), props[k].default]))), true);
  assert.equal(s.judge.concurrency, fromPackage("judge.concurrency"));
  assert.equal(s.judge.timeoutSeconds, fromPackage("judge.timeoutSeconds"));
  assert.equal(s.judge.deadlineSeconds, fromPackage("judge.deadlineSeconds"));
  assert.deepEqual(s, readServerSection(cfg({}), true));
  assert.equal(DEFAULTS.cannotAssess, fromPackage("grading.cannotAssess"));
  assert.equal(DEFAULTS.calibrationRepeat, fromPackage("calibration.repeat"));
});
