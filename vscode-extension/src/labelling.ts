// "Label These Examples": the server's labelling page (rubric-lsp.label: a page on 127.0.0.1, docs/labelling.md)
// shown in a webview beside the editor. The webview frames the page and passes on one message from it: open a
// file at a line (the page's "open" links on a criterion), which VS Code does here, in the editor.
import * as crypto from "crypto";
import * as path from "path";
import * as vscode from "vscode";
import { ExecuteCommandRequest, LanguageClient } from "vscode-languageclient/node";
import { OPEN_MESSAGE, frameHtml } from "./labelFrame";

export const LABEL_COMMAND = "rubric-lsp.label";
const panels = new Map<string, vscode.WebviewPanel>();

function serverLabels(c: LanguageClient): boolean {
  return (c.initializeResult?.capabilities.executeCommandProvider?.commands ?? []).includes(LABEL_COMMAND);
}

/** Open the labelling page of ``args.uri`` (default: the active editor's file), at ``args.item`` if given. */
export async function openLabelling(
  client: () => Promise<LanguageClient | undefined>,
  args?: { uri?: unknown; item?: unknown },
): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage("Rubric: labelling writes into this workspace's files; trust the workspace first.");
    return;
  }
  const uri = typeof args?.uri === "string" ? args.uri : vscode.window.activeTextEditor?.document.uri.toString();
  const c = await client();
  if (!uri || !c) return;
  if (!serverLabels(c)) {
    void vscode.window.showWarningMessage("Rubric: this rubric-lsp server has no labelling page; upgrade it.");
    return;
  }
  // The page writes labels into the file on disk: unsaved edits are saved first, or the server refuses.
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
  if (open?.isDirty) await open.save();
  let answer: { url?: unknown } | null;
  try {
    const argument: Record<string, unknown> = { uri, open: false };
    const labeller = vscode.workspace.getConfiguration("rubric").get<string>("labelling.labeller")?.trim();
    if (labeller) argument.labeller = labeller;
    if (typeof args?.item === "string") argument.item = args.item;
    answer = (await c.sendRequest(ExecuteCommandRequest.type, { command: LABEL_COMMAND, arguments: [argument] })) as { url?: unknown } | null;
  } catch (e) {
    void vscode.window.showWarningMessage(`Rubric: no labelling page: ${e instanceof Error ? e.message : e}`);
    return;
  }
  if (typeof answer?.url !== "string") return;
  // A remote workspace reaches 127.0.0.1 through a forwarded port or a proxy (the page accepts any loopback port
  // and answers relative routes); the mapping is asked for the page's address alone, as code-server's drops a
  // query, and the page's query (its token, the item) follows the address it gives.
  const page = new URL(answer.url);
  const mapped = (await vscode.env.asExternalUri(vscode.Uri.parse(`${page.origin}/`, true))).toString(true);
  const external = `${mapped.replace(/[?#].*$/, "")}${page.search}`;
  const file = vscode.Uri.parse(uri);
  let panel = panels.get(uri);
  if (!panel) {
    panel = vscode.window.createWebviewPanel("rubricLabel", `Label: ${path.basename(file.fsPath)}`, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [],
    });
    panels.set(uri, panel);
    panel.onDidDispose(() => panels.delete(uri));
    panel.webview.onDidReceiveMessage((message) => void openAt(message));
  }
  panel.webview.html = frameHtml(external, crypto.randomBytes(16).toString("base64"));
  panel.reveal(vscode.ViewColumn.Beside, false);
}

/** The page's "open" link: the file (in this workspace) at its line and column, in the first editor column. */
async function openAt(message: { type?: unknown; path?: unknown; line?: unknown; column?: unknown }): Promise<void> {
  if (message.type !== OPEN_MESSAGE || typeof message.path !== "string") return;
  const target = vscode.Uri.file(message.path);
  if (!vscode.workspace.getWorkspaceFolder(target)) return; // only the workspace's own files
  const line = Math.max(0, (Number(message.line) || 1) - 1);
  const column = Math.max(0, (Number(message.column) || 1) - 1);
  const at = new vscode.Position(line, column);
  await vscode.window.showTextDocument(target, { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(at, at) });
}
