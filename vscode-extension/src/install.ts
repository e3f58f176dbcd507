/**
 * The extension's private environment: a venv in the extension's global storage with the
 * rubric-lsp wheel that ships inside the .vsix installed into it. Pure logic (paths,
 * commands, choosing a base Python) with injected probes, unit-tested without VS Code.
 *
 * Why one platform-neutral .vsix with dependencies from the package index: the
 * rubric-lsp wheel is pure Python, but pydantic-core and PyYAML are compiled per
 * platform *and* Python version; bundling them would need one .vsix per platform ×
 * Python (as ruff's extension ships per-platform builds of its binary). pip is run
 * with the user's own configuration (PIP_INDEX_URL, PIP_FIND_LINKS, pip.conf), so a
 * mirror or a local wheelhouse works for offline machines.
 */

/** Oldest Python the server supports (pyproject's requires-python). */
export const MIN_PYTHON: [number, number] = [3, 10];

/** Python run by the base-interpreter probe: prints "major.minor" and checks venv/ensurepip exist. */
export const BASE_PYTHON_PROBE_SCRIPT =
  "import sys, venv, ensurepip\nprint('%d.%d' % sys.version_info[:2])\n";

export type BaseProbe = { ok: true; version: [number, number] } | { ok: false; reason: string };

export interface BaseCandidate {
  python: string;
  /** Where it came from, for the messages. */
  from: string;
}

/**
 * Pythons to build the private environment with, in order: the `rubric.server.interpreter`
 * setting, the Python extension's interpreter, then `python3` and `python` on PATH.
 */
export function baseCandidates(inputs: { interpreter?: string; pythonExtensionInterpreter?: string; platform?: string }): BaseCandidate[] {
  const out: BaseCandidate[] = [];
  if (inputs.interpreter) out.push({ python: inputs.interpreter, from: "rubric.server.interpreter" });
  if (inputs.pythonExtensionInterpreter) out.push({ python: inputs.pythonExtensionInterpreter, from: "the Python extension" });
  const names = inputs.platform === "win32" ? ["py", "python", "python3"] : ["python3", "python"];
  for (const n of names) out.push({ python: n, from: "PATH" });
  return out;
}

/** Parse the probe's stdout ("3.11") into a version, or undefined. */
export function parseVersion(stdout: string): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)\s*$/m.exec(stdout.trim());
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

export function versionOk(v: [number, number]): boolean {
  return v[0] > MIN_PYTHON[0] || (v[0] === MIN_PYTHON[0] && v[1] >= MIN_PYTHON[1]);
}

export interface BaseChoice {
  chosen?: BaseCandidate & { version: [number, number] };
  /** What was tried and why it could not be used. */
  rejected: string[];
}

/** The first candidate that runs, is new enough and can create a venv. */
export async function chooseBasePython(candidates: BaseCandidate[], probe: (python: string) => Promise<BaseProbe>): Promise<BaseChoice> {
  const rejected: string[] = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    if (seen.has(c.python)) continue;
    seen.add(c.python);
    const r = await probe(c.python);
    if (!r.ok) {
      rejected.push(`${c.python} (${c.from}): ${r.reason}`);
    } else if (!versionOk(r.version)) {
      rejected.push(`${c.python} (${c.from}): Python ${r.version.join(".")} is older than ${MIN_PYTHON.join(".")}`);
    } else {
      return { chosen: { ...c, version: r.version }, rejected };
    }
  }
  return { rejected };
}

/** Map the base probe's outcome (exit code, stdout, stderr) to a BaseProbe. */
export function interpretBaseProbe(exitCode: number | null, stdout: string, stderr: string, spawnError?: string): BaseProbe {
  if (spawnError) return { ok: false, reason: `cannot run it (${spawnError})` };
  if (exitCode === 0) {
    const v = parseVersion(stdout);
    return v ? { ok: true, version: v } : { ok: false, reason: `unexpected output ${JSON.stringify(stdout.trim().slice(0, 80))}` };
  }
  if (/No module named '?(venv|ensurepip)/.test(stderr)) {
    return { ok: false, reason: "it cannot create virtual environments (on Debian/Ubuntu: apt install python3-venv)" };
  }
  const tail = stderr.trim().split("\n").slice(-1)[0];
  return { ok: false, reason: `exit code ${exitCode}${tail ? `: ${tail}` : ""}` };
}

/** Paths inside the private environment (a venv under the extension's global storage). */
export function venvPaths(storageDir: string, platform: string): { dir: string; python: string } {
  const sep = platform === "win32" ? "\\" : "/";
  const dir = storageDir.replace(/[\\/]+$/, "") + sep + "venv";
  const python = platform === "win32" ? `${dir}\\Scripts\\python.exe` : `${dir}/bin/python`;
  return { dir, python };
}

/** The version in a wheel's file name (`rubric_lsp-0.1.0-py3-none-any.whl` -> `0.1.0`). */
export function wheelVersion(wheelPath: string): string | undefined {
  return /rubric_lsp-([^-]+)-py3-none-any\.whl$/.exec(wheelPath)?.[1];
}

