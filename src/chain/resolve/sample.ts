// The success sample (docs/lake.md, "The success sample"): a landed attempt's transaction is
// fetched only when the first 8 hex digits of sha256(attempt_id), read as an unsigned integer and
// divided by 2^32, fall below the sample rate (RESOLVE_SAMPLE_RATE). A hash of the attempt id is
// independent of program, instruction, provider and time, so the sample is uniform within every
// group a figure is cut by, and anyone can recompute it from the lake (DuckDB: sha256()).

/**
 * Where an attempt id falls in [0, 1). (Bun's one-shot SHA-256: ~0.1 µs against ~0.6 µs for node:crypto's createHash,
 * once per landed attempt.)
 */
export function samplePoint(attemptId: string): number {
  const digest = Bun.SHA256.hash(attemptId) as Uint8Array;
  return (digest[0] * 16_777_216 + digest[1] * 65_536 + digest[2] * 256 + digest[3]) / 4_294_967_296;
}

export function inSuccessSample(attemptId: string, rate: number): boolean {
  return rate >= 1 || samplePoint(attemptId) < rate;
}
