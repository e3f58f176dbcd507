/**
 * The grading commands (docs/editor-grading.md): Grade Selection (the server decides what the
 * selection means; a target is asked for only when it says so), Grade Examples, cancel; the
 * "Grading n/N" status bar item that cancels when clicked; verdict colours; the no-key /
 * no-model toast with its buttons. Grading started by the server's own lenses and code actions
 * goes through here too (the client's executeCommand middleware), so it gets the same progress.
 */
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  ResponseError,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
} from "vscode-languageclient/node";
import {
  CHOOSE_MODEL,
  GRADE_RESPONSE,
  GRADING_COMMANDS,
  GradeTarget,
  LspRange,
  NO_REPORT,
  ProgressState,
  SERVER_CMD,
  SET_API_KEY,
  cancelMessage,
  cancelledProgress,
  disagreementLabel,
  disagreementsOf,
  messageOf,
  needsResponseOf,
  needsTargetOf,
  nextProgress,
  progressLabel,
  responseRequestOf,
  responseToast,
  selectionArgs,
  sentArgument,
  targetItems,
  targetsOf,
  userErrorOf,
  verdictsOf,
  wasCancelled,
  wasGraded,
} from "./protocol";
import { VerdictDecorations } from "./verdicts";
import { UPGRADE_HINT } from "./launch";

const LAST_TARGET_KEY = "rubric.lastTarget";

export interface GradingHost {
  ctx: vscode.ExtensionContext;
  output: vscode.LogOutputChannel;
  /** The documents the client sends to the server (others the server cannot read). */
  selector: vscode.DocumentSelector;
  trusted(): boolean;
  runningClient(): Promise<LanguageClient | undefined>;
  serverSupports(c: LanguageClient, command: string): boolean;
  /** Runs before each grading; the client to grade with (a fresh one after an install), or undefined to stop. */
  beforeGrading?(c: LanguageClient): Promise<LanguageClient | undefined>;
  /** Runs after a finished grading (e.g. to offer its report) with the graded document's URI. */
  afterGrading?(c: LanguageClient, uri: string, title: string): void;
}

interface Run {
  token: string;
  state: ProgressState;
  cancelRequested: boolean;
  client: LanguageClient;
}

export class Grading implements vscode.Disposable {
  readonly decorations = new VerdictDecorations();
  private readonly item: vscode.StatusBarItem;
  private readonly runs = new Set<Run>();
  private counter = 0;

  constructor(private readonly host: GradingHost) {
    this.item = vscode.window.createStatusBarItem("rubric.grading", vscode.StatusBarAlignment.Right, 101);
    this.item.name = "Rubric grading";
    this.item.command = "rubric.cancelGrading";
  }

  register(): vscode.Disposable[] {
    return [
      this,
      vscode.commands.registerCommand("rubric.gradeSelection", () => this.gradeSelection(false)),
      vscode.commands.registerCommand("rubric.chooseRubric", () => this.gradeSelection(true)),
      vscode.commands.registerCommand("rubric.gradeExamples", () => this.gradeExamples()),
      vscode.commands.registerCommand("rubric.review", () => this.review()),
      vscode.commands.registerCommand("rubric.cancelGrading", () => this.cancel()),
      vscode.commands.registerCommand("rubric.chooseJudgeModel", () => chooseJudgeModel()),
    ];
  }

  get active(): boolean {
    return this.runs.size > 0;
  }

  /** Middleware for the client's workspace/executeCommand (the server's lenses and actions). */
  async executeCommand(command: string, args: unknown[], next: (command: string, args: unknown[]) => unknown): Promise<unknown> {
    // show: false — the server would also show the items as text (for clients without this quick pick)
    if (command === SERVER_CMD.showDisagreements) return this.showDisagreements(await next(command, [{ ...(args[0] as object), show: false }]), args[0]);
    if (!GRADING_COMMANDS.has(command)) return next(command, args);
    if (!this.requireTrust()) return undefined;
    const c = await this.host.runningClient();
    if (!c) return undefined;
    const arg = args.length > 0 ? args[0] : {};
    return this.run(c, command, arg, "Grade");
  }

  // ---------------------------------------------------------------- running one command

