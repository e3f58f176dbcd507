import * as cp from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import {
  Candidate,
  INTERPRETER_PROBE_SCRIPT,
  LaunchChoice,
  chooseLaunch,
  describeCandidate,
  interpretProbe,
  serverEnv,
} from "./launch";
import { bundledWheel, checkExecutable, ensureGradeExtra, offerPrivateInstall, privateEnvPython, refreshPrivateEnv } from "./installer";
import { gradeExtraCommand } from "./install";
import { Grading } from "./grading";
import { InstallOffers } from "./offers";
import { SERVER_CMD } from "./protocol";
import { REPORT_COMMAND, offerReport, openReportForActiveEditor } from "./report";
import {
  ServerSection,
  answerConfigurationItem,
  judgeLabel,
  needsRestart,
  readLaunchSettings,
  readServerSection,
} from "./settings";

const CLIENT_ID = "rubric";
/** The documents sent to the server (it lints and grades only these), and the response files it makes for a
 * grading that needs a response (`<file>.response.md`: their "▶ Grade against …" lens, unsaved text graded). */
const DOCUMENT_SELECTOR: ({ scheme: string; language: string } | { scheme: string; pattern: string })[] = [
  ...["yaml", "json", "jsonc", "jsonl"].map((language) => ({ scheme: "file", language })),
  { scheme: "file", pattern: "**/*.response.md" },
];
const API_KEY_NAMES_KEY = "rubric.apiKeyNames";
const SECRET_PREFIX = "rubric.apiKey.";

export const API_KEY_PROVIDERS: { label: string; env: string }[] = [
  { label: "OpenAI", env: "OPENAI_API_KEY" },
  { label: "Anthropic", env: "ANTHROPIC_API_KEY" },
  { label: "Google Gemini", env: "GEMINI_API_KEY" },
  { label: "Azure OpenAI", env: "AZURE_API_KEY" },
  { label: "Mistral", env: "MISTRAL_API_KEY" },
  { label: "Groq", env: "GROQ_API_KEY" },
  { label: "OpenRouter", env: "OPENROUTER_API_KEY" },
  { label: "Together AI", env: "TOGETHERAI_API_KEY" },
];

let ctx: vscode.ExtensionContext;
let output: vscode.LogOutputChannel;
let status: vscode.StatusBarItem;
let client: LanguageClient | undefined;
let launched: Candidate | undefined;
let lastChoice: LaunchChoice | undefined;
let lastPythonExtensionInterpreter: string | undefined;
let starting: Promise<void> | undefined;
let grading: Grading;
let offers: InstallOffers;

function trusted(): boolean {
  return vscode.workspace.isTrusted;
}

function section(): ServerSection {
  return readServerSection(vscode.workspace.getConfiguration("rubric"), trusted());
}

// ---------------------------------------------------------------- status bar

function updateStatus(): void {
  const sec = section();
  const model = judgeLabel(sec, process.env.RUBRIC_JUDGE_MODEL);
  if (!client && lastChoice && !lastChoice.chosen) {
    status.text = "$(warning) Rubric";
    status.tooltip = `rubric-lsp is not running: ${lastChoice.message ?? ""}`;
  } else {
    status.text = trusted() ? `$(law) ${model}` : "$(shield) Rubric: lint only";
    status.tooltip = new vscode.MarkdownString(
      [
        `**Rubric** judge model: \`${model}\``,
        launched ? `Server: \`${describeCandidate(launched)}\`` : "Server: not started",
        trusted() ? "" : "Untrusted workspace: diagnostics only, no grading.",
        "Click to show the output.",
      ]
        .filter((s) => s)
        .join("\n\n"),
    );
  }
  status.show();
}

// ---------------------------------------------------------------- server launch

function isExecutable(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) return resolve(false);
      fs.access(file, fs.constants.X_OK, (e) => resolve(!e));
    });
  });
}

function checkInterpreter(python: string): Promise<ReturnType<typeof interpretProbe>> {
  return new Promise((resolve) => {
    cp.execFile(
      python,
      ["-c", INTERPRETER_PROBE_SCRIPT],
      { timeout: 20000, windowsHide: true },
      (err, _stdout, stderr) => {
        if (err && (err as NodeJS.ErrnoException).code && typeof (err as NodeJS.ErrnoException).code === "string") {
          return resolve(interpretProbe(null, String((err as NodeJS.ErrnoException).code), stderr));
        }
        const code = err ? ((err as unknown as { code?: number }).code ?? 1) : 0;
        resolve(interpretProbe(code, undefined, stderr));
      },
    );
  });
}

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(p: { path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
  settings?: { getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] } };
}

async function pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
  if (!ext) return undefined;
  try {
    return ext.isActive ? ext.exports : await ext.activate();
  } catch (e) {
    output.warn(`Python extension could not be activated: ${e}`);
    return undefined;
  }
}

