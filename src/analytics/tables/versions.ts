// The versions the tables job writes into what it keeps and publishes, in one place: a change of
// shape bumps one of these, and every reader and writer compares against the same constant.

/** The state's tables (state.ts): a state of another schema is upgraded (upgrade.ts) or rebuilt from the lake. */
export const STATE_SCHEMA = 12;

/** The serving tables of a version (serving-tables.ts), recorded in the version and its pointer; readers check it. */
export const SERVING_SCHEMA = 8;

/** The payer bot score's features and weights (payers.ts; docs/api.md#payerbotscore--version-bot-v2). */
export const BOT_SCORE_VERSION = "bot-v2";
