#!/usr/bin/env node
// A stand-in for the rubric-lsp server, used ONLY by `run.mjs --fake-server` to check
// the extension and this e2e harness when the Python server cannot run. It mimics the
// contract: AR103/AR001 diagnostics (source rubric-lint) for a `requirment:` typo with a
// rename quick fix, `rubric-lsp.gradeText` calling an OpenAI-compatible judge at
// rubric.judge.apiBase, verdict inlay hints and work-done progress; and the editor-grading
// protocol (docs/editor-grading.md) for autorubric-like YAML only: gradeTargets, gradeSelection
// (needsTarget / needsResponse), gradeExamples with every verdict kind, n/N progress on the
// client's token, cancelGrading.
const http = require("http");
const {
  createConnection, ProposedFeatures, TextDocuments, TextDocumentSyncKind, DiagnosticSeverity,
  CodeActionKind, InlayHintRequest,
} = require("vscode-languageserver/node");
const { TextDocument } = require("vscode-languageserver-textdocument");

const conn = createConnection(ProposedFeatures.all);
const docs = new TextDocuments(TextDocument);
const verdicts = new Map(); // uri -> [{line, label}]
let settings = {};

let workspaceRoot;
conn.onInitialize((params) => {
  settings = params.initializationOptions || {};
  const folder = (params.workspaceFolders || [])[0];
  if (folder) workspaceRoot = fileURLToPath(folder.uri);
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Full,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      inlayHintProvider: true,
      codeLensProvider: {},
      executeCommandProvider: { commands: ["rubric-lsp.gradeText", "rubric-lsp.gradeDocument", "rubric-lsp.clearVerdicts", ...Object.keys(PROTOCOL)] },
    },
  };
});

function lint(doc) {
  const diags = [];
  const lines = doc.getText().split("\n");
  lines.forEach((line, i) => {
    const m = /^(\s*-?\s*)(requirment)\s*:/.exec(line);
    if (m) {
      const start = m[1].length;
      diags.push({
        range: { start: { line: i, character: start }, end: { line: i, character: start + m[2].length } },
        severity: DiagnosticSeverity.Warning, code: "AR001", source: "rubric-lint",
        message: "Unknown criterion key 'requirment': autorubric drops it silently. Did you mean 'requirement'?",
      });
      // the criterion starts at the nearest '- ' above
      let j = i;
      while (j > 0 && !/^\s*-\s/.test(lines[j])) j--;
      const c = lines[j].indexOf("-") + 2;
      diags.push({
        range: { start: { line: j, character: c }, end: { line: j, character: lines[j].length } },
        severity: DiagnosticSeverity.Error, code: "AR103", source: "rubric-lint",
        message: "This criterion has no 'requirement' (what the judge should check); autorubric refuses it.",
      });
    }
  });
  conn.sendDiagnostics({ uri: doc.uri, diagnostics: diags });
}
docs.onDidChangeContent((e) => lint(e.document));

conn.onCodeAction((params) => {
  return params.context.diagnostics
    .filter((d) => d.code === "AR001")
    .map((d) => ({
      title: "Rename 'requirment' to 'requirement'", kind: CodeActionKind.QuickFix, diagnostics: [d], isPreferred: true,
      edit: { changes: { [params.textDocument.uri]: [{ range: d.range, newText: "requirement" }] } },
    }));
});

conn.onDidChangeConfiguration((params) => {
  if (params.settings && params.settings.rubric) settings = params.settings.rubric;
});

conn.languages.inlayHint.on((params) => {
  return (verdicts.get(params.textDocument.uri) || []).map((v) => ({
    position: { line: v.line, character: 10000 }, label: ` ${v.label}`, paddingLeft: true,
  }));
});

const scores = new Map(); // uri -> score
conn.onCodeLens((params) => {
  const score = scores.get(params.textDocument.uri);
  if (score === undefined) return [];
  return [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, command: { title: `Graded: score ${score.toFixed(2)}`, command: "" } }];
});

