// The command line and protocol the extension relies on: the command its settings default
// to, found on PATH as the extension finds it, spawned and spoken to over stdio with
// vscode-languageserver-protocol (the library vscode-languageclient is built on and the
// bundle carries): initialize, open a document, receive its diagnostics, shut down.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  accessSync,
  constants,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import {
  type Diagnostic,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializeRequest,
  InitializedNotification,
  type PublishDiagnosticsParams,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  createProtocolConnection,
} from "vscode-languageserver-protocol/node";
import {
  DEFAULT_COMMAND,
  findProgram,
  resolveServerCommand,
} from "../src/command";

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

void test("the default command starts sigspec's server, which publishes diagnostics", async () => {
  const resolved = resolveServerCommand(undefined);
  assert.ok(resolved.ok);
  assert.deepEqual(
    [resolved.value.command, ...resolved.value.args],
    DEFAULT_COMMAND,
  );
  const program = findProgram(
    resolved.value.command,
    process.env,
    isExecutable,
  );
  assert.ok(
    program,
    "`sigspec` is not on PATH: activate the venv holding sigspec[lsp]",
  );

  const root = realpathSync(mkdtempSync(join(tmpdir(), "sigspec-vscode-")));
  const path = join(root, "a.sig");
  // An emoji (two UTF-16 code units) before the unknown name: the column is in UTF-16.
  const broken = 'signature s(x :string "🙂") -> Missing\n';
  writeFileSync(path, broken);
  const uri = pathToFileURL(path).href;
  const child = spawn(program, [...resolved.value.args], {
    cwd: root,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => resolve(code)),
  );
  const connection = createProtocolConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const published: PublishDiagnosticsParams[] = [];
  const waiters: (() => void)[] = [];
  connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
    published.push(params);
    waiters.splice(0).forEach((wake) => wake());
  });
  connection.listen();
  const next = async (count: number): Promise<Diagnostic[]> => {
    const deadline = Date.now() + 20_000;
    while (published.filter((p) => p.uri === uri).length < count) {
      assert.ok(
        Date.now() < deadline,
        `no diagnostics for ${uri}; server stderr:\n${stderr}`,
      );
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 250);
      });
    }
    return published.filter((p) => p.uri === uri)[count - 1]?.diagnostics ?? [];
  };
  try {
    const init = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: pathToFileURL(root).href,
      workspaceFolders: [{ uri: pathToFileURL(root).href, name: "w" }],
      capabilities: {
        general: { positionEncodings: ["utf-16"] },
        textDocument: { publishDiagnostics: { relatedInformation: true } },
      },
    });
    assert.equal(init.serverInfo?.name, "sigspec");
    assert.ok(init.capabilities.textDocumentSync !== undefined);
    assert.ok(init.capabilities.documentFormattingProvider);
    await connection.sendNotification(InitializedNotification.type, {});
    await connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: "sigspec", version: 1, text: broken },
    });
    const [first, ...rest] = await next(1);
    assert.ok(first, "the broken document got no diagnostic");
    assert.equal(first.code, "unknown-type");
    assert.equal(first.source, "sigspec");
    const column = broken.indexOf("Missing"); // JavaScript strings count UTF-16 code units
    assert.deepEqual(first.range, {
      start: { line: 0, character: column },
      end: { line: 0, character: column + "Missing".length },
    });
    assert.deepEqual(rest, []);

    await connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: 'signature s(x :string "🙂") -> :string\n' }],
    });
    assert.deepEqual(await next(2), []);

    await connection.sendRequest(ShutdownRequest.type);
    await connection.sendNotification(ExitNotification.type);
    assert.equal(await exited, 0, stderr);
  } finally {
    connection.dispose();
    child.kill();
    rmSync(root, { recursive: true, force: true });
  }
});
