/** DuckDB types of the lake columns an envelope field fills. */
export type LakeType = "VARCHAR" | "BIGINT" | "TIMESTAMPTZ" | "INTEGER" | "BOOLEAN" | "VARCHAR[]";
/** Where a field goes in the lake: a column of envelopes/…/part-*.parquet, or the Hive partition. */
export type LakeColumn = {
    column: string;
    type: LakeType;
    doc: string;
}
/** The partition column (program=<base58>/): in the path, not in the files' columns. */
 | {
    column: string;
    partition: true;
};
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
{
    kind: "base58";
    bytes: 32 | 64;
    maxLength: number;
    message: string;
}
/** Base58 of a 32-byte public key, or lower-case hex of `hexDigits` digits (a salted hash of it). */
 | {
    kind: "base58-or-hex";
    maxLength: number;
    hexDigits: {
        min: number;
        max: number;
    };
    message: string;
}
/** Lower-case hex, `digits` long; `wholeBytes`: an even number of digits. */
 | {
    kind: "hex";
    digits: {
        min: number;
        max: number;
    };
    wholeBytes: boolean;
    message: string;
}
/** Free text: any characters. */
 | {
    kind: "text";
    minLength: number;
    maxLength: number;
} | {
    kind: "integer";
    min: number;
    max: number;
} | {
    kind: "boolean";
} | {
    kind: "enum";
    values: readonly string[];
}
/** An array of free-text lines. */
 | {
    kind: "lines";
    maxLines: number;
    maxLineLength: number;
};
export type EnvelopeField = Common & FieldKind;
export declare const ENVELOPE_FIELDS: readonly [{
    readonly name: "sig";
    readonly kind: "base58";
    readonly bytes: 64;
    readonly maxLength: 88;
    readonly message: "expected a base58 64-byte signature";
    readonly required: true;
    readonly nullable: true;
    readonly lake: {
        readonly column: "sig";
        readonly type: "VARCHAR";
        readonly doc: "Transaction signature, base58; null when preflight failed before signing.";
    };
    readonly example: "5UfDuX7WXY18keiz9mZ6zKkY8JyNuLDFz2QPFsFh4sN3KJtjC6nw2vGyEuMqNWcRW9o6ymbXvYAN9BjNGxFxgXPL";
}, {
    readonly name: "program";
    readonly kind: "base58";
    readonly bytes: 32;
    readonly maxLength: 44;
    readonly message: "expected a base58 32-byte address";
    readonly required: true;
    readonly nullable: false;
    readonly lake: {
        readonly column: "program";
        readonly partition: true;
    };
    readonly example: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";
}, {
    readonly name: "blockhash";
    readonly kind: "base58";
    readonly bytes: 32;
    readonly maxLength: 44;
    readonly message: "expected a base58 32-byte address";
    readonly required: true;
    readonly nullable: false;
    readonly lake: {
        readonly column: "blockhash";
        readonly type: "VARCHAR";
        readonly doc: "Blockhash the transaction was built against.";
    };
    readonly example: "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N";
}, {
    readonly name: "lastValidBlockHeight";
    readonly kind: "integer";
    readonly min: 0;
    readonly max: number;
    readonly required: true;
    readonly nullable: false;
    readonly lake: {
        readonly column: "last_valid_block_height";
        readonly type: "BIGINT";
        readonly doc: "Expiry block height of that blockhash.";
    };
    readonly example: 289000150;
}, {
    readonly min: number;
    readonly max: number;
    readonly name: "sentAt";
    readonly kind: "integer";
    readonly required: true;
    readonly nullable: false;
    readonly lake: {
        readonly column: "sent_at";
        readonly type: "TIMESTAMPTZ";
        readonly doc: "Client time of the attempt (UTC).";
    };
    readonly example: 1763700000000;
}, {
    readonly name: "rpcHash";
    readonly kind: "hex";
    readonly digits: {
        readonly min: 16;
        readonly max: 16;
    };
    readonly wholeBytes: false;
    readonly message: "expected 16 lower-case hex characters";
    readonly required: true;
    readonly nullable: false;
    readonly lake: {
        readonly column: "rpc_hash";
        readonly type: "VARCHAR";
        readonly doc: "First 16 hex of SHA-256 of the RPC origin.";
    };
    readonly example: "a1b2c3d4e5f60718";
}, {
    readonly name: "rpcLabel";
    readonly kind: "text";
    readonly minLength: 1;
    readonly maxLength: 64;
    readonly required: true;
    readonly nullable: false;
    readonly lake: {
        readonly column: "rpc_label";
        readonly type: "VARCHAR";
        readonly doc: "Coarse provider label (e.g. `helius`, `public`).";
    };
    readonly example: "helius";
}, {
    readonly name: "walletAdapter";
    readonly kind: "text";
    readonly minLength: 0;
    readonly maxLength: 64;
    readonly required: true;
    readonly nullable: false;
    readonly lake: {
        readonly column: "wallet_adapter";
        readonly type: "VARCHAR";
        readonly doc: "Wallet adapter name.";
    };
    readonly example: "Phantom";
}, {
    readonly name: "kind";
    readonly kind: "enum";
    readonly values: readonly ["send", "preflight"];
    readonly required: true;
    readonly nullable: false;
    readonly lake: {
        readonly column: "kind";
        readonly type: "VARCHAR";
        readonly doc: "`send` or `preflight`.";
    };
    readonly example: "preflight";
}, {
    readonly name: "preflightError";
    readonly kind: "text";
    readonly minLength: 0;
    readonly maxLength: 8192;
    readonly required: true;
    readonly nullable: true;
    readonly lake: {
        readonly column: "preflight_error";
        readonly type: "VARCHAR";
        readonly doc: "Preflight error text (kind = preflight), else null.";
    };
    readonly example: "Transaction simulation failed: Blockhash not found";
}, {
    readonly name: "simulationLogs";
    readonly kind: "lines";
    readonly maxLines: 200;
    readonly maxLineLength: 2048;
    readonly required: true;
    readonly nullable: false;
    readonly lake: {
        readonly column: "simulation_logs";
        readonly type: "VARCHAR[]";
        readonly doc: "Simulation logs captured by the client.";
    };
    readonly example: readonly ["Program 11111111111111111111111111111111 invoke [1]", "Program log: Error: insufficient funds"];
}, {
    readonly name: "payer";
    readonly kind: "base58-or-hex";
    readonly maxLength: 64;
    readonly hexDigits: {
        readonly min: 16;
        readonly max: 64;
    };
    readonly message: "expected a base58 public key or a hex hash";
    readonly required: true;
    readonly nullable: false;
    readonly lake: {
        readonly column: "payer";
        readonly type: "VARCHAR";
        readonly doc: 'Payer public key, or its salted hash (hex) under privacy "hash".';
    };
    readonly example: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
}, {
    readonly name: "sdkVersion";
    readonly kind: "text";
    readonly minLength: 1;
    readonly maxLength: 64;
    readonly required: true;
    readonly nullable: false;
    readonly lake: {
        readonly column: "sdk_version";
        readonly type: "VARCHAR";
        readonly doc: "Reporting SDK version.";
    };
    readonly example: "txray-js/0.1.0";
}, {
    readonly name: "cuLimit";
    readonly kind: "integer";
    readonly min: 0;
    readonly max: 1400000;
    readonly required: false;
    readonly nullable: false;
    readonly lake: {
        readonly column: "cu_limit";
        readonly type: "INTEGER";
        readonly doc: "Requested compute-unit limit, when the SDK knew it.";
    };
    readonly example: 200000;
}, {
    readonly name: "cuPriceMicroLamports";
    readonly kind: "integer";
    readonly min: 0;
    readonly max: number;
    readonly required: false;
    readonly nullable: false;
    readonly lake: {
        readonly column: "cu_price_micro_lamports";
        readonly type: "BIGINT";
        readonly doc: "Requested compute-unit price (µlamports/CU), when known.";
    };
    readonly example: 50000;
}, {
    readonly name: "maxRetries";
    readonly kind: "integer";
    readonly min: 0;
    readonly max: 1000;
    readonly required: false;
    readonly nullable: false;
    readonly lake: {
        readonly column: "max_retries";
        readonly type: "INTEGER";
        readonly doc: "sendTransaction maxRetries, when set.";
    };
    readonly example: 3;
}, {
    readonly name: "skipPreflight";
    readonly kind: "boolean";
    readonly required: false;
    readonly nullable: false;
    readonly lake: {
        readonly column: "skip_preflight";
        readonly type: "BOOLEAN";
        readonly doc: "Whether preflight was skipped, when known.";
    };
    readonly example: false;
}, {
    readonly name: "sendPath";
    readonly kind: "text";
    readonly minLength: 1;
    readonly maxLength: 64;
    readonly required: false;
    readonly nullable: false;
    readonly lake: {
        readonly column: "send_path";
        readonly type: "VARCHAR";
        readonly doc: "How it was sent (`rpc`, `sender`, `jito-bundle`, ...), when known.";
    };
    readonly example: "rpc";
}, {
    readonly name: "nonce";
    readonly kind: "boolean";
    readonly required: false;
    readonly nullable: false;
    readonly lake: {
        readonly column: "nonce";
        readonly type: "BOOLEAN";
        readonly doc: "Durable-nonce transaction (no blockhash expiry), when known.";
    };
    readonly example: true;
}, {
    readonly name: "ixPrefix";
    readonly kind: "hex";
    readonly digits: {
        readonly min: 0;
        readonly max: number;
    };
    readonly wholeBytes: true;
    readonly message: "expected the hex of at most 8 bytes (lower-case, an even number of digits)";
    readonly required: false;
    readonly nullable: false;
    readonly lake: {
        readonly column: "ix_prefix";
        readonly type: "VARCHAR";
        readonly doc: "First ≤ 8 data bytes of the targeted top-level instruction, lower-case hex, when the SDK sent it.";
    };
    readonly example: "66063d1201daebea";
}, {
    readonly name: "nonceAccount";
    readonly kind: "base58";
    readonly bytes: 32;
    readonly maxLength: 44;
    readonly message: "expected a base58 32-byte address";
    readonly required: false;
    readonly nullable: false;
    readonly lake: {
        readonly column: "nonce_account";
        readonly type: "VARCHAR";
        readonly doc: "Nonce account of a durable-nonce transaction (base58), when the SDK sent it.";
    };
    readonly example: "Bnqf7Do8xpxv7bCbwxkuRLbGQVGvPd67NhqHcY2wG9Ku";
}, {
    readonly name: "sentSlot";
    readonly kind: "integer";
    readonly min: 0;
    readonly max: number;
    readonly required: false;
    readonly nullable: false;
    readonly lake: {
        readonly column: "sent_slot";
        readonly type: "BIGINT";
        readonly doc: "Slot the client last saw its RPC report (`context.slot`) right before the send, when the SDK had one.";
    };
    readonly example: 289000000;
}];
export type EnvelopeFieldName = (typeof ENVELOPE_FIELDS)[number]["name"];
/** The table's entry of a field by name. */
export declare const envelopeField: <N extends EnvelopeFieldName>(name: N) => Extract<(typeof ENVELOPE_FIELDS)[number], {
    name: N;
}>;
/** The regular expression of lower-case hex of `digits` digits (whole bytes when `wholeBytes`). */
export declare function hexPattern(digits: {
    min: number;
    max: number;
}, wholeBytes: boolean): RegExp;
type Field = (typeof ENVELOPE_FIELDS)[number];
type ValueOf<F> = F extends {
    kind: "integer";
} ? number : F extends {
    kind: "boolean";
} ? boolean : F extends {
    kind: "enum";
    values: readonly (infer V)[];
} ? V : F extends {
    kind: "lines";
} ? string[] : string;
type FieldValue<F> = ValueOf<F> | (F extends {
    nullable: true;
} ? null : never);
type Flatten<T> = {
    [K in keyof T]: T[K];
};
/** One send attempt's telemetry, as the table defines it. */
export type Envelope = Flatten<{
    [F in Extract<Field, {
        required: true;
    }> as F["name"]]: FieldValue<F>;
} & {
    [F in Extract<Field, {
        required: false;
    }> as F["name"]]?: FieldValue<F>;
}>;
export {};
