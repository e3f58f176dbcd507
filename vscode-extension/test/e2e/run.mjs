// End-to-end test in a real VS Code: code-server (npm) with the built .vsix installed,
// driven by Debian's Chromium through playwright-core. Steps:
//   1. open a bad rubric -> error squiggle + Problems rows with their codes (AR001/AR103)
//   2. apply the quick fix -> the problems disappear
//   3. "Rubric: Grade Selection" on a response file against a judge on 127.0.0.1 -> verdict hints;
//      typing above the graded criterion keeps its verdict on it (real server only)
//   4. "Rubric: Grade Examples" -> a lens per example, unmet expectations in Problems; saving
//      the rubric grades its examples again (rubric.gradeOnSave; real server only)
//   5. "Rubric: Set API Key" -> the judge receives the key as its bearer token; the key is
//      in neither the Output channel nor the judge's log (real server only)
//   6. issue 14 (grading-formats.mjs): Grade Selection / Grade Examples for a promptfoo test, a
//      NorthStar grader, an autorubric rubric and a dataset; every verdict kind coloured; rubric
//      text never graded as a response; "Grading n/N" and cancel (RUBRIC_E2E_STEPS=formats: only these)
//   7. issue 28 (calibration.mjs): a dataset calibrated with `rubric calibrate`, one word of a criterion
//      changed -> RL020 stale in Problems, the record's figures in the hover (real server only;
//      RUBRIC_E2E_STEPS=calibration: only this)
// Screenshots go to test/e2e/artifacts/. Exits 0 with "SKIPPED: reason" when the
// rubric-lsp server cannot be started (`python -m rubric_lsp serve`) or Chromium is
// missing — exit 1 instead when RUBRIC_REQUIRE_ALL=1 (CI). The grading step is skipped
// (with a "SKIPPED (grading)" line) while the server does not offer rubric-lsp.gradeText.
//
// --install: a profile where nothing was pip-installed; the extension offers to install the
// server from the wheel in the .vsix (steps in install.mjs).
//
// Usage: node test/e2e/run.mjs [--fake-server] [--untrusted] [--install] [--keep]
//   env RUBRIC_E2E_PYTHON   python with rubric-lsp installed (default: python3)
//   env RUBRIC_E2E_CACHE    where code-server is installed (default: ~/.cache/rubric-lsp-e2e)
//   env RUBRIC_E2E_VSIX     the .vsix to install (default: ./rubric-lsp.vsix)
//   env CHROMIUM            browser binary (default: /usr/lib/chromium/chromium or /usr/bin/chromium)
// --untrusted opens the folder in Restricted Mode, with workspace settings that try to
// start another executable and grade on save: only diagnostics may happen.
// --fake-server runs a Node stand-in for the server (fake-server.cjs): it checks the
// extension and this harness only, never the Python server.
import { spawn, spawnSync, execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { calibrate, calibrationSteps, writeCalibrationFixtures } from "./calibration.mjs";
import { gradingFormats, judgeArgs, writeFixtures } from "./grading-formats.mjs";
import { installScenario, prepareInstallProfile } from "./install.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const extRoot = path.resolve(here, "..", "..");
const repoRoot = path.resolve(extRoot, "..");
const args = new Set(process.argv.slice(2));
const FAKE = args.has("--fake-server");
// RUBRIC_E2E_STEPS=formats: only the issue-14 grading steps (grading-formats.mjs), after the server is set up
const ONLY_FORMATS = process.env.RUBRIC_E2E_STEPS === "formats";
// RUBRIC_E2E_STEPS=calibration: only the issue-28 calibration step (calibration.mjs)
const ONLY_CALIBRATION = process.env.RUBRIC_E2E_STEPS === "calibration";
const UNTRUSTED = args.has("--untrusted"); // Restricted Mode: diagnostics only
const INSTALL = args.has("--install"); // no Python package installed: the extension installs the server
const CODE_SERVER_VERSION = "4.100.3"; // VS Code 1.100; runs on Node 20
const cache = process.env.RUBRIC_E2E_CACHE || path.join(os.homedir(), ".cache", "rubric-lsp-e2e");
const artifacts = path.join(here, "artifacts", (FAKE ? "fake-server" : "rubric-lsp") + (UNTRUSTED ? "-untrusted" : "") + (INSTALL ? "-install" : ""));
const python = process.env.RUBRIC_E2E_PYTHON || "python3";
const vsix = process.env.RUBRIC_E2E_VSIX || path.join(extRoot, "rubric-lsp.vsix");
const t0 = Date.now();
const children = [];
let failures = 0;
let passes = 0;

const log = (...a) => console.log(`[e2e +${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

function cleanup() {
  for (const c of children) {
    try { process.kill(-c.pid, "SIGTERM"); } catch { try { c.kill("SIGTERM"); } catch {} }
  }
}
process.on("exit", cleanup);
process.on("SIGINT", () => process.exit(130));
process.on("SIGTERM", () => process.exit(143));

function skip(reason) {
  if (process.env.RUBRIC_REQUIRE_ALL === "1") {
    // CI promises every optional-tool test runs: a skip there is a failure
    console.log(`FAILED (RUBRIC_REQUIRE_ALL=1, would skip): ${reason}`);
    console.log("e2e: 0 passed, 1 failed");
    process.exit(1);
  }
  console.log(`SKIPPED: ${reason}`);
  process.exit(0);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
    s.on("error", reject);
  });
}

async function waitForHttp(url, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try { const r = await fetch(url); if (r.status < 500) return; } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${url}`);
}

