// Looking attempts up by signature in the control database. Signatures are random, so an index on
// them takes each new row at a random place: at 3M queued attempts, the full-signature index of the
// resolver's queue cost ~25 µs of every insert and of every delete (bench/README.md). The indexes
// hold the first SIGNATURE_PREFIX characters instead (control migration 8), a fifth of the size,
// and a look-up names the prefix (to use the index) and the whole signature (to match it).

/** Characters of a signature the indexes hold: 58^8 ≈ 10^14 values, so a look-up meets one entry. */
export const SIGNATURE_PREFIX = 8;

/** The WHERE condition of a look-up by signature (two parameters: `signatureParams`). */
export const BY_SIGNATURE = `substr(sig, 1, ${SIGNATURE_PREFIX}) = ? AND sig = ?`;

export function signatureParams(sig: string): [string, string] {
  return [sig.slice(0, SIGNATURE_PREFIX), sig];
}
