// Resolver tests' helpers: envelopes ingested and flushed into the lake, and resolve runs until
// nothing is left to decide soon, as `txray jobs run resolve` does (a drop looked up at its expiry
// needs a second look-up in a later run); tests use a short recheck delay, so "soon" is a few hundred ms here.
import { expect } from "bun:test";
import { type ResolveOptions, resolveSettled } from "../../src/chain/resolve";
import type { Context } from "../../src/context";
import { flushSpool } from "../../src/lake/flush-spool";
import type { TestServer } from "./server";

export const resolveUntilSettled = (ctx: Context, options: ResolveOptions, settleMs = 300) =>
  resolveSettled(ctx, options, { settleMs });

/** Envelopes ingested (202) for account "acme", sealed and flushed: in the lake, ready for the resolver's intake. */
export async function ingestAndFlush(t: TestServer, envelopes: unknown[]): Promise<void> {
  expect((await t.ingest({ apiKey: t.key("acme"), envelopes })).status).toBe(202);
  await t.server.spool!.seal();
  await flushSpool(t.ctx);
}