/** Does `python -m rubric_lsp serve` answer an LSP initialize? Returns its capabilities or a reason. */
async function probeServer(cmd, cmdArgs, env) {
  return new Promise((resolve) => {
    const p = spawn(cmd, cmdArgs, { env, stdio: ["pipe", "pipe", "pipe"] });
    let out = Buffer.alloc(0), err = "";
    const timer = setTimeout(() => { p.kill("SIGKILL"); resolve({ ok: false, reason: `no answer to initialize within 30 s; stderr: ${err.trim().slice(-300)}` }); }, 30000);
    p.on("error", (e) => { clearTimeout(timer); resolve({ ok: false, reason: String(e) }); });
    p.on("exit", (code) => { clearTimeout(timer); resolve({ ok: false, reason: `exited with ${code}: ${err.trim().split("\n").slice(-1)[0] || ""}` }); });
    p.stderr.on("data", (d) => (err += d));
    p.stdout.on("data", (d) => {
      out = Buffer.concat([out, d]);
      const s = out.toString("utf8");
      const i = s.indexOf("\r\n\r\n");
      if (i < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(s.slice(0, i))?.[1]);
      const body = out.subarray(Buffer.byteLength(s.slice(0, i + 4))).toString("utf8");
      if (Buffer.byteLength(body) < len) return;
      clearTimeout(timer);
      p.removeAllListeners("exit");
      try { p.kill("SIGKILL"); } catch {}
      try { resolve({ ok: true, capabilities: JSON.parse(body).result.capabilities }); } catch (e) { resolve({ ok: false, reason: `bad initialize answer: ${e}` }); }
    });
    const msg = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { processId: null, rootUri: null, capabilities: {} } });
    p.stdin.write(`Content-Length: ${Buffer.byteLength(msg)}\r\n\r\n${msg}`);
  });
}

function check(cond, what) {
  if (cond) { passes++; log(`PASS ${what}`); } else { failures++; log(`FAIL ${what}`); }
  return cond;
}

// ------------------------------------------------------------------ preconditions
const chromium = process.env.CHROMIUM || ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].find((p) => fs.existsSync(p));
if (!chromium) skip("Debian chromium is not installed (apt-get install -y chromium)");
if (!fs.existsSync(vsix)) { console.error(`no ${vsix}: run npm run package first`); process.exit(1); }

let serverCmd, serverArgs;
const serverEnv = { ...process.env, LITELLM_LOCAL_MODEL_COST_MAP: "True", OPENAI_API_KEY: "sk-e2e-fake" };
if (FAKE) {
  serverCmd = process.execPath; serverArgs = [path.join(here, "fake-server.cjs"), "--stdio"];
  serverEnv.NODE_PATH = path.join(extRoot, "node_modules");
} else {
  serverCmd = python; serverArgs = ["-m", "rubric_lsp", "serve"];
}
const probe = await probeServer(serverCmd, serverArgs, serverEnv);
if (!probe.ok) skip(`the rubric-lsp server does not start (${[serverCmd, ...serverArgs].join(" ")}): ${probe.reason}`);
const serverCommands = probe.capabilities.executeCommandProvider?.commands ?? [];
log(`server answers initialize; commands: ${serverCommands.join(", ") || "none"}`);