async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const api = await pythonExtensionApi();
  if (!api) return undefined;
  const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
  try {
    const envPath = api.environments?.getActiveEnvironmentPath(resource);
    if (envPath) {
      const env = await api.environments!.resolveEnvironment(envPath);
      const exe = env?.executable?.uri?.fsPath;
      if (exe) return exe;
    }
  } catch (e) {
    output.warn(`Python extension environments API failed: ${e}`);
  }
  try {
    const cmd = api.settings?.getExecutionDetails?.(resource)?.execCommand;
    if (cmd && cmd.length > 0) return cmd[0];
  } catch {
    /* older API shapes */
  }
  return undefined;
}

async function storedApiKeys(): Promise<Record<string, string>> {
  const names = ctx.globalState.get<string[]>(API_KEY_NAMES_KEY, []);
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = await ctx.secrets.get(SECRET_PREFIX + n);
    if (v) out[n] = v;
  }
  return out;
}

async function startClient(): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  // In an untrusted workspace VS Code already ignores workspace values of the
  // restrictedConfigurations (server.path / server.interpreter), see package.json.
  const launch = readLaunchSettings(vscode.workspace.getConfiguration("rubric"), {
    workspaceFolder: folder,
    home: os.homedir(),
    env: process.env,
  });
  // Restricted Mode: the Python extension's interpreter is workspace-derived (a .venv it carries): not asked.
  const pyExt = launch.path || launch.interpreter || !trusted() ? undefined : await pythonExtensionInterpreter();
  const privateEnv = privateEnvPython(ctx);
  if (privateEnv) await refreshPrivateEnv(ctx, output, privateEnv);
  const choice = await chooseLaunch(
    {
      ...launch,
      pythonExtensionInterpreter: pyExt,
      envPath: process.env.PATH,
      platform: process.platform,
      privateEnvPython: privateEnv,
      trusted: trusted(),
      bundledWheel: bundledWheel(ctx),
    },
    { isExecutable, checkInterpreter, checkExecutable: (f) => checkExecutable(f, checkInterpreter) },
  );
  lastChoice = choice;
  for (const f of choice.failures) output.info(`not usable: ${f.candidate.command}: ${f.reason}`);
  if (!choice.chosen) {
    output.error(choice.message ?? "rubric-lsp server not found");
    updateStatus();
    lastPythonExtensionInterpreter = pyExt;
    void showMissingServer(choice);
    return;
  }
  launched = choice.chosen;
  offers.done("server");
  output.info(`starting server: ${describeCandidate(choice.chosen)}${trusted() ? "" : " [untrusted workspace: lint only]"}`);

  const env = serverEnv(process.env, await storedApiKeys(), trusted());
  const serverOptions: ServerOptions = {
    command: choice.chosen.command,
    args: choice.chosen.args,
    transport: TransportKind.stdio,
    options: { env, cwd: folder },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: section(),
    middleware: {
      workspace: {
        configuration: async (params, token, next) => {
          const sec = section();
          const answers = params.items.map((item) => answerConfigurationItem(item.section, sec));
          if (answers.every((a) => a !== undefined)) return answers;
          const fallback = await next(params, token);
          if (!Array.isArray(fallback)) return fallback;
          return answers.map((a, i) => (a === undefined ? fallback[i] : a));
        },
      },
      // grading from the server's lenses and code actions: trust gate, our progress token, verdict colours
      // a lens's "confusion matrix" (rubric-lsp.report {uri, criterion}): the report in a webview
      executeCommand: (command, args, next) =>
        command === REPORT_COMMAND
          ? openReportForActiveEditor(runningClient, args[0] as { uri?: unknown; criterion?: unknown })
          : grading.executeCommand(command, args, next),
    },
  };
  const c = new LanguageClient(CLIENT_ID, "Rubric Language Server", serverOptions, clientOptions);
  c.onDidChangeState((e) => {
    if (e.newState === State.Stopped) output.info("server stopped");
    updateStatus();
  });
  client = c;
  try {
    await c.start();
    output.info("server started");
  } catch (e) {
    output.error(`server failed to start: ${e}`);
    void vscode.window
      .showErrorMessage(`Rubric: the rubric-lsp server failed to start (${describeCandidate(choice.chosen)}).`, "Show Output")
      .then((a) => a && output.show());
  }
  updateStatus();
}

