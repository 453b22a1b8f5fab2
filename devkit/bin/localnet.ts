// `bun run localnet`: serves the local chain on LOCALNET_PORT (default 8899, PubSub on 8900 like
// solana-test-validator) with one block every LOCALNET_BLOCK_TIME_MS (default 400), prints the URL,
// and shuts down cleanly on SIGINT/SIGTERM. Settings are validated once at start-up.

import { z } from "zod";
import { startLocalnet } from "../localnet/index.ts";

const settings = z.object({
  LOCALNET_PORT: z.coerce.number().int().min(0).max(65535).default(8899),
  LOCALNET_HOST: z.string().min(1).default("127.0.0.1"),
  LOCALNET_BLOCK_TIME_MS: z.coerce.number().int().min(0).default(400),
  LOCALNET_SEED: z.coerce.number().int().default(1),
});

const parsed = settings.safeParse(process.env);
if (!parsed.success) {
  const issue = parsed.error.issues[0];
  console.error(`invalid setting ${issue.path.join(".")}: ${issue.message}`);
  process.exit(2);
}
const env = parsed.data;

const localnet = await startLocalnet({
  port: env.LOCALNET_PORT,
  hostname: env.LOCALNET_HOST,
  blockTimeMs: env.LOCALNET_BLOCK_TIME_MS,
  seed: env.LOCALNET_SEED,
});
console.log(`localnet JSON-RPC ${localnet.url}  (PubSub ${localnet.wsUrl})`);
console.log(
  `slot ${localnet.chain.slot}, block height ${localnet.chain.blockHeight}, one block every ${env.LOCALNET_BLOCK_TIME_MS || "∞"} ms`,
);

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping localnet`);
  await localnet.stop();
  process.exit(0);
};
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
