/** SHA-256 of the RPC origin (scheme://host:port), hex, first 16 characters. Throws on a bad URL. */
export declare function rpcHash(url: string): string;
/** Coarse provider label of an RPC URL. */
export declare function rpcLabel(url: string): string;
/** The URL used when an RPC's URL is unknown (kit RPC instrumented without one). */
export declare const UNKNOWN_RPC = "unknown://rpc";