async function showMissingServer(choice: LaunchChoice): Promise<void> {
  if (choice.offerInstall && trusted()) {
    // nothing configured and nothing found: offer the private environment (never in Restricted
    // Mode, where no Python found on the machine is run for the workspace); the status bar item and
    // the palette command stay when the toast goes away unanswered
    offers.offer("server");
    const installed = await offerPrivateInstall(ctx, output, { pythonExtensionInterpreter: lastPythonExtensionInterpreter });
    if (installed) await restart("rubric-lsp installed");
    return;
  }
  const copy = "Copy Install Command";
  const settings = "Open Settings";
  const answer = await vscode.window.showErrorMessage(`Rubric: ${choice.message}`, copy, settings, "Show Output");
  if (answer === copy && choice.installCommand) await vscode.env.clipboard.writeText(choice.installCommand);
  else if (answer === settings) await vscode.commands.executeCommand("workbench.action.openSettings", "rubric.server");
  else if (answer === "Show Output") output.show();
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  launched = undefined;
  if (c) {
    try {
      await c.stop(5000);
    } catch (e) {
      output.warn(`stopping the server: ${e}`);
    }
  }
}

async function restart(reason: string): Promise<void> {
  output.info(`restarting server: ${reason}`);
  const run = async () => {
    await stopClient();
    await startClient();
  };
  starting = (starting ?? Promise.resolve()).then(run, run);
  await starting;
}

async function runningClient(): Promise<LanguageClient | undefined> {
  if (starting) await starting;
  if (client && client.state === State.Running) return client;
  if (lastChoice && !lastChoice.chosen) {
    await showMissingServer(lastChoice);
  } else {
    void vscode.window.showErrorMessage("Rubric: the rubric-lsp server is not running.", "Show Output").then((a) => a && output.show());
  }
  return undefined;
}

function serverSupports(c: LanguageClient, command: string): boolean {
  const cmds = c.initializeResult?.capabilities.executeCommandProvider?.commands;
  return !cmds || cmds.includes(command);
}

// ---------------------------------------------------------------- grading

/** Before a grading: a private environment gets `[grade]` (litellm) the first time, if the user agrees. */
async function beforeGrading(c: LanguageClient): Promise<LanguageClient | undefined> {
  // A command may hold a client from before a restart (Grade Selection asks again after the [grade]
  // install restarted the server): grading goes to the running one, never to a stopped one.
  if (c !== client || c.state !== State.Running) {
    const fresh = await runningClient();
    if (!fresh) return undefined;
    c = fresh;
  }
  if (launched?.source !== "privateEnv") return c;
  const extra = await ensureGradeExtra(ctx, output, launched.command);
  if (extra === "declined") {
    // never silence: "▶ Grade examples" said nothing when the toast went away; the offer stays in the status bar
    offers.offer("grade");
    const said = "Rubric: not graded: grading needs rubric-lsp[grade] — click “Install grading” in the status bar, or run Rubric: Install Grading Support.";
    output.warn(said);
    vscode.window.setStatusBarMessage(said, 15000);
    return undefined;
  }
  offers.done("grade");
  if (extra === "installed") {
    await restart("rubric-lsp[grade] installed");
    return runningClient();
  }
  return c;
}

/** Rubric: Install Server (and the status bar item): the private environment, from the .vsix's wheel, at once. */
async function installServer(): Promise<void> {
  if (!requireTrust()) return;
  const installed = await offerPrivateInstall(ctx, output, { pythonExtensionInterpreter: lastPythonExtensionInterpreter }, false);
  if (!installed) return;
  offers.done("server");
  await restart("rubric-lsp installed");
}

/** Rubric: Install Grading Support: `[grade]` into the private environment, or the command for another server's Python. */
async function installGrading(): Promise<void> {
  if (!requireTrust()) return;
  if (starting) await starting;
  if (launched?.source === "privateEnv") {
    const extra = await ensureGradeExtra(ctx, output, launched.command, false);
    if (extra === "declined") return;
    offers.done("grade");
    if (extra === "installed") await restart("rubric-lsp[grade] installed");
    else void vscode.window.showInformationMessage("Rubric: grading support is installed.");
    return;
  }
  if (!launched) {
    await installServer(); // grading needs a server first
    return;
  }
  // a server the extension did not install: its own Python gets the extra (offline: the .vsix's wheel)
  const command = gradeExtraCommand(launched.python, bundledWheel(ctx));
  output.info(`grading support for ${describeCandidate(launched)}: ${command}`);
  const copy = "Copy Command";
  if ((await vscode.window.showInformationMessage(`Rubric: add grading to the running server's Python with: ${command}`, copy)) === copy) {
    await vscode.env.clipboard.writeText(command);
  }
}

// ---------------------------------------------------------------- verdicts

function requireTrust(): boolean {
  if (trusted()) return true;
  void vscode.window.showWarningMessage("Rubric: grading is disabled in an untrusted workspace (diagnostics only).");
  return false;
}

