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
