// The telemetry envelope's one definition (docs/architecture.md, "The envelope"): every field once, with
// what each part of txray needs to know about it. Derived from this table: the zod schema
// (./envelope.ts), the Envelope type, the ingest validator (src/ingest/validate.ts), the spool's
// line writer and columns (src/spool/line-format.ts), the lake's envelope columns
// (src/lake/schema.ts) and the names flush reads version 1 spool segments by. The two C fast paths
// (src/ingest/native/encode.c, src/lake/native/pages.c) stay hand-written;
// test/shared/envelope-fields.test.ts fails when they disagree with it.
//
// Free of dependencies but ./envelope-limits.ts: the few limits the SDK also truncates to are named
// there (so that the SDK's bundle carries them, not this table), and this table applies them.
//
// The order is the schema's: the order of the keys the SDK sends, of the validator's output, of the
// encoders' field lists and of the lake's columns. Required fields come first; a new field goes at
// the end. A field's JSON key is its `name`, on the wire as everywhere else (the SDK sends no short
// keys).

import { CU_LIMIT_MAX, ENVELOPE_LIMITS, IX_PREFIX_BYTES, MAX_RETRIES_MAX } from "./envelope-limits";

/** DuckDB types of the lake columns an envelope field fills. */
export type LakeType = "VARCHAR" | "BIGINT" | "TIMESTAMPTZ" | "INTEGER" | "BOOLEAN" | "VARCHAR[]";

/** Where a field goes in the lake: a column of envelopes/…/part-*.parquet, or the Hive partition. */
export type LakeColumn =
  | { column: string; type: LakeType; doc: string }
  /** The partition column (program=<base58>/): in the path, not in the files' columns. */
  | { column: string; partition: true };

type Common = {
  /** The JSON key, on the wire and in the validator's output. */
  name: string;
  /** Absent fields are allowed (and stored as null); a required field must be present. */
  required: boolean;
  /** `null` is a value of the field. */
  nullable: boolean;
  lake: LakeColumn;
  /** A valid value: tests fill every field of an envelope with these. */
  example: unknown;
};

/**
 * What a field holds, with its limits. Lengths count UTF-16 code units (what JavaScript's `length`
 * and zod count); every kind but `text` and `lines` is ASCII, so its length is its byte count too.
 */
export type FieldKind =
  /** Base58 of exactly `bytes` bytes, at most `maxLength` characters. */
  | { kind: "base58"; bytes: 32 | 64; maxLength: number; message: string }
  /** Base58 of a 32-byte public key, or lower-case hex of `hexDigits` digits (a salted hash of it). */
  | { kind: "base58-or-hex"; maxLength: number; hexDigits: { min: number; max: number }; message: string }
  /** Lower-case hex, `digits` long; `wholeBytes`: an even number of digits. */
  | { kind: "hex"; digits: { min: number; max: number }; wholeBytes: boolean; message: string }
  /** Free text: any characters. */
  | { kind: "text"; minLength: number; maxLength: number }
  | { kind: "integer"; min: number; max: number }
  | { kind: "boolean" }
  | { kind: "enum"; values: readonly string[] }
  /** An array of free-text lines. */
  | { kind: "lines"; maxLines: number; maxLineLength: number };

export type EnvelopeField = Common & FieldKind;

const LABEL = ENVELOPE_LIMITS.label;
/** Ten years either side of now is generous for client clocks and still rejects seconds-for-ms. */
const UNIX_MS = { min: 1_500_000_000_000, max: 4_102_444_800_000 };

