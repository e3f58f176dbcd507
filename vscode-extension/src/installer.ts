/**
 * VS Code glue for the private environment (pure parts in install.ts): the offer to install
 * when no server is found, the install with progress, and `[grade]` when the user first grades.
 */
import * as cp from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";
import {
  BASE_PYTHON_PROBE_SCRIPT,
  BaseProbe,
  GRADE_EXTRA_PROBE_SCRIPT,
  INSTALLED_VERSION_SCRIPT,
  Step,
  baseCandidates,
  chooseBasePython,
  gradeOrBaseStep,
  installSteps,
  interpretBaseProbe,
  offerMessage,
  pickWheel,
  tail,
  venvPaths,
  wheelVersion,
} from "./install";
import { pythonFromShebang, interpretVersionOutput, ProbeResult } from "./launch";

function run(command: string, args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string; error?: string }> {
  return new Promise((resolve) => {
    cp.execFile(command, args, { timeout: timeoutMs, windowsHide: true, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: unknown }) | null;
      if (e && typeof e.code === "string") return resolve({ code: null, stdout, stderr, error: e.code });
      resolve({ code: e ? (typeof e.code === "number" ? e.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The private environment's python when that environment exists. */
export function privateEnvPython(ctx: vscode.ExtensionContext): string | undefined {
  const { python } = venvPaths(ctx.globalStorageUri.fsPath, process.platform);
  return fs.existsSync(python) ? python : undefined;
}

/** The rubric-lsp wheel shipped in the .vsix (`bundled/`), if any. */
export function bundledWheel(ctx: vscode.ExtensionContext): string | undefined {
  const dir = path.join(ctx.extensionPath, "bundled");
  let files: string[] = [];
  try {
    files = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  const w = pickWheel(files);
  return w ? path.join(dir, w) : undefined;
}

/**
 * Probe for a `rubric-lsp` found on PATH: a Python console script is checked through its
 * interpreter (it must import the server's dependencies); any other executable must answer
 * `--version` as rubric-lsp.
 */
export async function checkExecutable(file: string, checkInterpreter: (python: string) => Promise<ProbeResult>): Promise<ProbeResult> {
  let first = "";
  try {
    const fd = fs.openSync(file, "r");
    const buf = Buffer.alloc(512);
    const n = fs.readSync(fd, buf, 0, 512, 0);
    fs.closeSync(fd);
    first = buf.subarray(0, n).toString("utf8").split("\n")[0];
  } catch {
    /* unreadable: fall back to running it */
  }
  const python = pythonFromShebang(first);
  if (python) return checkInterpreter(python);
  const r = await run(file, ["--version"], 20000);
  return interpretVersionOutput(r.code, r.stdout, r.error);
}

async function probeBase(python: string): Promise<BaseProbe> {
  const r = await run(python, ["-c", BASE_PYTHON_PROBE_SCRIPT], 20000);
  return interpretBaseProbe(r.code, r.stdout, r.stderr, r.error);
}

async function runSteps(steps: Step[], output: vscode.LogOutputChannel, title: string): Promise<boolean> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: false }, async (progress) => {
    for (const step of steps) {
      progress.report({ message: step.title + "…" });
      output.info(`${step.title}: ${[step.command, ...step.args].join(" ")}`);
      const r = await run(step.command, step.args, 15 * 60 * 1000);
      if (r.stdout.trim()) output.info(r.stdout.trim());
      if (r.stderr.trim()) output.info(r.stderr.trim());
      if (r.code !== 0) {
        const why = r.error ?? tail(r.stderr || r.stdout);
        output.error(`${step.title} failed: ${why}`);
        void vscode.window.showErrorMessage(`Rubric: ${step.title} failed: ${why}`, "Show Output").then((a) => a && output.show());
        return false;
      }
    }
    return true;
  });
}

/**
 * No usable server and nothing configured: offer to create the private environment (``ask``: a toast
 * first; the palette command and the status bar item, which the user chose, install at once).
 * Resolves true when the server was installed (the caller restarts it).
 */
export async function offerPrivateInstall(
  ctx: vscode.ExtensionContext,
  output: vscode.LogOutputChannel,
  inputs: { interpreter?: string; pythonExtensionInterpreter?: string },
  ask = true,
): Promise<boolean> {
  const wheel = bundledWheel(ctx);
  if (!wheel) {
    output.warn("this build of the extension ships no rubric-lsp wheel (bundled/): cannot offer the install");
    return false;
  }
  const base = await chooseBasePython(baseCandidates({ ...inputs, platform: process.platform }), probeBase);
  for (const r of base.rejected) output.info(`not usable to create the environment: ${r}`);
  const message = offerMessage(base);
  if (!base.chosen) {
    void vscode.window.showErrorMessage(message, "Show Output").then((a) => a && output.show());
    return false;
  }
  const install = "Install";
  if (ask && (await vscode.window.showInformationMessage(message, install, "Not Now")) !== install) return false;
  const { dir, python } = venvPaths(ctx.globalStorageUri.fsPath, process.platform);
  fs.mkdirSync(ctx.globalStorageUri.fsPath, { recursive: true });
  const ok = await runSteps(installSteps(base.chosen.python, python, dir, wheel), output, "Rubric: installing the rubric-lsp server");
  if (ok) void vscode.window.showInformationMessage("Rubric: the rubric-lsp server was installed; starting it.");
  return ok;
}

/**
 * Before grading with the private environment: litellm (the `[grade]` extra, ~335 MB) is
 * installed on first use, after asking (``ask``; the palette command installs at once). Resolves
 * "ready", "installed" (the server should be restarted to use it) or "declined" (grading cannot go
 * ahead: the toast was answered "Not Now" or went away unanswered).
 */
export async function ensureGradeExtra(
  ctx: vscode.ExtensionContext,
  output: vscode.LogOutputChannel,
  venvPython: string,
  ask = true,
): Promise<"ready" | "installed" | "declined"> {
  const r = await run(venvPython, ["-c", GRADE_EXTRA_PROBE_SCRIPT], 20000);
  if (r.code === 0) return "ready";
  const wheel = bundledWheel(ctx);
  if (!wheel) return "ready"; // let the server say in its one line what is missing
  const install = "Install";
  const question = "Rubric: grading needs the rubric-lsp[grade] extra (litellm, about 335 MB). Install it into the extension's private environment?";
  if (ask && (await vscode.window.showInformationMessage(question, install, "Not Now")) !== install) return "declined";
  const ok = await runSteps([gradeOrBaseStep(venvPython, wheel, ["grade"])], output, "Rubric: installing rubric-lsp[grade]");
  return ok ? "installed" : "declined";
}

/**
 * After the extension was updated, its private environment still has the old server: install
 * the wheel this version ships (the user agreed to the environment when it was created).
 */
export async function refreshPrivateEnv(ctx: vscode.ExtensionContext, output: vscode.LogOutputChannel, venvPython: string): Promise<void> {
  const wheel = bundledWheel(ctx);
  if (!wheel) return;
  const installed = (await run(venvPython, ["-c", INSTALLED_VERSION_SCRIPT], 20000)).stdout.trim();
  if (!installed || installed === wheelVersion(wheel)) return;
  output.info(`private environment has rubric-lsp ${installed}; installing ${wheelVersion(wheel)} from this extension`);
  await runSteps([gradeOrBaseStep(venvPython, wheel)], output, "Rubric: updating the rubric-lsp server");
}
