// The bundle (dist/extension.js) loaded with a stand-in for the `vscode` module: what the
// extension does when the server's command is missing or its setting is wrong (the user is
// told, with the install command, and offered the settings), and that a settings change or
// the restart command starts over. Starting a real client needs VS Code itself; the
// command line and protocol it relies on are tested in server.test.ts.
import assert from "node:assert/strict";
import Module, { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";

type Listener = (event: {
  affectsConfiguration(section: string): boolean;
}) => void;
type Handler = () => Promise<void>;

const state = {
  settings: {} as Record<string, unknown>,
  errors: [] as string[],
  offered: [] as string[][],
  choice: undefined as string | undefined,
  executed: [] as unknown[][],
  commands: new Map<string, Handler>(),
  onConfiguration: [] as Listener[],
};

const disposable = { dispose: (): void => undefined };
const vscode = {
  // The classes vscode-languageclient extends when it loads.
  CallHierarchyItem: class {},
  CancellationError: class {},
  CodeAction: class {},
  CodeLens: class {},
  CompletionItem: class {},
  Diagnostic: class {},
  DocumentLink: class {},
  InlayHint: class {},
  SymbolInformation: class {},
  TypeHierarchyItem: class {},
  workspace: {
    workspaceFolders: undefined,
    getConfiguration: (section: string) => ({
      get: (key: string): unknown => state.settings[`${section}.${key}`],
    }),
    onDidChangeConfiguration: (listener: Listener) => {
      state.onConfiguration.push(listener);
      return disposable;
    },
    createFileSystemWatcher: (): never => {
      throw new Error("this test starts no client");
    },
  },
  window: {
    showErrorMessage: (message: string, ...items: string[]) => {
      state.errors.push(message);
      state.offered.push(items);
      return Promise.resolve(state.choice);
    },
    createOutputChannel: (): never => {
      throw new Error("this test starts no client");
    },
  },
  commands: {
    registerCommand: (id: string, handler: Handler) => {
      state.commands.set(id, handler);
      return disposable;
    },
    executeCommand: (...args: unknown[]) => {
      state.executed.push(args);
      return Promise.resolve();
    },
  },
};

interface Extension {
  activate(context: { subscriptions: unknown[] }): Promise<void>;
  deactivate(): Promise<void>;
}

function load(): Extension {
  const loader = Module as unknown as {
    _load: (request: string, ...rest: unknown[]) => unknown;
  };
  const original = loader._load;
  loader._load = function (request: string, ...rest: unknown[]): unknown {
    return request === "vscode"
      ? vscode
      : original.call(this, request, ...rest);
  };
  try {
    const bundle = join(__dirname, "..", "..", "dist", "extension.js");
    return createRequire(__filename)(bundle) as Extension;
  } finally {
    loader._load = original;
  }
}

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done()) {
    assert.ok(Date.now() < deadline, `${what}: ${state.errors.join("; ")}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function nextError(count: number): Promise<string> {
  await until(`no error message ${count}`, () => state.errors.length >= count);
  return state.errors[count - 1] ?? "";
}

function changeSettings(section: string): void {
  for (const listener of state.onConfiguration) {
    listener({
      affectsConfiguration: (s) => s === section || section.startsWith(`${s}.`),
    });
  }
}

void test("a missing command, a wrong setting, restarts", async () => {
  const extension = load();
  const context = { subscriptions: [] as unknown[] };
  state.settings["sigspec.server.command"] = [
    "/nonexistent/bin/sigspec",
    "lsp",
  ];
  await extension.activate(context);
  assert.equal(context.subscriptions.length, 2);
  assert.deepEqual([...state.commands.keys()], ["sigspec.restartServer"]);
  const missing = await nextError(1);
  assert.match(missing, /`\/nonexistent\/bin\/sigspec` was not found/);
  assert.match(missing, /pip install "sigspec\[lsp\]"/);
  assert.match(missing, /"sigspec\.server\.command"/);
  assert.deepEqual(state.offered[0], ["Open Settings"]);
  assert.deepEqual(state.executed, []);

  // The default command, looked up in the PATH that sigspec.server.env sets.
  state.settings["sigspec.server.command"] = undefined;
  state.settings["sigspec.server.env"] = { PATH: "/nonexistent" };
  state.choice = "Open Settings";
  changeSettings("sigspec.server.env");
  assert.match(await nextError(2), /`sigspec` was not found/);
  await until("the settings were not opened", () => state.executed.length > 0);
  assert.deepEqual(state.executed, [
    ["workbench.action.openSettings", "sigspec.server"],
  ]);

  // Other settings do not restart the server. A restart they queued would run before the
  // restart command's (restarts run one at a time, in order) and report the missing
  // command first: the third error must be the restart command's own, and the last.
  changeSettings("editor.fontSize");
  changeSettings("sigspec.trace.server");
  state.settings["sigspec.server.command"] = 42;
  await state.commands.get("sigspec.restartServer")?.();
  assert.match(
    await nextError(3),
    /^sigspec: "sigspec\.server\.command" must be a list of strings or a string\.$/,
  );
  assert.equal(state.errors.length, 3);
  await extension.deactivate();
});
