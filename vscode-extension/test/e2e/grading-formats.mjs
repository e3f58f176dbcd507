// e2e steps for issue 14 ("Grade anything from the editor"), called from run.mjs:
//   F1 Grade Selection on a response, against a promptfoo test picked from the targets of every
//      format -> that test's verdicts; the judge was asked about that test's rubric and the response
//   F2 the same against a NorthStar grader
//   F3 Grade Examples on an autorubric rubric -> every verdict kind, coloured by kind (gutter marks),
//      one screenshot per kind (images for the README)
//   F4 Grade Examples on a dataset -> agreement lens on a criterion; the judge saw the items;
//      its "confusion matrix" lens opens the report in a webview
//   F5 rubric text selected, no response yet -> nothing graded (no judge call), a short toast with a button;
//      the response file opened, its lens; typed there, graded against it (issue 35 item 3);
//      Grade Examples on a file with nothing to grade -> "nothing to grade"
//   F6 a slow judge: "Grading n/N" in the status bar; clicking it cancels; a message; hints cleared
// F1, F2, F4 need the Python server (the stand-in knows autorubric-like YAML only).
// Run only these steps: RUBRIC_E2E_STEPS=formats node test/e2e/run.mjs [--fake-server]
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/** The judge's scripted answers, by a marker in the request: [marker, reply JSON]. Default: MET. */
export const JUDGE_RULES = [
  // a NorthStar binary grader's reply (its schema, not autorubric's)
  ["[ns-tone]", { reason: "The reply is polite and stays on topic.", feedback: "Keep the tone.", passed: true }],
  ["[judge:UNMET]", { criterion_status: "UNMET", explanation: "The response does not do this." }],
  ["[judge:CANNOT_ASSESS]", { criterion_status: "CANNOT_ASSESS", explanation: "The response gives nothing to judge this by." }],
  ["[judge:garbage]", { note: "no verdict in this answer" }],
];

/** Arguments for tests/judge_server.py: the rules above as --when TEXT=JSON. */
export const judgeArgs = () => JUDGE_RULES.flatMap(([marker, reply]) => ["--when", `${marker}=${JSON.stringify(reply)}`]);

const KINDS = ["met", "unmet", "penalty-applied", "penalty-avoided", "cannot-assess", "error", "expectation-failed"];

export function writeFixtures(ws) {
  const w = (name, lines) => fs.writeFileSync(path.join(ws, name), Array.isArray(lines) ? lines.join("\n") + "\n" : lines);
  w("answer.md", ["Paris is the capital of France. Refunds take 90 days."]);
  w("promptfooconfig.yaml", [
    "description: capitals and refunds",
    "prompts:",
    "  - 'Answer: {{question}}'",
    "providers:",
    "  - openai:gpt-4o-mini",
    "tests:",
    "  - description: capital of France",
    "    vars: {question: What is the capital of France?}",
    "    assert:",
    "      - type: llm-rubric",
    "        value: Names Paris as the capital [pf-one]",
    "  - description: refund window",
    "    vars: {question: How long do refunds take?}",
    "    assert:",
    "      - type: llm-rubric",
    "        value: Says refunds are possible within 30 days [pf-two]",
  ]);
  w("eval_run_request.json", JSON.stringify({
    graders: [
      { type: "rubric", name: "accuracy_judge", model: "openai/fake-judge", rubric: "Grade whether the answer is factually right [ns-accuracy].", scoring: { mode: "binary" } },
      { type: "rubric", name: "tone_judge", model: "openai/fake-judge", rubric: "Pass when the response is polite and stays on topic [ns-tone].", scoring: { mode: "binary" } },
    ],
  }, null, 2) + "\n");
  // every verdict kind from one Grade Examples (the judge answers MET unless a marker says otherwise)
  w("kinds.rubric.yaml", [
    "rubric:",
    "  - name: greets",
    "    requirement: Greets the customer by name",
    "    weight: 4",
    "  - name: cites_policy",
    "    requirement: Quotes the refund policy word for word [judge:UNMET]",
    "    weight: 3",
    "  - name: invented_policy",
    "    requirement: Invents a policy detail that contradicts the store's policy",
    "    weight: -12",
    "  - name: insults",
    "    requirement: Insults the customer [judge:UNMET]",
    "    weight: -5",
    "  - name: mood",
    "    requirement: Matches the customer's mood [judge:CANNOT_ASSESS]",
    "    weight: 2",
    "  - name: order_number",
    "    requirement: Uses the customer's order number [judge:garbage]",
    "    weight: 2",
    "examples:",
    "  - name: refund_reply",
    "    response: Hello Ana, refunds take 90 days.",
    "    expect: {min_score: 0.9}",
  ]);
  w("support.dataset.json", JSON.stringify({
    name: "support-v1",
    prompt: "How do I get my money back?",
    rubric: [
      { name: "refund_window", requirement: "States that refunds are possible within 30 days [ds-window]", weight: 10 },
      { name: "rude", requirement: "Is rude to the customer [judge:UNMET]", weight: -5 },
    ],
    items: [
      { submission: "You can return it within 30 days [ds-item-one].", ground_truth: ["MET", "UNMET"] },
      { submission: "Go away [ds-item-two].", ground_truth: ["UNMET", "MET"] },
    ],
  }, null, 2) + "\n");
  w("fresh.rubric.yaml", ["rubric:", "  - name: concise", "    requirement: Is at most two sentences long [fresh-criterion]", "    weight: 2"]);
  w("notes.yaml", ["title: meeting notes", "items: [one, two]"]);
  w("slow.rubric.yaml", [
    "rubric:",
    ...Array.from({ length: 8 }, (_, i) => [`  - name: step_${i + 1}`, `    requirement: Mentions step ${i + 1} of the return [judge:slow]`, "    weight: 1"]).flat(),
    "examples:",
    "  - name: walkthrough",
    "    response: First pack it, then ship it.",
  ]);
}

