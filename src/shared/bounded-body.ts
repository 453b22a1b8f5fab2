// Reading a request body without trusting the client about its size: a Content-Length above the
// limit is refused before anything is read, one within it is read in one piece, and a body without
// one (chunked) is read only up to the limit. The server itself accepts bodies of any size (src/server/index.ts): its
// own refusal would be a 413 with an empty body, so every route that reads a body bounds it here and answers
// 413 `payload_too_large` with the error shape (docs/api.md#errors).

import { TxrayError } from "./errors";

export function tooLarge(limit: number, what = "body"): TxrayError {
  return new TxrayError("payload_too_large", `${what} exceeds ${limit} bytes`);
}

/** The body's bytes, at most `limit` of them; else 413 (`what` names it in the message). */
export async function readBoundedBody(
  request: Request,
  limit: number,
  what = "body",
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit, what);
  if (!request.body) return new Uint8Array(0);
  // A declared length within the limit bounds the body (the server frames it by that length): read
  // natively in one piece, at half the main thread's cost of reading the stream chunk by chunk.
  if (declared !== null && /^\d+$/.test(declared)) return new Uint8Array(await request.arrayBuffer());
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit, what);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