  /** Send one grading command with our work-done token; show its progress, verdicts and user errors. */
  async run(client: LanguageClient, command: string, arg: unknown, title: string): Promise<unknown> {
    const c = this.host.beforeGrading ? await this.host.beforeGrading(client) : client;
    if (!c) return undefined;
    const run: Run = { token: `rubric-grade-${Date.now()}-${++this.counter}`, state: {}, cancelRequested: false, client: c };
    this.runs.add(run);
    this.showProgress();
    const sub = c.onProgress(WorkDoneProgress.type, run.token, (value) => {
      run.state = nextProgress(run.state, value);
      this.showProgress();
    });
    const uri = typeof (arg as { uri?: unknown })?.uri === "string" ? (arg as { uri: string }).uri : vscode.window.activeTextEditor?.document.uri.toString();
    try {
      this.host.output.info(`${title}: ${command} ${JSON.stringify(arg).slice(0, 300)}`);
      const sent = sentArgument(command, arg); // "show": false where the answer is shown here (the toast below)
      const result = await c.sendRequest(ExecuteCommandRequest.type, { command, arguments: [sent], workDoneToken: run.token });
      if (result !== null && result !== undefined) this.host.output.info(`${title} result: ${JSON.stringify(result).slice(0, 2000)}`);
      if (run.cancelRequested || wasCancelled(result)) {
        run.state = cancelledProgress(result, run.state);
        this.afterCancel(run, uri);
        return result;
      }
      this.showResult(c, result);
      // a calibration writes a record, a review publishes diagnostics: there is no report to offer
      if (wasGraded(result) && !NO_REPORT.has(command)) {
        const graded = verdictsOf(result)[0]?.uri ?? uri;
        if (graded) this.host.afterGrading?.(c, graded, title);
      }
      return result;
    } catch (e) {
      if (run.cancelRequested) {
        this.afterCancel(run, uri);
        return undefined;
      }
      this.showError(title, e);
      return undefined;
    } finally {
      sub.dispose();
      this.runs.delete(run);
      this.showProgress();
    }
  }

  private showProgress(): void {
    if (this.runs.size === 0) {
      this.item.hide();
      return;
    }
    const states = [...this.runs].map((r) => r.state);
    const counted = states.filter((s) => s.total !== undefined);
    const state: ProgressState =
      counted.length > 0
        ? { done: counted.reduce((n, s) => n + (s.done ?? 0), 0), total: counted.reduce((n, s) => n + (s.total ?? 0), 0) }
        : states[states.length - 1];
    const cancelling = [...this.runs].every((r) => r.cancelRequested);
    this.item.text = cancelling ? "$(sync~spin) Cancelling…" : `$(sync~spin) ${progressLabel(state)}`;
    this.item.tooltip = "Rubric is grading: click to cancel";
    this.item.show();
  }

  private showResult(c: LanguageClient, result: unknown): void {
    const verdicts = verdictsOf(result);
    if (verdicts.length > 0) this.decorations.show(verdicts);
    const request = responseRequestOf(result);
    if (request) {
      this.askForResponse(c, request);
      return;
    }
    // "nothing to grade": the server says so itself (window/showMessage); here only the status bar, so
    // that no toast comes twice
    const message = needsResponseOf(result) ?? messageOf(result);
    if (message) vscode.window.setStatusBarMessage(`Rubric: ${message}`, 8000);
    if (result && typeof result === "object" && typeof (result as { error?: unknown }).error === "string") {
      this.host.output.warn(`grading failed: ${(result as { error: string }).error}`);
    }
  }

  /**
   * "Needs a response" (sent with "show": false, so the server's long message is not a toast too): the server
   * made the response file and opened it; a short toast says what to do, with a button that grades the unit
   * against the file once written. The response file's own "▶ Grade against …" lens does the same, and stays.
   */
  private askForResponse(c: LanguageClient, request: ReturnType<typeof responseRequestOf> & object): void {
    this.host.output.info(request.message);
    const grade = request.grade;
    const text = responseToast(request, (uri) => vscode.Uri.parse(uri).path.split("/").pop() ?? uri);
    const buttons = grade ? [GRADE_RESPONSE, "Show Output"] : ["Show Output"];
    void vscode.window.showInformationMessage(text, ...buttons).then((answer) => {
      if (answer === GRADE_RESPONSE && grade) void this.run(c, grade.command, grade.arguments[0] ?? {}, GRADE_RESPONSE);
      else if (answer === "Show Output") this.host.output.show();
    });
  }

  private afterCancel(run: Run, uri: string | undefined): void {
    const text = cancelMessage(run.state);
    this.host.output.info(text);
    vscode.window.setStatusBarMessage(`Rubric: ${text}`, 8000);
    if (uri) this.decorations.clear(uri);
  }

