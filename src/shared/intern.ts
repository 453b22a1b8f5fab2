// Strings repeated across many rows in memory (programs, providers, accounts) kept as one string
// each: rows read from DuckDB come back as a new string per value, and a resolver holding hundreds
// of thousands of attempts would otherwise hold as many copies.

/** A function returning one shared copy of each distinct text; at most `limit` are remembered (then it starts over). */
export function stringInterner(limit = 10_000): (text: string) => string {
  const known = new Map<string, string>();
  return (text) => {
    const held = known.get(text);
    if (held !== undefined) return held;
    if (known.size >= limit) known.clear();
    known.set(text, text);
    return text;
  };
}

/**
 * A copy of a short `text` (a key, a signature) that shares no storage with the string it was cut from. In
 * JavaScriptCore a slice keeps its whole parent alive: a key sliced from a decompressed 32 KB block and kept until
 * a merge ends kept every block of the merge in memory (gigabytes at 20,000 envelopes/s).
 */
export function detachedString(text: string): string {
  const codes = new Array<number>(text.length);
  for (let i = 0; i < text.length; i++) codes[i] = text.charCodeAt(i);
  return String.fromCharCode(...codes);
}
