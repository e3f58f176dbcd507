// e2e step for issue 28 ("Know how far to trust each judge"), called from run.mjs with the real server:
//   C1 a labelled autorubric dataset, calibrated with `rubric calibrate` against the test judge before
//      VS Code starts, in a folder whose rubric-lint.toml says `calibration = { required = true }`:
//      the dataset opens with no RL020 (its record is fresh)
//   C2 one word of one criterion typed in the editor -> Problems shows RL020 "stale" naming that criterion
//   C3 hovering the criterion shows the record's line: κ [interval] over N labels · judge · date (stale …)
//   C4 the dataset's "▶ Calibrate the judge" lens: the editor's judge calibrates the edited text, the record
//      is rewritten with the new words, and the stale finding goes
// Run only this step: RUBRIC_E2E_STEPS=calibration node test/e2e/run.mjs
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export const CALIBRATION_DIR = "calibrated";
const DATASET = "maths.dataset.json";

/** The labelled set: the judge (MET unless the submission carries "[judge:UNMET]") disagrees with two labels. */
export function writeCalibrationFixtures(ws) {
  const dir = path.join(ws, CALIBRATION_DIR);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "rubric-lint.toml"), "calibration = { required = true }\n");
  const item = (submission, truth) => ({ submission, description: submission.slice(0, 20), ground_truth: truth });
  fs.writeFileSync(path.join(dir, DATASET), JSON.stringify({
    name: "capitals",
    prompt: "What is the capital of France?",
    rubric: [
      { name: "names_paris", requirement: "Names Paris as the capital" },
      { name: "gives_reason", requirement: "Gives a reason for the answer" },
    ],
    items: [
      item("Paris.", ["MET", "UNMET"]),
      item("Paris, because the government sits there.", ["MET", "MET"]),
      item("Paris: it has been the capital since 987.", ["MET", "MET"]),
      item("Lyon [judge:UNMET].", ["UNMET", "UNMET"]),
      item("Marseille, because it is the largest port [judge:UNMET].", ["UNMET", "MET"]),
      item("Nice [judge:UNMET].", ["UNMET", "UNMET"]),
    ],
  }, null, 2) + "\n");
}

/** `rubric calibrate` (python -m rubric_lsp calibrate) on the dataset, against the judge on 127.0.0.1. */
export function calibrate({ ws, tmp, python, judgePort, log }) {
  const dataset = path.join(ws, CALIBRATION_DIR, DATASET);
  const run = spawnSync(python, ["-m", "rubric_lsp", "calibrate", dataset, "--model", "openai/fake-judge", "--api-base", `http://127.0.0.1:${judgePort}/v1`], {
    encoding: "utf8",
    timeout: 180000,
    env: { ...process.env, OPENAI_API_KEY: "sk-e2e-fake", LITELLM_LOCAL_MODEL_COST_MAP: "True", RUBRIC_CACHE_DIR: path.join(tmp, "calibrate-cache") },
  });
  log(`rubric calibrate: exit ${run.status}\n${run.stdout}${run.stderr.trim().split("\n").slice(-3).join("\n")}`);
  const recordFile = `${dataset}.calibration.json`;
  return run.status === 0 && fs.existsSync(recordFile) ? JSON.parse(fs.readFileSync(recordFile, "utf8")) : undefined;
}

