import { test } from "node:test";
import * as assert from "node:assert/strict";
import {
  Probes,
  ProbeResult,
  chooseLaunch,
  installCommand,
  interpretProbe,
  interpretVersionOutput,
  pathLookupCandidates,
  pythonFromShebang,
  serverEnv,
} from "../../src/launch";

function probes(
  executables: string[],
  interpreters: Record<string, ProbeResult>,
  servable: Record<string, ProbeResult> = {},
): Probes & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    isExecutable: async (f) => {
      calls.push(`exe:${f}`);
      return executables.includes(f);
    },
    checkInterpreter: async (p) => {
      calls.push(`py:${p}`);
      return interpreters[p] ?? { ok: false, reason: "cannot run it (ENOENT)" };
    },
    checkExecutable: async (f) => {
      calls.push(`serve:${f}`);
      return servable[f] ?? { ok: true };
    },
  };
}
const OK: ProbeResult = { ok: true };
const MISSING: ProbeResult = { ok: false, reason: "No module named rubric_lsp" };

test("rubric.server.path wins and runs with no arguments", async () => {
  const p = probes(["/opt/rubric-lsp", "/usr/bin/rubric-lsp"], { "/py": OK });
  const c = await chooseLaunch({ path: "/opt/rubric-lsp", interpreter: "/py", envPath: "/usr/bin" }, p);
  assert.deepEqual(c.chosen, { source: "setting:path", command: "/opt/rubric-lsp", args: [] });
  assert.deepEqual(p.calls, ["exe:/opt/rubric-lsp"]);
});

test("a bare rubric.server.path is looked up on PATH", async () => {
  const c = await chooseLaunch({ path: "my-rubric", envPath: "/a:/b" }, probes(["/b/my-rubric"], {}));
  assert.equal(c.chosen?.command, "/b/my-rubric");
});

test("a broken explicit path is reported, not replaced by a fallback", async () => {
  const c = await chooseLaunch({ path: "/nope", envPath: "/usr/bin" }, probes(["/usr/bin/rubric-lsp"], {}));
  assert.equal(c.chosen, undefined);
  assert.match(c.message!, /rubric\.server\.path "\/nope" is not an executable/);
  assert.match(c.message!, /python3 -m pip install -e PATH\/TO\/rubric-lsp/);
  assert.doesNotMatch(c.message!, /git\+https/);
});

test("rubric.server.interpreter: python -m rubric_lsp serve", async () => {
  const c = await chooseLaunch({ interpreter: "/venv/bin/python", pythonExtensionInterpreter: "/other" }, probes([], { "/venv/bin/python": OK }));
  assert.deepEqual(c.chosen, { source: "setting:interpreter", command: "/venv/bin/python", args: ["-m", "rubric_lsp", "serve"], python: "/venv/bin/python" });
});

test("explicit interpreter without rubric_lsp gives the install command for it", async () => {
  const c = await chooseLaunch({ interpreter: "/venv/bin/python", envPath: "/usr/bin" }, probes(["/usr/bin/rubric-lsp"], { "/venv/bin/python": MISSING }));
  assert.equal(c.chosen, undefined);
  assert.equal(c.installCommand, "/venv/bin/python -m pip install -e PATH/TO/rubric-lsp  (a clone of the repository)");
  assert.match(c.message!, /No module named rubric_lsp/);
  const wheel = "/ext/bundled/rubric_lsp-0.1.0-py3-none-any.whl";
  const w = await chooseLaunch({ interpreter: "/venv/bin/python", bundledWheel: wheel }, probes([], { "/venv/bin/python": MISSING }));
  assert.equal(w.installCommand, `/venv/bin/python -m pip install ${wheel}`); // the .vsix's wheel: works offline
});

test("Python extension interpreter is used when it has rubric_lsp", async () => {
  const c = await chooseLaunch({ pythonExtensionInterpreter: "/pe/python", envPath: "/usr/bin" }, probes(["/usr/bin/rubric-lsp"], { "/pe/python": OK }));
  assert.equal(c.chosen?.source, "pythonExtension");
  assert.deepEqual(c.chosen?.args, ["-m", "rubric_lsp", "serve"]);
});