/** Python run in the private environment: the installed rubric-lsp version, or nothing. */
export const INSTALLED_VERSION_SCRIPT =
  "import importlib.metadata as m\ntry:\n    print(m.version('rubric-lsp'))\nexcept m.PackageNotFoundError:\n    pass\n";

/** The bundled wheel among the files of the extension's `bundled/` folder (newest version last wins). */
export function pickWheel(files: string[]): string | undefined {
  const wheels = files.filter((f) => /^rubric_lsp-[^-]+-py3-none-any\.whl$/.test(f));
  return wheels.sort(compareWheelVersions).pop();
}

function compareWheelVersions(a: string, b: string): number {
  const va = a.split("-")[1].split(".").map((x) => parseInt(x, 10) || 0);
  const vb = b.split("-")[1].split(".").map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(va.length, vb.length); i++) {
    const d = (va[i] ?? 0) - (vb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

export interface Step {
  title: string;
  command: string;
  args: string[];
}

/**
 * The commands that build the private environment: create the venv with the base Python,
 * then install the bundled wheel (its dependencies from the package index). `extras`:
 * e.g. ["grade"] to add litellm.
 */
export function installSteps(basePython: string, venvPython: string, venvDir: string, wheel: string, extras: string[] = []): Step[] {
  return [
    { title: "Creating the environment", command: basePython, args: ["-m", "venv", venvDir] },
    gradeOrBaseStep(venvPython, wheel, extras),
  ];
}

/** Installing (or adding an extra to) the bundled wheel in an existing private environment. */
export function gradeOrBaseStep(venvPython: string, wheel: string, extras: string[] = []): Step {
  const spec = extras.length ? `${wheel}[${extras.join(",")}]` : wheel;
  return {
    title: extras.length ? `Installing rubric-lsp[${extras.join(",")}]` : "Installing rubric-lsp",
    command: venvPython,
    args: ["-m", "pip", "install", "--disable-pip-version-check", "--no-input", spec],
  };
}

/** Python run in the private environment to tell whether grading's extra (litellm) is there. */
export const GRADE_EXTRA_PROBE_SCRIPT = "import importlib.util as u, sys\nsys.exit(0 if u.find_spec('litellm') else 5)\n";

/** The user-facing offer when no server was found and nothing explicit was configured. */
export function offerMessage(base: BaseChoice): string {
  if (base.chosen) {
    return (
      `Rubric: the rubric-lsp language server is not installed. Install it into a private environment ` +
      `of this extension (Python ${base.chosen.version.join(".")} at ${base.chosen.python}; dependencies from the package index)?`
    );
  }
  return (
    `Rubric: the rubric-lsp language server is not installed, and no Python ≥ ${MIN_PYTHON.join(".")} that can create ` +
    `a virtual environment was found (tried: ${base.rejected.join("; ")}). Install Python ${MIN_PYTHON.join(".")}+ ` +
    `or set rubric.server.interpreter.`
  );
}

/** Last lines of a failed command's output, for the error message (never the whole log). */
export function tail(text: string, lines = 3): string {
  return text.trim().split("\n").slice(-lines).join("\n");
}

/** What stays offered until it is done: the server (none found) or grading's `[grade]` extra (declined or unanswered). */
export type OfferKind = "server" | "grade";

/** The palette commands that answer an offer (package.json contributes them). */
export const OFFER_COMMANDS: Record<OfferKind, string> = { server: "rubric.installServer", grade: "rubric.installGrading" };

/** The status bar item of an offer: it stays until the install is done, so a toast that went away loses nothing. */
export function offerItem(kind: OfferKind): { text: string; tooltip: string; command: string } {
  if (kind === "server") {
    return {
      text: "$(cloud-download) Install rubric-lsp",
      tooltip:
        "The rubric-lsp language server is not installed. Click (or run Rubric: Install Server) to install it into a " +
        "private environment of this extension, from the wheel inside it; pip takes its dependencies from your index, " +
        "mirror or wheelhouse (PIP_INDEX_URL, PIP_FIND_LINKS).",
      command: OFFER_COMMANDS.server,
    };
  }
  return {
    text: "$(cloud-download) Install grading",
    tooltip:
      "Grading needs the rubric-lsp[grade] extra (litellm, about 335 MB). Click (or run Rubric: Install Grading Support) " +
      "to install it into the extension's private environment, from the wheel inside this extension.",
    command: OFFER_COMMANDS.grade,
  };
}

/** The command that adds `[grade]` to a server the extension did not install (its own Python), offline-correct. */
export function gradeExtraCommand(python: string | undefined, wheel: string | undefined): string {
  const py = python ? (/\s/.test(python) ? `"${python}"` : python) : "python3";
  return wheel ? `${py} -m pip install "${wheel}[grade]"` : `${py} -m pip install -e "PATH/TO/rubric-lsp[grade]"  (a clone of the repository)`;
}
