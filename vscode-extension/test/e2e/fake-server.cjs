#!/usr/bin/env node
// A stand-in for the rubric-lsp server, used ONLY by `run.mjs --fake-server` to check
// the extension and this e2e harness when the Python server cannot run. It mimics the
// contract: AR103/AR001 diagnostics (source rubric-lint) for a `requirment:` typo with a
// rename quick fix, `rubric-lsp.gradeText` calling an OpenAI-compatible judge at
// rubric.judge.apiBase, verdict inlay hints and work-done progress.
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

conn.onInitialize((params) => {
  settings = params.initializationOptions || {};
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Full,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      inlayHintProvider: true,
      codeLensProvider: {},
      executeCommandProvider: { commands: ["rubric-lsp.gradeText", "rubric-lsp.gradeDocument", "rubric-lsp.clearVerdicts"] },
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

conn.onExecuteCommand(async (params) => {
  const arg = (params.arguments || [])[0] || {};
  if (params.command === "rubric-lsp.clearVerdicts") { verdicts.delete(arg.uri); await conn.languages.inlayHint.refresh(); return null; }
  if (params.command !== "rubric-lsp.gradeText") return null;
  const doc = docs.get(arg.uri);
  if (!doc) throw new Error(`rubric not open: ${arg.uri}`);
  const judge = (settings.judge || {});
  const lines = doc.getText().split("\n");
  const crit = lines.map((l, i) => [l, i]).filter(([l]) => /^\s*-\s/.test(l));
  const token = params.workDoneToken;
  if (token !== undefined) await conn.sendProgress(require("vscode-languageserver").WorkDoneProgress.type, token, { kind: "begin", title: "Grading", percentage: 0 });
  const out = [];
  for (const [k, [, line]] of crit.entries()) {
    const reply = await askJudge(judge.apiBase || "http://127.0.0.1:1/v1", judge.model || "openai/fake", `${arg.text}`);
    const met = /"?MET"?/.test(reply) && !/UNMET/.test(reply);
    out.push({ line, label: met ? "✓ MET" : "✗ UNMET" });
    if (token !== undefined) await conn.sendProgress(require("vscode-languageserver").WorkDoneProgress.type, token, { kind: "report", message: `${k + 1}/${crit.length} criteria`, percentage: Math.round((100 * (k + 1)) / crit.length) });
  }
  if (token !== undefined) await conn.sendProgress(require("vscode-languageserver").WorkDoneProgress.type, token, { kind: "end" });
  verdicts.set(arg.uri, out);
  const score = out.filter((v) => v.label.includes("MET") && !v.label.includes("UNMET")).length / Math.max(1, out.length);
  scores.set(arg.uri, score);
  await conn.languages.inlayHint.refresh();
  await conn.sendRequest("workspace/codeLens/refresh");
  return { score };
});

docs.listen(conn);
conn.listen();
