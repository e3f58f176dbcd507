/**
 * Choosing how to start the rubric-lsp server. Pure logic with injected probes so it is
 * unit-tested without VS Code and without spawning anything.
 *
 * Order (first that works wins):
 *   1. `rubric.server.path`        – an executable, run with no arguments (stdio)
 *   2. `rubric.server.interpreter` – `<python> -m rubric_lsp serve`
 *   3. the Python extension's selected interpreter (only when that extension is present)
 *   4. `rubric-lsp` found on PATH, checked before use (its script's Python must import the
 *      server's dependencies; any other executable must answer `--version`)
 *   5. the extension's private environment (src/install.ts), when it was installed
 * When nothing works and nothing was configured, `offerInstall` says the extension may offer
 * to create the private environment. An explicitly configured path/interpreter that does not work is reported and *not*
 * silently replaced by a later candidate: the user asked for it.
 */

export type CandidateSource = "setting:path" | "setting:interpreter" | "pythonExtension" | "PATH" | "privateEnv";

export interface Candidate {
  source: CandidateSource;
  command: string;
  args: string[];
  /** For interpreter-based candidates, the python used (for the install hint). */
  python?: string;
}

export interface LaunchInputs {
  path?: string;
  interpreter?: string;
  /** Interpreter selected in the Python extension, if that extension is installed and has one. */
  pythonExtensionInterpreter?: string;
  /** `process.env.PATH` (or equivalent). */
  envPath?: string;
  platform?: string;
  /** The private environment's python (src/install.ts), when that environment exists. */
  privateEnvPython?: string;
  /** The rubric-lsp wheel inside the .vsix (`bundled/`): what the install hints name, so they work offline. */
  bundledWheel?: string;
  /**
   * Whether the workspace is trusted (default: yes). In Restricted Mode nothing the workspace sets is
   * consulted: the Python extension's interpreter (often the workspace's own .venv) is neither probed nor
   * launched, and relative PATH entries (resolved against the workspace) are skipped.
   */
  trusted?: boolean;
}

export type ProbeResult = { ok: true } | { ok: false; reason: string };

export interface Probes {
  /** Is this file an existing executable? */
  isExecutable(file: string): Promise<boolean>;
  /** Can this python import rubric_lsp and the server dependencies? */
  checkInterpreter(python: string): Promise<ProbeResult>;
  /** Can this `rubric-lsp` found on PATH serve? (see `checkExecutableWith`) */
  checkExecutable(file: string): Promise<ProbeResult>;
}

export interface LaunchChoice {
  chosen?: Candidate;
  /** What was tried and why it did not work, in order. */
  failures: { candidate: Candidate | { source: CandidateSource; command: string }; reason: string }[];
  /** Human-readable message when nothing works. */
  message?: string;
  /** The command the user can run to install the server. */
  installCommand?: string;
  /** Nothing usable and nothing configured: the extension may offer its private environment. */
  offerInstall?: boolean;
}

export const SERVER_EXECUTABLE = "rubric-lsp";
/** The palette command that installs the server into the extension's private environment (install.ts). */
export const INSTALL_SERVER_TITLE = "Rubric: Install Server";
/** Where an outdated server gets this extension's version: the private environment, from the .vsix's wheel. */
export const UPGRADE_HINT = `upgrade it: ${INSTALL_SERVER_TITLE} installs this extension's version into its private environment.`;

export function interpreterCandidate(python: string, source: CandidateSource): Candidate {
  return { source, command: python, args: ["-m", "rubric_lsp", "serve"], python };
}

function pathDelimiter(platform: string): string {
  return platform === "win32" ? ";" : ":";
}

/** Candidate file names for an executable found on PATH. */
export function pathLookupCandidates(name: string, envPath: string | undefined, platform: string): string[] {
  if (!envPath) return [];
  const sep = platform === "win32" ? "\\" : "/";
  const exts = platform === "win32" ? [".exe", ".cmd", ".bat", ""] : [""];
  const out: string[] = [];
  for (const dir of envPath.split(pathDelimiter(platform))) {
    if (!dir) continue;
    const base = dir.endsWith(sep) || dir.endsWith("/") ? dir : dir + sep;
    for (const ext of exts) out.push(base + name + ext);
  }
  return out;
}

function isAbsolute(file: string, platform: string): boolean {
  return platform === "win32" ? /^([A-Za-z]:[\\/]|\\\\)/.test(file) : file.startsWith("/");
}

