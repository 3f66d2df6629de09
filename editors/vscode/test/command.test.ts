// The extension's pure parts: the settings' command, its environment, finding its program.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  DEFAULT_COMMAND,
  INSTALL_HINT,
  findProgram,
  resolveServerCommand,
  serverEnvironment,
} from "../src/command";

interface Manifest {
  contributes: {
    configuration: { properties: Record<string, { default: unknown }> };
  };
}

const manifest = JSON.parse(
  readFileSync(join(__dirname, "..", "..", "package.json"), "utf8"),
) as Manifest;

void test("package.json's default command is the one the code falls back to", () => {
  const properties = manifest.contributes.configuration.properties;
  assert.deepEqual(
    properties["sigspec.server.command"]?.default,
    DEFAULT_COMMAND,
  );
  assert.deepEqual(Object.keys(properties).sort(), [
    "sigspec.server.command",
    "sigspec.server.env",
    "sigspec.trace.server",
  ]);
});

void test("unset, empty list and blank string mean the default", () => {
  for (const setting of [undefined, null, [], "", "   "]) {
    assert.deepEqual(resolveServerCommand(setting), {
      ok: true,
      value: { command: "sigspec", args: ["lsp"] },
    });
  }
});

void test("a list is program then arguments, kept whole", () => {
  assert.deepEqual(resolveServerCommand(["/opt/my venv/bin/sigspec", "lsp"]), {
    ok: true,
    value: { command: "/opt/my venv/bin/sigspec", args: ["lsp"] },
  });
});

void test("a string is split at whitespace", () => {
  assert.deepEqual(resolveServerCommand("  uv  run sigspec\tlsp "), {
    ok: true,
    value: { command: "uv", args: ["run", "sigspec", "lsp"] },
  });
});

void test("${workspaceFolder} and a leading ~ are expanded", () => {
  const places = { workspaceFolder: "/w", home: "/home/u" };
  assert.deepEqual(
    resolveServerCommand(
      ["${workspaceFolder}/.venv/bin/sigspec", "lsp", "~x"],
      places,
    ),
    {
      ok: true,
      value: { command: "/w/.venv/bin/sigspec", args: ["lsp", "~x"] },
    },
  );
  assert.deepEqual(resolveServerCommand("~/bin/sigspec lsp", places), {
    ok: true,
    value: { command: "/home/u/bin/sigspec", args: ["lsp"] },
  });
  // Without a folder open, the text stays as written (and is then not found).
  assert.deepEqual(resolveServerCommand(["${workspaceFolder}/s"]), {
    ok: true,
    value: { command: "${workspaceFolder}/s", args: [] },
  });
});

void test("settings of the wrong shape are errors, not a crash", () => {
  for (const setting of [
    3,
    { command: "sigspec" },
    ["sigspec", 1],
    ["", "lsp"],
    true,
  ]) {
    const resolved = resolveServerCommand(setting);
    assert.equal(resolved.ok, false, JSON.stringify(setting));
    assert.match(resolved.ok ? "" : resolved.error, /sigspec\.server\.command/);
  }
});

void test("the environment is the editor's with the setting's strings over it", () => {
  const env = serverEnvironment(
    { PATH: "/bin", HOME: "/h", GONE: undefined },
    { PATH: "/venv/bin", N: 1, X: "y" },
  );
  assert.deepEqual(env, { PATH: "/venv/bin", HOME: "/h", X: "y" });
  assert.deepEqual(serverEnvironment({ A: "b" }, ["no"]), { A: "b" });
  assert.deepEqual(serverEnvironment({ A: "b" }, undefined), { A: "b" });
});

void test("a bare program is looked up in PATH, in order", () => {
  const present = new Set(["/b/sigspec", "/c/sigspec"]);
  const exists = (path: string): boolean => present.has(path);
  assert.equal(
    findProgram("sigspec", { PATH: "/a::/b:/c" }, exists),
    "/b/sigspec",
  );
  assert.equal(findProgram("sigspec", { PATH: "/a" }, exists), undefined);
  assert.equal(findProgram("sigspec", {}, exists), undefined);
});

void test("a program with a path is taken as it is, relative to the folder", () => {
  const exists = (path: string): boolean => path === "/w/.venv/bin/sigspec";
  assert.equal(
    findProgram("/w/.venv/bin/sigspec", { PATH: "" }, exists),
    "/w/.venv/bin/sigspec",
  );
  assert.equal(
    findProgram(".venv/bin/sigspec", { PATH: "/w" }, exists, { cwd: "/w" }),
    "/w/.venv/bin/sigspec",
  );
  assert.equal(
    findProgram("bin/sigspec", { PATH: "/w/.venv" }, exists, {
      cwd: "/elsewhere",
    }),
    undefined,
  );
});

void test("on Windows PATHEXT's extensions are tried", () => {
  const exists = (path: string): boolean =>
    path === "C:\\py\\Scripts\\sigspec.EXE";
  const env = { PATH: "C:\\none;C:\\py\\Scripts", PATHEXT: ".COM;.EXE" };
  assert.equal(
    findProgram("sigspec", env, exists, { windows: true }),
    "C:\\py\\Scripts\\sigspec.EXE",
  );
  assert.equal(
    findProgram("sigspec", { ...env, PATHEXT: ".COM" }, exists, {
      windows: true,
    }),
    undefined,
  );
});

void test("the hint names the install command and the setting", () => {
  assert.match(INSTALL_HINT, /pip install "sigspec\[lsp\]"/);
  assert.match(INSTALL_HINT, /sigspec\.server\.command/);
});
