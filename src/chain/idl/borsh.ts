// An instruction's arguments read from its data as its IDL declares them (Borsh, the encoding Anchor
// and Shank programs use), for the transaction page. Both IDL dialects' type spellings are read
// (`publicKey` / `pubkey`, `{ defined: "Name" }` / `{ defined: { name } }`), with structs, enums,
// aliases, vectors, options and fixed arrays of the IDL's own `types`. Integers wider than 32 bits
// are decimal strings (JSON numbers lose them). Data that does not fit the declaration, types the
// reader does not know and hostile sizes give null, never a partial or invented value.

import { encodeBase58 } from "../../shared/base58";
import type { ParsedIdl, ParsedIdlInstruction } from "./parse";

/** Bounds on what one instruction's arguments may expand to (its data is at most ~1,232 bytes). */
const MAX_DEPTH = 12;
const MAX_ITEMS = 2_000;

class Unreadable extends Error {}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

class Cursor {
  offset = 0;
  items = 0;
  constructor(
    readonly bytes: Uint8Array,
    readonly types: Map<string, Json>,
  ) {}
  take(length: number): Uint8Array {
    if (length < 0 || this.offset + length > this.bytes.length) throw new Unreadable();
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }
  unsigned(bytes: number): bigint {
    const raw = this.take(bytes);
    let value = 0n;
    for (let i = bytes - 1; i >= 0; i--) value = (value << 8n) | BigInt(raw[i]);
    return value;
  }
  count(): number {
    const n = Number(this.unsigned(4));
    this.items += n;
    if (this.items > MAX_ITEMS) throw new Unreadable();
    return n;
  }
}

const INTEGER_BYTES: Record<string, number> = {
  u8: 1,
  u16: 2,
  u32: 4,
  u64: 8,
  u128: 16,
  i8: 1,
  i16: 2,
  i32: 4,
  i64: 8,
  i128: 16,
};

function integer(cursor: Cursor, type: string): number | string {
  const bytes = INTEGER_BYTES[type];
  let value = cursor.unsigned(bytes);
  if (type.startsWith("i") && value >= 1n << BigInt(bytes * 8 - 1)) value -= 1n << BigInt(bytes * 8);
  return bytes <= 4 ? Number(value) : value.toString();
}

function definedName(type: Json): string | null {
  const defined = type.defined;
  if (typeof defined === "string") return defined;
  if (isObject(defined) && typeof defined.name === "string") return defined.name;
  return null;
}

function fields(cursor: Cursor, declared: unknown, depth: number): unknown {
  if (!Array.isArray(declared)) return null;
  const named = declared.every((field) => isObject(field) && typeof field.name === "string");
  if (named) {
    const out: Json = {};
    for (const field of declared as Json[]) out[field.name as string] = read(cursor, field.type, depth + 1);
    return out;
  }
  return declared.map((type) => read(cursor, isObject(type) && "type" in type ? type.type : type, depth + 1));
}

function readDefined(cursor: Cursor, name: string, depth: number): unknown {
  const definition = cursor.types.get(name);
  const body = definition && isObject(definition.type) ? definition.type : null;
  if (!body) throw new Unreadable();
  if (body.kind === "struct") return fields(cursor, body.fields ?? [], depth);
  if (body.kind === "alias") return read(cursor, body.value, depth + 1);
  if (body.kind === "enum" && Array.isArray(body.variants)) {
    const variant = body.variants[cursor.take(1)[0]];
    if (!isObject(variant) || typeof variant.name !== "string") throw new Unreadable();
    return variant.fields === undefined ? variant.name : { [variant.name]: fields(cursor, variant.fields, depth) };
  }
  throw new Unreadable();
}

function read(cursor: Cursor, type: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new Unreadable();
  if (typeof type === "string") {
    if (type in INTEGER_BYTES) return integer(cursor, type);
    switch (type) {
      case "bool":
        return cursor.take(1)[0] !== 0;
      case "publicKey":
      case "pubkey":
        return encodeBase58(cursor.take(32));
      case "string":
        return new TextDecoder("utf-8", { fatal: true }).decode(cursor.take(cursor.count()));
      case "bytes":
        return Buffer.from(cursor.take(cursor.count())).toString("hex");
      case "f32":
        return new DataView(cursor.take(4).slice().buffer).getFloat32(0, true);
      case "f64":
        return new DataView(cursor.take(8).slice().buffer).getFloat64(0, true);
      default:
        throw new Unreadable();
    }
  }
  if (!isObject(type)) throw new Unreadable();
  if ("vec" in type) return Array.from({ length: cursor.count() }, () => read(cursor, type.vec, depth + 1));
  if ("option" in type) return cursor.take(1)[0] === 0 ? null : read(cursor, type.option, depth + 1);
  if ("coption" in type) return cursor.unsigned(4) === 0n ? null : read(cursor, type.coption, depth + 1);
  const array = type.array;
  if (Array.isArray(array) && typeof array[1] === "number") {
    const length = array[1];
    cursor.items += length;
    if (cursor.items > MAX_ITEMS) throw new Unreadable();
    return Array.from({ length }, () => read(cursor, array[0], depth + 1));
  }
  const name = definedName(type);
  if (name !== null) return readDefined(cursor, name, depth);
  throw new Unreadable();
}

/**
 * The arguments of `instruction` (of `idl`) in `data`, named as the IDL names them; null when the data
 * does not read as declared (wrong length, an unknown type, a variant out of range).
 */
export function decodeInstructionArgs(
  idl: ParsedIdl,
  instruction: ParsedIdlInstruction,
  data: Uint8Array,
): Record<string, unknown> | null {
  const types = new Map<string, Json>();
  for (const definition of idl.types)
    if (isObject(definition) && typeof definition.name === "string") types.set(definition.name, definition);
  const cursor = new Cursor(data, types);
  try {
    cursor.take(instruction.discriminator.length);
    const args = fields(cursor, instruction.args, 0);
    return isObject(args) && cursor.offset === data.length ? args : null;
  } catch {
    return null;
  }
}
