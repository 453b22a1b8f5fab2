import type { Recorder, Source } from "./recorder.js";
export declare function instrumentKitRpc<R extends object>(rpc: R, recorder: Recorder, source: Source | ((blockHeight: () => Promise<number>) => Source), simulationFailures: boolean): R;
