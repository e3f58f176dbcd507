// "Open report": the HTML report of a document's last grading (the server's rubric-lsp.report,
// the page `rubric grade --report` writes) shown in a webview beside the editor.
import * as vscode from "vscode";
import { ExecuteCommandRequest, LanguageClient } from "vscode-languageclient/node";
import { UPGRADE_HINT } from "./launch";

export const REPORT_COMMAND = "rubric-lsp.report";
const OPEN = "Open report";
let panel: vscode.WebviewPanel | undefined;

function serverHasReport(c: LanguageClient): boolean {
  return (c.initializeResult?.capabilities.executeCommandProvider?.commands ?? []).includes(REPORT_COMMAND);
}

/** After a grading finished: offer to open its report (when the server can render one). */
export async function offerReport(c: LanguageClient, arg: unknown, title: string): Promise<void> {
  const uri = (arg as { uri?: unknown } | undefined)?.uri;
  if (typeof uri !== "string" || !serverHasReport(c)) return;
  const answer = await vscode.window.showInformationMessage(`Rubric: ${title} done.`, OPEN);
  if (answer === OPEN) await openReport(c, uri);
}

/** Show the report of ``uri``'s last grading, scrolled to criterion ``criterion``'s confusion matrix if given
 * (0-based, as the dataset JSON's agreement[].index); the server says why when there is none. */
export async function openReport(c: LanguageClient, uri: string, criterion?: number): Promise<void> {
  if (!serverHasReport(c)) {
    void vscode.window.showWarningMessage(`Rubric: this rubric-lsp server cannot render reports; ${UPGRADE_HINT}`);
    return;
  }
  let result: { html?: unknown } | null;
  try {
    result = (await c.sendRequest(ExecuteCommandRequest.type, { command: REPORT_COMMAND, arguments: [{ uri }] })) as { html?: unknown } | null;
  } catch (e) {
    void vscode.window.showWarningMessage(`Rubric: no report: ${e instanceof Error ? e.message : e}`);
    return;
  }
  if (typeof result?.html !== "string") return;
  if (!panel) {
    // Scripts on: the page sorts its tables and filters by criterion. It loads nothing (its own CSP says so).
    panel = vscode.window.createWebviewPanel("rubricReport", "Rubric report", { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      localResourceRoots: [],
    });
    panel.onDidDispose(() => (panel = undefined));
  }
  panel.title = `Rubric report: ${vscode.workspace.asRelativePath(vscode.Uri.parse(uri))}`;
  let html = result.html;
  if (typeof criterion === "number" && Number.isInteger(criterion)) {
    // The page's own CSP allows its inline scripts: one more jumps to the criterion's matrix.
    const jump = `<script>document.getElementById("confusion-${criterion}")?.scrollIntoView();</script>`;
    html = html.replace("</body>", `${jump}</body>`);
  }
  panel.webview.html = html;
  panel.reveal(vscode.ViewColumn.Beside, true);
}

/** The "Rubric: Open Report" command: the report of the active document's last grading. A code lens may
 * pass ``{uri, criterion}`` to open a dataset's report at that criterion's confusion matrix. */
export async function openReportForActiveEditor(
  client: () => Promise<LanguageClient | undefined>,
  args?: { uri?: unknown; criterion?: unknown },
): Promise<void> {
  const uri = typeof args?.uri === "string" ? args.uri : vscode.window.activeTextEditor?.document.uri.toString();
  const c = await client();
  if (!uri || !c) return;
  await openReport(c, uri, typeof args?.criterion === "number" ? args.criterion : undefined);
}
