import { test } from "node:test";
import * as assert from "node:assert/strict";
import {
  BaseProbe,
  baseCandidates,
  chooseBasePython,
  gradeOrBaseStep,
  installSteps,
  interpretBaseProbe,
  offerMessage,
  offerItem,
  gradeExtraCommand,
  parseVersion,
  pickWheel,
  venvPaths,
  wheelVersion,
} from "../../src/install";

test("base Pythons are tried in order: setting, Python extension, python3, python", () => {
  assert.deepEqual(
    baseCandidates({ interpreter: "/set/python", pythonExtensionInterpreter: "/pe/python" }).map((c) => c.python),
    ["/set/python", "/pe/python", "python3", "python"],
  );
  assert.deepEqual(baseCandidates({ platform: "win32" }).map((c) => c.python), ["py", "python", "python3"]);
});

test("the first Python >= 3.10 that can create a venv is chosen; the others say why not", async () => {
  const answers: Record<string, BaseProbe> = {
    "/pe/python": { ok: true, version: [3, 9] },
    python3: { ok: false, reason: "it cannot create virtual environments (on Debian/Ubuntu: apt install python3-venv)" },
    python: { ok: true, version: [3, 12] },
  };
  const seen: string[] = [];
  const probe = async (p: string) => {
    seen.push(p);
    return answers[p] ?? { ok: false, reason: "cannot run it (ENOENT)" };
  };
  const c = await chooseBasePython(baseCandidates({ pythonExtensionInterpreter: "/pe/python" }), probe);
  assert.equal(c.chosen?.python, "python");
  assert.deepEqual(c.chosen?.version, [3, 12]);
  assert.equal(c.rejected.length, 2);
  assert.match(c.rejected[0], /Python 3\.9 is older than 3\.10/);
  assert.match(c.rejected[1], /python3-venv/);
  assert.match(offerMessage(c), /Python 3\.12 at python/);
  const none = await chooseBasePython(baseCandidates({}), async () => ({ ok: false, reason: "cannot run it (ENOENT)" }));
  assert.equal(none.chosen, undefined);
  assert.match(offerMessage(none), /no Python ≥ 3\.10.*tried: python3 \(PATH\): cannot run it/);
  // the same python named twice is probed once
  const twice: string[] = [];
  await chooseBasePython([{ python: "a", from: "x" }, { python: "a", from: "y" }], async (p) => (twice.push(p), { ok: false, reason: "no" }));
  assert.deepEqual(twice, ["a"]);
  assert.deepEqual(seen, ["/pe/python", "python3", "python"]);
});

test("base probe outcomes", () => {
  assert.deepEqual(interpretBaseProbe(0, "3.11\n", ""), { ok: true, version: [3, 11] });
  assert.equal(interpretBaseProbe(0, "garbage", "").ok, false);
  assert.match((interpretBaseProbe(1, "", "ModuleNotFoundError: No module named 'ensurepip'") as { reason: string }).reason, /python3-venv/);
  assert.match((interpretBaseProbe(null, "", "", "ENOENT") as { reason: string }).reason, /ENOENT/);
  assert.deepEqual(parseVersion("3.10"), [3, 10]);
});

test("venv paths per platform", () => {
  assert.deepEqual(venvPaths("/home/u/.vscode/globalStorage/rubric-lsp.rubric-lsp/", "linux"), {
    dir: "/home/u/.vscode/globalStorage/rubric-lsp.rubric-lsp/venv",
    python: "/home/u/.vscode/globalStorage/rubric-lsp.rubric-lsp/venv/bin/python",
  });
  assert.equal(venvPaths("C:\\s", "win32").python, "C:\\s\\venv\\Scripts\\python.exe");
});

test("the bundled wheel: ours only, highest version", () => {
  assert.equal(pickWheel(["README", "rubric_lsp-0.1.0-py3-none-any.whl", "rubric_lsp-0.10.0-py3-none-any.whl", "rubric_lsp-0.9.0-py3-none-any.whl"]), "rubric_lsp-0.10.0-py3-none-any.whl");
  assert.equal(pickWheel(["pydantic-2.0-py3-none-any.whl"]), undefined);
});

test("install steps: venv with the base Python, then the wheel (extras on request)", () => {
  const steps = installSteps("python3", "/s/venv/bin/python", "/s/venv", "/ext/bundled/rubric_lsp-0.1.0-py3-none-any.whl");
  assert.deepEqual(steps.map((s) => [s.command, ...s.args]), [
    ["python3", "-m", "venv", "/s/venv"],
    ["/s/venv/bin/python", "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "/ext/bundled/rubric_lsp-0.1.0-py3-none-any.whl"],
  ]);
  const grade = gradeOrBaseStep("/s/venv/bin/python", "/w.whl", ["grade"]);
  assert.equal(grade.args.at(-1), "/w.whl[grade]");
  assert.match(grade.title, /\[grade\]/);
});

test("wheel versions: an updated extension reinstalls its wheel into the private environment", () => {
  assert.equal(wheelVersion("/ext/bundled/rubric_lsp-0.2.0-py3-none-any.whl"), "0.2.0");
  assert.equal(wheelVersion("/ext/bundled/other-0.2.0-py3-none-any.whl"), undefined);
});

test("install offers stay in the status bar until done; hints name the .vsix's wheel, never a URL", () => {
  const server = offerItem("server");
  assert.equal(server.command, "rubric.installServer");
  assert.match(server.text, /Install rubric-lsp/);
  const grade = offerItem("grade");
  assert.equal(grade.command, "rubric.installGrading");
  assert.match(grade.tooltip, /rubric-lsp\[grade\]/);
  assert.equal(gradeExtraCommand("/venv/bin/python", "/ext/bundled/rubric_lsp-0.1.0-py3-none-any.whl"), '/venv/bin/python -m pip install "/ext/bundled/rubric_lsp-0.1.0-py3-none-any.whl[grade]"');
  for (const text of [server.tooltip, grade.tooltip, gradeExtraCommand(undefined, undefined)]) assert.doesNotMatch(text, /git\+https|https?:/);
});
