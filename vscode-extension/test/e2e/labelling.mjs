// e2e step for issue 37 ("Label, review, refine"), called from run.mjs with the real server:
//   L1 an autorubric dataset with two unlabelled items: its "✎ Label these examples (2 of 6 labelled)" lens, clicked,
//      opens the labelling page (rubric-lsp.label, a page on 127.0.0.1) in a webview beside the editor
//   L2 in the webview's frame: the first item, each criterion in its own words (MET / UNMET / CANNOT_ASSESS, the
//      options' labels); keys 1 and 2 label it, and the dataset on disk holds its ground_truth, nothing else changed
//   L3 the page's "open" link on a criterion opens the dataset in the editor at the criterion's line
// Run only this step: RUBRIC_E2E_STEPS=labelling node test/e2e/run.mjs
import fs from "node:fs";
import path from "node:path";

export const LABELLING_DIR = "labelling";
const DATASET = "replies.dataset.json";

export function writeLabellingFixtures(ws) {
  const dir = path.join(ws, LABELLING_DIR);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, DATASET), [
    "{",
    '  "name": "support replies",',
    '  "prompt": "Where is my parcel?",',
    '  "rubric": [',
    '    {"name": "polite", "requirement": "The reply is polite"},',
    '    {"name": "tone", "requirement": "How warm is the reply?", "options": [{"label": "Cold", "value": 0}, {"label": "Warm", "value": 1}]}',
    "  ],",
    '  "items": [',
    '    {"submission": "It ships tomorrow, thank you for waiting!", "description": "thanks"},',
    '    {"submission": "Tomorrow.", "description": "curt"},',
    '    {"submission": "It shipped.", "description": "labelled", "ground_truth": ["MET", "Cold"]}',
    "  ]",
    "}",
    "",
  ].join("\n"));
}

export async function labellingSteps(h) {
  const { page, check, log, shot, openFile, ws } = h;
  const file = path.join(ws, LABELLING_DIR, DATASET);
  const before = fs.readFileSync(file, "utf8");
  const waitFor = async (cond, ms) => {
    for (const end = Date.now() + ms; Date.now() < end; await page.waitForTimeout(250)) if (await cond()) return true;
    return !!(await cond());
  };

  // L1. the lens opens the page in a webview
  await openFile(DATASET);
  const editor = page.locator(".monaco-editor", { hasText: "support replies" }).first();
  await editor.waitFor({ timeout: 20000 });
  const lens = editor.locator(".codelens-decoration a", { hasText: "Label these examples" }).first();
  const hasLens = await lens.waitFor({ timeout: 30000 }).then(() => true, () => false);
  const lensText = hasLens ? await lens.innerText() : "";
  check(hasLens && lensText.includes("(2 of 6 labelled)"), `the dataset has a '✎ Label these examples' lens (${JSON.stringify(lensText)})`);
  if (!hasLens) return;
  await lens.click();
  const tab = page.locator(".tab", { hasText: `Label: ${DATASET}` }).first();
  check(await tab.waitFor({ timeout: 30000 }).then(() => true, () => false), "a webview tab 'Label: replies.dataset.json' opens");
  // the page, at 127.0.0.1:PORT or through code-server's proxy (/proxy/PORT/), with its token
  const labelFrame = () => page.frames().find((f) => /^http:\/\/127\.0\.0\.1:\d+\/(proxy\/\d+\/)?\?token=/.test(f.url()));
  const framed = await waitFor(async () => {
    const f = labelFrame();
    return !!f && (await f.evaluate(() => document.body?.dataset.ready === "1").catch(() => false));
  }, 30000);
  log(`frames: ${JSON.stringify(page.frames().map((f) => f.url().replace(/token=[^&]+/, "token=…")))}`);
  check(framed, "the webview frames the labelling page served on 127.0.0.1 (with its token)");
  if (!framed) { await shot("l0-no-labelling-page"); return; }
  const frame = labelFrame();
  const title = await frame.locator("#item-title").innerText();
  check(title === "Item 1: thanks", `the page shows the first unlabelled item (${JSON.stringify(title)})`);
  const words = await frame.locator("[data-unit] .choices").allInnerTexts();
  log(`choices: ${JSON.stringify(words)}`);
  check(/MET[\s\S]*UNMET[\s\S]*CANNOT_ASSESS/.test(words[0] ?? "") && /Cold[\s\S]*Warm/.test(words[1] ?? ""),
    "each criterion in its own words (MET / UNMET / CANNOT_ASSESS; Cold / Warm)");
  await shot("l1-labelling-webview");

  // L2. keys label the item; the file holds its ground_truth once both criteria are labelled
  await frame.locator("#item-title").click();
  await page.keyboard.press("1");
  await waitFor(async () => (await frame.locator("[data-unit=polite][data-answered]").count()) === 1, 15000);
  await page.keyboard.press("2");
  const written = await waitFor(async () => fs.readFileSync(file, "utf8").includes('"ground_truth": ["MET", "Warm"]'), 15000);
  const expected = before.replace('"description": "thanks"}', '"description": "thanks", "ground_truth": ["MET", "Warm"]}');
  check(written && fs.readFileSync(file, "utf8") === expected,
    "keys 1 and 2 in the webview wrote item 1's ground_truth, and only that, into the dataset on disk");
  await shot("l2-labelled-in-the-webview");

  // L3. "open" on a criterion: the dataset in the editor, the cursor on the criterion's line
  await frame.locator("[data-unit=tone] a.open").click();
  const where = page.locator(".statusbar-item", { hasText: /Ln 6, Col 5/ }).first();
  const opened = await where.waitFor({ timeout: 15000 }).then(() => true, () => false);
  check(opened, "the page's 'open' link put the editor's cursor on the criterion 'tone' (Ln 6, Col 5)");
  await shot("l3-criterion-opened");
  await page.keyboard.press("Escape");
}
