// The spool's NDJSON line for one accepted envelope: the account, the receive time and the attempt
// id, then the envelope's fields in their API names (flush maps them to lake columns). Built by hand
// because it runs for every envelope on the ingest hot path and is ~2× cheaper than JSON.stringify
// plus slicing; only free-text fields go through JSON.stringify (base58 and hex need no escaping,
// validation guaranteed their alphabet). test/ingest/spool-line.test.ts checks it round-trips.

import type { Envelope } from "./envelope";

/** Printable ASCII without `"` or `\\` needs no escaping; anything else goes through JSON.stringify. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const text = (value: string) => (PLAIN.test(value) ? '"' + value + '"' : JSON.stringify(value));

/** `{"accountId":…,"receivedAt":…,"attemptId":"<batch>-` — shared by every line of one batch. */
export function spoolLinePrefix(accountId: string, receivedAt: number, batchId: string): string {
  return `{"accountId":${text(accountId)},"receivedAt":${receivedAt},"attemptId":"${batchId}-`;
}

export function spoolLine(prefix: string, index: number, e: Envelope): string {
  let line =
    prefix + index.toString(36) +
    '","sig":' + (e.sig === null ? "null" : '"' + e.sig + '"') +
    ',"program":"' + e.program +
    '","blockhash":"' + e.blockhash +
    '","lastValidBlockHeight":' + e.lastValidBlockHeight +
    ',"sentAt":' + e.sentAt +
    ',"rpcHash":"' + e.rpcHash +
    '","rpcLabel":' + text(e.rpcLabel) +
    ',"walletAdapter":' + text(e.walletAdapter) +
    ',"kind":"' + e.kind +
    '","preflightError":' + (e.preflightError === null ? "null" : text(e.preflightError)) +
    ',"simulationLogs":' + (e.simulationLogs.length === 0 ? "[]" : JSON.stringify(e.simulationLogs)) +
    ',"payer":"' + e.payer +
    '","sdkVersion":' + text(e.sdkVersion);
  if (e.cuLimit !== undefined) line += ',"cuLimit":' + e.cuLimit;
  if (e.cuPriceMicroLamports !== undefined) line += ',"cuPriceMicroLamports":' + e.cuPriceMicroLamports;
  if (e.maxRetries !== undefined) line += ',"maxRetries":' + e.maxRetries;
  if (e.skipPreflight !== undefined) line += ',"skipPreflight":' + e.skipPreflight;
  if (e.sendPath !== undefined) line += ',"sendPath":' + text(e.sendPath);
  if (e.nonce !== undefined) line += ',"nonce":' + e.nonce;
  return line + "}\n";
}