async function clearVerdicts(): Promise<void> {
  grading.decorations.clear();
  const c = await runningClient();
  if (!c) return;
  if (!serverSupports(c, SERVER_CMD.clearVerdicts)) {
    void vscode.window.showInformationMessage("Rubric: this server version cannot clear verdicts; restart it to clear them.");
    return;
  }
  const uris = new Set<string>();
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active) uris.add(active.toString());
  for (const ed of vscode.window.visibleTextEditors) uris.add(ed.document.uri.toString());
  for (const uri of uris) {
    try {
      await c.sendRequest(ExecuteCommandRequest.type, { command: SERVER_CMD.clearVerdicts, arguments: [{ uri }] });
    } catch (e) {
      output.warn(`clearVerdicts ${uri}: ${e}`);
    }
  }
}

async function setApiKey(): Promise<void> {
  if (!requireTrust()) return;
  const stored = new Set(ctx.globalState.get<string[]>(API_KEY_NAMES_KEY, []));
  const items: (vscode.QuickPickItem & { env?: string })[] = API_KEY_PROVIDERS.map((p) => ({
    label: p.label,
    description: p.env,
    detail: stored.has(p.env) ? "a key is stored" : undefined,
    env: p.env,
  }));
  for (const n of stored) if (!API_KEY_PROVIDERS.some((p) => p.env === n)) items.push({ label: n, description: n, detail: "a key is stored", env: n });
  items.push({ label: "Other environment variable…" });
  const picked = await vscode.window.showQuickPick(items, { placeHolder: "Which provider's API key? (passed to the server as an environment variable)" });
  if (!picked) return;
  let envName = picked.env;
  if (!envName) {
    envName = await vscode.window.showInputBox({
      prompt: "Environment variable name",
      placeHolder: "MY_PROVIDER_API_KEY",
      validateInput: (v) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(v) ? undefined : "Letters, digits and _ only"),
    });
    if (!envName) return;
  }
  const value = await vscode.window.showInputBox({
    prompt: `Value of ${envName} (stored in VS Code's secret storage; leave empty to remove it)`,
    password: true,
    ignoreFocusOut: true,
  });
  if (value === undefined) return;
  if (value === "") {
    await ctx.secrets.delete(SECRET_PREFIX + envName);
    stored.delete(envName);
  } else {
    await ctx.secrets.store(SECRET_PREFIX + envName, value);
    stored.add(envName);
  }
  await ctx.globalState.update(API_KEY_NAMES_KEY, [...stored]);
  await restart(`API key ${envName} ${value === "" ? "removed" : "set"}`);
  void vscode.window.showInformationMessage(`Rubric: ${envName} ${value === "" ? "removed" : "stored"}; the server was restarted.`);
}

// ---------------------------------------------------------------- activation

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  ctx = context;
  output = vscode.window.createOutputChannel("Rubric", { log: true });
  status = vscode.window.createStatusBarItem("rubric.status", vscode.StatusBarAlignment.Right, 100);
  status.name = "Rubric";
  status.command = "rubric.showOutput";
  context.subscriptions.push(output, status);
  offers = new InstallOffers();
  context.subscriptions.push(offers);
  grading = new Grading({
    ctx,
    output,
    selector: DOCUMENT_SELECTOR,
    trusted,
    runningClient,
    serverSupports,
    beforeGrading,
    afterGrading: (c, uri, title) => void offerReport(c, { uri }, title),
  });

  context.subscriptions.push(
    ...grading.register(),
    vscode.commands.registerCommand("rubric.clearVerdicts", clearVerdicts),
    vscode.commands.registerCommand("rubric.setApiKey", setApiKey),
    vscode.commands.registerCommand("rubric.restartServer", () => restart("restart command")),
    vscode.commands.registerCommand("rubric.installServer", installServer),
    vscode.commands.registerCommand("rubric.installGrading", installGrading),
    vscode.commands.registerCommand("rubric.showOutput", () => output.show()),
    vscode.commands.registerCommand("rubric.openReport", (args) => openReportForActiveEditor(runningClient, args)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration("rubric")) return;
      if (needsRestart((k) => e.affectsConfiguration(k))) {
        void restart("server settings changed");
        return;
      }
      updateStatus();
      if (client && client.state === State.Running) {
        void client.sendNotification("workspace/didChangeConfiguration", { settings: { rubric: section() } });
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void restart("workspace trusted")),
  );

  const py = await pythonExtensionApi();
  const ev = py?.environments?.onDidChangeActiveEnvironmentPath;
  if (ev) {
    context.subscriptions.push(
      ev(() => {
        if (!launched || launched.source === "pythonExtension" || launched.source === "PATH") {
          void restart("Python interpreter changed");
        }
      }),
    );
  }

  updateStatus();
  // not awaited: probing interpreters must not hold up activation (commands wait on `starting`)
  starting = startClient().catch((e) => output.error(`starting the server: ${e}`));
}

export async function deactivate(): Promise<void> {
  await stopClient();
}
