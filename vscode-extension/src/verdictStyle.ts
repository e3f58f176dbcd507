/**
 * How each verdict kind looks (pure: unit-tested without VS Code). The server's inlay hints
 * and lenses carry the words ("✓ MET", "−12 invented_policy"); the extension adds what a
 * plain-text hint cannot: a colour per kind, in the gutter, the overview ruler and a tint of
 * the graded lines, so that a penalty that applied never reads like a criterion met.
 */
import type { Verdict, VerdictKind } from "./protocol";

export interface KindStyle {
  /** Theme colour id (contributed in package.json with light/dark defaults). */
  themeColor: string;
  /** The same colour as hex, for the gutter icon (an SVG cannot use theme colours). */
  hex: string;
  /** One character drawn in the gutter icon. */
  glyph: string;
  /** Words for hovers and the README. */
  title: string;
}

export const KIND_STYLES: Record<VerdictKind, KindStyle> = {
  met: { themeColor: "rubric.verdict.met", hex: "#2ea043", glyph: "✓", title: "criterion met" },
  unmet: { themeColor: "rubric.verdict.unmet", hex: "#e5534b", glyph: "✗", title: "criterion not met" },
  "penalty-applied": { themeColor: "rubric.verdict.penaltyApplied", hex: "#d4762c", glyph: "−", title: "penalty applied (a loss)" },
  "penalty-avoided": { themeColor: "rubric.verdict.penaltyAvoided", hex: "#57ab5a", glyph: "○", title: "penalty avoided" },
  "cannot-assess": { themeColor: "rubric.verdict.cannotAssess", hex: "#8b949e", glyph: "?", title: "judge cannot assess" },
  error: { themeColor: "rubric.verdict.error", hex: "#a371f7", glyph: "!", title: "judge error (no verdict)" },
  "expectation-failed": { themeColor: "rubric.verdict.expectationFailed", hex: "#db61a2", glyph: "≠", title: "expectation not met" },
};

/** A 16×16 gutter icon: the kind's glyph on a disc of its colour (an SVG data URI; the id names the kind). */
export function gutterIconSvg(kind: VerdictKind): string {
  const s = KIND_STYLES[kind];
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16" id="rubric-verdict-${kind}">` +
    `<circle cx="8" cy="8" r="7" fill="${s.hex}"/>` +
    `<text x="8" y="12" font-size="11" font-family="sans-serif" font-weight="bold" text-anchor="middle" fill="#fff">${s.glyph}</text></svg>`;
  return `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`;
}

/** The hover text of one verdict: its kind, label, example and the judge's words. */
export function verdictHover(v: Verdict): string {
  const head = `**${KIND_STYLES[v.kind].title}** — ${v.label}`;
  return [head, v.example ? `example: \`${v.example}\`` : "", v.detail ?? ""].filter((s) => s).join("\n\n");
}

/**
 * Which kind colours a line that several verdicts share (one per example, say): the worst
 * news wins, so an error or a failed expectation is never hidden behind a green mark.
 */
export const KIND_PRIORITY: VerdictKind[] = ["error", "expectation-failed", "penalty-applied", "unmet", "cannot-assess", "penalty-avoided", "met"];

/** The verdicts of one document grouped by kind, at most one gutter mark per line (the worst). */
export function decorationsByKind(verdicts: Verdict[]): Map<VerdictKind, Verdict[]> {
  const byLine = new Map<number, Verdict[]>();
  for (const v of verdicts) {
    const list = byLine.get(v.range.start.line);
    if (list) list.push(v);
    else byLine.set(v.range.start.line, [v]);
  }
  const out = new Map<VerdictKind, Verdict[]>();
  for (const list of byLine.values()) {
    const worst = [...list].sort((a, b) => KIND_PRIORITY.indexOf(a.kind) - KIND_PRIORITY.indexOf(b.kind))[0];
    for (const v of list) {
      // the line's colour is the worst kind; every verdict of the line stays in its hover
      const key = worst.kind;
      const group = out.get(key);
      if (group) group.push(v);
      else out.set(key, [v]);
    }
  }
  return out;
}