  private showError(title: string, e: unknown): void {
    const data = e instanceof ResponseError ? e.data : undefined;
    const user = userErrorOf(data);
    if (user) {
      this.host.output.warn(`${title}: ${user.message}`);
      void vscode.window.showErrorMessage(`Rubric: ${user.message}`, ...user.actions).then((a) => {
        if (a === SET_API_KEY) void vscode.commands.executeCommand("rubric.setApiKey");
        else if (a === CHOOSE_MODEL) void vscode.commands.executeCommand("rubric.chooseJudgeModel");
      });
      return;
    }
    const message = e instanceof Error ? e.message : String(e);
    this.host.output.error(`${title} failed: ${message}`);
    void vscode.window.showErrorMessage(`Rubric: ${title} failed: ${message}`, "Show Output").then((a) => a && this.host.output.show());
  }

  /** Cancel every grading under way: the protocol's command, and each run's work-done token. */
  async cancel(): Promise<void> {
    if (this.runs.size === 0) {
      vscode.window.setStatusBarMessage("Rubric: nothing is being graded", 4000);
      return;
    }
    const clients = new Set<LanguageClient>();
    for (const run of this.runs) {
      run.cancelRequested = true;
      clients.add(run.client);
      void run.client.sendNotification(WorkDoneProgressCancelNotification.type, { token: run.token }).catch(() => undefined);
    }
    this.showProgress();
    for (const c of clients) {
      if (!this.host.serverSupports(c, SERVER_CMD.cancelGrading)) continue;
      try {
        await c.sendRequest(ExecuteCommandRequest.type, { command: SERVER_CMD.cancelGrading, arguments: [{}] });
      } catch (e) {
        this.host.output.warn(`cancelGrading: ${e}`);
      }
    }
  }

  /** A dataset criterion's disagreeing items, one click away: pick one, go to it. */
  private async showDisagreements(result: unknown, arg: unknown): Promise<unknown> {
    const uri = typeof (arg as { uri?: unknown })?.uri === "string" ? (arg as { uri: string }).uri : undefined;
    const items = disagreementsOf(result);
    if (!uri || items.length === 0) {
      vscode.window.setStatusBarMessage("Rubric: the judge agrees with every label of this criterion", 6000);
      return result;
    }
    const picked =
      items.length === 1
        ? { item: items[0] }
        : await vscode.window.showQuickPick(
            items.map((item) => ({ label: disagreementLabel(item), item })),
            { placeHolder: `${items.length} items where the judge and the labels disagree` },
          );
    if (!picked) return result;
    const r = picked.item.range;
    const range = new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
    await vscode.window.showTextDocument(vscode.Uri.parse(uri), { selection: range, preview: false });
    return result;
  }

  // ---------------------------------------------------------------- the commands

  private requireTrust(): boolean {
    if (this.host.trusted()) return true;
    void vscode.window.showWarningMessage("Rubric: grading is disabled in an untrusted workspace (diagnostics only).");
    return false;
  }

  private async clientFor(command: string): Promise<LanguageClient | undefined> {
    if (!this.requireTrust()) return undefined;
    const c = await this.host.runningClient();
    if (!c) return undefined;
    if (!this.host.serverSupports(c, command)) {
      void vscode.window.showWarningMessage(`Rubric: this rubric-lsp server does not support ${command}; ${UPGRADE_HINT}`);
      return undefined;
    }
    return c;
  }

