// The simulator's bot lands in the bot segment and its people in the human one (payerBotScore
// bot-v2, docs/api.md): real transactions on the local chain through three providers, resolved and
// tabled by a real txray server; the score of every payer, its segment, and the top issues' bot
// segment holding the bot's failures only.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { BOT_ADAPTER } from "../../../devkit/simulate";
import { payerFeatures } from "../../../src/analytics/queries";
import { type SimulatedWorld, simulatedWorld } from "../../web/support";

let world: SimulatedWorld;
beforeAll(async () => {
  // Four people and the bot, 400 attempts: some 60 sends each, enough gaps for their quartiles.
  world = await simulatedWorld(400, {}, { payers: 5 });
}, 180_000);
afterAll(async () => await world?.stop());

test("the bot scores as a bot, every person as a human", async () => {
  const payers = new Map(world.attempts.map((a) => [a.envelope.payer, a.envelope.walletAdapter]));
  expect([...payers.values()].filter((adapter) => adapter === BOT_ADAPTER)).toHaveLength(1);
  for (const [payer, adapter] of payers) {
    const features = await payerFeatures(world.t.ctx, payer);
    expect(features).not.toBeNull();
    if (adapter === BOT_ADAPTER) {
      expect({ payer, segment: features!.segment }).toEqual({ payer, segment: "bot" });
      expect(features!.score).toBeGreaterThanOrEqual(0.7);
      expect(features!.gapDispersion!).toBeLessThan(0.15); // a timer
    } else {
      expect({ payer, adapter, segment: features!.segment }).toEqual({ payer, adapter, segment: "human" });
    }
  }
});

test("top issues: the bot segment holds the bot's failures, the human segment the people's", async () => {
  for (const program of new Set(world.attempts.map((a) => a.envelope.program))) {
    const top = (await (await fetch(`${world.t.url}/v1/top-issues/${program}?window=1d&limit=500`)).json()) as any;
    expect(top.segments.mixed).toEqual([]);
    for (const [segment, issues] of [
      ["bot", top.segments.bot],
      ["human", top.segments.human],
    ] as const) {
      for (const issue of issues) {
        const detail = (await (await fetch(`${world.t.url}/v1/issue/${issue.fingerprint}?window=1d`)).json()) as any;
        const keypair = detail.breakdowns.walletAdapters.find((s: any) => s.key === BOT_ADAPTER)?.count ?? 0;
        expect(issue.count).toBe(segment === "bot" ? keypair : detail.counts["1d"] - keypair);
      }
    }
    expect(top.segments.bot.length + top.segments.human.length).toBeGreaterThan(0);
  }
});
