// Thrift's compact protocol, write side only: the encoding of Parquet's page headers and footer
// (https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md). Only what
// Parquet metadata uses: i32, i64, binary, bool, struct, list. Integers must be safe integers.

export const ThriftType = { true: 1, false: 2, i32: 5, i64: 6, binary: 8, list: 9, struct: 12 } as const;

export class CompactWriter {
  private bytes = new Uint8Array(256);
  private length = 0;
  private lastField: number[] = [0];

  /** The bytes written so far (a copy). */
  finish(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }

  i32(id: number, value: number): this {
    this.fieldHeader(id, ThriftType.i32);
    return this.varint(zigzag(value));
  }

  i64(id: number, value: number): this {
    this.fieldHeader(id, ThriftType.i64);
    return this.varint(zigzag(value));
  }

  bool(id: number, value: boolean): this {
    return this.fieldHeader(id, value ? ThriftType.true : ThriftType.false);
  }

  binary(id: number, value: Uint8Array | string): this {
    this.fieldHeader(id, ThriftType.binary);
    return this.rawBinary(value);
  }

  /** A struct field; `body` writes its fields. */
  struct(id: number, body: (writer: this) => void): this {
    this.fieldHeader(id, ThriftType.struct);
    return this.structBody(body);
  }

  /** A list of structs. */
  structs<T>(id: number, items: readonly T[], body: (writer: this, item: T) => void): this {
    this.listHeader(id, ThriftType.struct, items.length);
    for (const item of items) this.structBody((writer) => body(writer, item));
    return this;
  }

  i32s(id: number, items: readonly number[]): this {
    this.listHeader(id, ThriftType.i32, items.length);
    for (const item of items) this.varint(zigzag(item));
    return this;
  }

  binaries(id: number, items: readonly string[]): this {
    this.listHeader(id, ThriftType.binary, items.length);
    for (const item of items) this.rawBinary(item);
    return this;
  }

  /** Ends the top-level struct (nested ones end themselves). */
  stop(): this {
    return this.byte(0);
  }

  private structBody(body: (writer: this) => void): this {
    this.lastField.push(0);
    body(this);
    this.lastField.pop();
    return this.byte(0);
  }

  private listHeader(id: number, elementType: number, size: number): void {
    this.fieldHeader(id, ThriftType.list);
    if (size < 15) this.byte((size << 4) | elementType);
    else this.byte(0xf0 | elementType).varint(size);
  }

  private fieldHeader(id: number, type: number): this {
    const depth = this.lastField.length - 1;
    const delta = id - this.lastField[depth];
    this.lastField[depth] = id;
    if (delta > 0 && delta <= 15) return this.byte((delta << 4) | type);
    return this.byte(type).varint(zigzag(id));
  }

  private rawBinary(value: Uint8Array | string): this {
    const bytes = typeof value === "string" ? new TextEncoder().encode(value) : value;
    this.varint(bytes.length);
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
    return this;
  }

  private varint(value: number): this {
    // value is non-negative and below 2^53: division instead of 32-bit shifts.
    while (value >= 128) {
      this.byte((value % 128) | 128);
      value = Math.floor(value / 128);
    }
    return this.byte(value);
  }

  private byte(value: number): this {
    this.reserve(1);
    this.bytes[this.length++] = value;
    return this;
  }

  private reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + more));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}

function zigzag(value: number): number {
  if (!Number.isSafeInteger(value)) throw new RangeError(`thrift: ${value} is not a safe integer`);
  return value >= 0 ? value * 2 : -value * 2 - 1;
}
