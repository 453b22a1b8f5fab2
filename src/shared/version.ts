// The service and SDK version, from package.json (one source of truth).
import pkg from "../../package.json";
export const VERSION: string = pkg.version;
