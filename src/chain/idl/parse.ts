// Reads the three IDL dialects found on mainnet into one small shape the decoder needs: instruction
// discriminators (to name an instruction from its data) and error codes (to name a custom program
// error), plus each instruction's declared arguments and the IDL's type definitions as written, for
// the transaction page's decoded arguments (borsh.ts). Accounts and events are ignored on purpose.
//
// Dialects (docs/solana.md, "Anchor and IDLs"):
// - Anchor ≥ 0.30 "spec" IDL (`metadata.spec`): snake_case names, explicit 8-byte `discriminator`s,
//   program id in `address`.
// - Anchor legacy IDL (no `metadata.spec`): camelCase names, no discriminators; the discriminator is
//   sha256("global:" + snake_case(name))[..8], program id (if any) in `metadata.address`.
// - Shank IDL (`metadata.origin: "shank"`, e.g. Raydium AMM v4): legacy shape, native program;
//   each instruction carries `discriminant: { type: "u8", value }`, a one-byte tag. When a Shank
//   instruction has no `discriminant`, its position in `instructions` is used as the u8 tag (Shank
//   derives the tag from the Rust enum variant index, which is the IDL order).
// An explicit `discriminator` array on any instruction always wins (Anchor 0.31 custom discriminators).

import { createHash } from "node:crypto";
import { z } from "zod";
import { isBase58Address } from "../../shared/base58";
import { TxrayError } from "../../shared/errors";
import { toSnakeCase, toUpperCamelCase } from "./case";

export type IdlFormat = "anchor" | "anchor-legacy" | "shank";

export interface ParsedIdlInstruction {
  /** The name as the IDL spells it (`shared_accounts_route`, `sharedAccountsRoute`, `swapBaseIn`). */
  name: string;
  /** UpperCamelCase, as Anchor logs it in `Program log: Instruction: <displayName>`. */
  displayName: string;
  discriminator: Uint8Array;
  /** The arguments as the IDL declares them (`{ name, type }`), read by borsh.ts; empty when none. */
  args: unknown[];
}

export interface ParsedIdlError {
  code: number;
  name: string;
  msg: string | null;
}

export interface ParsedIdl {
  /** Program id declared by the IDL itself, when it declares one. */
  programId: string | null;
  name: string;
  format: IdlFormat;
  instructions: ParsedIdlInstruction[];
  errors: ParsedIdlError[];
  /** The IDL's `types` as written (struct and enum definitions the arguments refer to). */
  types: unknown[];
}

const byte = z.number().int().min(0).max(255);

const errorSchema = z.object({
  code: z.number().int().min(0).max(0xffffffff),
  name: z.string().min(1),
  msg: z.string().optional().nullable(),
});

const instructionSchema = z.object({
  name: z.string().min(1),
  discriminator: z.array(byte).min(1).max(32).optional(),
  discriminant: z.object({ type: z.string(), value: z.number().int().min(0) }).optional(),
  args: z.array(z.unknown()).optional(),
});

const idlSchema = z.object({
  address: z.string().optional(),
  name: z.string().optional(),
  version: z.string().optional(),
  metadata: z
    .object({
      name: z.string().optional(),
      spec: z.string().optional(),
      address: z.string().optional(),
      origin: z.string().optional(),
    })
    .optional(),
  instructions: z.array(instructionSchema),
  errors: z.array(errorSchema).optional(),
  types: z.array(z.unknown()).optional(),
});

type RawIdl = z.infer<typeof idlSchema>;
type RawInstruction = z.infer<typeof instructionSchema>;

/** sha256("global:<snake_case name>")[..8]: Anchor's instruction discriminator. */
export function anchorInstructionDiscriminator(name: string): Uint8Array {
  const digest = createHash("sha256")
    .update(`global:${toSnakeCase(name)}`)
    .digest();
  return new Uint8Array(digest.subarray(0, 8));
}

function detectFormat(raw: RawIdl): IdlFormat {
  if (raw.metadata?.spec !== undefined) return "anchor";
  if (raw.metadata?.origin === "shank") return "shank";
  return "anchor-legacy";
}

/** A u8/u16/u32 little-endian tag as Shank declares it. */
function shankTag(ix: RawInstruction, position: number): Uint8Array {
  const declared = ix.discriminant;
  if (!declared) return Uint8Array.of(position);
  const width = { u8: 1, u16: 2, u32: 4 }[declared.type];
  if (width === undefined) {
    throw new TxrayError("bad_request", `idl: instruction ${ix.name}: unsupported discriminant type ${declared.type}`);
  }
  const tag = new Uint8Array(width);
  for (let i = 0, v = declared.value; i < width; i++, v = Math.floor(v / 256)) tag[i] = v & 0xff;
  return tag;
}

function discriminatorFor(ix: RawInstruction, position: number, format: IdlFormat): Uint8Array {
  if (ix.discriminator) return Uint8Array.from(ix.discriminator);
  if (format === "shank") return shankTag(ix, position);
  if (format === "anchor") {
    throw new TxrayError("bad_request", `idl: instruction ${ix.name}: missing discriminator (Anchor ≥0.30 spec IDL)`);
  }
  return anchorInstructionDiscriminator(ix.name);
}

function declaredProgramId(raw: RawIdl): string | null {
  const id = raw.address ?? raw.metadata?.address ?? null;
  return id !== null && isBase58Address(id) ? id : null;
}

function issuePath(issue: z.core.$ZodIssue): string {
  return issue.path.length ? issue.path.map(String).join(".") : "(root)";
}

/** Parses an Anchor (legacy or ≥0.30 spec) or Shank IDL. Throws TxrayError("bad_request") when it is neither. */
export function parseIdl(json: unknown): ParsedIdl {
  const text = typeof json === "string" ? json : null;
  let value: unknown = json;
  if (text !== null) {
    try {
      value = JSON.parse(text);
    } catch {
      throw new TxrayError("bad_request", "idl: not valid JSON");
    }
  }
  if (value !== null && typeof value === "object" && (value as { kind?: unknown }).kind === "rootNode") {
    throw new TxrayError("bad_request", "idl: Codama root-node IDLs are not supported; convert to an Anchor IDL");
  }
  const result = idlSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new TxrayError("bad_request", `idl: ${issuePath(issue)}: ${issue.message}`);
  }
  const raw = result.data;
  const format = detectFormat(raw);
  const instructions = raw.instructions.map((ix, position) => ({
    name: ix.name,
    displayName: toUpperCamelCase(ix.name),
    discriminator: discriminatorFor(ix, position, format),
    args: ix.args ?? [],
  }));
  const errors = (raw.errors ?? []).map((e) => ({ code: e.code, name: e.name, msg: e.msg ?? null }));
  return {
    programId: declaredProgramId(raw),
    name: raw.metadata?.name ?? raw.name ?? "unknown",
    format,
    instructions,
    errors,
    types: raw.types ?? [],
  };
}
