// The webhook signature (docs/alerts.md#signature): `X-Txray-Signature: t=<unix seconds>,v1=<hex>`,
// v1 = HMAC-SHA256(secret, "<t>.<raw body>"). The timestamp is signed with the body so a captured
// request cannot be replayed later; a receiver checks it is recent and compares in constant time.
// verifySignature is what docs/alerts.md shows a receiver doing (the test runs the snippet there too).

import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "X-Txray-Signature";
/** How far a signature's timestamp may be from the receiver's clock (docs/alerts.md recommends it). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex")}`;
}

/** Whether `header` signs `body` with `secret` at a time within the tolerance of `nowSeconds`. */
export function verifySignature(
  secret: string,
  header: string | null,
  body: string,
  nowSeconds: number,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): boolean {
  if (!header) return false;
  const parts = new Map(header.split(",").map((part) => part.trim().split("=", 2) as [string, string]));
  const t = Number(parts.get("t"));
  const given = parts.get("v1");
  if (!Number.isInteger(t) || !given || !/^[0-9a-f]{64}$/.test(given) || Math.abs(nowSeconds - t) > toleranceSeconds)
    return false;
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(given, "hex"));
}