test("falls back to rubric-lsp on PATH when the Python extension's interpreter lacks it", async () => {
  const c = await chooseLaunch({ pythonExtensionInterpreter: "/pe/python", envPath: "/x:/usr/local/bin:" }, probes(["/usr/local/bin/rubric-lsp"], { "/pe/python": MISSING }));
  assert.deepEqual(c.chosen, { source: "PATH", command: "/usr/local/bin/rubric-lsp", args: [] });
  assert.equal(c.failures.length, 1);
});

test("nothing works: a clear message with offline-correct hints (the .vsix's wheel, never a git URL)", async () => {
  const wheel = "/ext/bundled/rubric_lsp-0.1.0-py3-none-any.whl";
  const c = await chooseLaunch({ pythonExtensionInterpreter: "/pe/python", envPath: "/usr/bin", bundledWheel: wheel }, probes([], { "/pe/python": MISSING }));
  assert.equal(c.chosen, undefined);
  assert.equal(c.installCommand, `/pe/python -m pip install ${wheel}`);
  assert.match(c.message!, /not installed: run Rubric: Install Server \(a private environment, from the wheel inside this extension\), or install it yourself: \/pe\/python -m pip install \/ext\/bundled\/rubric_lsp-0\.1\.0-py3-none-any\.whl /);
  assert.match(c.message!, /rubric-lsp was not found on PATH/);
  assert.doesNotMatch(c.message!, /git\+https/);
  const c2 = await chooseLaunch({ envPath: "" }, probes([], {}));
  assert.equal(c2.installCommand, "python3 -m pip install -e PATH/TO/rubric-lsp  (a clone of the repository)");
});

test("windows PATH lookup tries .exe/.cmd", () => {
  assert.deepEqual(pathLookupCandidates("rubric-lsp", "C:\\py\\Scripts", "win32").slice(0, 2), [
    "C:\\py\\Scripts\\rubric-lsp.exe",
    "C:\\py\\Scripts\\rubric-lsp.cmd",
  ]);
  assert.equal(installCommand("C:\\Program Files\\py\\python.exe", "C:\\ext\\rubric_lsp-0.1.0-py3-none-any.whl"), '"C:\\Program Files\\py\\python.exe" -m pip install C:\\ext\\rubric_lsp-0.1.0-py3-none-any.whl');
});

test("interpreter probe outcomes", () => {
  assert.deepEqual(interpretProbe(0), { ok: true });
  assert.deepEqual(interpretProbe(3), { ok: false, reason: "No module named rubric_lsp" });
  assert.match((interpretProbe(4) as { reason: string }).reason, /pygls\/lsprotocol missing/);
  assert.match((interpretProbe(null, "ENOENT") as { reason: string }).reason, /ENOENT/);
  assert.match((interpretProbe(1, undefined, "Traceback\nSyntaxError: bad") as { reason: string }).reason, /SyntaxError: bad/);
});

test("server env: API keys only when trusted; untrusted strips inherited keys", () => {
  const base = { PATH: "/bin", OPENAI_API_KEY: "inherited", RUBRIC_JUDGE_API_BASE: "http://x", UNSET: undefined };
  const t = serverEnv(base, { ANTHROPIC_API_KEY: "sk-a" }, true);
  assert.equal(t.ANTHROPIC_API_KEY, "sk-a");
  assert.equal(t.OPENAI_API_KEY, "inherited");
  assert.equal(t.LITELLM_LOCAL_MODEL_COST_MAP, "True");
  assert.equal("UNSET" in t, false);
  const u = serverEnv(base, { ANTHROPIC_API_KEY: "sk-a" }, false);
  assert.equal(u.ANTHROPIC_API_KEY, undefined);
  assert.equal(u.OPENAI_API_KEY, undefined);
  assert.equal(u.RUBRIC_JUDGE_API_BASE, undefined);
  assert.equal(u.PATH, "/bin");
});