function askJudge(base, model, prompt) {
  return new Promise((resolve, reject) => {
    const url = new URL(base.replace(/\/$/, "") + "/chat/completions");
    const body = JSON.stringify({ model: model.replace(/^openai\//, ""), messages: [{ role: "user", content: prompt }] });
    const req = http.request(url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${process.env.OPENAI_API_KEY || ""}` } }, (res) => {
      let data = "";
      res.on("data", (c) => (data += c));
      res.on("end", () => { try { resolve(JSON.parse(data).choices[0].message.content); } catch (e) { reject(e); } });
    });
    req.on("error", reject);
    req.end(body);
  });
}

conn.onExecuteCommand(async (params, _cancel, workDone) => {
  // vscode-languageserver moves the client's workDoneToken into `workDone` (and off params)
  const arg = (params.arguments || [])[0] || {};
  if (params.command === "rubric-lsp.clearVerdicts") { verdicts.delete(arg.uri); await conn.languages.inlayHint.refresh(); return null; }
  if (PROTOCOL[params.command]) return PROTOCOL[params.command](arg, workDone);
  if (params.command !== "rubric-lsp.gradeText") return null;
  const doc = docs.get(arg.uri);
  if (!doc) throw new Error(`rubric not open: ${arg.uri}`);
  const judge = (settings.judge || {});
  const lines = doc.getText().split("\n");
  const crit = lines.map((l, i) => [l, i]).filter(([l]) => /^\s*-\s/.test(l));
  workDone.begin("Grading", 0);
  const out = [];
  for (const [k, [, line]] of crit.entries()) {
    const reply = await askJudge(judge.apiBase || "http://127.0.0.1:1/v1", judge.model || "openai/fake", `${arg.text}`);
    const met = /"?MET"?/.test(reply) && !/UNMET/.test(reply);
    out.push({ line, label: met ? "✓ MET" : "✗ UNMET" });
    workDone.report(Math.round((100 * (k + 1)) / crit.length), `${k + 1}/${crit.length} criteria`);
  }
  workDone.done();
  verdicts.set(arg.uri, out);
  const score = out.filter((v) => v.label.includes("MET") && !v.label.includes("UNMET")).length / Math.max(1, out.length);
  scores.set(arg.uri, score);
  await conn.languages.inlayHint.refresh();
  await conn.sendRequest("workspace/codeLens/refresh");
  return { score };
});

// ---------------------------------------------------------------- editor-grading protocol
const fs = require("fs");
const path = require("path");
const { fileURLToPath, pathToFileURL } = require("url");
let lastTarget;
let cancelled = false;
const lastResponse = new Map(); // rubric uri -> response text

function textOf(uri) {
  const doc = docs.get(uri);
  return doc ? doc.getText() : fs.readFileSync(fileURLToPath(uri), "utf8");
}

/** criteria and examples of an autorubric-like YAML file, line-based (enough for the e2e fixtures). */
function parseRubric(text) {
  const criteria = [], examples = [];
  let section = "", cur;
  text.split("\n").forEach((line, i) => {
    const top = /^([A-Za-z_]+):/.exec(line);
    if (top) { section = top[1]; cur = undefined; return; }
    const item = /^\s*-\s+name:\s*(.+)$/.exec(line);
    if (item) {
      cur = { name: item[1].trim(), line: i, weight: 1 };
      (section === "examples" ? examples : criteria).push(cur);
      return;
    }
    if (!cur) return;
    const kv = /^\s*(requirement|weight|response|expect):\s*(.*)$/.exec(line);
    if (!kv) return;
    if (kv[1] === "weight") cur.weight = Number(kv[2]);
    else if (kv[1] === "expect") { cur.expectLine = i; const m = /min_score:\s*([\d.]+)/.exec(kv[2]); if (m) cur.minScore = Number(m[1]); }
    else cur[kv[1]] = kv[2].replace(/^["']|["']$/g, "");
  });
  return { criteria, examples };
}

const range = (line) => ({ start: { line, character: 0 }, end: { line, character: 1 } });

function verdictOf(uri, c, status, example) {
  let kind, label;
  if (status === "MET") [kind, label] = c.weight < 0 ? ["penalty-applied", `−${Math.abs(c.weight)} ${c.name}`] : ["met", `✓ ${c.name}`];
  else if (status === "UNMET") [kind, label] = c.weight < 0 ? ["penalty-avoided", `✓ no ${c.name}`] : ["unmet", `✗ ${c.name}`];
  else if (status === "CANNOT_ASSESS") [kind, label] = ["cannot-assess", `? ${c.name}`];
  else [kind, label] = ["error", "⚠ judge error"];
  if (example) label = `${example}: ${label}`;
  return { uri, range: range(c.line), kind, label, detail: `judge said ${status}`, ...(example ? { example } : {}) };
}

function scoreOf(vs) {
  let got = 0, max = 0;
  for (const v of vs) {
    const w = v.weight;
    if (w > 0) max += w;
    if (v.kind === "met") got += w;
    if (v.kind === "penalty-applied") got += w;
  }
  return max > 0 ? Math.max(0, got / max) : 0;
}

async function judgeAll(uri, items, workDone) {
  // items: [{criterion, response, example}] judged one by one, n/N on the client's token
  const judge = settings.judge || {};
  cancelled = false;
  workDone.begin("Grading", 0, undefined, true);
  const out = [];
  for (const [k, it] of items.entries()) {
    if (cancelled) {
      verdicts.delete(uri);
      await conn.languages.inlayHint.refresh();
      workDone.done();
      conn.window.showInformationMessage(`Grading cancelled (${k}/${items.length} done)`);
      return { cancelled: true, done: k, total: items.length };
    }
    let status;
    try {
      const reply = await askJudge(judge.apiBase || "http://127.0.0.1:1/v1", judge.model || "openai/fake", `Criterion: ${it.criterion.requirement}\nResponse: ${it.response}`);
      status = JSON.parse(reply).criterion_status;
    } catch { status = "ERROR"; }
    out.push({ ...verdictOf(uri, it.criterion, status, it.example), weight: it.criterion.weight });
    workDone.report(Math.round((100 * (k + 1)) / items.length), `${k + 1}/${items.length} criteria`);
  }
  workDone.done();
  return out;
}

async function show(uri, vs) {
  verdicts.set(uri, vs.map((v) => ({ line: v.range.start.line, label: v.label })));
  await conn.languages.inlayHint.refresh();
  await conn.sendRequest("workspace/codeLens/refresh");
  return { shown: vs.map(({ weight, ...v }) => v) };
}

function targets() {
  const root = workspaceRoot || process.cwd();
  const files = fs.readdirSync(root).filter((f) => /\.rubric\.ya?ml$/.test(f)).sort();
  return files.map((f) => ({ label: f, detail: "autorubric rubric", uri: pathToFileURL(path.join(root, f)).toString(), format: "autorubric-rubric" }));
}

const PROTOCOL = {
  "rubric-lsp.gradeTargets": async () => ({ targets: targets() }),
  "rubric-lsp.cancelGrading": async () => { cancelled = true; return { cancelled: 1 }; },
  "rubric-lsp.gradeSelection": async (arg, workDone) => {
    if (/\.rubric\.ya?ml$/.test(arg.uri)) {
      const response = lastResponse.get(arg.uri);
      if (response === undefined) {
        const message = "Grading this rubric needs a response: select a response in any document and run Grade Selection against it, then grade here again.";
        if (arg.show !== false) conn.window.showInformationMessage(message); // the extension shows it itself
        return { needsResponse: true, message };
      }
      return grade(arg.uri, response, workDone);
    }
    const target = arg.target || lastTarget;
    if (!target) return { needsTarget: true, targets: targets() };
    lastTarget = target;
    const text = arg.text !== undefined ? arg.text : textOf(arg.uri);
    lastResponse.set(target.uri, text);
    return grade(target.uri, text, workDone);
  },
  "rubric-lsp.gradeExamples": async (arg, workDone) => {
    const { criteria, examples } = parseRubric(textOf(arg.uri));
    if (examples.length === 0) {
      const message = `${path.basename(fileURLToPath(arg.uri))} has nothing to grade: no examples`;
      conn.window.showInformationMessage(message);
      return { message };
    }
    const items = examples.flatMap((e) => criteria.map((c) => ({ criterion: c, response: e.response, example: e.name })));
    const vs = await judgeAll(arg.uri, items, workDone);
    if (!Array.isArray(vs)) return vs;
    for (const e of examples) {
      const mine = vs.filter((v) => v.example === e.name);
      if (e.minScore !== undefined && scoreOf(mine) < e.minScore) {
        vs.push({ uri: arg.uri, range: range(e.expectLine ?? e.line), kind: "expectation-failed", label: `✗ ${e.name}: expectation not met`, detail: `score ${scoreOf(mine).toFixed(2)} < min_score ${e.minScore}`, example: e.name, weight: 0 });
      }
    }
    return show(arg.uri, vs);
  },
};

async function grade(uri, response, workDone) {
  const { criteria } = parseRubric(textOf(uri));
  const vs = await judgeAll(uri, criteria.map((c) => ({ criterion: c, response })), workDone);
  if (!Array.isArray(vs)) return vs;
  scores.set(uri, scoreOf(vs));
  return { score: scoreOf(vs), ...(await show(uri, vs)) };
}

docs.listen(conn);
conn.listen();
