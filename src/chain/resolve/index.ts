// Public surface of chain resolution: pending attempts → outcomes, stories and drop diagnoses.
export { resolvePending, resolveLanded, type ResolveOptions, type ResolveSummary } from "./resolve";
export { classifyDrop, DROP_ADVICE, DROP_CLASSES, type DropClass } from "./drops";
export { transaction } from "./chain-reads";
export { indexedStory } from "./record";
export * from "./types";