export const ENVELOPE_FIELDS = [
  {
    name: "sig",
    kind: "base58",
    bytes: 64,
    maxLength: 88,
    message: "expected a base58 64-byte signature",
    required: true,
    // null only for a preflight that failed before signing (a rule across fields: ./envelope.ts)
    nullable: true,
    lake: {
      column: "sig",
      type: "VARCHAR",
      doc: "Transaction signature, base58; null when preflight failed before signing.",
    },
    example: "5UfDuX7WXY18keiz9mZ6zKkY8JyNuLDFz2QPFsFh4sN3KJtjC6nw2vGyEuMqNWcRW9o6ymbXvYAN9BjNGxFxgXPL",
  },
  {
    name: "program",
    kind: "base58",
    bytes: 32,
    maxLength: 44,
    message: "expected a base58 32-byte address",
    required: true,
    nullable: false,
    lake: { column: "program", partition: true },
    example: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
  },
  {
    name: "blockhash",
    kind: "base58",
    bytes: 32,
    maxLength: 44,
    message: "expected a base58 32-byte address",
    required: true,
    nullable: false,
    lake: { column: "blockhash", type: "VARCHAR", doc: "Blockhash the transaction was built against." },
    example: "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N",
  },
  {
    name: "lastValidBlockHeight",
    kind: "integer",
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    required: true,
    nullable: false,
    lake: { column: "last_valid_block_height", type: "BIGINT", doc: "Expiry block height of that blockhash." },
    example: 289_000_150,
  },
  {
    name: "sentAt",
    kind: "integer",
    ...UNIX_MS,
    required: true,
    nullable: false,
    lake: { column: "sent_at", type: "TIMESTAMPTZ", doc: "Client time of the attempt (UTC)." },
    example: 1_763_700_000_000,
  },
  {
    name: "rpcHash",
    kind: "hex",
    digits: { min: 16, max: 16 },
    wholeBytes: false,
    message: "expected 16 lower-case hex characters",
    required: true,
    nullable: false,
    lake: { column: "rpc_hash", type: "VARCHAR", doc: "First 16 hex of SHA-256 of the RPC origin." },
    example: "a1b2c3d4e5f60718",
  },
  {
    name: "rpcLabel",
    kind: "text",
    minLength: 1,
    maxLength: LABEL,
    required: true,
    nullable: false,
    lake: { column: "rpc_label", type: "VARCHAR", doc: "Coarse provider label (e.g. `helius`, `public`)." },
    example: "helius",
  },
  {
    name: "walletAdapter",
    kind: "text",
    minLength: 0,
    maxLength: LABEL,
    required: true,
    nullable: false,
    lake: { column: "wallet_adapter", type: "VARCHAR", doc: "Wallet adapter name." },
    example: "Phantom",
  },
  {
    name: "kind",
    kind: "enum",
    values: ["send", "preflight"],
    required: true,
    nullable: false,
    lake: { column: "kind", type: "VARCHAR", doc: "`send` or `preflight`." },
    example: "preflight",
  },
  {
    name: "preflightError",
    kind: "text",
    minLength: 0,
    maxLength: ENVELOPE_LIMITS.preflightError,
    required: true,
    // null exactly when kind is "send" (./envelope.ts)
    nullable: true,
    lake: {
      column: "preflight_error",
      type: "VARCHAR",
      doc: "Preflight error text (kind = preflight), else null.",
    },
    example: "Transaction simulation failed: Blockhash not found",
  },
  {
    name: "simulationLogs",
    kind: "lines",
    maxLines: ENVELOPE_LIMITS.simulationLogLines,
    maxLineLength: ENVELOPE_LIMITS.simulationLogLine,
    required: true,
    nullable: false,
    lake: { column: "simulation_logs", type: "VARCHAR[]", doc: "Simulation logs captured by the client." },
    example: ["Program 11111111111111111111111111111111 invoke [1]", "Program log: Error: insufficient funds"],
  },
  {
    name: "payer",
    kind: "base58-or-hex",
    maxLength: 64,
    hexDigits: { min: 16, max: 64 },
    message: "expected a base58 public key or a hex hash",
    required: true,
    nullable: false,
    lake: {
      column: "payer",
      type: "VARCHAR",
      doc: 'Payer public key, or its salted hash (hex) under privacy "hash".',
    },
    example: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
  },
  {
    name: "sdkVersion",
    kind: "text",
    minLength: 1,
    maxLength: LABEL,
    required: true,
    nullable: false,
    lake: { column: "sdk_version", type: "VARCHAR", doc: "Reporting SDK version." },
    example: "txray-js/0.1.0",
  },
  // Optional fields: validated when present, stored in the lake (null when absent).
  {
    name: "cuLimit",
    kind: "integer",
    min: 0,
    max: CU_LIMIT_MAX,
    required: false,
    nullable: false,
    lake: { column: "cu_limit", type: "INTEGER", doc: "Requested compute-unit limit, when the SDK knew it." },
    example: 200_000,
  },
  {
    name: "cuPriceMicroLamports",
    kind: "integer",
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    required: false,
    nullable: false,
    lake: {
      column: "cu_price_micro_lamports",
      type: "BIGINT",
      doc: "Requested compute-unit price (µlamports/CU), when known.",
    },
    example: 50_000,
  },
  {
    name: "maxRetries",
    kind: "integer",
    min: 0,
    max: MAX_RETRIES_MAX,
    required: false,
    nullable: false,
    lake: { column: "max_retries", type: "INTEGER", doc: "sendTransaction maxRetries, when set." },
    example: 3,
  },
  {
    name: "skipPreflight",
    kind: "boolean",
    required: false,
    nullable: false,
    lake: { column: "skip_preflight", type: "BOOLEAN", doc: "Whether preflight was skipped, when known." },
    example: false,
  },
  {
    name: "sendPath",
    kind: "text",
    minLength: 1,
    maxLength: LABEL,
    required: false,
    nullable: false,
    lake: {
      column: "send_path",
      type: "VARCHAR",
      doc: "How it was sent (`rpc`, `sender`, `jito-bundle`, ...), when known.",
    },
    example: "rpc",
  },
  {
    name: "nonce",
    kind: "boolean",
    required: false,
    nullable: false,
    lake: {
      column: "nonce",
      type: "BOOLEAN",
      doc: "Durable-nonce transaction (no blockhash expiry), when known.",
    },
    example: true,
  },
  {
    // The first data bytes of the targeted top-level instruction: an Anchor discriminator is 8 bytes,
    // built-in programs need fewer (docs/api.md#post-v1ingest).
    name: "ixPrefix",
    kind: "hex",
    digits: { min: 0, max: 2 * IX_PREFIX_BYTES },
    wholeBytes: true,
    message: "expected the hex of at most 8 bytes (lower-case, an even number of digits)",
    required: false,
    nullable: false,
    lake: {
      column: "ix_prefix",
      type: "VARCHAR",
      doc: "First ≤ 8 data bytes of the targeted top-level instruction, lower-case hex, when the SDK sent it.",
    },
    example: "66063d1201daebea",
  },
  {
    // The account whose stored nonce the transaction's blockhash is (docs/solana.md, "Durable nonces"):
    // the resolver reads it to judge a durable-nonce send that never reaches the chain.
    name: "nonceAccount",
    kind: "base58",
    bytes: 32,
    maxLength: 44,
    message: "expected a base58 32-byte address",
    required: false,
    nullable: false,
    lake: {
      column: "nonce_account",
      type: "VARCHAR",
      doc: "Nonce account of a durable-nonce transaction (base58), when the SDK sent it.",
    },
    example: "Bnqf7Do8xpxv7bCbwxkuRLbGQVGvPd67NhqHcY2wG9Ku",
  },
  {
    // The slot the client saw its RPC at right before the send (docs/api.md#time-to-land): time to land
    // in slots is the landed slot minus it. A client writes it, so the figure checks it against the
    // landed slot (src/analytics/tables/rollups.ts SLOTS_TO_LAND) rather than trusting it.
    name: "sentSlot",
    kind: "integer",
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    required: false,
    nullable: false,
    lake: {
      column: "sent_slot",
      type: "BIGINT",
      doc: "Slot the client last saw its RPC report (`context.slot`) right before the send, when the SDK had one.",
    },
    example: 289_000_000,
  },
] as const satisfies readonly EnvelopeField[];

