// Solana PubSub over WebSocket, the subset clients need to confirm transactions:
// signatureSubscribe / signatureUnsubscribe (web3.js confirmTransaction waits for the subscription
// before it even polls getSignatureStatuses) and slotSubscribe / slotUnsubscribe (@solana/kit's
// block-height exceedance watcher). Notifications use mainnet's shapes.

import { z } from "zod";
import { isBase58Signature } from "../../src/shared/base58.ts";
import type { LocalChain } from "./chain.ts";
import { FINALITY_DEPTH } from "./chain.ts";
import { handleJsonRpc, METHOD_NOT_FOUND, parseParams, RpcError, toJson } from "./jsonrpc.ts";

/** The part of a Bun ServerWebSocket the pub/sub needs (kept small so tests can fake it). */
export interface SocketLike {
  send(data: string): unknown;
  data: { subscriptions: Set<number> };
}

interface Subscription {
  socket: SocketLike;
  kind: "signature" | "slot";
  signature?: string;
}

export class PubSub {
  private readonly subscriptions = new Map<number, Subscription>();
  private readonly bySignature = new Map<string, Set<number>>();
  private nextId = 0;
  private readonly detach: (() => void)[] = [];

  constructor(private readonly chain: LocalChain) {
    this.detach.push(
      chain.onTransaction((record) => {
        const ids = this.bySignature.get(record.signature);
        if (!ids) return;
        this.bySignature.delete(record.signature);
        for (const id of ids) this.notifySignature(id, record.slot, record.err);
      }),
      chain.clock.onBlock((block) => {
        for (const [id, sub] of this.subscriptions) {
          if (sub.kind !== "slot") continue;
          this.push(sub.socket, "slotNotification", id, {
            parent: block.parentSlot,
            root: Math.max(chain.clock.firstAvailableSlot, block.slot - FINALITY_DEPTH),
            slot: block.slot,
          });
        }
      }),
    );
  }

  async message(socket: SocketLike, text: string): Promise<void> {
    const pending: (() => void)[] = [];
    const response = await handleJsonRpc(text, async (method, params) => this.call(socket, method, params, pending));
    if (response) socket.send(response);
    // Notifications for already-landed signatures go out after the subscription id.
    for (const run of pending) run();
  }

  close(socket: SocketLike): void {
    for (const id of socket.data.subscriptions) this.unsubscribe(id);
    socket.data.subscriptions.clear();
  }

  dispose(): void {
    for (const detach of this.detach) detach();
    this.subscriptions.clear();
    this.bySignature.clear();
  }

  private call(socket: SocketLike, method: string, params: unknown, pending: (() => void)[]): unknown {
    switch (method) {
      case "signatureSubscribe": {
        const [signature] = parseParams(z.tuple([z.string(), z.looseObject({}).nullish()]), params);
        if (!isBase58Signature(signature)) throw new RpcError(-32602, "Invalid param: Invalid");
        const id = this.add(socket, { socket, kind: "signature", signature });
        const record = this.chain.ledger.get(signature);
        if (record) pending.push(() => this.notifySignature(id, record.slot, record.err));
        else {
          let ids = this.bySignature.get(signature);
          if (!ids) this.bySignature.set(signature, (ids = new Set()));
          ids.add(id);
        }
        return id;
      }
      case "slotSubscribe":
        parseParams(z.tuple([]), params);
        return this.add(socket, { socket, kind: "slot" });
      case "signatureUnsubscribe":
      case "slotUnsubscribe": {
        const [id] = parseParams(z.tuple([z.number().int()]), params);
        const sub = this.subscriptions.get(id);
        if (!sub || sub.socket !== socket) throw new RpcError(-32602, "Invalid subscription id.");
        this.unsubscribe(id);
        return true;
      }
      case "ping":
        return "pong";
      default:
        throw new RpcError(METHOD_NOT_FOUND, "Method not found");
    }
  }

  private add(socket: SocketLike, sub: Subscription): number {
    const id = this.nextId++;
    this.subscriptions.set(id, sub);
    socket.data.subscriptions.add(id);
    return id;
  }

  private unsubscribe(id: number): void {
    const sub = this.subscriptions.get(id);
    if (!sub) return;
    this.subscriptions.delete(id);
    sub.socket.data.subscriptions.delete(id);
    if (sub.signature) this.bySignature.get(sub.signature)?.delete(id);
  }

  private notifySignature(id: number, slot: number, err: unknown): void {
    const sub = this.subscriptions.get(id);
    if (!sub) return;
    // A signature subscription fires once and is then removed, as on mainnet.
    this.unsubscribe(id);
    this.push(sub.socket, "signatureNotification", id, { context: { slot }, value: { err } });
  }

  private push(socket: SocketLike, method: string, subscription: number, result: unknown): void {
    try {
      socket.send(toJson({ jsonrpc: "2.0", method, params: { result, subscription } }));
    } catch {
      // The socket closed between the event and the send; close() cleans up.
    }
  }
}
