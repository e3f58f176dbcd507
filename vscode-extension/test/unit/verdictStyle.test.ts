import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { VERDICT_KINDS, Verdict } from "../../src/protocol";
import { KIND_STYLES, decorationsByKind, gutterIconSvg, verdictHover } from "../../src/verdictStyle";

const at = (line: number, kind: Verdict["kind"], label: string = kind, example?: string): Verdict => ({
  uri: "file:///r.yaml",
  range: { start: { line, character: 0 }, end: { line, character: 4 } },
  kind,
  label,
  ...(example ? { example } : {}),
});

test("every kind has its own colour and glyph, and a contributed theme colour", () => {
  const colours = new Set(VERDICT_KINDS.map((k) => KIND_STYLES[k].hex));
  const glyphs = new Set(VERDICT_KINDS.map((k) => KIND_STYLES[k].glyph));
  assert.equal(colours.size, VERDICT_KINDS.length);
  assert.equal(glyphs.size, VERDICT_KINDS.length);
  const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
  const ids = new Set(pkg.contributes.colors.map((c: { id: string }) => c.id));
  for (const k of VERDICT_KINDS) assert.ok(ids.has(KIND_STYLES[k].themeColor), `${KIND_STYLES[k].themeColor} contributed`);
  // a penalty that applied never shares met's colour or mark
  assert.notEqual(KIND_STYLES["penalty-applied"].hex, KIND_STYLES.met.hex);
  assert.notEqual(KIND_STYLES["penalty-applied"].glyph, KIND_STYLES.met.glyph);
});

test("gutter icon names its kind", () => {
  for (const k of VERDICT_KINDS) {
    const svg = decodeURIComponent(gutterIconSvg(k).replace(/^data:image\/svg\+xml;utf8,/, ""));
    assert.match(svg, new RegExp(`id="rubric-verdict-${k}"`));
    assert.ok(svg.includes(KIND_STYLES[k].hex));
  }
});

test("a line shared by several verdicts (one per example) is coloured by the worst; each stays in the hover", () => {
  const grouped = decorationsByKind([at(1, "met", "polite ✓", "polite"), at(1, "expectation-failed", "strict ≠", "strict"), at(2, "met"), at(3, "penalty-applied", "−12 invented_policy"), at(3, "unmet")]);
  assert.deepEqual(grouped.get("expectation-failed")?.map((v) => v.example), ["polite", "strict"]);
  assert.deepEqual(grouped.get("met")?.map((v) => v.range.start.line), [2]);
  assert.deepEqual(grouped.get("penalty-applied")?.map((v) => v.label), ["−12 invented_policy", "unmet"]);
  assert.equal(grouped.get("unmet"), undefined);
});

test("hover: kind in words, label, example, the judge's explanation", () => {
  const v = { ...at(3, "penalty-applied", "−12 invented_policy", "refund"), detail: "The reply invents a 90-day policy." };
  assert.equal(verdictHover(v), "**penalty applied (a loss)** — −12 invented_policy\n\nexample: `refund`\n\nThe reply invents a 90-day policy.");
});
