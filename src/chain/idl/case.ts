// Identifier case conversion exactly as Anchor does it. Anchor derives a legacy instruction's
// discriminator from sha256("global:" + snake_case(name)) and logs `Instruction: <UpperCamel>`, both
// through the Rust `heck` crate (anchor `idl/src/convert.rs`, `lang/syn/src/codegen/program/handlers.rs`).
// A different word-splitting rule (e.g. around digits: `aldrinV2Swap`) would give a wrong
// discriminator or a name that never matches the log, so this mirrors heck's splitting.

enum Mode {
  Boundary,
  Lower,
  Upper,
}

const isLower = (c: string) => c !== c.toUpperCase() && c === c.toLowerCase();
const isUpper = (c: string) => c !== c.toLowerCase() && c === c.toUpperCase();
const NON_ALPHANUMERIC = /[^\p{L}\p{N}]+/u;

/** Splits an identifier into words the way heck does (camelCase, PascalCase, snake_case, digits). */
export function splitIdentifierWords(name: string): string[] {
  const words: string[] = [];
  for (const part of name.split(NON_ALPHANUMERIC)) {
    if (part.length === 0) continue;
    const chars = Array.from(part);
    let start = 0;
    let mode = Mode.Boundary;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i];
      if (i + 1 === chars.length) {
        words.push(chars.slice(start).join(""));
        break;
      }
      const next = chars[i + 1];
      const nextMode: Mode = isLower(c) ? Mode.Lower : isUpper(c) ? Mode.Upper : mode;
      if (nextMode === Mode.Lower && isUpper(next)) {
        // "fooBar": boundary after the lower-case (or digit following lower-case) character.
        words.push(chars.slice(start, i + 1).join(""));
        start = i + 1;
        mode = Mode.Boundary;
      } else if (mode === Mode.Upper && isUpper(c) && isLower(next)) {
        // "HTTPServer": boundary before the last upper-case letter of a run.
        words.push(chars.slice(start, i).join(""));
        start = i;
        mode = Mode.Boundary;
      } else {
        mode = nextMode;
      }
    }
  }
  return words;
}

/** `routeWithTokenLedger` → `route_with_token_ledger`, `aldrinV2Swap` → `aldrin_v2_swap`. */
export function toSnakeCase(name: string): string {
  return splitIdentifierWords(name)
    .map((word) => word.toLowerCase())
    .join("_");
}

/** `shared_accounts_route` → `SharedAccountsRoute`, `swap_v2` → `SwapV2` (Anchor's log spelling). */
export function toUpperCamelCase(name: string): string {
  return splitIdentifierWords(name)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join("");
}
