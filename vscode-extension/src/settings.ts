/**
 * Pure settings resolution: no `vscode` import, so it is unit-tested in plain node.
 * The extension passes a tiny view of `vscode.WorkspaceConfiguration`.
 */

/** The part of `vscode.WorkspaceConfiguration` this module uses. */
export interface ConfigReader {
  get<T>(key: string): T | undefined;
}

export interface ServerLaunchSettings {
  /** `rubric.server.path`, expanded; undefined when unset. */
  path?: string;
  /** `rubric.server.interpreter`, expanded; undefined when unset. */
  interpreter?: string;
}

/** The `rubric` settings section as the server reads it (initializationOptions and workspace/configuration). */
export interface ServerSection {
  judge: {
    model?: string;
    /** Further judges: with `model`, a panel (rubric grade's several --model). Sent only when set. */
    models?: string[];
    apiBase?: string;
    concurrency: number;
    timeoutSeconds: number;
    deadlineSeconds: number;
  };
  /** Sent only when not the default, so the server's RUBRIC_CANNOT_ASSESS still applies. */
  grading?: { cannotAssess: CannotAssess };
  gradeOnSave: boolean;
  cache: { enabled: boolean };
  lint: { select: string[]; ignore: string[] };
  /** `repeat`: how many times the Calibrate command asks the judge per item (rubric calibrate --repeat);
   * `agreementThreshold`: below it a unit is ambiguous (rubric calibrate --agreement-threshold). */
  calibration: { repeat: number; agreementThreshold: number };
}

export interface ExpandContext {
  workspaceFolder?: string;
  home?: string;
  env?: Record<string, string | undefined>;
}

/** Settings keys whose change requires the server process to be restarted. */
export const RESTART_KEYS = ["rubric.server.path", "rubric.server.interpreter"];

export const CANNOT_ASSESS = ["skip", "zero", "partial", "fail"] as const;
export type CannotAssess = (typeof CANNOT_ASSESS)[number];

/** The server's defaults (package.json declares the same; tests/test_vscode_settings.py compares them). */
export const DEFAULTS = {
  concurrency: 16,
  timeoutSeconds: 60,
  deadlineSeconds: 600,
  cannotAssess: "skip" as CannotAssess,
  gradeOnSave: false,
  cacheEnabled: true,
  calibrationRepeat: 1,
  calibrationAgreementThreshold: 0.8,
} as const;

/** Expand `~`, `${userHome}`, `${workspaceFolder}` and `${env:NAME}` in a path setting. */
export function expandPath(value: string, ctx: ExpandContext): string {
  let out = value.trim();
  const home = ctx.home ?? "";
  if (home && (out === "~" || out.startsWith("~/") || out.startsWith("~\\"))) {
    out = home + out.slice(1);
  }
  out = out.replace(/\$\{userHome\}/g, home);
  if (ctx.workspaceFolder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, ctx.workspaceFolder);
  }
  out = out.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => ctx.env?.[name] ?? "");
  return out;
}

function nonEmptyString(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}

function intInRange(v: unknown, dflt: number, min: number, max: number): number {
  if (typeof v !== "number" || !Number.isFinite(v)) return dflt;
  return Math.min(max, Math.max(min, Math.round(v)));
}

function shareOf(v: unknown, dflt: number): number {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= 1 ? v : dflt;
}

function positiveNumber(v: unknown, dflt: number): number {
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : dflt;
}

function stringList(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return v.filter((x): x is string => typeof x === "string").map((x) => x.trim()).filter((x) => x !== "");
}

export function readLaunchSettings(cfg: ConfigReader, ctx: ExpandContext): ServerLaunchSettings {
  const path = nonEmptyString(cfg.get<string>("server.path"));
  const interpreter = nonEmptyString(cfg.get<string>("server.interpreter"));
  return {
    path: path === undefined ? undefined : expandPath(path, ctx),
    interpreter: interpreter === undefined ? undefined : expandPath(interpreter, ctx),
  };
}

/**
 * The `rubric` section sent to the server. `cfg` reads the `rubric` section.
 * Empty model/apiBase are omitted so the server's defaults (and RUBRIC_JUDGE_* env) apply.
 * In an untrusted workspace grading is off: gradeOnSave is forced false and no judge
 * endpoint or model from the workspace is forwarded.
 */
export function readServerSection(cfg: ConfigReader, trusted: boolean): ServerSection {
  const judge: ServerSection["judge"] = {
    concurrency: intInRange(cfg.get("judge.concurrency"), DEFAULTS.concurrency, 1, 64),
    timeoutSeconds: positiveNumber(cfg.get("judge.timeoutSeconds"), DEFAULTS.timeoutSeconds),
    deadlineSeconds: positiveNumber(cfg.get("judge.deadlineSeconds"), DEFAULTS.deadlineSeconds),
  };
  const model = nonEmptyString(cfg.get("judge.model"));
  const apiBase = nonEmptyString(cfg.get("judge.apiBase"));
  const models = stringList(cfg.get("judge.models"));
  if (trusted && model !== undefined) judge.model = model;
  if (trusted && models.length > 0) judge.models = models;
  if (trusted && apiBase !== undefined) judge.apiBase = apiBase;
  const gradeOnSave = cfg.get<boolean>("gradeOnSave");
  const cacheEnabled = cfg.get<boolean>("cache.enabled");
  const cannotAssess = cfg.get<string>("grading.cannotAssess");
  const strategy = CANNOT_ASSESS.find((c) => c === cannotAssess);
  return {
    judge,
    ...(strategy && strategy !== DEFAULTS.cannotAssess ? { grading: { cannotAssess: strategy } } : {}),
    gradeOnSave: trusted && typeof gradeOnSave === "boolean" ? gradeOnSave : false,
    cache: { enabled: typeof cacheEnabled === "boolean" ? cacheEnabled : DEFAULTS.cacheEnabled },
    lint: { select: stringList(cfg.get("lint.select")), ignore: stringList(cfg.get("lint.ignore")) },
    calibration: {
      repeat: intInRange(cfg.get("calibration.repeat"), DEFAULTS.calibrationRepeat, 1, 20),
      agreementThreshold: shareOf(cfg.get("calibration.agreementThreshold"), DEFAULTS.calibrationAgreementThreshold),
    },
  };
}

/**
 * Answer one workspace/configuration item. `section` is e.g. "rubric", "rubric.judge",
 * "rubric.judge.model"; returns `undefined` for sections that are not ours (let the
 * default handler answer) and `null` for unknown keys inside ours.
 */
export function answerConfigurationItem(section: string | undefined, full: ServerSection): unknown {
  if (section === undefined) return undefined;
  if (section === "rubric") return full;
  if (!section.startsWith("rubric.")) return undefined;
  let cur: unknown = full;
  for (const part of section.slice("rubric.".length).split(".")) {
    if (cur === null || typeof cur !== "object" || !(part in (cur as Record<string, unknown>))) return null;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Whether a configuration change (given `affectsConfiguration`) requires a server restart. */
export function needsRestart(affects: (key: string) => boolean): boolean {
  return RESTART_KEYS.some((k) => affects(k));
}

/** Label for the status bar. */
export function judgeLabel(section: ServerSection, envModel?: string): string {
  // As the server takes them: judge.model then judge.models, each once; the first is the judge.
  const given = [...new Set([...(section.judge.model ? [section.judge.model] : []), ...(section.judge.models ?? [])])];
  if (given.length === 0) return envModel && envModel.trim() !== "" ? envModel.trim() : "default judge";
  return given.length === 1 ? given[0] : `${given[0]} +${given.length - 1}`;
}