/** Does the value look like a bare command name (to be looked up on PATH) rather than a path? */
export function isBareCommand(value: string): boolean {
  return !value.includes("/") && !value.includes("\\");
}

/**
 * The command that installs the server into ``python`` (else the ``python3`` on PATH): from the wheel inside
 * the .vsix when there is one — it needs no network for rubric-lsp itself, and pip takes its dependencies
 * from the user's index, mirror or wheelhouse (PIP_INDEX_URL, PIP_FIND_LINKS) — else from a local clone of
 * rubric-lsp. Never a `git+https://` URL, which cannot work offline.
 */
export function installCommand(python?: string, wheel?: string): string {
  const py = python ? quoteIfNeeded(python) : "python3";
  return wheel ? `${py} -m pip install ${quoteIfNeeded(wheel)}` : `${py} -m pip install -e PATH/TO/rubric-lsp  (a clone of the repository)`;
}

/** What to do when no server was found, in one line (status bar tooltip, Output, the error message). */
export function installAdvice(python: string | undefined, wheel: string | undefined): string {
  const own = installCommand(python, wheel);
  return wheel ? `run ${INSTALL_SERVER_TITLE} (a private environment, from the wheel inside this extension), or install it yourself: ${own}` : `install it: ${own}`;
}

function quoteIfNeeded(s: string): string {
  return /\s/.test(s) ? `"${s}"` : s;
}

async function resolveExecutable(value: string, inputs: LaunchInputs, probes: Probes): Promise<string | undefined> {
  const platform = inputs.platform ?? "linux";
  if (isBareCommand(value)) {
    for (const file of pathLookupCandidates(value, inputs.envPath, platform)) {
      if (inputs.trusted === false && !isAbsolute(file, platform)) continue; // "./bin" would be the workspace's
      if (await probes.isExecutable(file)) return file;
    }
    return undefined;
  }
  return (await probes.isExecutable(value)) ? value : undefined;
}

export async function chooseLaunch(inputs: LaunchInputs, probes: Probes): Promise<LaunchChoice> {
  const failures: LaunchChoice["failures"] = [];

  // 1. explicit executable
  if (inputs.path) {
    const exe = await resolveExecutable(inputs.path, inputs, probes);
    if (exe) return { chosen: { source: "setting:path", command: exe, args: [] }, failures };
    const reason = `rubric.server.path "${inputs.path}" is not an executable file`;
    failures.push({ candidate: { source: "setting:path", command: inputs.path }, reason });
    return {
      failures,
      installCommand: installCommand(undefined, inputs.bundledWheel),
      message: `${reason}. Fix the setting, or clear it and ${installAdvice(undefined, inputs.bundledWheel)}`,
    };
  }

  // 2. explicit interpreter
  if (inputs.interpreter) {
    const c = interpreterCandidate(inputs.interpreter, "setting:interpreter");
    const r = await probes.checkInterpreter(inputs.interpreter);
    if (r.ok) return { chosen: c, failures };
    failures.push({ candidate: c, reason: r.reason });
    return {
      failures,
      installCommand: installCommand(inputs.interpreter, inputs.bundledWheel),
      message: `rubric.server.interpreter "${inputs.interpreter}": ${r.reason}. Install the server into it with: ${installCommand(inputs.interpreter, inputs.bundledWheel)}`,
    };
  }

  // 3. the Python extension's interpreter (never in an untrusted workspace: it may be the workspace's own .venv)
  if (inputs.pythonExtensionInterpreter && inputs.trusted !== false) {
    const c = interpreterCandidate(inputs.pythonExtensionInterpreter, "pythonExtension");
    const r = await probes.checkInterpreter(inputs.pythonExtensionInterpreter);
    if (r.ok) return { chosen: c, failures };
    failures.push({ candidate: c, reason: r.reason });
  }

  // 4. rubric-lsp on PATH, checked: a broken install (e.g. without pygls) must not win
  const exe = await resolveExecutable(SERVER_EXECUTABLE, inputs, probes);
  if (exe) {
    const r = await probes.checkExecutable(exe);
    if (r.ok) return { chosen: { source: "PATH", command: exe, args: [] }, failures };
    failures.push({ candidate: { source: "PATH", command: exe }, reason: r.reason });
  } else {
    failures.push({ candidate: { source: "PATH", command: SERVER_EXECUTABLE }, reason: "rubric-lsp was not found on PATH" });
  }

  // 5. the extension's private environment
  if (inputs.privateEnvPython) {
    const c = interpreterCandidate(inputs.privateEnvPython, "privateEnv");
    const r = await probes.checkInterpreter(inputs.privateEnvPython);
    if (r.ok) return { chosen: c, failures };
    failures.push({ candidate: c, reason: r.reason });
  }

  const python = inputs.trusted === false ? undefined : inputs.pythonExtensionInterpreter;
  const tried = failures.map((f) => `${f.candidate.command} (${f.reason})`).join("; ");
  return {
    failures,
    installCommand: installCommand(python, inputs.bundledWheel),
    offerInstall: true,
    message:
      `The rubric-lsp language server is not installed: ${installAdvice(python, inputs.bundledWheel)} ` +
      `— or set rubric.server.path / rubric.server.interpreter. Tried: ${tried}.`,
  };
}