export type EnvelopeFieldName = (typeof ENVELOPE_FIELDS)[number]["name"];

/** The table's entry of a field by name. */
export const envelopeField = <N extends EnvelopeFieldName>(name: N) =>
  ENVELOPE_FIELDS.find((field) => field.name === name) as Extract<(typeof ENVELOPE_FIELDS)[number], { name: N }>;

/** The regular expression of lower-case hex of `digits` digits (whole bytes when `wholeBytes`). */
export function hexPattern(digits: { min: number; max: number }, wholeBytes: boolean): RegExp {
  return wholeBytes
    ? new RegExp(`^(?:[0-9a-f]{2}){${digits.min / 2},${digits.max / 2}}$`)
    : new RegExp(`^[0-9a-f]{${digits.min === digits.max ? digits.min : `${digits.min},${digits.max}`}}$`);
}

type Field = (typeof ENVELOPE_FIELDS)[number];
type ValueOf<F> = F extends { kind: "integer" }
  ? number
  : F extends { kind: "boolean" }
    ? boolean
    : F extends { kind: "enum"; values: readonly (infer V)[] }
      ? V
      : F extends { kind: "lines" }
        ? string[]
        : string;
type FieldValue<F> = ValueOf<F> | (F extends { nullable: true } ? null : never);
type Flatten<T> = { [K in keyof T]: T[K] };

/** One send attempt's telemetry, as the table defines it. */
export type Envelope = Flatten<
  { [F in Extract<Field, { required: true }> as F["name"]]: FieldValue<F> } & {
    [F in Extract<Field, { required: false }> as F["name"]]?: FieldValue<F>;
  }
>;
