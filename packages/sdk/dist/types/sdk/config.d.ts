export declare const DEFAULT_ENDPOINT = "http://127.0.0.1:8790";
type Env = Record<string, string | undefined>;
export declare function resolveEndpoint(option: string | undefined): string;
/** The CLI config file's path, as src/cli/user-config.ts computes it. */
export declare function userConfigPath(env: Env, home: string): string;
/** The key from the option, TXRAY_API_KEY or the CLI config file; undefined when none is found. */
export declare function resolveApiKey(option: string | undefined): Promise<string | undefined>;
export {};
