// The VS Code extension: starts `sigspec lsp` over stdio as the language server of `.sig`
// files, restarts it when its settings change or on the "Restart language server" command,
// and tells the user what to do when its command is not found. Starts and stops run one at a
// time, in order: a settings change while the server starts waits for that start.
import { accessSync, constants } from "node:fs";
import { homedir } from "node:os";
import * as vscode from "vscode";
import {
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import {
  INSTALL_HINT,
  findProgram,
  resolveServerCommand,
  serverEnvironment,
} from "./command";

const SECTION = "sigspec";
const OPEN_SETTINGS = "Open Settings";

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel | undefined;
let watcher: vscode.FileSystemWatcher | undefined;
let queue: Promise<void> = Promise.resolve();

function isExecutable(path: string): boolean {
  try {
    accessSync(
      path,
      process.platform === "win32" ? constants.F_OK : constants.X_OK,
    );
    return true;
  } catch {
    return false;
  }
}

function workspaceFolder(): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder?.uri.scheme === "file" ? folder.uri.fsPath : undefined;
}

/** Shows an error offering the settings; not awaited, as the user may never answer. */
function complain(message: string): void {
  void vscode.window
    .showErrorMessage(message, OPEN_SETTINGS)
    .then((choice) =>
      choice === OPEN_SETTINGS
        ? vscode.commands.executeCommand(
            "workbench.action.openSettings",
            "sigspec.server",
          )
        : undefined,
    );
}

async function start(): Promise<void> {
  const settings = vscode.workspace.getConfiguration(SECTION);
  const cwd = workspaceFolder();
  const resolved = resolveServerCommand(settings.get("server.command"), {
    workspaceFolder: cwd,
    home: homedir(),
  });
  if (!resolved.ok) {
    complain(`sigspec: ${resolved.error}`);
    return;
  }
  const env = serverEnvironment(process.env, settings.get("server.env"));
  const { command, args } = resolved.value;
  const program = findProgram(command, env, isExecutable, {
    windows: process.platform === "win32",
    cwd,
  });
  if (program === undefined) {
    complain(
      `sigspec: the language server command \`${command}\` was not found. ${INSTALL_HINT}`,
    );
    return;
  }
  output ??= vscode.window.createOutputChannel("sigspec", { log: true });
  const serverOptions: ServerOptions = {
    command: program,
    args: [...args],
    options: cwd === undefined ? { env } : { env, cwd },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "sigspec" },
      { scheme: "untitled", language: "sigspec" },
    ],
    synchronize: {
      fileEvents: (watcher ??=
        vscode.workspace.createFileSystemWatcher("**/*.sig")),
    },
    outputChannel: output,
  };
  const next = new LanguageClient(
    "sigspec",
    "sigspec language server",
    serverOptions,
    clientOptions,
  );
  client = next;
  try {
    await next.start();
  } catch (error) {
    client = undefined;
    const reason = error instanceof Error ? error.message : String(error);
    complain(
      `sigspec: the language server (\`${[program, ...args].join(" ")}\`) did not start: ${reason}. ${INSTALL_HINT}`,
    );
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running !== undefined) {
    await running.dispose();
  }
}

/** Runs `step` after the starts and stops asked for before it. */
function enqueue(step: () => Promise<void>): Promise<void> {
  queue = queue.then(step, step);
  return queue;
}

function restart(): Promise<void> {
  return enqueue(async () => {
    await stop();
    await start();
  });
}

export async function activate(
  context: vscode.ExtensionContext,
): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand("sigspec.restartServer", restart),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("sigspec.server")) {
        void restart();
      }
    }),
  );
  await enqueue(start);
}

export async function deactivate(): Promise<void> {
  await enqueue(stop);
  watcher?.dispose();
  watcher = undefined;
  output?.dispose();
  output = undefined;
}