// ------------------------------------------------------------------ code-server
log("installing code-server (cached)…");
const codeServer = execFileSync("bash", [path.join(here, "install-code-server.sh"), cache, CODE_SERVER_VERSION], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim().split("\n").pop();
const { chromium: pw } = await import("playwright-core");

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rubric-e2e-"));
const userData = path.join(tmp, "user-data"), extDir = path.join(tmp, "extensions"), ws = path.join(tmp, "workspace");
fs.mkdirSync(path.join(userData, "User"), { recursive: true });
fs.mkdirSync(ws, { recursive: true });
fs.rmSync(artifacts, { recursive: true, force: true });
fs.mkdirSync(artifacts, { recursive: true });

log("installing the vsix…");
const inst = spawnSync(codeServer, ["--user-data-dir", userData, "--extensions-dir", extDir, "--install-extension", vsix], { encoding: "utf8", timeout: 120000 });
if (!check(inst.status === 0, "code-server --install-extension rubric-lsp.vsix")) { console.error(inst.stdout, inst.stderr); process.exit(1); }

// the judge: the Python project's scripted judge when present, else ours
const judgePort = await freePort();
const judgeScript = path.join(repoRoot, "tests", "judge_server.py");
const useRepoJudge = !FAKE && fs.existsSync(judgeScript) && !process.env.RUBRIC_E2E_NODE_JUDGE;
const judge = useRepoJudge
  ? spawn(python, [judgeScript, "--port", String(judgePort), "--log", path.join(artifacts, "judge-requests.jsonl"), "--reply-json", JSON.stringify({ criterion_status: "MET", explanation: "The response satisfies the criterion." }), ...judgeArgs()], { stdio: ["ignore", "pipe", "pipe"], detached: true })
  : spawn(process.execPath, [path.join(here, "fake-judge.mjs"), String(judgePort)], { stdio: ["ignore", "pipe", "pipe"], detached: true });
children.push(judge);
judge.stderr.on("data", (d) => fs.appendFileSync(path.join(artifacts, "judge.log"), d));
judge.stdout.on("data", (d) => fs.appendFileSync(path.join(artifacts, "judge.log"), d));
await waitForHttp(`http://127.0.0.1:${judgePort}/v1/models`, 20000).catch(() => {});
log(`judge on 127.0.0.1:${judgePort} (${useRepoJudge ? "tests/judge_server.py" : "fake-judge.mjs"})`);

// workspace: a bad rubric and a response
fs.writeFileSync(path.join(ws, "bad.rubric.yaml"), [
  "rubric:",
  "  - name: clarity",
  "    weight: 10",
  "    requirment: The answer is clear and direct",
  "",
].join("\n"));
fs.writeFileSync(path.join(ws, "response.md"), "Paris is the capital of France.\n");
// a rubric with examples: the judge (always MET) meets one expectation and misses the other
fs.writeFileSync(path.join(ws, "examples.rubric.yaml"), [
  "rubric:",
  "  - name: greets",
  "    requirement: Greets the user by name",
  "  - name: concise",
  "    requirement: Is at most two sentences long",
  "examples:",
  "  - name: polite",
  "    response: Hello Ana! Bye.",
  "    expect: {min_score: 1.0}",
  "  - name: strict",
  "    response: Hello Ana. Let me tell you a long story. It goes on.",
  "    expect: {verdicts: {concise: UNMET}}",
  "",
].join("\n"));
writeFixtures(ws); // grading-formats.mjs: a promptfoo config, a NorthStar request, rubrics, a dataset
// the calibration step's dataset, calibrated now against the judge (its requests precede every grading's)
const CALIBRATE = !FAKE && !UNTRUSTED && !INSTALL;
let calibrationRecord;
if (CALIBRATE) {
  writeCalibrationFixtures(ws);
  calibrationRecord = calibrate({ ws, tmp, python, judgePort, log });
}
// a type error that a validating JSON Schema would report too (double reporting check)
fs.writeFileSync(path.join(ws, "typed.rubric.json"), '[\n  {"name": "clarity", "weight": "ten", "requirement": "The answer is clear"}\n]\n');

let serverSetting;
if (FAKE) {
  const wrapper = path.join(tmp, "fake-rubric-lsp");
  fs.writeFileSync(wrapper, `#!/bin/sh\nNODE_PATH='${serverEnv.NODE_PATH}' exec '${process.execPath}' '${path.join(here, "fake-server.cjs")}' --stdio\n`, { mode: 0o755 });
  serverSetting = { "rubric.server.path": wrapper };
} else {
  const exe = execFileSync(python, ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
  serverSetting = { "rubric.server.interpreter": exe };
}
// first a Python without rubric-lsp (-S: no site-packages): the extension must say how to install it
const noServerPython = path.join(tmp, "python-without-rubric-lsp");
fs.writeFileSync(noServerPython, `#!/bin/sh\nexec '${python}' -S "$@"\n`, { mode: 0o755 });
const settingsFile = path.join(userData, "User", "settings.json");
const writeSettings = (server) => fs.writeFileSync(settingsFile, JSON.stringify({
  ...server,
  "rubric.judge.model": "openai/fake-judge",
  "rubric.judge.apiBase": `http://127.0.0.1:${judgePort}/v1`,
  "rubric.cache.enabled": false,
  "rubric.gradeOnSave": true,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "security.workspace.trust.enabled": UNTRUSTED,
  "security.workspace.trust.startupPrompt": "never",
  "editor.inlayHints.enabled": "on",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "chat.disableAIFeatures": true,
  "window.commandCenter": false,
}, null, 2));
const installProfile = INSTALL ? prepareInstallProfile({ tmp, python, cache, extRoot, baseEnv: process.env, log }) : undefined;
writeSettings(UNTRUSTED ? serverSetting : INSTALL ? {} : { "rubric.server.interpreter": noServerPython });
const evilMarker = path.join(tmp, "workspace-setting-ran");
if (UNTRUSTED) {
  const evil = path.join(tmp, "workspace-chosen-server");
  fs.writeFileSync(evil, `#!/bin/sh\ntouch '${evilMarker}'\nexit 1\n`, { mode: 0o755 });
  fs.mkdirSync(path.join(ws, ".vscode"), { recursive: true });
  fs.writeFileSync(path.join(ws, ".vscode", "settings.json"), JSON.stringify({
    "rubric.server.path": evil, "rubric.server.interpreter": evil, "rubric.gradeOnSave": true,
    "rubric.judge.apiBase": `http://127.0.0.1:${judgePort}/v1`,
  }, null, 2));
}
const judgeRequests = () => {
  let n = 0;
  for (const f of ["judge.log", "judge-requests.jsonl"]) {
    try { n += fs.readFileSync(path.join(artifacts, f), "utf8").split("\n").filter((l) => /REQUEST|chat\/completions|"messages"/.test(l)).length; } catch {}
  }
  return n;
};

const port = await freePort();
log(`starting code-server on 127.0.0.1:${port}`);
const cs = spawn(codeServer, [
  "--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--disable-telemetry", "--disable-update-check",
  ...(UNTRUSTED ? [] : ["--disable-workspace-trust"]), "--user-data-dir", userData, "--extensions-dir", extDir, ws,
], { env: { ...(installProfile?.env ?? process.env), OPENAI_API_KEY: "sk-e2e-fake", LITELLM_LOCAL_MODEL_COST_MAP: "True" }, stdio: ["ignore", "pipe", "pipe"], detached: true });
children.push(cs);
cs.stdout.on("data", (d) => fs.appendFileSync(path.join(artifacts, "code-server.log"), d));
cs.stderr.on("data", (d) => fs.appendFileSync(path.join(artifacts, "code-server.log"), d));
await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60000);

const browser = await pw.launch({
  executablePath: chromium,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
const shot = async (name) => { await page.screenshot({ path: path.join(artifacts, `${name}.png`) }); log(`screenshot ${name}.png`); };
const problemRows = async () => page.locator(".markers-panel .monaco-list-row").allInnerTexts();
const waitUntil = async (condition, ms) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
    if (condition()) return true;
  }
  return condition();
};

try {
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: 60000 });
  await page.waitForTimeout(1500);
  log("workbench loaded");

  if (UNTRUSTED) {
    await untrustedScenario();
    throw "done";
  }
  if (INSTALL) {
    await installScenario({ page, check, shot, log, runCommand, openFile, problemRows, userData, judgeRequests, env: installProfile.env });
    throw "done";
  }

  // 0. no usable server: a clear message with the install command; then fixing the
  //    setting restarts the server (settings change -> restart)
  const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "pip install" }).first();
  const toastShown = await toast.waitFor({ timeout: 60000 }).then(() => true, () => false);
  const toastText = toastShown ? await toast.locator(".notification-list-item-message").first().innerText() : "";
  log(`missing-server message: ${JSON.stringify(toastText)}`);
  // offline-correct (issue 35 item 5): the wheel inside the .vsix, never a git+https URL
  check(toastShown && /-m pip install \S*bundled\/rubric_lsp-\S+\.whl/.test(toastText) && !/git\+https/.test(toastText), "missing server: message with the install command (the .vsix's wheel, no URL)");
  await shot("00-missing-server-message");
  await page.keyboard.press("Escape");
  // fix it in the Settings editor, as a user would; the extension restarts the server
  for (const [key, value] of Object.entries(serverSetting)) await setSetting(key, value);
  if (process.env.RUBRIC_E2E_DEBUG) { await page.waitForTimeout(3000); await runCommand("Rubric: Show Output"); await page.waitForTimeout(1000); await shot("00b-output"); }
  const formatSteps = () => gradingFormats({ page, artifacts, check, log, shot, runCommand, openFile, FAKE, serverCommands, settingsFile, python, judgeScript, useRepoJudge, children });
  if (ONLY_FORMATS) {
    await page.waitForTimeout(5000); // the restarted server
    await formatSteps();
    throw "done";
  }
  const calibrationStep = () => calibrationSteps({ page, check, log, shot, openFile, problemRows, runCommand, ws, record: calibrationRecord });
  if (ONLY_CALIBRATION) {
    if (CALIBRATE) await calibrationStep();
    throw "done";
  }

  async function runCommand(title) {
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: 10000 });
    await input.fill(`>${title}`);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor({ timeout: 10000 });
    // the command titled exactly so ("Grade Selection", not a recently used "Grade Selection Against…")
    const exact = page.locator(".quick-input-list .monaco-list-row", { has: page.locator(".label-name", { hasText: new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) }) }).first();
    if (await exact.count()) await exact.click();
    else await page.keyboard.press("Enter");
  }
  async function setSetting(key, value) {
    await runCommand("Preferences: Open User Settings");
    await page.locator(".settings-editor").waitFor({ timeout: 15000 });
    await page.waitForTimeout(500);
    await page.keyboard.type(key);
    // machine-overridable settings are edited in the "Remote" tab under code-server
    const remoteTab = page.locator(".settings-editor .settings-tabs-widget .action-label", { hasText: "Remote" }).first();
    if (await remoteTab.count()) await remoteTab.click();
    const row = page.locator(".settings-editor .setting-item-contents", { hasText: key.split(".").pop().replace(/^./, (c) => c.toUpperCase()) }).first();
    await row.waitFor({ timeout: 15000 });
    const input = row.locator("input").first();
    await input.click();
    await input.fill(String(value));
    await page.keyboard.press("Tab");
    await page.waitForTimeout(800);
    await shot(`00-setting-${key}`);
    await page.keyboard.press("Control+W");
  }
  async function untrustedScenario() {
    await openFile("bad.rubric.yaml");
    const squiggle = await page.waitForSelector(".squiggly-error", { timeout: 90000 }).then(() => true, () => false);
    check(squiggle, "Restricted Mode: diagnostics still appear (error squiggle)");
    await page.keyboard.press("Control+Shift+M");
    await page.locator(".markers-panel .monaco-list-row", { hasText: "AR001" }).first().waitFor({ timeout: 20000 }).catch(() => {});
    const rows = await problemRows();
    check(rows.some((r) => /AR001/.test(r)), "Restricted Mode: Problems entry with code AR001");
    const badge = await page.locator(".statusbar-item", { hasText: "lint only" }).count();
    check(badge > 0, "Restricted Mode: status bar says lint only");
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: 10000 });
    await input.fill(">Rubric: ");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Rubric: Restart Server" }).first().waitFor({ timeout: 10000 });
    const titles = await page.locator(".quick-input-list .monaco-list-row").allInnerTexts();
    log(`palette in Restricted Mode: ${JSON.stringify(titles.map((t) => t.split("\n")[0]))}`);
    check(!titles.some((t) => /Grade Selection|Grade Examples|Set API Key/.test(t)), "Restricted Mode: no grading commands in the palette");
    await page.keyboard.press("Escape");
    await page.locator(".monaco-editor textarea").first().focus();
    await page.keyboard.type(" ");
    await page.keyboard.press("Control+S"); // gradeOnSave is true in the workspace settings
    await page.waitForTimeout(4000);
    await shot("u1-restricted-mode");
    check(!fs.existsSync(evilMarker), "Restricted Mode: the workspace's rubric.server.path was not run");
    check(judgeRequests() === 0, `Restricted Mode: no judge calls (saw ${judgeRequests()})`);
  }
  async function openFile(name) {
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: 10000 });
    await input.fill(name);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: name }).first().waitFor({ timeout: 15000 });
    await page.keyboard.press("Enter");
    await page.locator(`.tab[aria-label^="${name}"]`).first().waitFor({ timeout: 15000 });
    await page.waitForTimeout(500);
  }

  // 1. bad rubric: squiggle + Problems entry with its code
  await openFile("bad.rubric.yaml");
  const squiggle = await page.waitForSelector(".squiggly-error", { timeout: 90000 }).then(() => true, () => false);
  check(squiggle, "error squiggle on the bad rubric");
  await page.keyboard.press("Control+Shift+M");
  await page.locator(".markers-panel .monaco-list-row").first().waitFor({ timeout: 20000 }).catch(() => {});
  await page.waitForTimeout(1000);
  let rows = await problemRows();
  log(`problems: ${JSON.stringify(rows)}`);
  check(rows.some((r) => /AR001/.test(r)), "Problems entry with code AR001 (unknown key)");
  check(rows.some((r) => /rubric-lint/.test(r)), "Problems entries come from source rubric-lint");
  await shot("01-bad-rubric-problems");

  // 2. quick fix on the `requirment` key
  const fixRow = page.locator(".markers-panel .monaco-list-row", { hasText: "AR001" }).first();
  await fixRow.click();   // reveals the problem in the editor, cursor on the key
  await page.waitForTimeout(500);
  await page.locator(".monaco-editor textarea").first().focus();
  await page.keyboard.press("Control+.");
  const action = page.locator(".action-widget .monaco-list-row", { hasText: /requirement/i }).first();
  const haveAction = await action.waitFor({ timeout: 20000 }).then(() => true, () => false);
  check(haveAction, "quick fix offered for AR001");
  await shot("02-quick-fix-menu");
  if (haveAction) {
    // the action widget has a pointer-block overlay: choose with the keyboard
    for (let i = 0; i < 10; i++) {
      const focused = await page.locator(".action-widget .monaco-list-row.focused").first().getAttribute("aria-label").catch(() => "");
      if (/requirement/i.test(focused || "")) break;
      await page.keyboard.press("ArrowDown");
    }
    await page.keyboard.press("Enter");
  }
  const gone = await page.waitForFunction(
    () => ![...document.querySelectorAll(".markers-panel .monaco-list-row")].some((r) => /AR001|AR103/.test(r.textContent || "")),
    null, { timeout: 30000 },
  ).then(() => true, () => false);
  rows = await problemRows();
  check(gone, `problems disappear after the quick fix (left: ${JSON.stringify(rows)})`);
  const squigglesLeft = await page.locator(".squiggly-error").count();
  check(squigglesLeft === 0, "no error squiggle after the quick fix");
  await page.keyboard.press("Control+S");
  await shot("03-after-quick-fix");

  // 2b. JSON rubric: the problem is reported once, by rubric-lint (the schema we
  //     contribute through jsonValidation is completion-only)
  if (!FAKE) {
    await openFile("typed.rubric.json");
    const linted = await page.waitForFunction(
      () => [...document.querySelectorAll(".markers-panel .monaco-list-row")].some((r) => /rubric-lint/.test(r.textContent || "")),
      null, { timeout: 30000 },
    ).then(() => true, () => false);
    await page.waitForTimeout(3000); // give VS Code's JSON service time to validate too
    const items = (await problemRows()).filter((r) => !/^typed\.rubric\.json/.test(r));
    log(`problems for typed.rubric.json: ${JSON.stringify(items)}`);
    check(linted && items.length > 0 && items.every((r) => /rubric-lint/.test(r)), "JSON rubric type error reported once, only by rubric-lint");
    await shot("03b-json-rubric-single-report");
  }

  // 3. Grade Selection against the judge on 127.0.0.1
  if (!serverCommands.includes("rubric-lsp.gradeSelection")) {
    console.log("SKIPPED (grading): the server does not offer rubric-lsp.gradeSelection yet");
  } else {
    await openFile("response.md");
    await page.locator(".monaco-editor textarea").first().focus();
    await page.keyboard.press("Control+A");
    await runCommand("Rubric: Grade Selection");
    // the active file is not a rubric: pick one from the workspace
    const pick = page.locator(".quick-input-list .monaco-list-row", { hasText: "bad.rubric.yaml" }).first();
    if (await pick.waitFor({ timeout: 15000 }).then(() => true, () => false)) {
      await pick.click();
    }
    const hint = await page.waitForFunction(
      () => [...document.querySelectorAll(".view-lines")].some((v) => /(✓|✗|\?|⚠)\s*(MET|UNMET|CANNOT_ASSESS|clarity)|judge error/.test(v.textContent || "")),
      null, { timeout: 120000 },
    ).then(() => true, () => false);
    await page.waitForTimeout(500);
    const hintText = await page.evaluate(() => [...document.querySelectorAll(".view-line")].map((v) => v.textContent).filter((t) => /MET|UNMET|CANNOT_ASSESS|judge error|✓|✗/.test(t || "")));
    log(`verdict lines: ${JSON.stringify(hintText)}`);
    check(hint, "verdict inlay hints appear after Grade Selection");
    check(hintText.some((t) => /✓\s*(MET|clarity)/.test(t)), "the judge's MET verdict is shown");
    const lens = await page.locator(".codelens-decoration", { hasText: /score/i }).first().waitFor({ timeout: 15000 }).then(() => true, () => false);
    check(lens, `score code lens on the rubric (${lens ? await page.locator(".codelens-decoration", { hasText: /score/i }).first().innerText() : "none"})`);
    check(judgeRequests() > 0, `the judge on 127.0.0.1 was called (${judgeRequests()} request(s))`);
    await shot("04-grade-selection-verdicts");
    if (!FAKE) {
      // Typing above the criterion (VS Code sends incremental changes): its verdict moves with it.
      // VS Code shifts hints locally at once; the server's answer to the next inlay-hint request
      // is what must keep it there, hence the pause before looking.
      // (Grade Selection opened the rubric beside the response: click into that editor.)
      const graded = page.locator(".monaco-editor", { hasText: "MET" }).first();
      await graded.locator(".view-line", { hasText: "rubric:" }).first().click();
      await page.keyboard.press("Control+Home");
      await page.keyboard.type("# reviewed by the team\n");
      await page.waitForTimeout(2500);
      const followed = await page.waitForFunction(() => {
        const lines = [...document.querySelectorAll(".view-line")].map((v) => (v.textContent || "").replace(/\u00a0/g, " "));
        return lines.some((t) => /^\s*- name: clarity.*✓\s*(MET|clarity)/.test(t)) && !lines.some((t) => /^(rubric:|# reviewed).*(MET|✓)/.test(t));
      }, null, { timeout: 20000 }).then(() => true, () => false);
      const now = await page.evaluate(() => [...document.querySelectorAll(".view-line")].map((v) => v.textContent).filter((t) => /MET/.test(t || "")));
      check(followed, `the verdict stays on its criterion after typing above it (${JSON.stringify(now)})`);
      await shot("04b-verdict-followed-the-edit");
    }
    // Clear Verdicts: the hints go away
    await runCommand("Rubric: Clear Verdicts");
    const cleared = await page.waitForFunction(
      () => ![...document.querySelectorAll(".view-lines")].some((v) => /(✓|✗)\s*(MET|UNMET|clarity)/.test(v.textContent || "")),
      null, { timeout: 20000 },
    ).then(() => true, () => false);
    check(cleared, "Clear Verdicts removes the verdict hints");
    await shot("05-verdicts-cleared");

    if (!FAKE) {
      // 4. Grade Examples: a lens per example with its score and expectation, an unmet
      //    expectation in Problems; then saving the rubric grades its examples again (gradeOnSave).
      await openFile("examples.rubric.yaml");
      const before = judgeRequests();
      await runCommand("Rubric: Grade Examples");
      const exampleLens = (text) => page.locator(".codelens-decoration", { hasText: text }).first().waitFor({ timeout: 90000 }).then(() => true, () => false);
      check(await exampleLens(/polite: score 1\.00 ✓ as expected/), "Grade Examples: lens 'polite: score 1.00 ✓ as expected'");
      check(await exampleLens(/strict: score 1\.00 ✗ expectation not met/), "Grade Examples: lens 'strict: … ✗ expectation not met'");
      const graded = judgeRequests() - before;
      check(graded === 4, `Grade Examples: one judge call per criterion and example (${graded}, expected 4)`);
      await page.keyboard.press("Control+Shift+M");
      const unmet = await page.locator(".markers-panel .monaco-list-row", { hasText: "Example 'strict'" }).first().waitFor({ timeout: 20000 }).then(() => true, () => false);
      check(unmet, `the unmet expectation is listed in Problems (${JSON.stringify(await problemRows())})`);
      await shot("06-grade-examples");
      await page.locator(".monaco-editor", { hasText: "examples:" }).first().locator(".view-line", { hasText: "examples:" }).first().click();
      await page.keyboard.press("End");
      await page.keyboard.type("  # reviewed");
      await page.keyboard.press("Control+S");
      const regraded = await waitUntil(() => judgeRequests() - before >= 8, 90000);
      check(regraded, `grade on save: the examples were graded again (${judgeRequests() - before - graded} more judge calls)`);
      check(await exampleLens(/polite: score 1\.00 ✓ as expected/), "grade on save: the example lenses are shown after the new grading");
      await shot("07-grade-on-save");

      // 5. Set API Key: stored in VS Code's secret storage, handed to the restarted server, sent
      //    to the judge as the bearer token, and written nowhere (Output, judge log).
      const secret = "sk-e2e-SECRET-4f2a9c0d1b8e7a6f";
      const authorizations = () => {
        try {
          return fs.readFileSync(path.join(artifacts, "judge-requests.jsonl"), "utf8").split("\n").filter(Boolean)
            .map((line) => JSON.parse(line).authorization_sha256);
        } catch { return []; }
      };
      const sha256 = (text) => crypto.createHash("sha256").update(text).digest("hex");
      check(authorizations().length > 0 && authorizations().every((h) => h !== sha256(`Bearer ${secret}`)), "before Set API Key: the judge never saw the key");
      await runCommand("Rubric: Set API Key");
      await page.locator(".quick-input-list .monaco-list-row", { hasText: "OPENAI_API_KEY" }).first().click();
      const keyInput = page.locator(".quick-input-widget input[type=password]");
      await keyInput.waitFor({ timeout: 10000 });
      await keyInput.fill(secret);
      await page.keyboard.press("Enter");
      const stored = await page.locator(".notifications-toasts", { hasText: "OPENAI_API_KEY stored" }).first().waitFor({ timeout: 20000 }).then(() => true, () => false);
      check(stored, "Set API Key: 'OPENAI_API_KEY stored; the server was restarted'");
      const sent = authorizations().length;
      await openFile("examples.rubric.yaml");
      await runCommand("Rubric: Grade Examples");
      const regradedWithKey = await waitUntil(() => authorizations().length >= sent + 4, 90000);
      const withKey = authorizations().slice(sent);
      check(regradedWithKey && withKey.every((h) => h === sha256(`Bearer ${secret}`)), `the judge received the stored key as its bearer token (${withKey.length} request(s))`);
      check(await exampleLens(/polite: score 1\.00 ✓ as expected/), "after the server restart: the example lenses are shown again");
      // Every log VS Code wrote (the Rubric output channel is logs/*/exthost1/*/Rubric.log) and the workspace.
      const files = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? files(path.join(dir, e.name)) : e.isFile() ? [path.join(dir, e.name)] : []);
      const written = [...files(path.join(userData, "logs")), ...files(ws)];
      const rubricLog = written.find((f) => f.endsWith("Rubric.log"));
      const leaks = written.filter((f) => fs.readFileSync(f, "latin1").includes(secret));
      check(rubricLog && fs.statSync(rubricLog).size > 0 && leaks.length === 0,
        `the key is in none of the ${written.length} log and workspace files, the Rubric output channel's log included (leaks: ${JSON.stringify(leaks)})`);
      const judgeLog = ["judge.log", "judge-requests.jsonl"].map((f) => { try { return fs.readFileSync(path.join(artifacts, f), "utf8"); } catch { return ""; } }).join("");
      check(!judgeLog.includes(secret), "the key is not in the judge's request log");
      await shot("08-api-key-set");
    }
    // 6. issue 14: every format, every verdict kind, progress and cancel (grading-formats.mjs)
    await formatSteps();
  }
  // 7. issue 28: a stale calibration record, RL020 in Problems and the record in the hover (last: run
  //    before step 3, it broke that step's search for the graded editor by its text "MET")
  if (CALIBRATE) await calibrationStep();
} catch (e) {
  if (e !== "done") {
    failures++;
    log(`ERROR ${e && e.stack || e}`);
    await shot("99-error").catch(() => {});
  }
} finally {
  await browser.close().catch(() => {});
  if (!args.has("--keep")) fs.rmSync(tmp, { recursive: true, force: true });
}
const secs = ((Date.now() - t0) / 1000).toFixed(1);
console.log(`e2e (${FAKE ? "fake server" : "rubric-lsp server"}${UNTRUSTED ? ", Restricted Mode" : ""}${INSTALL ? ", installed by the extension" : ""}) took ${secs}s; screenshots in ${path.relative(process.cwd(), artifacts) || artifacts}`);
console.log(`e2e: ${passes} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
