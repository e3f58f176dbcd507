/**
 * Install offers that stay until answered (issue 35 item 5): a toast goes away by itself after a few
 * seconds, so each offer is also a status bar item — "Install rubric-lsp" while no server is found,
 * "Install grading" while grading's `[grade]` extra is missing from the private environment — and a
 * palette command (Rubric: Install Server, Rubric: Install Grading Support). The item goes once the
 * install is done.
 */
import * as vscode from "vscode";
import { OfferKind, offerItem } from "./install";

export class InstallOffers implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly open = new Set<OfferKind>();

  constructor() {
    this.item = vscode.window.createStatusBarItem("rubric.install", vscode.StatusBarAlignment.Right, 102);
    this.item.name = "Rubric install";
  }

  /** Offer ``kind`` until ``done(kind)``; the server's offer comes first (grading needs a server). */
  offer(kind: OfferKind): void {
    this.open.add(kind);
    this.render();
  }

  done(kind: OfferKind): void {
    this.open.delete(kind);
    this.render();
  }

  has(kind: OfferKind): boolean {
    return this.open.has(kind);
  }

  private render(): void {
    const kind: OfferKind | undefined = this.open.has("server") ? "server" : this.open.has("grade") ? "grade" : undefined;
    if (!kind) {
      this.item.hide();
      return;
    }
    const { text, tooltip, command } = offerItem(kind);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.command = command;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
