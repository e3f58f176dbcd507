/**
 * Pure reading and writing of the editor-grading protocol (docs/editor-grading.md): the
 * commands' arguments, their results (verdicts, "needs a target", "nothing to grade"), the
 * user-facing errors and the progress messages. No `vscode` import: unit-tested in plain node.
 */

export const SERVER_CMD = {
  grade: "rubric-lsp.grade",
  gradeSelection: "rubric-lsp.gradeSelection",
  gradeTargets: "rubric-lsp.gradeTargets",
  gradeExamples: "rubric-lsp.gradeExamples",
  cancelGrading: "rubric-lsp.cancelGrading",
  showDisagreements: "rubric-lsp.showDisagreements",
  clearVerdicts: "rubric-lsp.clearVerdicts",
  calibrate: "rubric-lsp.calibrate",
  review: "rubric-lsp.review",
  // older servers
  gradeText: "rubric-lsp.gradeText",
  gradeDocument: "rubric-lsp.gradeDocument",
} as const;

/** Commands that call the judge: gated on workspace trust, run with progress in the status bar. */
export const GRADING_COMMANDS: ReadonlySet<string> = new Set([
  SERVER_CMD.grade,
  SERVER_CMD.gradeSelection,
  SERVER_CMD.gradeExamples,
  SERVER_CMD.gradeText,
  SERVER_CMD.gradeDocument,
  SERVER_CMD.calibrate, // grades a labelled set, and writes a record instead of showing verdicts
  SERVER_CMD.review, // grades the rubric's criteria themselves: its findings come as diagnostics
]);

/** Grading commands whose result is no grading report (rubric-lsp.report): no "Open Report" is offered. */
export const NO_REPORT: ReadonlySet<string> = new Set([SERVER_CMD.calibrate, SERVER_CMD.review]);

export const VERDICT_KINDS = [
  "met",
  "unmet",
  "penalty-applied",
  "penalty-avoided",
  "cannot-assess",
  "error",
  "expectation-failed",
] as const;
export type VerdictKind = (typeof VERDICT_KINDS)[number];

export interface LspPosition {
  line: number;
  character: number;
}
export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

/** One verdict as the server shows it (an entry of a result's `shown`). */
export interface Verdict {
  uri: string;
  range: LspRange;
  kind: VerdictKind;
  label: string;
  detail?: string;
  example?: string;
}

