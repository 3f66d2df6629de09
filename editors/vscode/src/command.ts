// The extension's pure parts, free of the `vscode` module so that Node's test runner can
// run them: how the settings become the command that starts `sigspec lsp`, and where that
// command's program is found.
import { posix, win32 } from "node:path";

/** The default of `sigspec.server.command` (package.json says the same; a test holds them). */
export const DEFAULT_COMMAND: readonly string[] = ["sigspec", "lsp"];

/** What to tell a user whose server command is not found. */
export const INSTALL_HINT =
  'Install the server with `pip install "sigspec[lsp]"` in a Python environment on your PATH, ' +
  'or set "sigspec.server.command" to the command that runs `sigspec lsp`.';

export interface ServerCommand {
  readonly command: string;
  readonly args: readonly string[];
}

export type Resolved =
  | { readonly ok: true; readonly value: ServerCommand }
  | { readonly ok: false; readonly error: string };

/** Where `${workspaceFolder}` and a leading `~` point. */
export interface Places {
  readonly workspaceFolder?: string | undefined;
  readonly home?: string | undefined;
}

function expand(word: string, places: Places): string {
  let out = word;
  if (places.workspaceFolder !== undefined) {
    out = out.split("${workspaceFolder}").join(places.workspaceFolder);
  }
  if (places.home !== undefined && (out === "~" || out.startsWith("~/"))) {
    out = places.home + out.slice(1);
  }
  return out;
}

/**
 * The command `sigspec.server.command` names: a list (program, then arguments) or one
 * string split at whitespace. Unset or empty means the default; anything else that is not
 * a non-empty list of strings is an error the user is shown.
 */
export function resolveServerCommand(
  setting: unknown,
  places: Places = {},
): Resolved {
  let words: unknown[];
  if (setting === undefined || setting === null) {
    words = [...DEFAULT_COMMAND];
  } else if (typeof setting === "string") {
    words =
      setting.trim() === ""
        ? [...DEFAULT_COMMAND]
        : setting.trim().split(/\s+/);
  } else if (Array.isArray(setting)) {
    words = setting.length === 0 ? [...DEFAULT_COMMAND] : setting;
  } else {
    return {
      ok: false,
      error: '"sigspec.server.command" must be a list of strings or a string.',
    };
  }
  if (!words.every((word): word is string => typeof word === "string")) {
    return {
      ok: false,
      error: '"sigspec.server.command" must hold strings only.',
    };
  }
  if (words[0] === "") {
    return {
      ok: false,
      error: '"sigspec.server.command" starts with an empty program name.',
    };
  }
  const [program, ...args] = words.map((word) => expand(word, places));
  return { ok: true, value: { command: program as string, args } };
}

/** The environment the server runs in: the editor's, with `sigspec.server.env` over it. */
export function serverEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  setting: unknown,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined) out[key] = value;
  }
  if (
    setting !== null &&
    typeof setting === "object" &&
    !Array.isArray(setting)
  ) {
    for (const [key, value] of Object.entries(setting)) {
      if (typeof value === "string") out[key] = value;
    }
  }
  return out;
}

/**
 * The file a program name runs, as a shell would find it: a name holding a path separator
 * is taken as it is (relative to `cwd`), a bare name is looked up in PATH (with PATHEXT's
 * extensions on Windows). Undefined when nothing is found.
 */
export function findProgram(
  program: string,
  env: Readonly<Record<string, string | undefined>>,
  isExecutable: (path: string) => boolean,
  options: {
    readonly windows?: boolean;
    readonly cwd?: string | undefined;
  } = {},
): string | undefined {
  const windows = options.windows ?? false;
  const path = windows ? win32 : posix;
  const extensions = windows
    ? [
        "",
        ...(env.PATHEXT ?? ".COM;.EXE;.BAT;.CMD")
          .split(";")
          .filter((e) => e !== ""),
      ]
    : [""];
  const candidates = (base: string): string[] =>
    extensions.map((extension) => base + extension);
  if (program.includes("/") || (windows && program.includes("\\"))) {
    const base = path.isAbsolute(program)
      ? program
      : path.join(options.cwd ?? ".", program);
    return candidates(base).find(isExecutable);
  }
  const folders = (env.PATH ?? env.Path ?? "").split(path.delimiter);
  for (const folder of folders) {
    if (folder === "") continue;
    const found = candidates(path.join(folder, program)).find(isExecutable);
    if (found !== undefined) return found;
  }
  return undefined;
}
