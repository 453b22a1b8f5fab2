// TXRAY_ROLES: what one process runs. `ingest` takes POST /v1/ingest into this node's spool
// (TXRAY_NODE_ID); `read` answers the read routes from the serving tables and the control plane;
// `jobs` runs the scheduler (flush, resolve, deploys, tables, compact; TXRAY_SCHEDULER=off still turns
// it off). Every node answers GET /v1/status. The default runs all three (one box); a larger
// deployment runs N ingest nodes, M read nodes and one job runner over one data directory
// (docs/scaling.md).

export type Role = "ingest" | "read" | "jobs";

export type Roles = {
  /** The roles, in a fixed order (for logs and messages). */
  readonly list: readonly Role[];
  /** Whether this process serves `role`: wrap the registration of each group of routes or tasks in it. */
  allows(role: Role): boolean;
};

const ORDER: Role[] = ["ingest", "read", "jobs"];

export function parseRoles(setting: string): Roles {
  const wanted = new Set(setting.split(",").map((role) => role.trim()));
  const list = ORDER.filter((role) => wanted.has(role));
  return { list, allows: (role) => list.includes(role) };
}