test("a rubric-lsp on PATH that cannot serve is skipped, and the install is offered", async () => {
  const broken: ProbeResult = { ok: false, reason: "rubric-lsp is installed without the server's dependencies (pygls/lsprotocol missing)" };
  const p = probes(["/usr/bin/rubric-lsp"], {}, { "/usr/bin/rubric-lsp": broken });
  const c = await chooseLaunch({ envPath: "/usr/bin" }, p);
  assert.equal(c.chosen, undefined);
  assert.equal(c.offerInstall, true);
  assert.deepEqual(p.calls, ["exe:/usr/bin/rubric-lsp", "serve:/usr/bin/rubric-lsp"]);
  assert.match(c.message!, /\/usr\/bin\/rubric-lsp \(rubric-lsp is installed without the server's dependencies/);
});

test("the private environment is used after PATH, and only when its probe passes", async () => {
  const c = await chooseLaunch({ envPath: "/usr/bin", privateEnvPython: "/store/venv/bin/python" }, probes([], { "/store/venv/bin/python": OK }));
  assert.deepEqual(c.chosen, { source: "privateEnv", command: "/store/venv/bin/python", args: ["-m", "rubric_lsp", "serve"], python: "/store/venv/bin/python" });
  const onPath = await chooseLaunch({ envPath: "/usr/bin", privateEnvPython: "/store/venv/bin/python" }, probes(["/usr/bin/rubric-lsp"], { "/store/venv/bin/python": OK }));
  assert.equal(onPath.chosen?.source, "PATH");
  const broken = await chooseLaunch({ envPath: "/usr/bin", privateEnvPython: "/store/venv/bin/python" }, probes([], { "/store/venv/bin/python": MISSING }));
  assert.equal(broken.chosen, undefined);
  assert.equal(broken.offerInstall, true);
});

test("explicit settings never lead to the install offer", async () => {
  const a = await chooseLaunch({ path: "/nope" }, probes([], {}));
  const b = await chooseLaunch({ interpreter: "/py" }, probes([], { "/py": MISSING }));
  assert.equal(a.offerInstall, undefined);
  assert.equal(b.offerInstall, undefined);
});

test("console scripts are checked through the Python of their shebang", () => {
  assert.equal(pythonFromShebang("#!/home/u/.venv/bin/python3"), "/home/u/.venv/bin/python3");
  assert.equal(pythonFromShebang("#!/usr/bin/env python3.12"), "python3.12");
  assert.equal(pythonFromShebang("#!C:\\Py\\python.exe"), "C:\\Py\\python.exe");
  assert.equal(pythonFromShebang("#!/usr/bin/env bash"), undefined);
  assert.equal(pythonFromShebang("\u007fELF"), undefined);
  assert.deepEqual(interpretVersionOutput(0, "rubric-lsp 0.1.0\n"), { ok: true });
  assert.equal(interpretVersionOutput(0, "something else 1.0\n").ok, false);
  assert.equal(interpretVersionOutput(2, "").ok, false);
  assert.equal(interpretVersionOutput(null, "", "ENOENT").ok, false);
});

test("untrusted workspace: the Python extension's interpreter is neither probed nor launched", async () => {
  // The Python extension's interpreter is often the workspace's own .venv: a file the workspace carries.
  const p = probes(["/usr/bin/rubric-lsp"], { "/ws/.venv/bin/python": OK });
  const c = await chooseLaunch({ pythonExtensionInterpreter: "/ws/.venv/bin/python", envPath: "/usr/bin", trusted: false }, p);
  assert.deepEqual(c.chosen, { source: "PATH", command: "/usr/bin/rubric-lsp", args: [] });
  assert.ok(!p.calls.some((call) => call.includes("/ws/.venv")), p.calls.join(", "));
  const trustedChoice = await chooseLaunch({ pythonExtensionInterpreter: "/ws/.venv/bin/python", envPath: "/usr/bin" }, probes([], { "/ws/.venv/bin/python": OK }));
  assert.equal(trustedChoice.chosen?.source, "pythonExtension");
});

test("untrusted workspace: relative PATH entries (the workspace's folders) are not searched", async () => {
  const p = probes(["./bin/rubric-lsp", "/usr/bin/rubric-lsp"], {});
  const c = await chooseLaunch({ envPath: "./bin:/usr/bin", trusted: false }, p);
  assert.equal(c.chosen?.command, "/usr/bin/rubric-lsp");
  assert.ok(!p.calls.includes("exe:./bin/rubric-lsp"));
  const none = await chooseLaunch({ envPath: "./bin", trusted: false, pythonExtensionInterpreter: "/ws/.venv/bin/python" }, probes(["./bin/rubric-lsp"], {}));
  assert.equal(none.chosen, undefined);
  assert.ok(!none.installCommand?.includes("/ws/.venv"));
});
