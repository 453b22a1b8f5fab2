import type { Recorder, Source } from "./recorder.js";
/** The part of a web3.js Connection the SDK relies on. */
export interface Web3ConnectionLike {
    rpcEndpoint: string;
}
export declare function instrumentConnection<C extends Web3ConnectionLike>(connection: C, recorder: Recorder, source: (url: string, blockHeight: () => Promise<number>) => Source, simulationFailures: boolean): C;
/** JSON that tolerates bigint (kit answers carry them). */
export declare function safeJson(value: unknown): string;
/** The preflightError text of a failed simulation: web3.js-style prefix plus the error as JSON. */
export declare function simulationText(err: unknown, unitsConsumed: unknown): string;
