// @solana/web3.js 1.x: instruments a Connection in place (the same object comes back, its type and
// `instanceof Connection` intact). Every JSON-RPC call of a Connection goes through its own
// `_rpcRequest(method, args)` (an instance property set by the constructor), so replacing that one
// function sees every send path (sendTransaction, sendRawTransaction, sendEncodedTransaction,
// sendAndConfirmTransaction through the connection), every simulateTransaction and every
// getLatestBlockhash, with the raw JSON-RPC answer (the preflight error's JSON `err`, not only
// web3.js's text). The wrapper returns the very promise the original returned, so results and
// errors are untouched; it only notes the time and attaches a side observer.

import type { Observation, Recorder, Source } from "./recorder";

type RpcRequest = (method: string, args: unknown[]) => Promise<unknown>;

/** The part of a web3.js Connection the SDK relies on. */
export interface Web3ConnectionLike {
  rpcEndpoint: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;

const INSTRUMENTED = Symbol.for("txray.instrumented");

export function instrumentConnection<C extends Web3ConnectionLike>(
  connection: C,
  recorder: Recorder,
  source: (url: string, blockHeight: () => Promise<number>) => Source,
  simulationFailures: boolean,
): C {
  const target = connection as unknown as Json & { _rpcRequest?: RpcRequest };
  const original = target._rpcRequest;
  if (typeof original !== "function" || target[INSTRUMENTED as unknown as string]) return connection;
  const blockHeight = async () => {
    const answer = (await original.call(connection, "getBlockHeight", [])) as Json;
    if (typeof answer?.result !== "number") throw new Error("getBlockHeight failed");
    return answer.result;
  };
  let origin: Source | null = null;
  const getSource = () => (origin ??= source(connection.rpcEndpoint, blockHeight));

  const observed = (method: string, args: unknown[], sentAt: number, answer: unknown, thrown: unknown) => {
    try {
      const result = isObject(answer) && isObject(answer.result) ? answer.result : null;
      if (method === "getLatestBlockhash") {
        const value = result?.value;
        if (isObject(value)) recorder.rememberBlockhash(value.blockhash, value.lastValidBlockHeight);
        recorder.rememberSlot(getSource(), result?.context, isObject(args[0]) ? args[0].commitment : undefined);
        return;
      }
      const wire = args[0];
      const config = (isObject(args[1]) ? args[1] : {}) as Json;
      if (method === "simulateTransaction") recorder.rememberSlot(getSource(), result?.context, config.commitment);
      if (typeof wire !== "string" || (config.encoding !== undefined && config.encoding !== "base64")) return;
      if (method === "simulateTransaction") {
        const value = isObject(answer) && isObject(answer.result) ? answer.result.value : null;
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
      if (typeof config.maxRetries === "number") observation.maxRetries = config.maxRetries;
      observation.skipPreflight = config.skipPreflight === true;
      if (isObject(answer) && isObject(answer.error)) {
        // The RPC refused the transaction (a failed preflight, or a sanitize/signature check even
        // with skipPreflight): it was never broadcast.
        const error = answer.error;
        const data = isObject(error.data) ? error.data : {};
        observation.kind = "preflight";
        observation.preflightError =
          String(error.message ?? "sendTransaction failed") +
          (data.err !== undefined && data.err !== null
            ? ` ${safeJson({ err: data.err, unitsConsumed: data.unitsConsumed })}`
            : "");
        observation.logs = data.logs;
      } else if (thrown !== null) {
        // An HTTP status (web3.js: "429 Too Many Requests: …") means the RPC answered and refused;
        // a network failure leaves it unknown whether the transaction went out: report a send, which
        // the resolver will find landed or declare dropped.
        const message = thrown instanceof Error ? thrown.message : String(thrown);
        if (/^\d{3}\b/.test(message)) {
          observation.kind = "preflight";
          observation.preflightError = message;
        }
      }
      recorder.observe(observation);
    } catch {}
  };

  const wrapped: RpcRequest = function (this: unknown, method, args) {
    if (method !== "sendTransaction" && method !== "simulateTransaction" && method !== "getLatestBlockhash")
      return original.call(this, method, args);
    const sentAt = Date.now();
    const promise = original.call(this, method, args);
    if (promise && typeof promise.then === "function") {
      promise.then(
        (answer) => observed(method, args, sentAt, answer, null),
        (error) => observed(method, args, sentAt, null, error ?? "error"),
      );
    }
    return promise;
  };
  try {
    target._rpcRequest = wrapped;
    Object.defineProperty(target, INSTRUMENTED, { value: true });
  } catch {}
  return connection;
}

/** JSON that tolerates bigint (kit answers carry them). */
export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? Number(v) : v));
  } catch {
    return "";
  }
}

/** The preflightError text of a failed simulation: web3.js-style prefix plus the error as JSON. */
export function simulationText(err: unknown, unitsConsumed: unknown): string {
  return `Transaction simulation failed: ${safeJson({ err, unitsConsumed: unitsConsumed ?? undefined })}`;
}
