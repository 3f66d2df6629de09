// The VS Code extension: starts `sigspec lsp` over stdio as the language server of `.sig`
// files, restarts it when its settings change or on the "Restart language server" command,
// and tells the user what to do when its command is not found.
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

async function complain(message: string): Promise<void> {
  const choice = await vscode.window.showErrorMessage(message, OPEN_SETTINGS);
  if (choice === OPEN_SETTINGS) {
    await vscode.commands.executeCommand(
      "workbench.action.openSettings",
      "sigspec.server",
    );
  }
}

async function start(): Promise<void> {
  const settings = vscode.workspace.getConfiguration(SECTION);
  const cwd = workspaceFolder();
  const resolved = resolveServerCommand(settings.get("server.command"), {
    workspaceFolder: cwd,
    home: homedir(),
  });
  if (!resolved.ok) {
    await complain(`sigspec: ${resolved.error}`);
    return;
  }
  const env = serverEnvironment(process.env, settings.get("server.env"));
  const { command, args } = resolved.value;
  const program = findProgram(command, env, isExecutable, {
    windows: process.platform === "win32",
    cwd,
  });
  if (program === undefined) {
    await complain(
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
      fileEvents: vscode.workspace.createFileSystemWatcher("**/*.sig"),
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
    await complain(
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

async function restart(): Promise<void> {
  await stop();
  await start();
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
    { dispose: () => void stop() },
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
  output?.dispose();
  output = undefined;
}