export async function calibrationSteps(h) {
  const { page, check, log, shot, openFile, problemRows, record, ws } = h; // h.runCommand too
  if (!check(record !== undefined, "rubric calibrate wrote the dataset's calibration record")) return;
  const rl020 = async () => (await problemRows()).filter((r) => /RL020/.test(r));
  const waitFor = async (cond, ms) => {
    for (const end = Date.now() + ms; Date.now() < end; await page.waitForTimeout(250)) if (await cond()) return true;
    return !!(await cond());
  };

  // C1. fresh: linted (another rubric-lint finding would show; this one has none), and no RL020
  await openFile(DATASET);
  await page.keyboard.press("Control+Shift+M");
  const editor = page.locator(".monaco-editor", { hasText: "gives_reason" }).first();
  await editor.waitFor({ timeout: 20000 });
  await page.waitForTimeout(4000); // the server's first lint of the file (a stale record would be reported by now)
  const before = await rl020();
  check(before.length === 0, `the freshly calibrated dataset has no RL020 in Problems (${JSON.stringify(before)})`);

  // C2. one word of one criterion: "Gives a reason" -> "Gives a short reason", typed in the editor
  const line = editor.locator(".view-line", { hasText: "Gives a reason for the answer" }).first();
  await line.click();
  await page.keyboard.press("End");
  for (let i = 0; i < '"'.length + " for the answer".length + " reason".length; i++) await page.keyboard.press("ArrowLeft");
  await page.keyboard.type(" short");
  const stale = await waitFor(async () => (await rl020()).some((r) => /'gives_reason' is stale: its text changed/.test(r)), 30000);
  const rows = await rl020();
  log(`RL020 rows: ${JSON.stringify(rows)}`);
  check(stale, "Problems: RL020 says the calibration record of 'gives_reason' is stale (its text changed)");
  check(rows.length === 1, `only that criterion is stale ('names_paris' is untouched): ${rows.length} RL020 row(s)`);
  await shot("c1-stale-calibration-problem");

  // C3. hover on the criterion: the record's line, as the record holds it
  const unit = record.units.find((u) => u.id === "gives_reason");
  const expected = new RegExp(
    `Calibration of criterion gives_reason: κ -?\\d\\.\\d\\d \\[-?\\d\\.\\d\\d, -?\\d\\.\\d\\d\\] over ${unit.figures.labels} labels · fake-judge · ${record.date} \\(stale: its text changed since ${record.date}\\)`,
  );
  const kappa = unit.figures.kappa;
  const figures = `κ ${kappa.value.toFixed(2)} [${kappa.interval[0].toFixed(2)}, ${kappa.interval[1].toFixed(2)}]`;
  let hoverText = "";
  const hovered = await waitFor(async () => {
    await editor.locator(".view-line", { hasText: "Gives a short reason" }).first().hover({ position: { x: 260, y: 5 } });
    await page.waitForTimeout(1200);
    hoverText = (await page.locator(".monaco-hover-content").allInnerTexts()).join("\n").replace(/\u00a0/g, " ");
    return expected.test(hoverText);
  }, 30000);
  log(`hover: ${JSON.stringify(hoverText.slice(0, 400))}`);
  check(hovered, `hover on the criterion shows its record: ${JSON.stringify(expected.source)}`);
  check(hoverText.includes(figures), `the hover's κ and interval are the record's (${figures})`);
  await shot("c2-calibration-hover");

  // C4. Calibrate from the editor (the lens; trust-gated and with progress, as a grading)
  await page.keyboard.press("Escape");
  const lens = editor.locator(".codelens-decoration a", { hasText: "Calibrate the judge" }).first();
  const hasLens = await lens.waitFor({ timeout: 20000 }).then(() => true, () => false);
  check(hasLens, "the dataset has a '▶ Calibrate the judge' lens");
  if (hasLens) {
    await lens.click();
    const fresh = await waitFor(async () => (await rl020()).length === 0, 90000);
    const recordFile = path.join(ws, CALIBRATION_DIR, `${DATASET}.calibration.json`);
    const rewritten = JSON.parse(fs.readFileSync(recordFile, "utf8")).units.find((u) => u.id === "gives_reason");
    check(fresh && rewritten.title === "Gives a short reason for the answer",
      `the lens rewrote the record with the new words (${JSON.stringify(rewritten.title)}) and RL020 went`);
    await shot("c3-calibrated-from-the-lens");
  }

  // leave the file as it is on disk (a save would grade it: gradeOnSave), and close it
  await page.keyboard.press("Escape");
  await editor.locator("textarea").first().focus();
  await h.runCommand("File: Revert File");
  await page.waitForTimeout(1000);
  await page.keyboard.press("Control+W");
  await page.waitForTimeout(500);
}