export interface GradeTarget {
  label: string;
  detail?: string;
  uri: string;
  format?: string;
  test?: number;
  grader?: string;
  [more: string]: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isPosition = (v: unknown): v is LspPosition =>
  isObject(v) && Number.isInteger(v.line) && Number.isInteger(v.character) && (v.line as number) >= 0 && (v.character as number) >= 0;
const isRange = (v: unknown): v is LspRange => isObject(v) && isPosition(v.start) && isPosition(v.end);

/**
 * The well-formed verdicts a grading result shows (`shown`; the engine's own `verdicts` beside it
 * are the CLI's JSON and are not read). Anything malformed is dropped, never guessed at.
 */
export function verdictsOf(result: unknown): Verdict[] {
  if (!isObject(result) || !Array.isArray(result.shown)) return [];
  const out: Verdict[] = [];
  for (const v of result.shown) {
    if (!isObject(v) || typeof v.uri !== "string" || !isRange(v.range) || typeof v.label !== "string") continue;
    if (!(VERDICT_KINDS as readonly string[]).includes(v.kind as string)) continue;
    const verdict: Verdict = { uri: v.uri, range: v.range, kind: v.kind as VerdictKind, label: v.label };
    if (typeof v.detail === "string") verdict.detail = v.detail;
    if (typeof v.example === "string") verdict.example = v.example;
    out.push(verdict);
  }
  return out;
}

/** The verdicts grouped by document URI. */
export function verdictsByUri(verdicts: Verdict[]): Map<string, Verdict[]> {
  const by = new Map<string, Verdict[]>();
  for (const v of verdicts) {
    const list = by.get(v.uri);
    if (list) list.push(v);
    else by.set(v.uri, [v]);
  }
  return by;
}

/** The targets offered when the server answers `{"needsTarget": true, "targets": [...]}`; else undefined. */
export function needsTargetOf(result: unknown): GradeTarget[] | undefined {
  if (!isObject(result) || result.needsTarget !== true) return undefined;
  return targetsOf(result);
}

/** The well-formed targets of a `gradeTargets` (or `needsTarget`) answer. */
export function targetsOf(result: unknown): GradeTarget[] {
  if (!isObject(result) || !Array.isArray(result.targets)) return [];
  return result.targets.filter(
    (t): t is GradeTarget => isObject(t) && typeof t.label === "string" && typeof t.uri === "string",
  );
}

/** The server's "nothing to grade" (or other) message in a result. */
export function messageOf(result: unknown): string | undefined {
  return isObject(result) && typeof result.message === "string" && result.message.trim() !== "" ? result.message : undefined;
}

export function wasCancelled(result: unknown): boolean {
  return isObject(result) && result.cancelled === true;
}

/** Whether a command's answer is a finished grading (a report exists), not a question, a message, an error or a cancel. */
export function wasGraded(result: unknown): boolean {
  if (!isObject(result)) return false;
  if (["cancelled", "needsTarget", "needsResponse", "error"].some((k) => k in result)) return false;
  return Object.keys(result).some((k) => k !== "message");
}

/** `{"needsResponse": true, "message"}`: a rubric selection needs a response first (no judge was called). */
export function needsResponseOf(result: unknown): string | undefined {
  if (!isObject(result) || result.needsResponse !== true) return undefined;
  return messageOf(result) ?? "Grade a response against this file first: select it in another document and run Rubric: Grade Selection.";
}

/** A command the server hands over to run later (a lens's or a button's): `{title, command, arguments}`. */
export interface ServerCommand {
  title: string;
  command: string;
  arguments: unknown[];
}

/**
 * "Needs a response" with its response file (docs/editor-grading.md): the server made `<file>.response.md`,
 * asked VS Code to open it, and says which command grades the unit against it once written.
 */
export interface ResponseRequest {
  message: string;
  unit?: string;
  responseFile?: string;
  grade?: ServerCommand;
}

export function responseRequestOf(result: unknown): ResponseRequest | undefined {
  const message = needsResponseOf(result);
  if (message === undefined || !isObject(result)) return undefined;
  const request: ResponseRequest = { message };
  if (typeof result.unit === "string") request.unit = result.unit;
  if (typeof result.responseFile === "string") request.responseFile = result.responseFile;
  const grade = result.grade;
  if (isObject(grade) && typeof grade.title === "string" && typeof grade.command === "string" && Array.isArray(grade.arguments)) {
    request.grade = { title: grade.title, command: grade.command, arguments: grade.arguments };
  }
  return request;
}

/** The button of the "needs a response" toast: grades the unit against its response file. */
export const GRADE_RESPONSE = "Grade Response";

/**
 * The toast's words: short enough for a notification to show whole (the server's message, which names
 * every editor's command, goes to the Output channel). Without a response file: the server's message.
 */
export function responseToast(request: ResponseRequest, basename: (uri: string) => string): string {
  if (!request.responseFile || !request.grade) return `Rubric: ${request.message}`;
  const what = request.unit ? `grading ${request.unit}` : "this grading";
  return `Rubric: ${what} needs a response. Write it in ${basename(request.responseFile)} (opened), then ${GRADE_RESPONSE}.`;
}

/** Grading commands whose messages the extension shows itself: they are sent with `"show": false`. */
const SHOWN_HERE: ReadonlySet<string> = new Set([SERVER_CMD.grade, SERVER_CMD.gradeSelection, SERVER_CMD.gradeExamples]);

/** A grading command's argument as sent: `"show": false` where the extension shows the answer itself. */
export function sentArgument(command: string, arg: unknown): unknown {
  if (!SHOWN_HERE.has(command)) return arg;
  return isObject(arg) ? { ...arg, show: false } : arg === undefined || arg === null ? { show: false } : arg;
}

/** The progress counted in a cancelled command's answer (`{"cancelled": true, "done": n, "total": N}`);
 * a cancel before anything was counted (total 0) says no count ("0/0 done" said nothing). */
export function cancelledProgress(result: unknown, seen: ProgressState): ProgressState {
  if (isObject(result) && Number.isInteger(result.done) && Number.isInteger(result.total)) {
    return (result.total as number) > 0 ? { done: result.done as number, total: result.total as number } : { note: seen.note };
  }
  return seen;
}

export interface Disagreement {
  index: number;
  range: LspRange;
  truth: unknown;
  judged: unknown;
}

/** The items of a `rubric-lsp.showDisagreements` answer (`{"items": [{index, range, truth, judged}]}`). */
export function disagreementsOf(result: unknown): Disagreement[] {
  if (!isObject(result) || !Array.isArray(result.items)) return [];
  return result.items.filter((i): i is Disagreement => isObject(i) && Number.isInteger(i.index) && isRange(i.range));
}

/** QuickPick label of one disagreeing dataset item. */
export function disagreementLabel(d: Disagreement): string {
  const word = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  return `item ${d.index + 1}: labelled ${word(d.truth)}, judged ${word(d.judged)}`;
}

/** Same target? (a target is a document plus, for files with several, its test or grader). */
export function sameTarget(a: GradeTarget | undefined, b: GradeTarget | undefined): boolean {
  return !!a && !!b && a.uri === b.uri && a.test === b.test && a.grader === b.grader;
}

export interface TargetItem {
  label: string;
  description?: string;
  detail?: string;
  target: GradeTarget;
}

/** QuickPick items for the targets, the last used first and marked; the rest in the server's order. */
export function targetItems(targets: GradeTarget[], last: GradeTarget | undefined, relativePath: (uri: string) => string): TargetItem[] {
  const items = targets.map((t) => {
    const where = relativePath(t.uri);
    const description = [t.format, sameTarget(t, last) ? "last used" : undefined].filter((s) => s).join(" · ");
    const item: TargetItem = { label: t.label, detail: t.detail ? `${t.detail} — ${where}` : where, target: t };
    if (description) item.description = description;
    return item;
  });
  const i = items.findIndex((it) => sameTarget(it.target, last));
  if (i > 0) items.unshift(...items.splice(i, 1));
  return items;
}

/** Arguments of `rubric-lsp.gradeSelection`. `text` only for documents the server is not sent (it cannot read them). */
export function selectionArgs(opts: { uri: string; range: LspRange; target?: GradeTarget; text?: string }): Record<string, unknown> {
  const args: Record<string, unknown> = { uri: opts.uri, range: opts.range };
  if (opts.target) args.target = opts.target;
  if (opts.text !== undefined) args.text = opts.text;
  return args;
}

// ------------------------------------------------------------------ errors meant for the user

export interface UserError {
  kind: "no-key" | "no-model";
  message: string;
  model?: string;
  /** Buttons, in order. */
  actions: string[];
}

export const SET_API_KEY = "Set API Key";
export const CHOOSE_MODEL = "Choose judge model";

/** The `data` of a failed grading command when it is a no-key / no-model error; else undefined. */
export function userErrorOf(data: unknown): UserError | undefined {
  if (!isObject(data) || (data.kind !== "no-key" && data.kind !== "no-model")) return undefined;
  const message = typeof data.message === "string" && data.message.trim() ? data.message : data.kind === "no-key" ? "No API key for the judge model." : "No judge model is set.";
  const err: UserError = {
    kind: data.kind,
    message,
    actions: data.kind === "no-key" ? [SET_API_KEY, CHOOSE_MODEL] : [CHOOSE_MODEL, SET_API_KEY],
  };
  if (typeof data.model === "string") err.model = data.model;
  return err;
}

// ------------------------------------------------------------------ progress

export interface ProgressValue {
  kind: "begin" | "report" | "end";
  title?: string;
  message?: string;
  percentage?: number;
}

export interface ProgressState {
  done?: number;
  total?: number;
  /** A word from the server that is not a count, e.g. "loading the grading engine…". */
  note?: string;
}

const COUNT = /(\d+)\s*\/\s*(\d+)/;

/** The state after one progress notification (the "n/N" of its message, or its words). */
export function nextProgress(state: ProgressState, value: ProgressValue): ProgressState {
  if (value.kind === "end") return state;
  const text = value.message ?? (value.kind === "begin" ? value.title : undefined);
  if (text === undefined) return state;
  const m = COUNT.exec(text);
  if (m) return { done: Number(m[1]), total: Number(m[2]) };
  return { ...state, note: text };
}

/** Status bar text: "Grading 3/7", or the server's note while nothing is counted yet. */
export function progressLabel(state: ProgressState): string {
  if (state.total !== undefined && state.done !== undefined) return `Grading ${state.done}/${state.total}`;
  if (state.note && /load/i.test(state.note)) return `Grading: ${state.note}`;
  return "Grading…";
}

/** The message after a cancel. */
export function cancelMessage(state: ProgressState): string {
  return state.total !== undefined && state.total > 0 && state.done !== undefined
    ? `Grading cancelled (${state.done}/${state.total} done)`
    : "Grading cancelled";
}
