// Results reused for a while, per key (a data directory): a public route such as /v1/status must
// not redo a costly measurement (walking the lake, counting awaiting segments) for every request.

/**
 * A function that answers `compute()` for a key, or the answer it gave less than `ms` ago for the
 * same key and `tag` (a value the answer depends on, such as a row count). A clock that went back
 * computes again.
 */
export function reusedFor<T>(ms: number): (key: string, now: number, compute: () => T, tag?: unknown) => T {
  const answers = new Map<string, { at: number; value: T; tag: unknown }>();
  return (key, now, compute, tag) => {
    const hit = answers.get(key);
    if (hit && hit.tag === tag && now - hit.at < ms && now >= hit.at) return hit.value;
    const value = compute();
    answers.set(key, { at: now, value, tag });
    return value;
  };
}
