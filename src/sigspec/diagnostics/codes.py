"""THE table of diagnostic codes: every code, its severity, its message and its long form.

Call sites build diagnostics with `UNKNOWN_TYPE.at(source, span, name=...)`; no message text
is formatted anywhere else. Codes are stable: tools match on them, so never rename one.
An example is a `.sig` text that produces the code (a test proves it); `---- name.sig` lines
split it into several files, the first one being the file that is checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from sigspec.diagnostics.model import Diagnostic, Fix, Label, Phase, Severity
from sigspec.diagnostics.source import SourceFile, Span


class Located(Protocol):
    """Anything that says where it came from (the IR's Origin, for one)."""

    @property
    def source(self) -> SourceFile: ...

    @property
    def span(self) -> Span: ...


@dataclass(frozen=True, slots=True)
class Code:
    name: str
    phase: Phase  # which run finds it: what a suppression of it is judged by
    severity: Severity
    template: str
    summary: str
    explanation: str
    example: str

    def at(
        self,
        source: SourceFile | None,
        span: Span | None,
        *,
        hints: tuple[str, ...] = (),
        labels: tuple[Label, ...] = (),
        fixes: tuple[Fix, ...] = (),
        **params: Any,
    ) -> Diagnostic:
        return Diagnostic(
            code=self.name,
            severity=self.severity,
            message=self.template.format(**params),
            source=source,
            span=span,
            labels=labels,
            hints=hints,
            fixes=fixes,
        )

    def at_origin(self, origin: Located | None, **params: Any) -> Diagnostic:
        """At a resolved declaration's origin, or nowhere when it has none."""
        if origin is None:
            return self.at(None, None, **params)
        return self.at(origin.source, origin.span, **params)


E = Severity.ERROR
W = Severity.WARNING

SYNTAX_ERROR = Code(
    "syntax-error",
    Phase.SYNTAX,
    E,
    "{detail}",
    "The text does not follow the sigspec grammar.",
    "The parser stopped at a token it did not expect. The message names what was found and "
    "what could have come instead. Common causes: a missing comma between fields, a trailing "
    "comma, an empty list type `[]`, or `T -> U` without parenthesised params.",
    "signature f(a :int b :int) -> :int\n",
)
INVALID_ENCODING = Code(
    "invalid-encoding",
    Phase.READ,
    E,
    "file is not valid UTF-8 (byte 0x{byte:02x} at offset {offset})",
    "A .sig file must be UTF-8 text.",
    "sigspec reads every .sig file as UTF-8. Re-save the file as UTF-8; nothing in it was read.",
    "",
)
FILE_TOO_LARGE = Code(
    "file-too-large",
    Phase.READ,
    E,
    "file is {size} bytes; the limit for a .sig file is {limit} bytes",
    "A .sig file is larger than sigspec reads.",
    "Signature files are small; a file over the limit is almost always generated or wrong, "
    "and is refused rather than parsed. Split it into several files joined by `import`.",
    "",
)
NESTING_TOO_DEEP = Code(
    "nesting-too-deep",
    Phase.SYNTAX,
    E,
    "brackets are nested more than {limit} levels deep",
    "Types are nested deeper than sigspec allows.",
    "Deeply nested types are unreadable and no provider accepts them (OpenAI allows 10 levels). "
    "Name inner types with `type Name = ...` to flatten the structure.",
    "",
)
READ_ERROR = Code(
    "read-error",
    Phase.READ,
    E,
    "cannot read {path}: {reason}",
    "A file could not be read.",
    "The file does not exist, is a folder, or cannot be opened. Check the path and permissions.",
    "",
)
INVALID_STRING = Code(
    "invalid-string",
    Phase.SYNTAX,
    E,
    "invalid string literal: {reason}",
    "A string literal has a bad escape sequence.",
    'Strings use JSON escapes: \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX.',
    'signature f(a :string "bad \\q escape") -> :int\n',
)
COMMENT_IN_INLINE = Code(
    "comment-in-inline",
    Phase.SYNTAX,
    E,
    "comments are not allowed in an inline signature",
    "An inline signature string contains a `#` comment.",
    "Comments belong in .sig files. PtcRunner's inline syntax has no comments, so an inline "
    "signature with `#` is rejected to stay compatible.",
    "",
)
SPACE_BEFORE_OPTIONAL = Code(
    "space-before-optional",
    Phase.SYNTAX,
    E,
    "`?` must follow its type directly",
    "There is whitespace between a type and its `?`.",
    "Write `:int?`, not `:int ?`. PtcRunner rejects the spaced form, so sigspec does too.",
    "signature f() -> {a :int ?}\n",
)
UNKNOWN_PRIMITIVE = Code(
    "unknown-primitive",
    Phase.SYNTAX,
    E,
    "unknown type `{name}`",
    "A `:keyword` type is not one of the primitives.",
    "The primitive types are :string :int :float :bool (:boolean) :keyword :datetime :map and "
    ":any. Keywords are case-sensitive; `:integer`, `:number`, `:list` and `:object` do not "
    "exist: the hint names the primitive meant (`:int`, `:float`, `:map`) or, for `:list`, "
    "the list form `[T]`.",
    "signature f() -> {n :integer}\n",
)
UNKNOWN_TYPE = Code(
    "unknown-type",
    Phase.CHECK,
    E,
    "unknown type `{name}`",
    "A named type is not declared in this file or the files it imports.",
    "Named types must be declared with `type Name = ...` in the same file or in an imported "
    "file. Names are case-sensitive. A primitive needs its colon (`:string`, not `string`). "
    "The hints name the closest declared types, and all of them when there are few.",
    'signature f() -> {s Sentimnt}\ntype Sentiment = "positive" | "negative"\n',
)
UNKNOWN_SIGNATURE = Code(
    "unknown-signature",
    Phase.CHECK,
    E,
    "unknown signature `{name}`",
    "A pipeline step or a test names a signature that does not exist.",
    "Each step of `pipeline p = a |> b`, and the signature a `test` calls, must be a signature "
    "declared in the file or an imported file.",
    "signature a() -> {x :int}\npipeline p = a |> b\n",
)
UNKNOWN_TOOL = Code(
    "unknown-tool",
    Phase.CHECK,
    E,
    "unknown tool `{name}`",
    "`@tools(...)` names a tool that is not declared.",
    "Tools are declared with `tool name(params) -> T`, in the file or an imported file.",
    "@output(ptc_lisp) @tools(serch)\nsignature f() -> :string\n"
    "tool search(q :string) -> [:string]\n",
)
DUPLICATE_PARAM = Code(
    "duplicate-param",
    Phase.CHECK,
    E,
    "duplicate parameter names normalize to `{folded}`: {names}",
    "Two params have the same name once `-` and `_` are treated as the same character.",
    "Keys are matched with `-` and `_` folded, so `user-id` and `user_id` would be the same "
    "key at run time. Rename one of them.",
    "signature f(a-b :int, a_b :int) -> :int\n",
)
DUPLICATE_FIELD = Code(
    "duplicate-field",
    Phase.CHECK,
    E,
    "duplicate map field names normalize to `{folded}`: {names}",
    "Two fields of one map have the same name once `-` and `_` are folded.",
    "Keys are matched with `-` and `_` folded, so both fields would read the same key. Rename "
    "one of them.",
    "signature f() -> {a_ :int, a- :int}\n",
)
DUPLICATE_DECLARATION = Code(
    "duplicate-declaration",
    Phase.CHECK,
    E,
    "`{name}` is declared more than once",
    "Two declarations share one name.",
    "Types, signatures, tools and pipelines share one namespace across the project, after "
    "`-`/`_` folding, because generated code and schemas refer to them by name.",
    "type A = :int\ntype A = :string\n",
)
MODULE_COLLISION = Code(
    "module-collision",
    Phase.CHECK,
    E,
    "`{first}` and `{second}` would both be generated as `{module}`",
    "Two files would generate one module.",
    "Each .sig file's generated module is named after its path below the project root, "
    "with every folder and file name made an identifier (`-` and other characters become "
    "`_`). Two paths that become the same name (`my-dir/a.sig` and `my_dir/a.sig`), or a file "
    "and a folder of the same name (`a.sig` and `a/b.sig`), cannot both have one. Rename one.",
    'import "main/b.sig"\ntype A = :int\n---- main/b.sig\ntype B = :int\n',
)
CASE_COLLISION = Code(
    "case-collision",
    Phase.CHECK,
    W,
    "the generated files of `{name}` differ from those of `{other}` only in case",
    "Two outputs would overwrite each other on a case-insensitive file system.",
    "macOS and Windows file systems ignore case: `Classify` and `classify` would write one "
    "`jsonschema/classify.input.json`, and the second would overwrite the first when the "
    "output is compiled or checked out there. Rename one of them.",
    "signature Classify() -> :int\nsignature classify() -> :string\n",
)
RESERVED_NAME = Code(
    "reserved-name",
    Phase.CHECK,
    W,
    "`{name}` is a name Windows reserves for a device: its generated files cannot exist there",
    "A generated file would have a name Windows refuses.",
    "Windows reserves CON, PRN, AUX, NUL, COM1 to COM9 and LPT1 to LPT9, in any case and with "
    "any extension: `con.input.json` cannot be created or checked out there. Rename the "
    "declaration or the file.",
    "signature con() -> :int\n",
)
# A .sig file's path, written into every file generated from it.
UNSAFE_PATH = Code(
    "unsafe-path",
    Phase.CHECK,
    E,
    "the path `{name}` holds {char}, which generated files cannot show safely",
    "A .sig file's path holds a control character, a line break or a bidirectional control.",
    "A .sig file's path below the project root is written into the header comments and "
    "docstrings of every file generated from it. Control characters (a newline, a carriage "
    "return, NUL, ...), the line and paragraph separators U+2028 and U+2029 and bidirectional "
    "controls (U+202A to U+202E, U+2066 to U+2069, ...) could end such a comment or make it "
    "read differently from what it holds, and a name that is not valid UTF-8 cannot be "
    "written at all. Rename the file or folder.",
    'import "tab\\tname.sig"\ntype A = :int\n---- tab\tname.sig\ntype B = :int\n',
)
NAME_TOO_LONG = Code(
    "name-too-long",
    Phase.CHECK,
    E,
    "`{name}` is too long for its generated files: `{file}` would be {size} bytes "
    "(at most {limit})",
    "A generated file's name would be longer than file systems allow.",
    "A signature's or tool's name names its generated files (`jsonschema/NAME.output.json`, "
    "`providers/NAME.json`, `prompts/NAME/...`), and most file systems refuse a file name "
    "longer than 255 bytes. Shorten the name.",
    f"signature {'n' * 250}() -> :int\n",
)
DUPLICATE_ATTRIBUTE = Code(
    "duplicate-attribute",
    Phase.CHECK,
    E,
    "`@{name}` is given more than once",
    "The same attribute appears twice on one item.",
    "Each attribute may be given once; the second would silently win.",
    "signature f() -> {a :int @min(0) @min(1)}\n",
)
UNKNOWN_ATTRIBUTE = Code(
    "unknown-attribute",
    Phase.CHECK,
    E,
    "unknown attribute `@{name}`",
    "An attribute name is not one sigspec knows.",
    "Field attributes: @min @max @min_length @max_length @pattern @format @min_items "
    "@max_items @clamp @fallback @deprecated. Signature attributes: @output @prompt @system "
    "@max_turns @allow_extra_keys @no_output_instructions @tools @compression @deprecated.",
    "signature f() -> {a :int @minimum(0)}\n",
)
MISPLACED_ATTRIBUTE = Code(
    "misplaced-attribute",
    Phase.CHECK,
    E,
    "`@{name}` is not allowed on {place}",
    "An attribute is used where it has no meaning.",
    "Field attributes go after a field's type and default; signature attributes go before "
    "`signature` or `tool`. `import` and `pipeline` take no attributes but @deprecated.",
    "@min(1)\nsignature f() -> :int\n",
)
INVALID_ATTRIBUTE_ARGUMENT = Code(
    "invalid-attribute-argument",
    Phase.CHECK,
    E,
    "`@{name}` {reason}",
    "An attribute got the wrong number or kind of arguments.",
    "Each attribute takes a fixed argument list, e.g. `@min(0)`, `@clamp(0, 1)`, "
    '`@output(json)`, `@max_turns(3)`, `@prompt("...")`.',
    "@max_turns(0)\nsignature f() -> :int\n",
)
INVALID_DEFAULT = Code(
    "invalid-default",
    Phase.CHECK,
    E,
    "default value does not fit `{type}`: {reason}",
    "A default value is not a value of its field's type.",
    "Defaults fill absent fields, so they must be valid values themselves, constraints "
    "included. `int` defaults may not be `1.0`, and `bool` is never a number.",
    'signature f() -> {n :int = "three"}\n',
)
CONSTRAINT_TYPE_MISMATCH = Code(
    "constraint-type-mismatch",
    Phase.CHECK,
    E,
    "`@{name}` applies to {expected}, not to `{type}`",
    "A constraint is attached to a type it cannot constrain.",
    "@min @max @clamp constrain numbers; @min_length @max_length @pattern @format constrain "
    "strings; @min_items @max_items constrain lists.",
    "signature f() -> {name :string @min(1)}\n",
)
CONTRADICTORY_CONSTRAINTS = Code(
    "contradictory-constraints",
    Phase.CHECK,
    E,
    "{lower} is greater than {upper}: no value can satisfy both",
    "Two bounds exclude every value.",
    "A lower bound above its upper bound (`@min(5) @max(1)`, `@clamp(1, 0)`) makes every reply "
    "invalid.",
    "signature f() -> {n :int @min(5) @max(1)}\n",
)
INVALID_PATTERN = Code(
    "invalid-pattern",
    Phase.CHECK,
    E,
    "`@pattern` is not a valid regular expression: {reason}",
    "A `@pattern` is not an ECMA-262 regular expression.",
    "Patterns are ECMA-262 regular expressions in Unicode mode (JavaScript's `u` flag), as "
    "JSON Schema reads them: a lone `{`, `}` or `]`, `{,3}`, an escape of a character that "
    "needs none (`\\@`), an octal escape or a lookbehind of varying length (which Python "
    "cannot run) are errors. Escape the character (`\\{`) or write it plainly (`@`).",
    'signature f() -> {code :string @pattern("[a-")}\n',
)
UNKNOWN_FORMAT = Code(
    "unknown-format",
    Phase.CHECK,
    E,
    "unknown string format `{name}`",
    "`@format` names a format that JSON Schema does not define.",
    "Known formats: date-time date time duration email idn-email hostname idn-hostname ipv4 "
    "ipv6 uri uri-reference iri iri-reference uuid uri-template json-pointer "
    "relative-json-pointer regex.",
    'signature f() -> {d :string @format("datetime")}\n',
)
UNCHECKED_FORMAT = Code(
    "unchecked-format",
    Phase.CHECK,
    W,
    "the generated Python and TypeScript validators do not check the format `{name}`: "
    "any string passes",
    "`@format` names a format that the validators and the reply parser leave unchecked.",
    "The generated Python and TypeScript code checks, with no dependency, the formats "
    "date-time date time duration email hostname ipv4 ipv6 uri uri-reference uuid "
    "json-pointer relative-json-pointer, each as JSON Schema 2020-12 defines it and the same "
    "in both languages. The others (idn-email idn-hostname iri iri-reference uri-template "
    "regex) would need more than that to check exactly: they stay in the JSON Schema and the "
    "prompts, and the model is asked for them, but a reply's string is accepted without a "
    "check. Use a checked format or `@pattern`, or suppress the warning.",
    'signature f() -> {u :string @format("iri")}\n',
)
FALLBACK_WITHOUT_DEFAULT = Code(
    "fallback-without-default",
    Phase.CHECK,
    E,
    "`@fallback` on `{name}` needs a default value",
    "`@fallback` replaces an invalid value with the default, but there is none.",
    'Give the field a default: `mode ("a" | "b") = "a" @fallback`.',
    'signature f() -> {mode "a" | "b" @fallback}\n',
)
IMPORT_NOT_FOUND = Code(
    "import-not-found",
    Phase.READ,
    E,
    "imported file `{path}` does not exist",
    "An `import` names a file that cannot be found.",
    "Import paths are relative to the importing file and must name a .sig file.",
    'import "missing.sig"\n',
)
OUTSIDE_ROOT = Code(
    "outside-root",
    Phase.READ,
    E,
    "`{path}` is outside the project root `{root}`",
    "An imported or linked file lies outside the project root.",
    "Every file of a project lies below its root: the folder of sigspec.toml (or of a "
    "pyproject.toml with [tool.sigspec]), else the common folder of the paths given on the "
    "command line. Generated module names and the manifest are made from paths relative to "
    "the root, so a file outside it has no name there. Move the file inside the root, or put "
    "the configuration in a folder that holds both. The file was not read.",
    "",
)
IMPORT_CYCLE = Code(
    "import-cycle",
    Phase.READ,
    E,
    "import cycle: {cycle}",
    "Files import each other in a loop.",
    "Imports must form a tree. Move the shared declarations into a third file that both import.",
    'import "b.sig"\ntype A = :int\n---- b.sig\nimport "main.sig"\ntype B = :int\n',
)
INFINITE_TYPE = Code(
    "infinite-type",
    Phase.CHECK,
    E,
    "type `{name}` has no finite values",
    "A type refers to itself with no way to stop.",
    "Recursion must pass through a list, or through a map field that is optional; "
    "`type Node = {next Node}` would need an infinitely deep value.",
    "type Node = {value :int, next Node}\n",
)
TOOLS_NOT_ALLOWED = Code(
    "tools-not-allowed",
    Phase.CHECK,
    E,
    "`@tools` is not allowed in {mode} mode",
    "A json or text signature declares tools.",
    "In json and text mode the model answers directly and cannot call tools. Use "
    "`@output(ptc_lisp)` for signatures that use tools.",
    "tool t(q :string) -> :string\n@tools(t)\nsignature f() -> {a :int}\n",
)
COMPRESSION_NOT_ALLOWED = Code(
    "compression-not-allowed",
    Phase.CHECK,
    E,
    "`@compression` is not allowed in {mode} mode",
    "A json or text signature asks for compression.",
    "Message-history compression only applies to multi-turn ptc_lisp runs.",
    "@compression\nsignature f() -> {a :int}\n",
)
FIREWALL_FIELD = Code(
    "firewall-field",
    Phase.CHECK,
    E,
    "output field `{name}` starts with `_`, which json mode does not allow",
    "A json-mode output has a `_`-prefixed (firewall) field.",
    "`_` fields are hidden from the model in ptc_lisp mode; in json mode the model itself "
    "writes the whole value, so a hidden field cannot exist. Rename the field.",
    "signature f() -> {_secret :string}\n",
)
TEXT_OUTPUT_IGNORED = Code(
    "text-output-ignored",
    Phase.CHECK,
    W,
    "text mode returns raw text; the declared output `{type}` is ignored",
    "A text-mode signature declares a structured output.",
    "`@output(text)` returns the model's reply as a string without parsing. Declare `:string` "
    "or use json mode.",
    "@output(text)\nsignature f() -> {a :int}\n",
)
INVALID_PROMPT_TEMPLATE = Code(
    "invalid-prompt-template",
    Phase.CHECK,
    E,
    "{reason}",
    "A `@prompt` or `@system` template is not valid Mustache.",
    "Sections must be closed in order (`{{#items}}...{{/items}}`) and tags must be closed.",
    '@prompt("List: {{#items}}{{name}}")\nsignature f(items [{name :string}]) -> :string\n',
)
UNKNOWN_PROMPT_VARIABLE = Code(
    "unknown-prompt-variable",
    Phase.CHECK,
    E,
    "prompt variable `{name}` is not a parameter of `{signature}`",
    "A Mustache variable in the prompt names no parameter.",
    "Every `{{variable}}` must be a parameter; anything else would render as an empty string.",
    '@prompt("Classify {{txt}}")\nsignature f(text :string) -> {a :int}\n',
)
SECTION_FIELD_MISSING = Code(
    "section-field-missing",
    Phase.CHECK,
    E,
    "`{name}` is not a field of the elements of {section}",
    "A variable inside a `{{#list}}` section names a field the element type lacks.",
    "Inside `{{#items}}...{{/items}}` names refer to the fields of each element.",
    '@prompt("{{#items}}{{title}}{{/items}}")\nsignature f(items [{name :string}]) -> :string\n',
)
DOT_OVER_NON_SCALAR = Code(
    "dot-over-non-scalar",
    Phase.CHECK,
    E,
    "`{{{{.}}}}` inside {section} renders {what}, not a scalar",
    "`{{.}}` is used where the current element is not a scalar.",
    "`{{.}}` prints the current element, which only makes sense for lists of strings, numbers "
    "or booleans. For lists of maps, name the fields: `{{#items}}{{name}}{{/items}}`.",
    '@prompt("{{#items}}{{.}}{{/items}}")\nsignature f(items [{name :string}]) -> :string\n',
)
UNUSED_PARAM = Code(
    "unused-param",
    Phase.CHECK,
    E,
    "parameter `{name}` is never used in the prompt of `{signature}`",
    "A parameter does not appear in the `@prompt` template.",
    "In json and text mode the model sees only the rendered prompt, so an unused parameter "
    "never reaches it. Use it in `@prompt` or remove it.",
    '@prompt("Classify {{text}}")\nsignature f(text :string, lang :string) -> {a :int}\n',
)
PIPELINE_MISMATCH = Code(
    "pipeline-mismatch",
    Phase.CHECK,
    E,
    "step `{step}` needs `{param}` {reason}",
    "A pipeline step's output does not supply the next step's inputs.",
    "`a |> b` feeds a's output map into b's params by name, so every required param of b "
    "must be an output field of a with a compatible type.",
    "signature a() -> {x :string}\nsignature b(x :int) -> :int\npipeline p = a |> b\n",
)

PROVIDER_LOSS = Code(
    "provider-loss",
    Phase.COMPILE,
    W,
    "{provider}: `{where}`: {what}",
    "A provider cannot enforce part of a schema; its fragment leaves it out.",
    "Each provider's structured output accepts a different subset of JSON Schema. What a "
    "provider cannot enforce is removed from its fragment (and written into the field's "
    "description so the model still reads it); sigspec's validator checks it after the reply. "
    "Choose the providers you send to with `providers = [...]` in the configuration or "
    "`--provider NAME`: losses are then reported for those only, one line per signature and "
    "provider; with no choice made, they are summed up in one line per provider.",
    "signature f() -> {name :string @min_length(1)}\n",
)
PROVIDER_UNSUPPORTED = Code(
    "provider-unsupported",
    Phase.COMPILE,
    W,
    "{provider}: no fragment for `{signature}`: {reason}",
    "A provider cannot express a signature's output at all.",
    "Some providers reject whole constructs, such as recursive types for Anthropic and "
    "Gemini's OpenAPI form. No fragment is written for that provider; use another provider "
    "or a non-recursive type.",
    "type Tree = {value :int, children [Tree]}\nsignature f() -> Tree\n",
)
PROVIDER_LIMIT = Code(
    "provider-limit",
    Phase.COMPILE,
    E,
    "{provider}: `{signature}` exceeds a limit: {what}",
    "A schema is larger than a provider accepts.",
    "Providers cap schema size (OpenAI: 5,000 properties, 10 levels of nesting, 120,000 "
    "characters of names and enum values, 1,000 enum values, names of 1 to 64 characters; "
    "Anthropic: 24 optional fields and 16 unions per request). The request would be "
    "rejected, so this is an error for every enabled provider.",
    "signature " + "a" * 65 + "() -> {x :int}\n",
)

TYPESCRIPT_UNSUPPORTED = Code(
    "typescript-unsupported",
    Phase.COMPILE,
    W,
    "typescript: `{where}`: {what}",
    "The TypeScript target cannot keep a rule exactly as Python does.",
    "The TypeScript validators check the same rules as the Python ones, with one limit: "
    "numbers are doubles, so integers beyond 2**53 lose precision. Keep the number within "
    "2**53.",
    "signature f() -> {n :int = 9007199254740993}\n",
)

INVALID_SUPPRESSION = Code(
    "invalid-suppression",
    Phase.CHECK,
    W,
    "this suppression is ignored: {reason}",
    "A `# sigspec: ignore[...]` comment cannot be used.",
    "Write `# sigspec: ignore[code] why it is fine`: known codes, separated by commas, and a "
    "reason, so that a reader knows why the finding does not apply.",
    "signature f(a :int) -> :int # sigspec: ignore[unused-param]\n",
)
UNUSED_SUPPRESSION = Code(
    "unused-suppression",
    Phase.CHECK,
    W,
    "`{code}` is suppressed here but not reported",
    "A suppression no longer matches any diagnostic.",
    "The finding it silenced is gone: remove the comment, so that it cannot hide a new one.",
    "signature f() -> :int # sigspec: ignore[unknown-type] it was misspelled once\n",
)

DEPRECATED_SETTING = Code(
    "deprecated-setting",
    Phase.READ,
    W,
    "`{old}` is deprecated; use {new}",
    "The configuration uses a setting that will be removed.",
    "The setting still works, with this warning. The chosen providers used to be an option "
    "of the `providers` target (`[options.providers] providers = [...]`); they are now a "
    "top-level setting, `providers = [...]` (in `[tool.sigspec]` of pyproject.toml), because "
    "they decide more than that target's files: which provider losses and limits every "
    "command reports. `--provider NAME` overrides the setting for one run.",
    '[options.providers]\nproviders = ["openai"]\n',
)

# Breaking-change rules (`sigspec breaking`): examples are an old file, then `---- new.sig`.
REMOVED_SIGNATURE = Code(
    "removed-signature",
    Phase.BREAKING,
    E,
    "signature `{name}` was removed",
    "A signature that callers use is gone.",
    "Callers and generated clients of the old version call it by name; removing it breaks "
    "them. Deprecate it first (`@deprecated`), remove it later.",
    "signature a() -> :int\nsignature b() -> :int\n---- new.sig\nsignature a() -> :int\n",
)
RENAMED_MODULE = Code(
    "renamed-module",
    Phase.BREAKING,
    E,
    "the generated module `{old}` is now `{new}` ({names}): imports of the old module break",
    "A signature's generated module has a new name.",
    "Each .sig file's generated modules (Python and TypeScript) are named after its path "
    "below the project root, so moving or renaming the file renames them, and every "
    "`import` of the old name breaks. Keep the file where it was, or update the callers.",
    "signature a() -> {x :int}\n---- new/moved.sig\nsignature a() -> {x :int}\n",
)
CHANGED_MODE = Code(
    "changed-mode",
    Phase.BREAKING,
    E,
    "`{name}` changed its output mode from {old} to {new}",
    "A signature's output mode changed.",
    "json, text and ptc_lisp replies are consumed differently (parsed JSON, raw text, a "
    "program); a runtime built for the old mode breaks.",
    "signature a() -> :string\n---- new.sig\n@output(text)\nsignature a() -> :string\n",
)
ADDED_REQUIRED_PARAM = Code(
    "added-required-param",
    Phase.BREAKING,
    E,
    "`{name}` now requires the param `{param}`",
    "A call that was valid no longer is: a param became required.",
    "Existing callers do not pass it. Give it a default or make it optional (`T?`).",
    "signature a(x :int) -> :int\n---- new.sig\nsignature a(x :int, y :int) -> :int\n",
)
REMOVED_PARAM = Code(
    "removed-param",
    Phase.BREAKING,
    E,
    "`{name}` no longer takes the param `{param}`",
    "A param callers pass was removed.",
    "Callers still pass it, and prompts or tools that read it lose it. Keep it, deprecated, "
    "until callers have moved.",
    "signature a(x :int, y :int) -> :int\n---- new.sig\nsignature a(x :int) -> :int\n",
)
NARROWED_PARAM_TYPE = Code(
    "narrowed-param-type",
    Phase.BREAKING,
    E,
    "`{name}` param `{param}` accepts less: `{old}` became `{new}`",
    "A param's type no longer accepts every value it did.",
    "A value a caller sent before may now be rejected (an enum lost a member, a float became "
    "an int, an optional became required).",
    'signature a(x "a" | "b") -> :int\n---- new.sig\nsignature a(x "a") -> :int\n',
)
REMOVED_OUTPUT_FIELD = Code(
    "removed-output-field",
    Phase.BREAKING,
    E,
    "`{name}` no longer returns `{path}`",
    "An output field consumers read was removed.",
    "Consumers of the output read it; it is gone. Keep it, deprecated, until consumers have moved.",
    "signature a() -> {x :int, y :int}\n---- new.sig\nsignature a() -> {x :int}\n",
)
RENAMED_OUTPUT_FIELD = Code(
    "renamed-output-field",
    Phase.BREAKING,
    E,
    "`{name}` output field `{path}` looks renamed to `{new}`",
    "An output field was removed and one of the same type added.",
    "To consumers a rename is a removal plus an addition: they read the old name.",
    "signature a() -> {x :int}\n---- new.sig\nsignature a() -> {y :int}\n",
)
OUTPUT_FIELD_MADE_OPTIONAL = Code(
    "output-field-made-optional",
    Phase.BREAKING,
    E,
    "`{name}` output field `{path}` may now be absent or null",
    "A required output field became optional.",
    "Consumers rely on it being there; now it may be null or missing.",
    "signature a() -> {x :int}\n---- new.sig\nsignature a() -> {x :int?}\n",
)
WIDENED_OUTPUT_TYPE = Code(
    "widened-output-type",
    Phase.BREAKING,
    E,
    "`{name}` output `{path}` can now be a value the old type excluded: `{old}` became `{new}`",
    "An output type accepts more than before.",
    "Consumers written for the old type meet values they do not handle (an enum gained a "
    "member, an int became a float).",
    'signature a() -> {x "a" | "b"}\n---- new.sig\nsignature a() -> {x "a" | "b" | "c"}\n',
)
# ---- hostile input (issue 22): unguarded recursion, slow patterns, source limits ----------
UNGUARDED_RECURSION = Code(
    "unguarded-recursion",
    Phase.CHECK,
    E,
    "type `{name}` refers to itself with no list or map in between: {cycle}",
    "A type is recursive through `?` or `|` only.",
    "Every recursive cycle must pass through a list or a map: `type Tree = {value :int, "
    "children [Tree]}` and `type Chain = {value :int, next Chain?}` are fine, but "
    "`type U = U?`, `type A = B | :int` with `type B = A?`, or a union that contains itself "
    "describe no structure at all, and no schema, prompt or generated type can spell them "
    "out. Put the recursion inside a list or a map field.",
    "type U = U?\n",
)
SLOW_PATTERN = Code(
    "slow-pattern",
    Phase.CHECK,
    E,
    "`@pattern` can take exponential time (or a high-degree polynomial) on a crafted "
    "string: {reason}",
    "A `@pattern` backtracks exponentially (ReDoS).",
    "Backtracking regex engines (Python's `re`, JavaScript's) try every way a string can be "
    "split between nested or overlapping repetitions; for `^(a+)+$` a reply of 30 `a`s and a "
    "`!` takes minutes to reject, and a reply is input the model (or whoever steered it) "
    "controls. Make each character matchable in only one way: `^a+$` instead of `^(a+)+$`, "
    "`(a|b)*` instead of `(a|a?b)*`. If the input is trusted, suppress with a reason.",
    'signature f() -> {code :string @pattern("^(a+)+$")}\n',
)
POLYNOMIAL_PATTERN = Code(
    "polynomial-pattern",
    Phase.CHECK,
    W,
    "`@pattern` can take polynomial time on a long crafted string: {reason}",
    "A `@pattern` backtracks quadratically or worse on some inputs.",
    "Two adjacent repetitions that can match the same characters (`\\s*.*\\s*`, "
    "`[^@]+@[^@]+\\.[^@]+` where `.` is also in `[^@]`) let the engine try every split of a "
    "long run between them: a 100 KB reply takes seconds. Make the repetitions disjoint "
    "(`[^@.]+` for the label before a dot), or bound them with `{0,64}`; suppress with a "
    "reason if replies are short.",
    'signature f() -> {email :string @pattern("^[^@]+@[^@]+\\\\.[^@]+$")}\n',
)
UNPORTABLE_PATTERN = Code(
    "unportable-pattern",
    Phase.CHECK,
    E,
    "`@pattern` uses `{part}`, {what}: outside the regular-expression syntax that JSON "
    "Schema (ECMA-262), the Python and TypeScript validators and the decoding engines share",
    "A `@pattern` uses syntax one of the regex engines lacks or reads differently.",
    "A `@pattern` means what ECMA-262 (JavaScript, Unicode mode) means by it, as JSON Schema "
    "says: the provider's decoder, the TypeScript validators and the Python ones (which run a "
    "translation) must agree on every string. So sigspec accepts only the syntax all of them "
    "read alike, and rejects: Python-only syntax (`(?P<name>...)`, `(?P=name)`, `(?#...)`, "
    "inline flags such as `(?i)`, `\\A`, `\\Z`, possessive quantifiers `a++` and atomic "
    "groups `(?>...)`, which Python 3.10 lacks too); back-references (`\\1`, `\\k<name>`: "
    "the decoders are automata without them, and Python and ECMA-262 disagree on a group that "
    "did not take part); Unicode property escapes (`\\p{L}`: Python's `re` has none). "
    "Write the portable form: `(?<name>...)` for a named group, `^` and `$` for the ends, "
    "`[Aa]` for one letter in either case, the repeated text spelled out.",
    'signature f() -> {code :string @pattern("^(?P<word>[a-z]+)$")}\n',
)
PATTERN_NOT_ANALYSED = Code(
    "pattern-not-analysed",
    Phase.CHECK,
    W,
    "`@pattern` was not checked for slow backtracking: {reason}",
    "A `@pattern` is too large for the ReDoS check.",
    "sigspec checks every `@pattern` for exponential or polynomial backtracking (see "
    "`slow-pattern`). A pattern it cannot analyse (more character positions or "
    "combinations than its budget) is reported rather than passed unchecked, since it may "
    "be slow. Simplify or split the pattern (bounded repetitions, fewer alternatives), or "
    "suppress with a reason once you have checked it.",
    'signature f() -> {code :string @pattern("^(?:[a-z]{1,9}[0-9]{1,9}){1,9}$")}\n',
)
# Types that every emitter walks with their named types followed (semantics/graphs.py).
TYPE_TOO_DEEP = Code(
    "type-too-deep",
    Phase.CHECK,
    E,
    "{subject} nests {depth} levels deep with its named types written out (at most {limit}): "
    "{chain}",
    "A type, with its named types followed, is nested deeper than sigspec allows.",
    "Depth counts the maps and lists a value passes through and each named type followed on "
    "the way: with `type A = {next B?}` and `type B = {x :int}`, `A` is 3 levels deep (its "
    "map, `B`, its map). The limit is the "
    "one for brackets in a single declaration; no provider accepts anywhere near it (OpenAI "
    "allows 10 levels), and past it the generated code and schemas would be deeper than the "
    "tools that read them. A long chain of types each holding the next is usually generated: "
    "flatten it into a list (`steps [Step]`).",
    "type A = " + "[" * 40 + ":int" + "]" * 40 + "\ntype B = " + "[" * 30 + "A" + "]" * 30 + "\n",
)
TYPE_TOO_LARGE = Code(
    "type-too-large",
    Phase.CHECK,
    E,
    "{subject} has more than {limit} nodes with its named types written out in place",
    "A signature's type grows past sigspec's size limit once its named types are inlined.",
    "The prompts' output shape and inline signature and Gemini's OpenAPI schema write each "
    "named type out wherever it is used: `type B = {x A, y A}` writes `A` twice, and a chain "
    "of such types doubles at each step (30 lines give a billion nodes). Keep the shape a "
    "model has to answer in small: share less structure, or split the signature.",
    "type D0 = {a :int}\n"
    + "".join(
        f"type D{i} = {{a D{i - 1}, b D{i - 1}, c D{i - 1}, d D{i - 1}}}\n" for i in range(1, 8)
    )
    + "signature f() -> D7\n",
)
TOO_MANY_DECLARATIONS = Code(
    "too-many-declarations",
    Phase.SYNTAX,
    E,
    "file has {count} declarations; the limit for a .sig file is {limit}",
    "A .sig file declares more than sigspec reads in one file.",
    "A hand-written signature file holds tens of declarations; one over the limit is almost "
    "always generated or hostile, and is refused before it is checked. Split it into several "
    "files joined by `import`.",
    "",
)

# ---- sigspec import: the example is a JSON Schema, not a .sig text ------------------------------
IMPORT_UNSUPPORTED = Code(
    "import-unsupported",
    Phase.IMPORT,
    E,
    "{what}, at {at}",
    "A JSON Schema keyword constrains values in a way the language cannot express.",
    "`sigspec import` writes what it can and names, as a JSON Pointer into the document, each "
    "keyword it could not carry over: `if`/`then`/`else`, `not`, `patternProperties`, "
    "`dependentSchemas`, `multipleOf`, `uniqueItems`, tuples, `allOf` that is not one schema to "
    "merge, constraints anywhere but on an object's property (sigspec keeps `@min`, `@pattern` "
    "and the others on fields), keys that are not sigspec names. The imported type would accept "
    "different values than the schema, so this is an error: `-o` writes no file, and the text "
    "printed is a starting point to finish by hand.",
    '{"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 5}}}\n',
)
IMPORT_APPROXIMATED = Code(
    "import-approximated",
    Phase.IMPORT,
    W,
    "{what}, at {at}",
    "A JSON Schema construct was imported in the language's nearest form.",
    "The imported type differs from the schema in a way the language itself decides, or a "
    "keyword that describes rather than constrains was left out: an optional key that is not "
    "nullable (a sigspec optional field also accepts null), `oneOf` read as a union (a value "
    "matching two branches is accepted), a `discriminator`, `readOnly`, `example`, a default or "
    "description where sigspec has no place for one, an unknown keyword. `title`, `examples` and "
    "`$comment` are left out without a word.",
    '{"type": "object", "properties": {"note": {"type": "string"}}}\n',
)
IMPORT_RENAMED = Code(
    "import-renamed",
    Phase.IMPORT,
    W,
    "`{old}` is imported as `{new}`, at {at}",
    "A named schema's name is not a sigspec name, or clashes with another after `-`/`_` folding.",
    "Type names follow `[A-Za-z_][A-Za-z0-9_-]*`, `-` and `_` are one character when names are "
    "compared, and `true`, `false` and `null` are literals. Other characters become `_`, a name "
    "starting with a digit gets a leading `_`, and a clash gets a `_2` suffix. Only the `$defs` "
    "names of a compiled schema change; the values it accepts do not.",
    '{"$defs": {"order item": {"type": "string"}}}\n',
)
IMPORT_UNRESOLVED_REF = Code(
    "import-unresolved-ref",
    Phase.IMPORT,
    E,
    "{what}, at {at}",
    "A `$ref` points outside the document or to a schema it does not hold.",
    "`sigspec import` follows local references into `$defs`, `definitions` and "
    "`components.schemas`, and `#` (the root). A remote reference (another file, a URL) is not "
    "fetched: import that document too and join the two by hand. The reference is imported as "
    "`:any`.",
    '{"type": "object", "properties": {"a": {"$ref": "other.json#/$defs/A"}}}\n',
)
TEST_ARGUMENT = Code(
    "test-argument",
    Phase.CHECK,
    E,
    "{reason}",
    "A test's arguments do not fit the signature it calls.",
    "A test calls its signature with the arguments it names, as the generated client would: "
    "each must be a parameter of the signature, given once, with a value the client accepts "
    "(constraints included), and every required parameter must be given. Checked by `lint`, "
    "so that a misspelt argument fails before any model is called.",
    'signature f(text :string) -> {n :int}\ntest t = f(txt = "hello") -> valid\n',
)
TEST_EXPECTATION = Code(
    "test-expectation",
    Phase.CHECK,
    E,
    "{reason}",
    "A test expects something the signature's output can never be.",
    "A test's expectation is read against the signature's output type: an exact value must be "
    "a valid output; a check's subject (`score`, `items[0].name`, `$` for the whole output) "
    "must name a part of it; `<`, `<=`, `>`, `>=` compare numbers, `~` matches strings with an "
    "ECMA-262 pattern, `len(...)` measures strings, lists and maps, `in` takes a list, and a "
    "value compared must be one the part can hold.",
    "signature f() -> {score :float}\ntest t = f() -> {scor >= 0.5}\n",
)

CODES: dict[str, Code] = {
    code.name: code
    for code in (
        SYNTAX_ERROR,
        INVALID_ENCODING,
        FILE_TOO_LARGE,
        NESTING_TOO_DEEP,
        READ_ERROR,
        INVALID_STRING,
        COMMENT_IN_INLINE,
        SPACE_BEFORE_OPTIONAL,
        UNKNOWN_PRIMITIVE,
        UNKNOWN_TYPE,
        UNKNOWN_SIGNATURE,
        UNKNOWN_TOOL,
        DUPLICATE_PARAM,
        DUPLICATE_FIELD,
        DUPLICATE_DECLARATION,
        MODULE_COLLISION,
        CASE_COLLISION,
        RESERVED_NAME,
        UNSAFE_PATH,
        NAME_TOO_LONG,
        DUPLICATE_ATTRIBUTE,
        UNKNOWN_ATTRIBUTE,
        MISPLACED_ATTRIBUTE,
        INVALID_ATTRIBUTE_ARGUMENT,
        INVALID_DEFAULT,
        CONSTRAINT_TYPE_MISMATCH,
        CONTRADICTORY_CONSTRAINTS,
        INVALID_PATTERN,
        UNKNOWN_FORMAT,
        UNCHECKED_FORMAT,
        FALLBACK_WITHOUT_DEFAULT,
        IMPORT_NOT_FOUND,
        OUTSIDE_ROOT,
        IMPORT_CYCLE,
        INFINITE_TYPE,
        TOOLS_NOT_ALLOWED,
        COMPRESSION_NOT_ALLOWED,
        FIREWALL_FIELD,
        TEXT_OUTPUT_IGNORED,
        INVALID_PROMPT_TEMPLATE,
        UNKNOWN_PROMPT_VARIABLE,
        SECTION_FIELD_MISSING,
        DOT_OVER_NON_SCALAR,
        UNUSED_PARAM,
        PIPELINE_MISMATCH,
        PROVIDER_LOSS,
        PROVIDER_UNSUPPORTED,
        PROVIDER_LIMIT,
        TYPESCRIPT_UNSUPPORTED,
        INVALID_SUPPRESSION,
        UNUSED_SUPPRESSION,
        REMOVED_SIGNATURE,
        RENAMED_MODULE,
        CHANGED_MODE,
        ADDED_REQUIRED_PARAM,
        REMOVED_PARAM,
        NARROWED_PARAM_TYPE,
        REMOVED_OUTPUT_FIELD,
        RENAMED_OUTPUT_FIELD,
        OUTPUT_FIELD_MADE_OPTIONAL,
        WIDENED_OUTPUT_TYPE,
        UNGUARDED_RECURSION,
        SLOW_PATTERN,
        POLYNOMIAL_PATTERN,
        UNPORTABLE_PATTERN,
        PATTERN_NOT_ANALYSED,
        TYPE_TOO_DEEP,
        TYPE_TOO_LARGE,
        TOO_MANY_DECLARATIONS,
        DEPRECATED_SETTING,
        IMPORT_UNSUPPORTED,
        IMPORT_APPROXIMATED,
        IMPORT_RENAMED,
        IMPORT_UNRESOLVED_REF,
        TEST_ARGUMENT,
        TEST_EXPECTATION,
    )
}

BREAKING = frozenset(c.name for c in CODES.values() if c.phase is Phase.BREAKING)
IMPORT = frozenset(c.name for c in CODES.values() if c.phase is Phase.IMPORT)
