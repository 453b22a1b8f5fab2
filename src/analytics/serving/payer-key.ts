// How the tables job's state and the serving versions key a payer (payer_scores, issue_payers and
// the payers' units): the first 8 bytes of the md5 of its address, a UBIGINT. Those tables hold a
// row per payer and day, hour, program or issue; the 44-character address in each costs ~26 bytes per
// attempt on disk more than the key (bench/README.md, "refresh"). md5, not DuckDB's `hash`, so the
// keys a state stored stay the same across DuckDB versions. Two payers share a key with probability
// ~n²/2^65 (about 1 in 10^7 for 2M payers); they would then share a bot score.

/** SQL for the key of the payer address in `address` (a column, a parameter or a literal). */
export const payerKey = (address: string) => `md5_number_lower(${address})`;

/** The same key computed here (DuckDB's md5_number_lower: bytes 8–15 of the md5, little-endian). */
export function payerKeyOf(address: string): bigint {
  const digest = new Bun.CryptoHasher("md5").update(address).digest();
  return new DataView(digest.buffer, digest.byteOffset, digest.byteLength).getBigUint64(8, true);
}