/** The judge's requests (from its logs), as text, in order. */
function judgeTexts(artifacts, file = "judge-requests.jsonl") {
  const out = [];
  try {
    for (const line of fs.readFileSync(path.join(artifacts, file), "utf8").split("\n")) {
      if (!line.trim()) continue;
      const body = JSON.parse(line).body;
      out.push((body?.messages ?? []).map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n"));
    }
  } catch {}
  try {
    for (const line of fs.readFileSync(path.join(artifacts, "judge.log"), "utf8").split("\n")) if (line.startsWith("REQUEST ")) out.push(line);
  } catch {}
  return out;
}

/**
 * Another judge on 127.0.0.1 (the F6 slow one): the Python project's with `args`, or, for the
 * stand-in server, fake-judge.mjs (slow on the "[judge:slow]" marker). Stopped by `stop()`.
 */
async function startJudge(h, args) {
  const port = await new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
  const out = path.join(h.artifacts, `judge-${port}.log`);
  const logFile = args[args.indexOf("--log") + 1];
  const child = h.useRepoJudge
    ? spawn(h.python, [h.judgeScript, "--port", String(port), ...args], { stdio: ["ignore", "pipe", "pipe"], detached: true })
    : spawn(process.execPath, [path.join(here, "fake-judge.mjs"), String(port)], { stdio: ["ignore", "pipe", "pipe"], detached: true });
  h.children.push(child);
  child.stdout.on("data", (d) => fs.appendFileSync(out, d));
  child.stderr.on("data", (d) => fs.appendFileSync(out, d));
  const base = `http://127.0.0.1:${port}/v1`;
  for (let i = 0; i < 80; i++) {
    try { if ((await fetch(`${base}/models`)).status < 500) break; } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  const count = (f, re) => { try { return fs.readFileSync(f, "utf8").split("\n").filter((l) => re.test(l)).length; } catch { return 0; } };
  return {
    base,
    requests: () => (h.useRepoJudge ? count(logFile, /\S/) : count(out, /^REQUEST /)),
    stop: () => { try { process.kill(-child.pid, "SIGTERM"); } catch {} },
  };
}

export async function gradingFormats(h) {
  const { page, artifacts, check, log, shot, runCommand, FAKE } = h;
  // From the Explorer first: after Close All Editors or a server restart Quick Open swallowed its Enter on
  // every CI run (5 waits of 15 s each), while the Explorer's row opened the file each time. Quick Open
  // stays the fallback (a row the Explorer has not shown yet).
  const openFile = async (name) => {
    try {
      const row = page.locator(".explorer-folders-view .monaco-list-row", { hasText: name }).first();
      await row.waitFor({ timeout: 5000 });
      await row.dblclick();
      await page.locator(`.tab[aria-label^="${name}"]`).first().waitFor({ timeout: 10000 });
      await page.waitForTimeout(500);
      await page.locator(".monaco-editor textarea").first().focus();
    } catch (e) {
      log(`opening ${name} with Quick Open (${String(e).split("\n")[0]})`);
      await h.openFile(name);
    }
  };
  const requests = () => judgeTexts(artifacts);
  const since = (n) => requests().slice(n);
  const waitUntil = async (cond, ms) => {
    for (const end = Date.now() + ms; Date.now() < end; await page.waitForTimeout(250)) if (await cond()) return true;
    return !!(await cond());
  };
  const viewText = () => page.evaluate(() => [...document.querySelectorAll(".view-line")].map((v) => (v.textContent || "").replace(/\u00a0/g, " ")));
  const toast = (re) => page.locator(".notifications-toasts .notification-toast", { hasText: re }).first().waitFor({ timeout: 30000 }).then(() => true, () => false);
  /** The verdict kinds the extension's gutter marks show, with their boxes (the SVG names its kind). */
  const gutterKinds = () => page.evaluate(() => {
    const out = [];
    for (const el of document.querySelectorAll(".monaco-editor .glyph-margin-widgets *, .monaco-editor .margin-view-overlays *")) {
      const m = /rubric-verdict-([a-z-]+)/.exec(decodeURIComponent(getComputedStyle(el).backgroundImage || ""));
      if (m) { const r = el.getBoundingClientRect(); out.push({ kind: m[1], x: r.x, y: r.y, h: r.height }); }
    }
    return out;
  });
  /** Replace the user settings as a user would (VS Code does not notice a write behind its back soon enough). */
  async function editUserSettings(values) {
    await runCommand("Preferences: Open User Settings (JSON)");
    await page.locator('.tab[aria-label^="settings.json"]').first().waitFor({ timeout: 15000 });
    await page.waitForTimeout(500);
    await page.locator(".monaco-editor textarea").first().focus();
    await page.keyboard.press("Control+A");
    await page.keyboard.insertText(JSON.stringify(values, null, 2));
    await page.keyboard.press("Control+S");
    await page.waitForTimeout(1500);
    await page.keyboard.press("Control+W");
    await page.waitForTimeout(1000);
  }
  async function gradeAgainst(label) {
    await openFile("answer.md");
    await page.locator(".monaco-editor textarea").first().focus();
    await page.keyboard.press("Control+A");
    await runCommand("Rubric: Grade Selection Against…");
    const row = page.locator(".quick-input-list .monaco-list-row", { hasText: label }).first();
    await row.waitFor({ timeout: 30000 });
    const rows = await page.locator(".quick-input-list .monaco-list-row").allInnerTexts();
    await row.click();
    return rows.map((r) => r.replace(/\s+/g, " "));
  }

  if (!h.serverCommands.includes("rubric-lsp.gradeSelection")) {
    console.log("SKIPPED (grading formats): the server does not offer rubric-lsp.gradeSelection yet");
    return;
  }

  // F1. a promptfoo test, picked from the targets of every format
  if (!FAKE) {
    const before = requests().length;
    const rows = await gradeAgainst("capital of France");
    log(`targets: ${JSON.stringify(rows)}`);
    check(["capital of France", "refund window", "accuracy_judge", "tone_judge", "kinds.rubric.yaml", "fresh.rubric.yaml"].every((t) => rows.some((r) => r.includes(t))),
      "targets: each promptfoo test, each NorthStar grader and each rubric, as the user named them");
    const asked = await waitUntil(() => since(before).length > 0, 90000);
    await page.waitForTimeout(1500);
    const texts = since(before);
    check(asked && texts.every((t) => t.includes("Paris is the capital")) && texts.some((t) => t.includes("[pf-one]")) && !texts.some((t) => t.includes("[pf-two]")),
      `promptfoo: the judge was asked about test 'capital of France' and the selected response only (${texts.length} request(s))`);
    const hint = await waitUntil(async () => (await viewText()).some((t) => /Names Paris|llm-rubric/.test(t) && /✓|✗/.test(t)), 30000);
    check(hint, "promptfoo: the test's verdict is shown in the config");
    await shot("f1-promptfoo-test");

    // F2. a NorthStar grader
    const before2 = requests().length;
    await gradeAgainst("tone_judge");
    const asked2 = await waitUntil(() => since(before2).length > 0, 90000);
    await page.waitForTimeout(1500);
    const texts2 = since(before2);
    check(asked2 && texts2.some((t) => t.includes("[ns-tone]") && t.includes("Paris is the capital")) && !texts2.some((t) => t.includes("[ns-accuracy]")),
      `NorthStar: the judge was asked about grader 'tone_judge' and the response only (${texts2.length} request(s))`);
    const passed = await waitUntil(async () => (await gutterKinds()).some((g) => g.kind === "met") && (await viewText()).some((t) => /✓/.test(t)), 30000);
    check(passed, "NorthStar: the grader's pass is shown on it (✓, green)");
    await shot("f2-northstar-grader");
  }

  // F3. every verdict kind, coloured
  {
    await runCommand("View: Close All Editors");
    await openFile("kinds.rubric.yaml");
    const before = requests().length;
    await runCommand("Rubric: Grade Examples");
    const all = await waitUntil(async () => new Set((await gutterKinds()).map((g) => g.kind)).size >= KINDS.length, 120000);
    const shown = [...new Set((await gutterKinds()).map((g) => g.kind))];
    check(all, `Grade Examples: a gutter mark of every verdict kind (${JSON.stringify(shown)})`);
    const texts = since(before);
    check(texts.length > 0 && texts.every((t) => t.includes("refunds take 90 days")), `the judge was asked about the example's response (${texts.length} request(s))`);
    const loss = await waitUntil(async () => (await viewText()).some((t) => /invented_policy/.test(t) && /−12/.test(t)), 20000);
    check(loss, "a penalty that applied reads as a loss with its weight (−12 invented_policy)");
    await shot("f3-verdict-kinds");
    // one picture per kind: its line, gutter to text
    const editorBox = await page.locator(".monaco-editor", { hasText: "invented_policy" }).first().boundingBox();
    for (const g of await gutterKinds()) {
      if (!editorBox || fs.existsSync(path.join(artifacts, `verdict-${g.kind}.png`))) continue;
      const top = Math.max(0, g.y - 6);
      await page.screenshot({ path: path.join(artifacts, `verdict-${g.kind}.png`), clip: { x: Math.max(0, g.x - 40), y: top, width: Math.min(760, editorBox.x + editorBox.width - g.x + 40), height: g.h + 12 } });
    }
    log(`per-kind screenshots: ${KINDS.filter((k) => fs.existsSync(path.join(artifacts, `verdict-${k}.png`))).join(", ")}`);
  }

  // F4. a dataset: agreement with the labels where the criterion is written
  if (!FAKE) {
    await openFile("support.dataset.json");
    const before = requests().length;
    await runCommand("Rubric: Grade Examples");
    const lens = await page.locator(".codelens-decoration", { hasText: /accuracy|κ|kappa|agree/i }).first().waitFor({ timeout: 120000 }).then(() => true, () => false);
    const lensText = lens ? await page.locator(".codelens-decoration", { hasText: /accuracy|κ|kappa|agree/i }).first().innerText() : "";
    check(lens, `dataset: an agreement lens on a criterion (${JSON.stringify(lensText)})`);
    const texts = since(before);
    check(texts.some((t) => t.includes("[ds-item-one]")) && texts.some((t) => t.includes("[ds-item-two]")), `dataset: the judge was asked about every item (${texts.length} request(s))`);
    await shot("f4-dataset-agreement");

    // F4b. the criterion's "confusion matrix" lens opens the grading's report in a webview
    const matrixLens = page.locator(".codelens-decoration a", { hasText: "confusion matrix" }).first();
    const hasMatrix = await matrixLens.waitFor({ timeout: 20000 }).then(() => true, () => false);
    check(hasMatrix, "dataset: a 'confusion matrix' lens on a criterion");
    if (hasMatrix) {
      await matrixLens.click();
      const tab = await page.locator('.tab[aria-label^="Rubric report"]').first().waitFor({ timeout: 30000 }).then(() => true, () => false);
      const inWebview = async () => {
        for (const f of page.frames()) {
          const text = await f.evaluate(() => (document.body ? document.body.innerText : "")).catch(() => "");
          if (/Confusion matrices/.test(text) && /Agreement with the human labels/.test(text)) return true;
        }
        return false;
      };
      const shown = await waitUntil(inWebview, 30000);
      check(tab && shown, "dataset: the lens opens the report, with its confusion matrices, in a webview");
      await shot("f4b-report-webview");
      await page.locator('.tab[aria-label^="Rubric report"] .codicon-close').first().click().catch(() => {});
      await page.waitForTimeout(500);
    }

    // F4c. the "n disagreeing item(s)" lens goes to the item; the server's text copies of both lenses
    //      (for clients without these views, issue 25 item 8) never reach VS Code (show: false)
    const disagreeLens = page.locator(".codelens-decoration a", { hasText: /disagreeing item/ }).first();
    const hasDisagree = await disagreeLens.waitFor({ timeout: 20000 }).then(() => true, () => false);
    check(hasDisagree, "dataset: a 'disagreeing item(s)' lens on a criterion");
    if (hasDisagree) {
      await disagreeLens.click();
      const pick = page.locator(".quick-input-list .monaco-list-row").first();
      if (await pick.waitFor({ timeout: 5000 }).then(() => true, () => false)) await page.keyboard.press("Enter");
      const selected = await waitUntil(async () => /\[ds-item-/.test(await page.evaluate(() => window.getSelection()?.toString() ?? "")) ||
        (await page.locator(".monaco-editor .selected-text").count()) > 0, 15000);
      check(selected, "dataset: the disagreeing lens selects the item in the dataset");
      await page.waitForTimeout(1500);
      const toasts = await page.locator(".notifications-toasts .notification-list-item-message").allInnerTexts();
      check(!toasts.some((t) => /where the judge and the labels disagree|confusion matrix over/.test(t)),
        `dataset: the lenses' text copies are not shown in VS Code (${JSON.stringify(toasts)})`);
      await shot("f4c-disagreeing-item");
    }
  }

  // F5. rubric text without a response: nothing graded; nothing to grade: said so.
  //     A new server first: it has seen no response yet (earlier steps graded some).
  {
    await runCommand("Rubric: Restart Server");
    await page.waitForTimeout(6000);
    await openFile("fresh.rubric.yaml");
    await page.locator(".monaco-editor textarea").first().focus();
    await page.keyboard.press("Control+A");
    const before = requests().length;
    await runCommand("Rubric: Grade Selection");
    const said = await toast(/response/i);
    await page.waitForTimeout(3000);
    check(requests().length === before, `rubric text selected, no response yet: no judge call (${requests().length - before})`);
    check(said, "rubric text selected: a message asks for a response");
    await shot("f5-rubric-text-not-graded");
    if (!FAKE) { // the stand-in server makes no response file
      // F5b. issue 35 item 3: the response is a document. The server made fresh.rubric.yaml.response.md and
      //      VS Code opened it (window/showDocument); the toast is short, whole and has a button; the server's
      //      long message (every editor's command) is not a second toast
      const ask = page.locator(".notifications-toasts .notification-toast", { hasText: "needs a response" }).first();
      const asked = await ask.waitFor({ timeout: 10000 }).then(() => true, () => false);
      const askText = asked ? await ask.locator(".notification-list-item-message").first().innerText() : "";
      const whole = asked && await ask.locator(".notification-list-item-message").first().evaluate((el) => el.scrollWidth <= el.clientWidth + 1 && el.scrollHeight <= el.clientHeight + 1);
      log(`needs-a-response toast: ${JSON.stringify(askText)} (whole: ${whole})`);
      check(/Write it in fresh\.rubric\.yaml\.response\.md \(opened\), then Grade Response\./.test(askText) && whole, "needs a response: a short toast, shown whole, naming the response file");
      const button = ask.locator(".monaco-button", { hasText: "Grade Response" }).first();
      check(await button.count() > 0, "needs a response: the toast has a Grade Response button");
      const toasts = await page.locator(".notifications-toasts .notification-list-item-message").allInnerTexts();
      check(!toasts.some((t) => /RubricGrade|rubric-grade-with-response/.test(t)), `the server's long message is not a toast too (${JSON.stringify(toasts)})`);
      const opened = await page.locator('.tab[aria-label^="fresh.rubric.yaml.response.md"]').first().waitFor({ timeout: 20000 }).then(() => true, () => false);
      check(opened, "needs a response: the response file is open in an editor");
      const responseLens = page.locator(".codelens-decoration", { hasText: /Grade against .*fresh\.rubric\.yaml/ }).first();
      check(await responseLens.waitFor({ timeout: 30000 }).then(() => true, () => false), "the response file has a '▶ Grade against … (fresh.rubric.yaml)' lens");
      await page.locator(".monaco-editor textarea").first().focus();
      await page.keyboard.type("Two short sentences [typed-response]. That is all.");
      await shot("f5b-response-file");
      const graded = requests().length;
      if (await button.count()) await button.click();
      else await responseLens.locator("a").first().click();
      const judged = await waitUntil(() => since(graded).some((t) => t.includes("[typed-response]") && t.includes("[fresh-criterion]")), 90000);
      check(judged, "Grade Response: the rubric is graded against the text typed in the response file (unsaved)");
      await shot("f5c-graded-against-the-response-file");
    }
    await openFile("notes.yaml");
    await runCommand("Rubric: Grade Examples");
    check(await toast(/nothing to grade/i), "Grade Examples on a file without examples: 'nothing to grade'");
  }

  // F6. progress n/N in the status bar, cancel by clicking it
  {
    await runCommand("View: Close All Editors"); // only the graded document's marks are on the page
    const slowLog = path.join(artifacts, "slow-judge-requests.jsonl");
    const slow = await startJudge(h, ["--latency-ms", "1500", "--log", slowLog]);
    const settings = JSON.parse(fs.readFileSync(h.settingsFile, "utf8"));
    await editUserSettings({ ...settings, "rubric.judge.apiBase": slow.base, "rubric.judge.concurrency": 1 });
    await openFile("slow.rubric.yaml");
    await runCommand("Rubric: Grade Examples");
    const item = page.locator(".statusbar-item", { hasText: /Grading \d+\/\d+/ }).first();
    const counted = await item.waitFor({ timeout: 60000 }).then(() => true, () => false);
    const itemText = counted ? await item.innerText() : "";
    if (!counted) log(`status bar: ${JSON.stringify(await page.locator(".statusbar-item").allInnerTexts())}`);
    check(counted, `status bar: '${itemText.trim()}'`);
    await shot("f6-progress");
    await item.click().catch(() => {});
    const message = await waitUntil(async () => (await page.locator(".statusbar-item, .notifications-toasts", { hasText: /cancelled/i }).count()) > 0, 20000);
    check(message, "after a cancel: 'Grading cancelled (n/N done)'");
    const gone = await waitUntil(async () => (await page.locator(".statusbar-item", { hasText: /Grading \d+\/\d+/ }).count()) === 0, 20000);
    check(gone, "after a cancel: the status bar item is gone");
    await page.waitForTimeout(3500);
    const calls = slow.requests();
    check(calls < 8, `after a cancel: no more judge calls (${calls} of 8)`);
    const stale = (await viewText()).some((t) => /step_\d.*(✓|✗)/.test(t)) || (await gutterKinds()).length > 0;
    check(!stale, "after a cancel: no stale verdicts on the document");
    await shot("f6-cancelled");
    await editUserSettings(settings);
    slow.stop();
    await page.waitForTimeout(1500);
  }
}
