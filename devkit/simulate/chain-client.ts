// Plain JSON-RPC calls the simulator makes outside web3.js: the localnet's txray_* admin methods
// (add providers, advance blocks, deploy) and status look-ups used to record ground truth. Going over
// HTTP (not in-process calls) lets the simulator drive a localnet running in another process.

import type { DeployResult } from "../localnet/chain.ts";
import type { TransactionErrorJson } from "../localnet/errors.ts";
import type { ProviderInfo } from "../localnet/provider.ts";

export class ChainRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "ChainRpcError";
  }
}

export interface StatusValue {
  slot: number;
  confirmations: number | null;
  err: TransactionErrorJson | null;
  confirmationStatus: string;
}

export class ChainClient {
  private id = 0;
  constructor(readonly url: string) {}

  async call<T>(method: string, params?: unknown): Promise<T> {
    const response = await fetch(this.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++this.id, method, params }),
    });
    const body = (await response.json()) as { result?: T; error?: { code: number; message: string; data?: unknown } };
    if (body.error) throw new ChainRpcError(body.error.code, body.error.message, body.error.data);
    return body.result as T;
  }

  advanceBlocks(count: number) {
    return this.call<{ slot: number; blockHeight: number; blockhash: string }>("txray_advanceBlocks", { count });
  }
  addProvider(options: { label: string; dropRate: number; seed?: number }) {
    return this.call<ProviderInfo>("txray_addProvider", options);
  }
  listProviders() {
    return this.call<ProviderInfo[]>("txray_listProviders");
  }
  deployProgram(options: { programId?: string; template?: string } = {}) {
    return this.call<DeployResult>("txray_deployProgram", options);
  }
  blockHeight() {
    return this.call<number>("getBlockHeight");
  }

  async signatureStatus(signature: string): Promise<StatusValue | null> {
    const result = await this.call<{ value: (StatusValue | null)[] }>("getSignatureStatuses", [
      [signature],
      { searchTransactionHistory: true },
    ]);
    return result.value[0];
  }

  /** Polls until the signature has a status or `timeoutMs` passes (local sends execute synchronously). */
  async waitForStatus(signature: string, timeoutMs = 2000): Promise<StatusValue | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.signatureStatus(signature);
      if (status || Date.now() >= deadline) return status;
      await Bun.sleep(25);
    }
  }
}
