/**
 * Verdict decorations: the colour of each verdict kind on the lines the server graded (the
 * words are the server's inlay hints and lenses). Kept per document; dropped when the
 * document changes (the server's hints follow edits, ours would go stale), when the user
 * clears verdicts, and when a grading of the document is cancelled.
 */
import * as vscode from "vscode";
import { VERDICT_KINDS, Verdict, VerdictKind, verdictsByUri } from "./protocol";
import { KIND_STYLES, decorationsByKind, gutterIconSvg, verdictHover } from "./verdictStyle";

export class VerdictDecorations implements vscode.Disposable {
  private readonly types = new Map<VerdictKind, vscode.TextEditorDecorationType>();
  private readonly byUri = new Map<string, Verdict[]>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor() {
    for (const kind of VERDICT_KINDS) {
      const colour = new vscode.ThemeColor(KIND_STYLES[kind].themeColor);
      this.types.set(
        kind,
        vscode.window.createTextEditorDecorationType({
          gutterIconPath: vscode.Uri.parse(gutterIconSvg(kind)),
          gutterIconSize: "80%",
          overviewRulerColor: colour,
          overviewRulerLane: vscode.OverviewRulerLane.Left,
          borderColor: colour,
          borderStyle: "solid",
          borderWidth: "0 0 0 2px",
          isWholeLine: true,
          rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
        }),
      );
    }
    this.subscriptions.push(
      vscode.window.onDidChangeVisibleTextEditors(() => this.applyAll()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0 && this.byUri.has(e.document.uri.toString())) this.clear(e.document.uri.toString());
      }),
    );
  }

  /** Show the verdicts of a grading result (each document's replace its earlier ones). */
  show(verdicts: Verdict[]): void {
    for (const [uri, list] of verdictsByUri(verdicts)) {
      this.byUri.set(uri, list);
      this.apply(uri);
    }
  }

  clear(uri?: string): void {
    const uris = uri === undefined ? [...this.byUri.keys()] : [uri];
    for (const u of uris) {
      this.byUri.delete(u);
      this.apply(u);
    }
  }

  /** How many verdicts of each kind are shown for a document (for the log). */
  counts(uri: string): Partial<Record<VerdictKind, number>> {
    const out: Partial<Record<VerdictKind, number>> = {};
    for (const v of this.byUri.get(uri) ?? []) out[v.kind] = (out[v.kind] ?? 0) + 1;
    return out;
  }

  private applyAll(): void {
    for (const editor of vscode.window.visibleTextEditors) this.applyTo(editor);
  }

  private apply(uri: string): void {
    for (const editor of vscode.window.visibleTextEditors) if (editor.document.uri.toString() === uri) this.applyTo(editor);
  }

  private applyTo(editor: vscode.TextEditor): void {
    const grouped = decorationsByKind(this.byUri.get(editor.document.uri.toString()) ?? []);
    for (const [kind, type] of this.types) {
      const options = (grouped.get(kind) ?? []).map((v) => ({
        // the first line only: one mark per graded unit, however many lines it spans
        range: new vscode.Range(v.range.start.line, 0, v.range.start.line, 0),
        hoverMessage: new vscode.MarkdownString(verdictHover(v)),
      }));
      editor.setDecorations(type, options);
    }
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    for (const t of this.types.values()) t.dispose();
    this.types.clear();
    this.byUri.clear();
  }
}