/**
 * The Python a console script runs with, from its first line (`#!/venv/bin/python3`,
 * `#!/usr/bin/env python3`), or undefined when the file is not a Python script.
 */
export function pythonFromShebang(firstLine: string): string | undefined {
  const m = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(firstLine.trim());
  if (!m) return undefined;
  const [, prog, arg] = m;
  const isPython = (p: string) => /(^|[\\/])python[\d.]*(\.exe)?$/i.test(p);
  if (/(^|\/)env$/.test(prog) && arg && isPython(arg)) return arg;
  return isPython(prog) ? prog : undefined;
}

/** Does `<exe> --version` look like ours? (for executables that are not Python scripts) */
export function interpretVersionOutput(exitCode: number | null, stdout: string, spawnError?: string): ProbeResult {
  if (spawnError) return { ok: false, reason: `cannot run it (${spawnError})` };
  if (exitCode === 0 && /^rubric-lsp \d/m.test(stdout)) return { ok: true };
  return { ok: false, reason: `\`rubric-lsp --version\` did not answer as rubric-lsp does (exit code ${exitCode})` };
}

/**
 * Python snippet run by the interpreter probe. Exit 0: usable; 3: rubric_lsp missing;
 * 4: installed without the server's dependencies (pygls, lsprotocol).
 */
export const INTERPRETER_PROBE_SCRIPT =
  "import importlib.util as u, sys\n" +
  "if u.find_spec('rubric_lsp') is None: sys.exit(3)\n" +
  "if u.find_spec('pygls') is None or u.find_spec('lsprotocol') is None: sys.exit(4)\n";

/** Map the probe's outcome to a ProbeResult. */
export function interpretProbe(exitCode: number | null, spawnError?: string, stderr?: string): ProbeResult {
  if (spawnError) return { ok: false, reason: `cannot run it (${spawnError})` };
  if (exitCode === 0) return { ok: true };
  if (exitCode === 3) return { ok: false, reason: "No module named rubric_lsp" };
  if (exitCode === 4) return { ok: false, reason: "rubric-lsp is installed without the server's dependencies (pygls/lsprotocol missing)" };
  const tail = (stderr ?? "").trim().split("\n").slice(-1)[0];
  return { ok: false, reason: `probe failed with exit code ${exitCode}${tail ? `: ${tail}` : ""}` };
}

/** Human description for the output channel / status tooltip. */
export function describeCandidate(c: Candidate): string {
  const how = [c.command, ...c.args].join(" ");
  switch (c.source) {
    case "setting:path":
      return `${how} (rubric.server.path)`;
    case "setting:interpreter":
      return `${how} (rubric.server.interpreter)`;
    case "pythonExtension":
      return `${how} (Python extension's interpreter)`;
    case "PATH":
      return `${how} (found on PATH)`;
    case "privateEnv":
      return `${how} (the extension's private environment)`;
  }
}

/** Environment for the server process: the extension host's env plus stored API keys. */
export function serverEnv(
  base: Record<string, string | undefined>,
  apiKeys: Record<string, string>,
  trusted: boolean,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  if (trusted) {
    Object.assign(env, apiKeys);
  } else {
    // untrusted workspace: diagnostics only, so the server gets no credentials at all
    for (const k of Object.keys(env)) if (/_API_KEY$|^RUBRIC_JUDGE_API_BASE$/.test(k)) delete env[k];
  }
  // never let litellm fetch its price map at start-up
  env.LITELLM_LOCAL_MODEL_COST_MAP = "True";
  env.PYTHONUNBUFFERED = "1";
  env.PYTHONIOENCODING = "utf-8";
  return env;
}