  /**
   * Grade Selection: the server decides what the selection means (the units under it in a
   * gradable file; otherwise the response). Only when it answers `needsTarget` (or the user
   * asks to choose) is a target picked; it is remembered for the next time.
   */
  async gradeSelection(forcePick: boolean): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showWarningMessage("Rubric: open a file and select what to grade first.");
      return;
    }
    const c = await this.clientFor(SERVER_CMD.gradeSelection);
    if (!c) return;
    const doc = editor.document;
    const sel = editor.selection;
    const range: LspRange = { start: { line: sel.start.line, character: sel.start.character }, end: { line: sel.end.line, character: sel.end.character } };
    // A document the client does not send to the server is never a rubric file: its selection
    // (or whole text) is the response, and the server cannot read it unless we send it.
    const synced = vscode.languages.match(this.host.selector, doc) > 0;
    const text = synced ? undefined : sel.isEmpty ? doc.getText() : doc.getText(sel);
    let target: GradeTarget | undefined;
    if (forcePick) {
      target = await this.pickTarget(targetsOf(await this.targets(c)));
      if (!target) return;
    } else if (!synced) {
      target = await this.rememberedTarget();
    }
    const uri = doc.uri.toString();
    let result = await this.run(c, SERVER_CMD.gradeSelection, selectionArgs({ uri, range, target, text }), "Grade Selection");
    const offered = needsTargetOf(result);
    if (offered) {
      target = await this.pickTarget(offered);
      if (!target) return;
      result = await this.run(c, SERVER_CMD.gradeSelection, selectionArgs({ uri, range, target, text }), "Grade Selection");
    }
    if (target) await this.revealTarget(target, result);
  }

  private async targets(c: LanguageClient): Promise<unknown> {
    try {
      return await c.sendRequest(ExecuteCommandRequest.type, { command: SERVER_CMD.gradeTargets, arguments: [{}] });
    } catch (e) {
      this.host.output.error(`gradeTargets failed: ${e}`);
      return undefined;
    }
  }

  private async rememberedTarget(): Promise<GradeTarget | undefined> {
    const last = this.host.ctx.workspaceState.get<GradeTarget>(LAST_TARGET_KEY);
    if (!last || typeof last.uri !== "string") return undefined;
    try {
      await vscode.workspace.fs.stat(vscode.Uri.parse(last.uri));
      return last;
    } catch {
      return undefined; // the file is gone: ask again
    }
  }

  private async pickTarget(targets: GradeTarget[]): Promise<GradeTarget | undefined> {
    if (targets.length === 0) {
      void vscode.window.showWarningMessage("Rubric: nothing to grade against: no rubric, eval config, grader or dataset in the open documents or workspace.");
      return undefined;
    }
    const last = this.host.ctx.workspaceState.get<GradeTarget>(LAST_TARGET_KEY);
    const items = targetItems(targets, last, (u) => vscode.workspace.asRelativePath(vscode.Uri.parse(u)));
    const picked = await vscode.window.showQuickPick(items, { placeHolder: "Grade against which rubric, test or grader?", matchOnDescription: true, matchOnDetail: true });
    if (!picked) return undefined;
    await this.host.ctx.workspaceState.update(LAST_TARGET_KEY, picked.target);
    return picked.target;
  }

  /** Show the target beside the response when its verdicts landed there and it is not visible. */
  private async revealTarget(target: GradeTarget, result: unknown): Promise<void> {
    if (!verdictsOf(result).some((v) => v.uri === target.uri)) return;
    if (vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === target.uri)) return;
    await vscode.window.showTextDocument(vscode.Uri.parse(target.uri), { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: false });
  }

  dispose(): void {
    this.item.dispose();
    this.decorations.dispose();
  }

  async gradeExamples(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showWarningMessage("Rubric: open a rubric, dataset or eval config first.");
      return;
    }
    const c = await this.clientFor(SERVER_CMD.gradeExamples);
    if (!c) return;
    await this.run(c, SERVER_CMD.gradeExamples, { uri: editor.document.uri.toString() }, "Grade Examples");
  }

  /** "Review This Rubric": rubric-lsp.review on the active editor; its findings come as diagnostics (rubric-review). */
  async review(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showWarningMessage("Rubric: open a rubric, eval config or task file first.");
      return;
    }
    const c = await this.clientFor(SERVER_CMD.review);
    if (!c) return;
    await this.run(c, SERVER_CMD.review, { uri: editor.document.uri.toString() }, "Review");
  }
}

/** "Choose judge model": the user setting `rubric.judge.model` (the server gets it at once). */
async function chooseJudgeModel(): Promise<void> {
  const cfg = vscode.workspace.getConfiguration("rubric");
  const value = await vscode.window.showInputBox({
    prompt: "Judge model, as a LiteLLM model name (saved in your user settings as rubric.judge.model)",
    placeHolder: "openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, ollama/llama3.1 …",
    value: cfg.get<string>("judge.model") ?? "",
    ignoreFocusOut: true,
  });
  if (value === undefined) return;
  await cfg.update("judge.model", value.trim(), vscode.ConfigurationTarget.Global);
  void vscode.window.showInformationMessage(value.trim() ? `Rubric: judge model set to ${value.trim()}.` : "Rubric: judge model cleared (the server's default applies).");
}
