// Public surface of the control plane (bun:sqlite).
export { openControlDb, type ControlDb } from "./db";
export * from "./keys";
export * from "./programs";
export * from "./jobs";
export * from "./segments";
export * from "./settings";
export * from "./lease";
export * from "./ingest-nodes";
