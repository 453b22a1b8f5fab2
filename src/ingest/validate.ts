// Batch validation on the ingest hot path. envelopeSchema (zod) is the schema of record and the
// source of every error message, but at ~4 µs per envelope it would cap one core far below the
// ingest target. So a hand-written check mirrors it exactly and runs first; only a batch that
// fails it goes through zod, to name the offending field. test/ingest/validate.test.ts fuzzes both
// side by side: same verdict, same output, for valid and mutated envelopes.

import { isBase58Signature } from "../shared/base58";
import { describeIssues, TxrayError } from "../shared/errors";
import { ENVELOPE_LIMITS, HASHED_PAYER, ingestBodySchema, isAddress, type Envelope } from "../shared/envelope";
import { IX_PREFIX } from "../shared/envelope-limits";

const RPC_HASH = /^[0-9a-f]{16}$/;
const MIN_TIME = 1_500_000_000_000;
const MAX_TIME = 4_102_444_800_000;

const isString = (value: unknown, max: number, min = 0): value is string =>
  typeof value === "string" && value.length <= max && value.length >= min;
const isInt = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max;

function simulationLogsOk(value: unknown): boolean {
  if (!Array.isArray(value) || value.length > ENVELOPE_LIMITS.simulationLogLines) return false;
  for (const line of value) if (!isString(line, ENVELOPE_LIMITS.simulationLogLine)) return false;
  return true;
}

/**
 * Addresses already checked in this batch: an SDK's batch mostly repeats one program, blockhash
 * and payer, and comparing with the previous envelope's value is far cheaper than re-checking.
 */
export type SeenAddresses = { program: string | null; blockhash: string | null; payer: string | null };

/** The envelope with only the schema's fields, in the schema's order; null when anything is off. */
export function fastEnvelope(
  value: unknown,
  seen: SeenAddresses = { program: null, blockhash: null, payer: null },
): Envelope | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const { sig, program, blockhash, kind, preflightError, payer } = v;
  if (!(sig === null || (isString(sig, 88) && isBase58Signature(sig)))) return null;
  if (typeof program !== "string" || (program !== seen.program && !(program.length <= 44 && isAddress(program))))
    return null;
  seen.program = program;
  if (
    typeof blockhash !== "string" ||
    (blockhash !== seen.blockhash && !(blockhash.length <= 44 && isAddress(blockhash)))
  )
    return null;
  seen.blockhash = blockhash;
  if (!isInt(v.lastValidBlockHeight, 0, Number.MAX_SAFE_INTEGER)) return null;
  if (!isInt(v.sentAt, MIN_TIME, MAX_TIME)) return null;
  if (typeof v.rpcHash !== "string" || !RPC_HASH.test(v.rpcHash)) return null;
  if (!isString(v.rpcLabel, ENVELOPE_LIMITS.label, 1)) return null;
  if (!isString(v.walletAdapter, ENVELOPE_LIMITS.label)) return null;
  if (kind !== "send" && kind !== "preflight") return null;
  if (!(preflightError === null || isString(preflightError, ENVELOPE_LIMITS.preflightError))) return null;
  if (!simulationLogsOk(v.simulationLogs)) return null;
  if (
    typeof payer !== "string" ||
    (payer !== seen.payer && !(payer.length <= 64 && (HASHED_PAYER.test(payer) || isAddress(payer))))
  )
    return null;
  seen.payer = payer;
  if (!isString(v.sdkVersion, ENVELOPE_LIMITS.label, 1)) return null;
  if (v.cuLimit !== undefined && !isInt(v.cuLimit, 0, 1_400_000)) return null;
  if (v.cuPriceMicroLamports !== undefined && !isInt(v.cuPriceMicroLamports, 0, Number.MAX_SAFE_INTEGER)) return null;
  if (v.maxRetries !== undefined && !isInt(v.maxRetries, 0, 1000)) return null;
  if (v.skipPreflight !== undefined && typeof v.skipPreflight !== "boolean") return null;
  if (v.sendPath !== undefined && !isString(v.sendPath, ENVELOPE_LIMITS.label, 1)) return null;
  if (v.nonce !== undefined && typeof v.nonce !== "boolean") return null;
  if (v.ixPrefix !== undefined && !(isString(v.ixPrefix, 16) && IX_PREFIX.test(v.ixPrefix))) return null;
  if (kind === "preflight" ? preflightError === null : preflightError !== null || sig === null) return null;

  const envelope: Envelope = {
    sig,
    program,
    blockhash,
    lastValidBlockHeight: v.lastValidBlockHeight,
    sentAt: v.sentAt,
    rpcHash: v.rpcHash,
    rpcLabel: v.rpcLabel,
    walletAdapter: v.walletAdapter,
    kind,
    preflightError,
    simulationLogs: v.simulationLogs as string[],
    payer,
    sdkVersion: v.sdkVersion,
  };
  if (v.cuLimit !== undefined) envelope.cuLimit = v.cuLimit as number;
  if (v.cuPriceMicroLamports !== undefined) envelope.cuPriceMicroLamports = v.cuPriceMicroLamports as number;
  if (v.maxRetries !== undefined) envelope.maxRetries = v.maxRetries as number;
  if (v.skipPreflight !== undefined) envelope.skipPreflight = v.skipPreflight as boolean;
  if (v.sendPath !== undefined) envelope.sendPath = v.sendPath as string;
  if (v.nonce !== undefined) envelope.nonce = v.nonce as boolean;
  if (v.ixPrefix !== undefined) envelope.ixPrefix = v.ixPrefix as string;
  return envelope;
}

/** The batch's envelopes, or a schema_violation naming the first offending fields. */
export function validateIngestBody(body: Record<string, unknown>): Envelope[] {
  const raw = body.envelopes;
  if (Array.isArray(raw) && (body.apiKey === undefined || isString(body.apiKey, 128))) {
    const envelopes: Envelope[] = new Array(raw.length);
    const seen: SeenAddresses = { program: null, blockhash: null, payer: null };
    let ok = true;
    for (let i = 0; i < raw.length && ok; i++) {
      const envelope = fastEnvelope(raw[i], seen);
      if (envelope === null) ok = false;
      else envelopes[i] = envelope;
    }
    if (ok) return envelopes;
  }
  const parsed = ingestBodySchema.safeParse(body);
  if (!parsed.success) throw new TxrayError("schema_violation", describeIssues(parsed.error.issues));
  return parsed.data.envelopes; // unreachable unless the two checks disagree; zod has the last word
}
