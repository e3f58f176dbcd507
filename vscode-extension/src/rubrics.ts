/** Pure helpers to recognise rubric files and pick the rubric to grade against. */

import { RUBRIC_PATTERNS, RUBRIC_SCHEMA_FILES } from "./patterns.generated";

/** Glob used to list the workspace's rubric files for the picker (the server's file patterns). */
export const RUBRIC_GLOB = `**/{${RUBRIC_PATTERNS.join(",")}}`;
export const EXCLUDE_GLOB = "**/{node_modules,.git,.venv,venv,__pycache__}/**";

const escape = (text: string): string => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

/** A file-name glob (`*` = any run of characters) as an anchored, case-insensitive RegExp. */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.split("*").map(escape).join("[^/\\\\]*")}$`, "i");
}

const NAME_RES = RUBRIC_PATTERNS.map(globToRegExp);
const SCHEMA_RE = new RegExp(RUBRIC_SCHEMA_FILES.map(escape).join("|") || "(?!)");

export function baseName(p: string): string {
  const i = Math.max(p.lastIndexOf("/"), p.lastIndexOf("\\"));
  return i >= 0 ? p.slice(i + 1) : p;
}

/**
 * Does this document look like an autorubric rubric? By file name, by a `$schema` /
 * yaml-language-server modeline pointing to our rubric schema, or by content: criteria
 * with a `requirement` (the server has the final word; this only drives the picker).
 */
export function looksLikeRubric(fileName: string, languageId: string, text: string): boolean {
  if (!["yaml", "json", "jsonc"].includes(languageId)) return false;
  if (NAME_RES.some((re) => re.test(baseName(fileName)))) return true;
  const head = text.slice(0, 4000);
  if (SCHEMA_RE.test(head)) return true;
  if (/autorubric-dataset\.schema\.json|promptfoo|"graders"\s*:/.test(head)) return false;
  return /"requirement"\s*:|(^|\n)\s*(-\s*)?requirement\s*:/.test(text.slice(0, 20000));
}

export interface RubricChoice {
  kind: "active" | "remembered" | "pick";
  uri?: string;
}

/**
 * Which rubric to grade against: the active document when it is a rubric; otherwise the
 * remembered choice when it still exists; otherwise ask the user (`pick`).
 */
export function chooseRubric(opts: {
  activeUri: string;
  activeIsRubric: boolean;
  remembered?: string;
  rememberedExists: boolean;
  forcePick?: boolean;
}): RubricChoice {
  if (opts.activeIsRubric && !opts.forcePick) return { kind: "active", uri: opts.activeUri };
  if (opts.remembered && opts.rememberedExists && !opts.forcePick) return { kind: "remembered", uri: opts.remembered };
  return { kind: "pick" };
}

/** Arguments for the server's `rubric-lsp.gradeText` command. */
export function gradeTextArgs(rubricUri: string, text: string, query?: string): { uri: string; text: string; query?: string } {
  const args: { uri: string; text: string; query?: string } = { uri: rubricUri, text };
  if (query !== undefined && query.trim() !== "") args.query = query;
  return args;
}
