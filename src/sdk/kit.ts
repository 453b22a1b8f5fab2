// @solana/kit: instruments an RPC made by createSolanaRpc. kit's RPC is a Proxy whose methods return
// pending requests ({ send() }); the SDK returns a Proxy over it whose sendTransaction,
// simulateTransaction and getLatestBlockhash return pending requests whose send() calls the
// original and observes the promise on the side, returning that very promise. kit's RPC does not
// expose its URL, so pass it (`instrumentRpc(rpc, url)`) for rpcHash/rpcLabel; without it the
// attempt is labelled "custom" under one shared hash.

import { KIT_PREFLIGHT_FAILURE, transactionErrorFromKit } from "./kit-errors";
import type { Observation, Recorder, Source } from "./recorder";
import { safeJson, simulationText } from "./web3";

type Json = Record<string, unknown>;
type Pending = { send(options?: unknown): Promise<unknown> } & Json;
type Method = (...params: unknown[]) => Pending;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;
const WATCHED = new Set(["sendTransaction", "simulateTransaction", "getLatestBlockhash"]);

/** The text a kit preflight error would have had from the RPC, with its TransactionError as JSON. */
function kitPreflightText(error: unknown): { text: string; logs: unknown } | null {
  if (!isObject(error) || !isObject(error.context)) return null;
  const context = error.context;
  if (Number(context.__code) !== KIT_PREFLIGHT_FAILURE) {
    // kit's production messages are only "Solana error #<code>"; prefer what the server said.
    if (typeof context.statusCode === "number")
      return { text: `${context.statusCode} ${String(context.message ?? "")}`.trim(), logs: null };
    if (typeof context.__serverMessage === "string") return { text: context.__serverMessage, logs: null };
    const message = typeof error.message === "string" ? error.message : String(error);
    return { text: message, logs: null };
  }
  const err = transactionErrorFromKit(error.cause);
  return { text: simulationText(err, context.unitsConsumed), logs: context.logs };
}

/** RPCs this module returned, so instrumenting one twice does not report every attempt twice. */
const instrumented = new WeakSet<object>();

/** The commitment a kit request asks for: kit's RPC fills in "confirmed" (its DEFAULT_RPC_CONFIG) when the call names none. */
const commitmentOf = (config: unknown) =>
  isObject(config) && config.commitment !== undefined ? config.commitment : "confirmed";

export function instrumentKitRpc<R extends object>(
  rpc: R,
  recorder: Recorder,
  source: Source | ((blockHeight: () => Promise<number>) => Source),
  simulationFailures: boolean,
): R {
  if (instrumented.has(rpc)) return rpc;
  let origin: Source | null = null;
  const getSource = () => (origin ??= typeof source === "function" ? source(blockHeight) : source);
  const blockHeight = async () => Number(await ((rpc as unknown as Json).getBlockHeight as Method)().send());

  const observed = (method: string, params: unknown[], sentAt: number, answer: unknown, thrown: unknown) => {
    try {
      if (method === "getLatestBlockhash") {
        const value = isObject(answer) ? answer.value : null;
        if (isObject(value)) recorder.rememberBlockhash(value.blockhash, value.lastValidBlockHeight);
        if (isObject(answer)) recorder.rememberSlot(getSource(), answer.context, commitmentOf(params[0]));
        return;
      }
      const wire = params[0];
      const config = (isObject(params[1]) ? params[1] : {}) as Json;
      if (method === "simulateTransaction" && isObject(answer))
        recorder.rememberSlot(getSource(), answer.context, commitmentOf(config));
      if (typeof wire !== "string" || config.encoding !== "base64") return;
      if (method === "simulateTransaction") {
        const value = isObject(answer) ? answer.value : null;
        if (!simulationFailures || !isObject(value) || value.err === null || value.err === undefined) return;
        recorder.observe({
          source: getSource(),
          sentAt,
          wire,
          kind: "preflight",
          simulation: true,
          preflightError: simulationText(value.err, value.unitsConsumed),
          logs: value.logs,
        });
        return;
      }
      const observation: Observation = {
        source: getSource(),
        sentAt,
        wire,
        kind: "send",
        preflightError: null,
        logs: null,
      };
      if (config.maxRetries !== undefined && config.maxRetries !== null)
        observation.maxRetries = Number(config.maxRetries);
      observation.skipPreflight = config.skipPreflight === true;
      if (thrown !== null) {
        const preflight = kitPreflightText(thrown);
        // A kit error with a context is the RPC's JSON-RPC refusal (or HTTP status): never broadcast.
        if (preflight) {
          observation.kind = "preflight";
          observation.preflightError = preflight.text || safeJson(thrown);
          observation.logs = preflight.logs;
        }
      }
      recorder.observe(observation);
    } catch {}
  };

  const wrapPending = (method: string, params: unknown[], pending: Pending): Pending =>
    new Proxy(pending, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== "send" || typeof value !== "function") return value;
        return function (this: unknown, ...args: unknown[]) {
          const sentAt = Date.now();
          const promise = value.apply(target, args) as Promise<unknown>;
          if (promise && typeof promise.then === "function") {
            promise.then(
              (answer) => observed(method, params, sentAt, answer, null),
              (error) => observed(method, params, sentAt, null, error ?? "error"),
            );
          }
          return promise;
        };
      },
    });

  const proxy = new Proxy(rpc, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== "string" || !WATCHED.has(property) || typeof value !== "function") return value;
      return (...params: unknown[]) => {
        const pending = (value as Method)(...params);
        return isObject(pending) && typeof pending.send === "function"
          ? wrapPending(property, params, pending)
          : pending;
      };
    },
  });
  instrumented.add(proxy);
  return proxy;
}
