// Helpers shared by the IDL tests.

import { deflateSync } from "node:zlib";
import { IDL_ACCOUNT_DISCRIMINATOR } from "../../../src/chain/idl";

/** An Anchor IDL account's bytes: discriminator, authority, length, zlib-deflated JSON. */
export function idlAccountData(json: unknown): Uint8Array {
  const payload = deflateSync(Buffer.from(JSON.stringify(json)));
  const data = new Uint8Array(44 + payload.length);
  data.set(IDL_ACCOUNT_DISCRIMINATOR, 0);
  new DataView(data.buffer).setUint32(40, payload.length, true);
  data.set(payload, 44);
  return data;
}
