// What became of a send attempt (docs/architecture.md, "Outcomes, drops and issues"): written once,
// used by the control plane's index, the resolver and the query layer alike. Pending is not an outcome.

export const OUTCOMES = ["landed", "failed_onchain", "dropped", "preflight"] as const;
export type Outcome = (typeof OUTCOMES)[number];
